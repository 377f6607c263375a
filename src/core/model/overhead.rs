//! What every request carries besides the events, read from a merged
//! config: the system prompt as jp renders it (prompt, sections,
//! instructions), the definitions of the enabled tools, and the output
//! reserve (the configured maximum output tokens).

use crate::core::model::config::unwrap_value;
use crate::core::model::event::count_chars;
use serde_json::Value;

/// The system prompt's parts: `assistant.system_prompt`, the content of each
/// `assistant.system_prompt_sections` entry, and each
/// `assistant.instructions` entry (title, description, items, examples).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SystemPrompt {
    pub prompt: String,
    pub sections: Vec<String>,
    pub instructions: Vec<String>,
}

impl SystemPrompt {
    pub fn chars(&self) -> u64 {
        count_chars(&self.prompt)
            + self
                .sections
                .iter()
                .chain(&self.instructions)
                .map(|s| count_chars(s))
                .sum::<u64>()
    }
}

fn list(v: Option<&Value>) -> &[Value] {
    v.map(unwrap_value)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn text(v: Option<&Value>) -> Option<&str> {
    v.map(unwrap_value).and_then(Value::as_str)
}

/// The text of one instruction block, its markup left out: what is sent of
/// it up to the XML tags jp wraps it in.
fn instruction_text(v: &Value) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for key in ["title", "description"] {
        parts.extend(text(v.get(key)));
    }
    for key in ["items", "examples"] {
        parts.extend(list(v.get(key)).iter().filter_map(|i| {
            i.as_str()
                .or_else(|| text(i.get("content")))
                .or_else(|| text(i.get("good")))
        }));
    }
    parts.join("\n")
}

pub fn system_prompt(config: &Value) -> SystemPrompt {
    let Some(assistant) = config.get("assistant") else {
        return SystemPrompt::default();
    };
    SystemPrompt {
        prompt: text(assistant.get("system_prompt"))
            .unwrap_or_default()
            .to_string(),
        sections: list(assistant.get("system_prompt_sections"))
            .iter()
            .filter_map(|s| text(s.get("content")))
            .map(str::to_owned)
            .collect(),
        instructions: list(assistant.get("instructions"))
            .iter()
            .map(instruction_text)
            .filter(|t| !t.is_empty())
            .collect(),
    }
}

/// What a part of the request's fixed overhead is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind {
    /// `assistant.system_prompt`.
    Prompt,
    /// One `assistant.system_prompt_sections` entry.
    Section,
    /// One `assistant.instructions` block.
    Instruction,
    /// One enabled tool's definition.
    Tool,
}

impl PartKind {
    pub fn label(self) -> &'static str {
        match self {
            PartKind::Prompt => "system prompt",
            PartKind::Section => "section",
            PartKind::Instruction => "instruction",
            PartKind::Tool => "tool",
        }
    }
}

/// One part of what every request carries besides the events, in the
/// order jp sends them, with the characters it counts for: the system
/// prompt's parts add up to [`SystemPrompt::chars`], the tools' to
/// [`Tools::chars`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub kind: PartKind,
    /// What it is called: a tool's name, an instruction's title, "section 2".
    pub name: String,
    /// Its text as a person reads it (a tool: its description, then its
    /// input schema as indented JSON).
    pub text: String,
    pub chars: u64,
}

/// The system prompt's parts, then the enabled tools', of a merged config.
pub fn parts(config: &Value) -> Vec<Part> {
    let sp = system_prompt(config);
    let mut out = Vec::new();
    if !sp.prompt.is_empty() {
        out.push(Part {
            kind: PartKind::Prompt,
            name: "system prompt".into(),
            chars: count_chars(&sp.prompt),
            text: sp.prompt,
        });
    }
    for (k, text) in sp.sections.into_iter().enumerate() {
        out.push(Part {
            kind: PartKind::Section,
            name: format!("section {}", k + 1),
            chars: count_chars(&text),
            text,
        });
    }
    for (k, text) in sp.instructions.into_iter().enumerate() {
        let name = text
            .lines()
            .next()
            .filter(|l| !l.trim().is_empty())
            .map_or_else(|| format!("instruction {}", k + 1), str::to_owned);
        out.push(Part {
            kind: PartKind::Instruction,
            name,
            chars: count_chars(&text),
            text,
        });
    }
    for (name, tool) in enabled_tools(config) {
        let counted = Counted::of(name, tool);
        let mut shown = counted.description.clone();
        if counted.unknown_schema {
            shown
                .push_str("\n\n(its input schema is known to its MCP server only, so not counted)");
        } else {
            shown.push_str("\n\ninput schema:\n");
            shown.push_str(&serde_json::to_string_pretty(&counted.schema).unwrap_or_default());
        }
        let chars = counted.chars;
        out.push(Part {
            kind: PartKind::Tool,
            name: name.clone(),
            text: shown,
            chars,
        });
    }
    out
}

