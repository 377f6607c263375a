//! The conversation's merged config (base config, then each config delta),
//! read for what jp-inspect needs: the model (the system prompt and tools
//! are in `overhead`).

use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use serde_json::Value;
use std::fmt;

/// Deep-merges `overlay` into `base` as `jp` does: objects merge key by key,
/// anything else is replaced wholesale.
pub fn merge(base: &mut Value, overlay: &Value) {
    match (base, overlay) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

/// The merged config in effect just before event `upto` (all of it when
/// `None`).
pub fn merged(conv: &Conversation, upto: Option<usize>) -> Value {
    let mut config = conv.base_config.clone();
    let end = upto.unwrap_or(conv.events.len()).min(conv.events.len());
    for (i, e) in conv.events[..end].iter().enumerate() {
        if e.kind == Kind::ConfigDelta
            && let Ok(v) = serde_json::from_str::<Value>(conv.raw(i))
        {
            merge(&mut config, &delta_of(&v));
        }
    }
    config
}

/// `jp` configs may wrap a value with its merge strategy:
/// `{"value": ..., "strategy": ...}`.
pub fn unwrap_value(v: &Value) -> &Value {
    match v {
        Value::Object(o) if o.contains_key("value") => &o["value"],
        other => other,
    }
}

/// The model a conversation talks to, as configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelId {
    /// `"anthropic/claude-opus-4-6"` or an alias such as `"flash"`.
    Named(String),
    /// `{"provider": "anthropic", "name": "claude-opus-4-6"}`.
    Provider { provider: String, name: String },
}

impl ModelId {
    pub fn from_json(v: &Value) -> Option<ModelId> {
        match unwrap_value(v) {
            Value::String(s) if !s.is_empty() => Some(ModelId::Named(s.clone())),
            Value::Object(o) => {
                let name = o.get("name").map(unwrap_value)?.as_str()?.to_string();
                let provider = o
                    .get("provider")
                    .map(unwrap_value)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                Some(ModelId::Provider { provider, name })
            }
            _ => None,
        }
    }

    /// The bare model name, without a provider prefix.
    pub fn name(&self) -> &str {
        match self {
            ModelId::Named(s) => s.rsplit_once('/').map_or(s.as_str(), |(_, n)| n),
            ModelId::Provider { name, .. } => name,
        }
    }

    pub fn provider(&self) -> Option<&str> {
        match self {
            ModelId::Named(s) => s.split_once('/').map(|(p, _)| p),
            ModelId::Provider { provider, .. } if !provider.is_empty() => Some(provider),
            ModelId::Provider { .. } => None,
        }
    }
}

impl fmt::Display for ModelId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelId::Named(s) => f.write_str(s),
            ModelId::Provider { provider, name } if provider.is_empty() => f.write_str(name),
            ModelId::Provider { provider, name } => write!(f, "{provider}/{name}"),
        }
    }
}

/// `assistant.model.id` of a config.
pub fn model_id(config: &Value) -> Option<ModelId> {
    let model = config.get("assistant")?.get("model")?;
    ModelId::from_json(unwrap_value(model).get("id")?)
}

/// The `conversation.compaction.auto` table of a config, if any.
pub fn auto_compaction_table(config: &Value) -> Option<&Value> {
    config.get("conversation")?.get("compaction")?.get("auto")
}

/// The partial config of a `config_delta` event: its `delta`, or the event
/// itself minus `type`/`timestamp` for the inline legacy shape.
pub fn delta_of(event: &Value) -> Value {
    match event.get("delta") {
        Some(d) => d.clone(),
        None => {
            let mut obj = event.as_object().cloned().unwrap_or_default();
            obj.shift_remove("type");
            obj.shift_remove("timestamp");
            Value::Object(obj)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_is_deep_for_objects_and_wholesale_otherwise() {
        let mut a = json!({"assistant": {"model": {"id": "a"}, "name": "x"}, "list": [1, 2]});
        merge(
            &mut a,
            &json!({"assistant": {"model": {"id": {"provider": "p", "name": "n"}}}, "list": [3]}),
        );
        assert_eq!(
            a,
            json!({"assistant": {"model": {"id": {"provider": "p", "name": "n"}}, "name": "x"}, "list": [3]})
        );
    }

    #[test]
    fn model_id_forms() {
        let named = model_id(&json!({"assistant": {"model": {"id": "anthropic/claude-opus-4-6"}}}))
            .unwrap();
        assert_eq!(named.name(), "claude-opus-4-6");
        assert_eq!(named.provider(), Some("anthropic"));
        let alias = model_id(&json!({"assistant": {"model": {"id": "flash"}}})).unwrap();
        assert_eq!(alias.name(), "flash");
        let obj = model_id(
            &json!({"assistant": {"model": {"id": {"provider": "google", "name": "gemini-3-flash-preview"}}}}),
        )
        .unwrap();
        assert_eq!(obj.to_string(), "google/gemini-3-flash-preview");
        assert!(model_id(&json!({"assistant": {"model": {"id": null}}})).is_none());
    }
}
