//! The system prompt as jp's thread hands it to a provider: the prompt,
//! then every section rendered, each one part. Sections are the configured
//! `assistant.system_prompt_sections`, every `assistant.instructions` block
//! turned into an `<instruction>` section, and, when any tool is enabled,
//! jp's own "Tool Usage" instruction; ordered by `position` (stable), as
//! jp's `build_sections` orders them.

use crate::core::model::config::unwrap_value;
use serde_json::Value;

/// A section before rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Section {
    tag: Option<String>,
    title: Option<String>,
    content: String,
    position: i64,
}

fn text(v: Option<&Value>) -> Option<&str> {
    v.map(unwrap_value).and_then(Value::as_str)
}

fn list(v: Option<&Value>) -> &[Value] {
    v.map(unwrap_value)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn position(v: &Value) -> i64 {
    v.get("position")
        .map(unwrap_value)
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

fn section(v: &Value) -> Section {
    match unwrap_value(v) {
        // A bare string is the section's whole content.
        Value::String(s) => Section {
            tag: None,
            title: None,
            content: s.clone(),
            position: 0,
        },
        v => Section {
            tag: text(v.get("tag")).map(str::to_owned),
            title: text(v.get("title")).map(str::to_owned),
            content: text(v.get("content")).unwrap_or_default().to_owned(),
            position: position(v),
        },
    }
}

/// An instruction block as jp's `to_section` writes it: the description and
/// a blank line, `- item` lines, then `**Examples**` with each example
/// (`Good:`/`Bad:`/`Reason:` for a contrast).
fn instruction(v: &Value) -> Section {
    let v = unwrap_value(v);
    let mut content = String::new();
    if let Some(d) = text(v.get("description")) {
        content.push_str(d);
        content.push_str("\n\n");
    }
    for item in list(v.get("items")) {
        if let Some(i) = unwrap_value(item).as_str() {
            content.push_str(&format!("- {i}\n"));
        }
    }
    let examples = list(v.get("examples"));
    if !examples.is_empty() {
        content.push_str("\n**Examples**\n");
        for e in examples {
            content.push('\n');
            match unwrap_value(e) {
                Value::String(s) => content.push_str(&format!("{s}\n")),
                e => {
                    let field = |k: &str| text(e.get(k)).unwrap_or_default();
                    content.push_str(&format!("Good: {}\n", field("good")));
                    content.push_str(&format!("Bad: {}\n", field("bad")));
                    if let Some(r) = text(e.get("reason")) {
                        content.push_str(&format!("Reason: {r}\n"));
                    }
                }
            }
        }
    }
    Section {
        tag: Some("instruction".into()),
        title: text(v.get("title")).map(str::to_owned),
        content: content.trim_end().to_owned(),
        position: position(v),
    }
}

/// jp's instruction for a conversation with tools.
fn tool_usage() -> Section {
    Section {
        tag: Some("instruction".into()),
        title: Some("Tool Usage".into()),
        content: "How to leverage the tools available to you.\n\n\
                  - Use all the tools available to you to give the best possible answer.\n\
                  - Verify the tool name, description and parameters are correct.\n\
                  - Even if you've reasoned yourself towards a solution, use any available \
                  tool to verify your answer."
            .into(),
        position: 0,
    }
}

fn escape_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Content with XML's own characters goes in CDATA (a `]]>` inside split
/// across two), so it cannot break the tag around it.
fn cdata_if_needed(content: &str) -> String {
    if !content.contains(['<', '>', '&']) {
        return content.to_owned();
    }
    format!(
        "<![CDATA[\n{}\n]]>",
        content.replace("]]>", "]]]]><![CDATA[>")
    )
}

impl Section {
    fn render(&self) -> String {
        match (&self.tag, &self.title) {
            (Some(tag), Some(title)) => format!(
                "<{tag} title=\"{}\">\n{}\n</{tag}>",
                escape_attr(title),
                cdata_if_needed(&self.content).trim()
            ),
            (Some(tag), None) => format!(
                "<{tag}>\n{}\n</{tag}>",
                cdata_if_needed(&self.content).trim()
            ),
            (None, Some(title)) => format!("# {title}\n\n{}", self.content),
            (None, None) => self.content.trim().to_owned(),
        }
    }
}

/// The system parts of a merged config, in the order jp sends them;
/// `has_tools`: whether any tool is enabled.
pub fn of(config: &Value, has_tools: bool) -> Vec<String> {
    let Some(assistant) = config.get("assistant") else {
        return Vec::new();
    };
    let mut sections: Vec<Section> = list(assistant.get("system_prompt_sections"))
        .iter()
        .map(section)
        .collect();
    sections.extend(list(assistant.get("instructions")).iter().map(instruction));
    if has_tools {
        sections.push(tool_usage());
    }
    sections.sort_by_key(|s| s.position);
    text(assistant.get("system_prompt"))
        .map(str::to_owned)
        .into_iter()
        .chain(sections.iter().map(Section::render))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sections_render_by_tag_and_title() {
        let config = json!({"assistant": {
            "system_prompt": "You are helpful.",
            "system_prompt_sections": [
                "  plain  ",
                {"title": "Style", "content": "Be brief.", "position": 2},
                {"tag": "rules", "content": "a < b", "position": 1},
                {"tag": "skill", "title": "Say \"hi\"", "content": "x ]]> y", "position": 1}
            ]
        }});
        assert_eq!(
            of(&config, false),
            vec![
                "You are helpful.",
                "plain",
                "<rules>\n<![CDATA[\na < b\n]]>\n</rules>",
                "<skill title=\"Say &quot;hi&quot;\">\n<![CDATA[\nx ]]]]><![CDATA[> y\n]]>\n</skill>",
                "# Style\n\nBe brief.",
            ]
        );
    }

    #[test]
    fn instructions_are_sections_and_tools_add_jps_own() {
        let config = json!({"assistant": {"instructions": [{
            "title": "Commits",
            "description": "How to commit.",
            "items": ["Small steps.", "Say why."],
            "examples": ["fix: x", {"good": "a", "bad": "b", "reason": "c"}],
            "position": 5
        }]}});
        let parts = of(&config, true);
        assert_eq!(parts.len(), 2, "no prompt; tool usage first (position 0)");
        assert!(parts[0].starts_with("<instruction title=\"Tool Usage\">\nHow to leverage"));
        assert_eq!(
            parts[1],
            "<instruction title=\"Commits\">\nHow to commit.\n\n- Small steps.\n- Say why.\n\n\
             **Examples**\n\nfix: x\n\nGood: a\nBad: b\nReason: c\n</instruction>"
        );
        assert!(of(&json!({}), true).is_empty());
    }
}