/// The definitions of the tools a request offers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tools {
    /// Characters of the known definitions: name, summary, description,
    /// examples and the parameters as compact JSON.
    pub chars: u64,
    pub enabled: usize,
    /// Enabled tools whose schema only their MCP server knows: counted by
    /// name and description only, and said so.
    pub unknown: Vec<String>,
}

/// Whether an `enable` value turns the tool on: `true`, `"always"`, or
/// jp's normalised `{"state": ...}` of either.
fn enabled(v: Option<&Value>) -> bool {
    match v.map(unwrap_value) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s == "always",
        Some(Value::Object(o)) => enabled(o.get("state")),
        _ => false,
    }
}

/// The enabled entries of `conversation.tools` (falling back to the `*`
/// defaults for `enable`), by name.
fn enabled_tools(config: &Value) -> impl Iterator<Item = (&String, &Value)> {
    let map = config
        .get("conversation")
        .and_then(|c| c.get("tools"))
        .map(unwrap_value)
        .and_then(Value::as_object);
    let default_enable = map.and_then(|m| m.get("*")).and_then(|d| d.get("enable"));
    map.into_iter()
        .flat_map(|m| m.iter())
        .filter(|(k, _)| k.as_str() != "*")
        .filter(move |(_, tool)| enabled(tool.get("enable").or(default_enable)))
}

/// One tool as a request offers it: its name, its description (summary,
/// description and examples, as jp's docs join them) and its input schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    pub schema: Value,
    /// Only its MCP server knows its schema.
    pub unknown_schema: bool,
}

/// The enabled tools of `conversation.tools` (entries fall back to the `*`
/// defaults for `enable`), as a request offers them.
pub fn tool_definitions(config: &Value) -> Vec<ToolDefinition> {
    enabled_tools(config)
        .map(|(name, tool)| {
            let c = Counted::of(name, tool);
            ToolDefinition {
                name: name.clone(),
                description: c.description,
                schema: c.schema,
                unknown_schema: c.unknown_schema,
            }
        })
        .collect()
}

/// The enabled tools of `conversation.tools` (entries fall back to the `*`
/// defaults for `enable`).
pub fn tools(config: &Value) -> Tools {
    let mut out = Tools::default();
    for (name, tool) in enabled_tools(config) {
        let counted = Counted::of(name, tool);
        out.enabled += 1;
        out.chars += counted.chars;
        if counted.unknown_schema {
            out.unknown.push(name.clone());
        }
    }
    out
}

/// One enabled tool as a request offers it and as the estimate counts it:
/// its name, its description (summary, description and examples, joined
/// as jp's docs join them) and its input schema as compact JSON (an empty
/// object schema for a tool without parameters). One way of counting, for
/// the totals, the `O` list, `count` and the request.
struct Counted {
    description: String,
    schema: Value,
    /// Only its MCP server knows its schema: not counted, and said.
    unknown_schema: bool,
    chars: u64,
}

impl Counted {
    fn of(name: &str, tool: &Value) -> Counted {
        let description = ["summary", "description", "examples"]
            .iter()
            .filter_map(|k| text(tool.get(*k)))
            .collect::<Vec<_>>()
            .join("\n\n");
        let (schema, unknown_schema) = match tool.get("parameters") {
            Some(p) => (input_schema(p), false),
            None => (
                serde_json::json!({"type": "object", "properties": {}}),
                text(tool.get("source")).is_some_and(|s| s.starts_with("mcp")),
            ),
        };
        let schema_chars = if unknown_schema {
            0
        } else {
            count_chars(&schema.to_string())
        };
        let chars = count_chars(name) + count_chars(&description) + schema_chars;
        Counted {
            description,
            schema,
            unknown_schema,
            chars,
        }
    }
}

