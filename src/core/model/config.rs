//! The conversation's merged config (base config, then each config delta),
//! read for what jp-inspect needs: the model (the system prompt and tools
//! are in `overhead`).

use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use serde_json::Value;
use std::fmt;

/// Deep-merges `overlay` into `base` as `jp` does: objects merge key by key,
/// jp's mergeable lists (see `merge_list`) by their strategy, anything else
/// is replaced wholesale.
pub fn merge(base: &mut Value, overlay: &Value) {
    if let (Some(prev), Some(next)) = (as_list(base), as_list(overlay)) {
        *base = merge_list(prev, next);
        return;
    }
    match (base, overlay) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                let slot = a.entry(k.clone()).or_insert(Value::Null);
                match (list_like(slot), list_like(v)) {
                    (Some(prev), Some(next)) if MERGEABLE_LISTS.contains(&k.as_str()) => {
                        *slot = merge_list(prev, next);
                    }
                    _ => merge(slot, v),
                }
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

/// Lists jp merges by appending even when both sides are plain arrays (its
/// `MergeableVec` fields that are read here): a skill's config delta adds
/// its sections and instructions to the system prompt.
const MERGEABLE_LISTS: [&str; 3] = ["system_prompt_sections", "instructions", "rules"];

/// A list in jp's wrapped form, `{"value": [...], "strategy": ...,
/// "discard_when_merged": ...}`: (items, strategy, discard when merged).
type List<'a> = (&'a [Value], Option<&'a str>, bool);

fn as_list(v: &Value) -> Option<List<'_>> {
    let o = v.as_object()?;
    let items = o.get("value")?.as_array()?;
    if !o
        .keys()
        .all(|k| ["value", "strategy", "discard_when_merged"].contains(&k.as_str()))
    {
        return None;
    }
    Some((
        items,
        o.get("strategy").and_then(Value::as_str),
        o.get("discard_when_merged")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    ))
}

/// A plain array or a wrapped list.
fn list_like(v: &Value) -> Option<List<'_>> {
    match v {
        Value::Array(a) => Some((a, None, false)),
        _ => as_list(v),
    }
}

/// jp's `vec_with_strategy`: a default (`discard_when_merged`) is replaced;
/// otherwise the next list's strategy decides, appending when it names none.
fn merge_list(prev: List<'_>, next: List<'_>) -> Value {
    let (prev, _, discard) = prev;
    let (next, strategy, _) = next;
    let items: Vec<Value> = match (discard, strategy) {
        (true, _) | (false, Some("replace")) => next.to_vec(),
        (false, Some("prepend")) => next.iter().chain(prev).cloned().collect(),
        _ => prev.iter().chain(next).cloned().collect(),
    };
    Value::Array(items)
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
    fn jps_lists_merge_by_their_strategy() {
        let wrapped =
            |v: Value, s: &str| json!({"value": v, "strategy": s, "discard_when_merged": false});
        // A skill's delta appends its sections to a stored (wrapped) list.
        let mut a =
            json!({"assistant": {"system_prompt_sections": wrapped(json!([1, 2]), "replace")}});
        merge(
            &mut a,
            &json!({"assistant": {"system_prompt_sections": [3]}}),
        );
        assert_eq!(a["assistant"]["system_prompt_sections"], json!([1, 2, 3]));
        // Plain on both sides, a known mergeable list: appended too.
        let mut a = json!({"assistant": {"instructions": [1]}});
        merge(&mut a, &json!({"assistant": {"instructions": [2]}}));
        assert_eq!(a["assistant"]["instructions"], json!([1, 2]));
        // The next list's own strategy decides.
        let mut a = json!({"instructions": [1, 2]});
        merge(
            &mut a,
            &json!({"instructions": wrapped(json!([3]), "replace")}),
        );
        assert_eq!(a["instructions"], json!([3]));
        let mut a = json!({"instructions": [1]});
        merge(
            &mut a,
            &json!({"instructions": wrapped(json!([0]), "prepend")}),
        );
        assert_eq!(a["instructions"], json!([0, 1]));
        // A default is discarded when anything is merged over it.
        let mut a = json!({"rules": {"value": [9], "discard_when_merged": true}});
        merge(&mut a, &json!({"rules": [1]}));
        assert_eq!(a["rules"], json!([1]));
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