/// A tool's parameters as the input schema jp sends the provider: an
/// object schema of the parameters, each as a JSON schema (type,
/// description, default, a non-empty enum, items, properties) with the
/// required ones listed, rather than jp's stored form (a `required` flag on
/// each, an empty `enum` kept or not). So the count is the same for a
/// conversation and for jp's save of it, which rewrites that form.
fn input_schema(parameters: &Value) -> Value {
    let Some(params) = parameters.as_object() else {
        return parameters.clone();
    };
    serde_json::json!({
        "type": "object",
        "properties": params
            .iter()
            .map(|(k, v)| (k.clone(), parameter_schema(v)))
            .collect::<serde_json::Map<_, _>>(),
        "required": required_of(params),
    })
}

fn required_of(params: &serde_json::Map<String, Value>) -> Vec<Value> {
    params
        .iter()
        .filter(|(_, v)| v.get("required").and_then(Value::as_bool) == Some(true))
        .map(|(k, _)| Value::String(k.clone()))
        .collect()
}

fn parameter_schema(p: &Value) -> Value {
    let Some(o) = p.as_object() else {
        return p.clone();
    };
    let mut out = serde_json::Map::new();
    if let Some(t) = o.get("type") {
        out.insert("type".into(), t.clone());
    }
    if let Some(d) = o
        .get("summary")
        .or_else(|| o.get("description"))
        .filter(|d| d.is_string())
    {
        out.insert("description".into(), d.clone());
    }
    if let Some(d) = o.get("default").filter(|d| !d.is_null()) {
        out.insert("default".into(), d.clone());
    }
    if let Some(e) = o
        .get("enum")
        .filter(|e| e.as_array().is_some_and(|a| !a.is_empty()))
    {
        out.insert("enum".into(), e.clone());
    }
    if let Some(items) = o.get("items").filter(|i| i.is_object()) {
        out.insert("items".into(), parameter_schema(items));
    }
    if let Some(props) = o.get("properties").and_then(Value::as_object)
        && !props.is_empty()
    {
        out.insert(
            "properties".into(),
            Value::Object(
                props
                    .iter()
                    .map(|(k, v)| (k.clone(), parameter_schema(v)))
                    .collect(),
            ),
        );
        let required = required_of(props);
        if !required.is_empty() {
            out.insert("required".into(), Value::Array(required));
        }
    }
    Value::Object(out)
}

/// The configured maximum output tokens (`assistant.model.parameters.
/// max_tokens`), which the window must leave room for.
pub fn max_output_tokens(config: &Value) -> Option<u64> {
    let params = config
        .get("assistant")?
        .get("model")
        .map(unwrap_value)?
        .get("parameters")
        .map(unwrap_value)?;
    params
        .get("max_tokens")
        .map(unwrap_value)
        .and_then(Value::as_u64)
        .filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_system_prompt_counts_prompt_sections_and_instructions() {
        let c = json!({"assistant": {
            "system_prompt": "abcd",
            "system_prompt_sections": {"value": [{"content": "ef", "tag": "x"}]},
            "instructions": [{"title": "T", "items": ["one", "two"], "position": 0}]
        }});
        let p = system_prompt(&c);
        assert_eq!(p.sections, vec!["ef"]);
        assert_eq!(p.instructions, vec!["T\none\ntwo"]);
        assert_eq!(p.chars(), 4 + 2 + 9);
    }

    #[test]
    fn only_enabled_tools_count_and_mcp_schemas_are_unknown() {
        let c = json!({"conversation": {"tools": {
            "*": {"run": "ask"},
            "on": {"enable": true, "summary": "ab", "parameters": {"p": {"type": "string"}}},
            "always": {"enable": "always", "source": "local"},
            "normalised": {"enable": {"state": true, "allow_toggle": "any"}},
            "off": {"enable": false, "summary": "xxxxxxxx"},
            "explicit": {"enable": "explicit", "summary": "xxxxxxxx"},
            "remote": {"enable": true, "source": "mcp.server.tool", "summary": "cd"}
        }}});
        let t = tools(&c);
        assert_eq!(t.enabled, 4);
        // The form jp stores and the one it saves count the same.
        let stored = tools(&json!({"conversation": {"tools": {
            "on": {"enable": true, "summary": "ab", "parameters": {
                "p": {"type": "array", "required": true, "enum": [], "items": {"type": "string"}}}},
        }}}));
        let saved = tools(&json!({"conversation": {"tools": {
            "on": {"enable": {"state": true, "allow_toggle": "any"}, "summary": "ab", "parameters": {
                "p": {"type": "array", "required": true, "items": {"type": "string", "required": false}}}},
        }}}));
        assert_eq!(stored.chars, saved.chars);
        assert_eq!(
            input_schema(
                &json!({"p": {"type": "array", "required": true, "summary": "s", "items": {"type": "string"}}})
            ),
            json!({"type": "object", "properties": {"p": {"type": "array", "description": "s", "items": {"type": "string"}}}, "required": ["p"]})
        );
        assert_eq!(t.unknown, vec!["remote"]);
        // The schema as sent: an object of the parameters, none required.
        let params =
            r#"{"type":"object","properties":{"p":{"type":"string"}},"required":[]}"#.len() as u64;
        // A tool without parameters is sent with an empty object schema.
        let empty = r#"{"type":"object","properties":{}}"#.len() as u64;
        assert_eq!(
            t.chars,
            2 + 2 + params + 6 + empty + 10 + empty + 6 + 2,
            "names, summaries and the schema"
        );
    }

    #[test]
    fn the_parts_add_up_to_the_system_prompt_and_the_tools() {
        let c = json!({"assistant": {
            "system_prompt": "You are helpful.",
            "system_prompt_sections": {"value": [{"content": "ef", "tag": "x"}]},
            "instructions": [{"title": "Style", "items": ["one", "two"]}]
        }, "conversation": {"tools": {
            "fs_read": {"enable": true, "summary": "Read a file.", "parameters": {"path": {"type": "string", "required": true}}},
            "remote": {"enable": true, "source": "mcp.s.t", "summary": "cd"},
            "off": {"enable": false, "summary": "x"}
        }}});
        let p = parts(&c);
        let kinds: Vec<_> = p.iter().map(|p| (p.kind, p.name.as_str())).collect();
        assert_eq!(
            kinds,
            vec![
                (PartKind::Prompt, "system prompt"),
                (PartKind::Section, "section 1"),
                (PartKind::Instruction, "Style"),
                (PartKind::Tool, "fs_read"),
                (PartKind::Tool, "remote"),
            ]
        );
        let of = |k: &[PartKind]| -> u64 {
            p.iter()
                .filter(|p| k.contains(&p.kind))
                .map(|p| p.chars)
                .sum()
        };
        assert_eq!(
            of(&[PartKind::Prompt, PartKind::Section, PartKind::Instruction]),
            system_prompt(&c).chars()
        );
        assert_eq!(of(&[PartKind::Tool]), tools(&c).chars);
        assert!(p[3].text.contains("Read a file.") && p[3].text.contains("\"required\""));
        assert!(p[4].text.contains("MCP server"));
    }

    #[test]
    fn max_output_tokens_is_read_when_configured() {
        let c = json!({"assistant": {"model": {"parameters": {"max_tokens": 8192}}}});
        assert_eq!(max_output_tokens(&c), Some(8192));
        assert_eq!(max_output_tokens(&json!({})), None);
    }

    #[test]
    fn system_prompt_reads_wrapped_values_and_sections() {
        let sp = system_prompt(&json!({"assistant": {
            "system_prompt": {"value": "abc"},
            "system_prompt_sections": {"value": [{"content": "de", "tag": "t"}, {"content": "f"}]}
        }}));
        assert_eq!(sp.prompt, "abc");
        assert_eq!(sp.chars(), 6);
    }
}
