//! The conversation's merged config (base config, then each config delta),
//! read for what jp-inspect needs: the model (the system prompt and tools
//! are in `overhead`).

use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use serde_json::Value;
use std::fmt;

/// jp's own resolved configuration, when jp runs jp-inspect as `jp
/// inspect` and hands it over: jp read the config files, its environment
/// and `--cfg`, so its reading wins over jp-inspect's own. The shell that
/// received it passes it with each request that reads configuration.
#[derive(Debug, Clone, Default)]
pub struct JpResolved {
    pub config: std::sync::Arc<Value>,
    /// What jp-inspect's own reading of each config tree (a workspace's
    /// `.jp` and its silo) says otherwise, found once per tree: comparing
    /// parses the tree whole.
    pub said: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<ConfigTree, Vec<String>>>>,
}

/// A config tree: a workspace's `.jp` folder and its silo.
pub type ConfigTree = (Option<std::path::PathBuf>, Option<std::path::PathBuf>);

impl JpResolved {
    pub fn new(config: Value) -> JpResolved {
        JpResolved {
            config: std::sync::Arc::new(config),
            said: Default::default(),
        }
    }
}

/// Deep-merges `overlay` into `base` as `jp` does: objects merge key by
/// key; jp's mergeable values (lists, strings and maps written as
/// `{"value": …, "strategy": …, "discard_when_merged": …}`, the form jp
/// saves them in) merge by their strategy; anything else is replaced
/// wholesale. Wrappers are kept, so a later merge still sees a default's
/// `discard_when_merged`; [`resolve`] takes them off.
pub fn merge(base: &mut Value, overlay: &Value) {
    if let Some(next) = Wrapped::of(overlay) {
        *base = next.merged_over(base);
        return;
    }
    if let Some(prev) = Wrapped::of(base) {
        *base = prev.under_plain(overlay);
        return;
    }
    match (base, overlay) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                let slot = a.entry(k.clone()).or_insert(Value::Null);
                if let Some(inner) = wrapped_section(k, v) {
                    merge(slot, inner);
                    continue;
                }
                match (slot.as_array(), v.as_array()) {
                    (Some(prev), Some(next)) if MERGEABLE_LISTS.contains(&k.as_str()) => {
                        *slot = Value::Array(prev.iter().chain(next).cloned().collect());
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
const MERGEABLE_LISTS: [&str; 4] = [
    "system_prompt_sections",
    "instructions",
    "rules",
    "attachments",
];

/// Sections of jp's config that are plain tables in its types, so a
/// `{"value": {...}}` around one (as some config deltas carry) can only
/// mean the table inside, merged key by key.
const SECTIONS: [&str; 8] = [
    "assistant",
    "conversation",
    "compaction",
    "auto",
    "model",
    "parameters",
    "providers",
    "llm",
];

/// The table inside a section written as `{"value": {...}}`.
fn wrapped_section<'a>(key: &str, v: &'a Value) -> Option<&'a Value> {
    let o = v.as_object()?;
    let inner = o.get("value").filter(|i| i.is_object())?;
    (SECTIONS.contains(&key) && o.keys().all(|k| WRAPPER_KEYS.contains(&k.as_str())))
        .then_some(inner)
}

/// The parts of a jp config document that its `extends` and compaction
/// settings are read from (`extends`, `conversation.compaction`, through
/// any `{"value": ...}` around a section): what a reader of those sees in
/// it, and nothing of the rest of the file.
pub fn compaction_part(doc: &Value) -> Value {
    let Some(o) = doc.as_object() else {
        return doc.clone();
    };
    if Wrapped::of(doc).is_some() {
        // A whole document in a wrapper: rare enough to keep as it is.
        return doc.clone();
    }
    let mut out = serde_json::Map::new();
    if let Some(e) = o.get("extends") {
        out.insert("extends".into(), e.clone());
    }
    if let Some(c) = o.get("conversation") {
        out.insert("conversation".into(), only_compaction(c));
    }
    // jp-inspect's own settings, where jp keeps them for it.
    if let Some(options) = plugin_options(doc) {
        out.insert(
            "plugins".into(),
            serde_json::json!({"command": {"inspect": {"options": options}}}),
        );
    }
    Value::Object(out)
}

/// `plugins.command.inspect.options` of a config, through any wrappers.
pub fn plugin_options(doc: &Value) -> Option<Value> {
    let mut at = unwrap_value(doc);
    for key in ["plugins", "command", "inspect", "options"] {
        at = unwrap_section(key, at.get(key)?);
    }
    Some(at.clone())
}

/// A `conversation` section with only its `compaction` table, the wrapper
/// around it (if any) kept as it was.
fn only_compaction(c: &Value) -> Value {
    let pick = |table: &Value| -> Value {
        match table.as_object() {
            Some(t) => {
                let mut out: serde_json::Map<String, Value> = t
                    .get("compaction")
                    .map(|v| ("compaction".to_string(), v.clone()))
                    .into_iter()
                    .collect();
                // D17's per-tool hints, and nothing else of the tools.
                let hints: serde_json::Map<String, Value> = t
                    .get("tools")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .filter_map(|(name, tool)| {
                        let hint = unwrap_value(tool).get("compaction")?;
                        Some((name.clone(), serde_json::json!({"compaction": hint})))
                    })
                    .collect();
                if !hints.is_empty() {
                    out.insert("tools".into(), Value::Object(hints));
                }
                Value::Object(out)
            }
            None => table.clone(),
        }
    };
    match (wrapped_section("conversation", c), c.as_object()) {
        (Some(inner), Some(wrapper)) => {
            let mut w = wrapper.clone();
            w.insert("value".into(), pick(inner));
            Value::Object(w)
        }
        _ => pick(c),
    }
}

/// `v` itself, or the table inside it when it is a section written as
/// `{"value": {...}}`: for readers of one section of a config.
pub fn unwrap_section<'a>(key: &str, v: &'a Value) -> &'a Value {
    wrapped_section(key, v).unwrap_or(v)
}

/// The keys of jp's wrapper objects.
const WRAPPER_KEYS: [&str; 5] = [
    "value",
    "strategy",
    "discard_when_merged",
    "separator",
    "dedup",
];

/// One of jp's mergeable values in its wrapped form.
#[derive(Debug, Clone, Copy)]
struct Wrapped<'a> {
    value: &'a Value,
    strategy: Option<&'a str>,
    separator: &'a str,
    discard: bool,
    raw: &'a Value,
}

impl<'a> Wrapped<'a> {
    /// `v` as a wrapper, when it is one: an object of only the wrapper keys
    /// holding a list or a string as its `value`, or a map with a
    /// `strategy` (jp's own test for a wrapped map, whose `value` could be
    /// an ordinary key otherwise).
    fn of(v: &'a Value) -> Option<Wrapped<'a>> {
        let o = v.as_object()?;
        let value = o.get("value")?;
        if !o.keys().all(|k| WRAPPER_KEYS.contains(&k.as_str())) {
            return None;
        }
        let strategy = o.get("strategy").and_then(Value::as_str);
        let is_form = match value {
            Value::Array(_) | Value::String(_) => true,
            Value::Object(_) => strategy.is_some(),
            _ => false,
        };
        is_form.then_some(Wrapped {
            value,
            strategy,
            separator: match o.get("separator").and_then(Value::as_str) {
                Some("space") => " ",
                Some("line") => "\n",
                Some("paragraph") => "\n\n",
                _ => "",
            },
            discard: o
                .get("discard_when_merged")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            raw: v,
        })
    }

    /// The same wrapper around `value`.
    fn with_value(&self, value: Value) -> Value {
        let mut o = self.raw.as_object().cloned().unwrap_or_default();
        o.insert("value".into(), value);
        Value::Object(o)
    }

    /// This wrapper merged over `base` (jp's `vec_with_strategy`,
    /// `string_with_strategy`, `map_with_strategy`), still wrapped.
    fn merged_over(&self, base: &Value) -> Value {
        let prev = Wrapped::of(base);
        if prev.is_some_and(|p| p.discard) || base.is_null() {
            return self.raw.clone();
        }
        let prev_value = prev.map_or(base, |p| p.value);
        let value = match (prev_value, self.value) {
            (Value::Array(p), Value::Array(n)) => Value::Array(match self.strategy {
                Some("replace") => n.clone(),
                Some("prepend") => n.iter().chain(p).cloned().collect(),
                _ => p.iter().chain(n).cloned().collect(),
            }),
            (Value::String(p), Value::String(n)) => Value::String(match self.strategy {
                Some("replace") => n.clone(),
                Some("prepend") => format!("{n}{}{p}", self.separator),
                // A merged string appends by default.
                _ => format!("{p}{}{n}", self.separator),
            }),
            (Value::Object(p), Value::Object(n)) => {
                let mut out = p.clone();
                match self.strategy {
                    Some("replace") => out = n.clone(),
                    Some("merge") => out.extend(n.iter().map(|(k, v)| (k.clone(), v.clone()))),
                    Some("keep") => {
                        for (k, v) in n {
                            out.entry(k.clone()).or_insert_with(|| v.clone());
                        }
                    }
                    _ => {
                        let mut merged = Value::Object(out);
                        merge(&mut merged, &Value::Object(n.clone()));
                        return self.with_value(merged);
                    }
                }
                Value::Object(out)
            }
            (_, n) => n.clone(),
        };
        self.with_value(value)
    }

    /// A plain `next` merged over this wrapper: a default is replaced; a
    /// list is appended to, a string replaced, a map deep-merged.
    fn under_plain(&self, next: &Value) -> Value {
        if self.discard {
            return next.clone();
        }
        match (self.value, next) {
            (Value::Array(p), Value::Array(n)) => {
                Value::Array(p.iter().chain(n).cloned().collect())
            }
            (Value::Object(_), Value::Object(_)) => {
                let mut merged = self.value.clone();
                merge(&mut merged, next);
                merged
            }
            _ => next.clone(),
        }
    }
}

/// `config` with jp's wrappers taken off, every mergeable value in its
/// plain form: what jp's resolved config holds, and what every reader of
/// a config here expects.
pub fn resolve(config: &mut Value) {
    if let Some(w) = Wrapped::of(config) {
        *config = w.value.clone();
        return resolve(config);
    }
    match config {
        Value::Object(o) => o.values_mut().for_each(resolve),
        Value::Array(a) => a.iter_mut().for_each(resolve),
        _ => {}
    }
}

/// The merge strategy a wrapped value names (`replace`, `append`,
/// `prepend`, …); `None` for a plain value or a wrapper that names none.
pub fn strategy_of(v: &Value) -> Option<&str> {
    Wrapped::of(v).and_then(|w| w.strategy)
}

impl Conversation {
    /// The merged config in effect at the end of the stream.
    pub fn merged_config(&self) -> &Value {
        self.merged.get_or_init(|| merged(self, None))
    }
}

/// The merged config in effect just before event `upto` (all of it when
/// `None`), resolved: jp's wrappers taken off.
pub fn merged(conv: &Conversation, upto: Option<usize>) -> Value {
    let mut config = merged_wrapped(conv, upto);
    resolve(&mut config);
    config
}

/// [`merged`] with jp's wrappers kept, as they must be while merging (a
/// default's `discard_when_merged` decides the next merge).
fn merged_wrapped(conv: &Conversation, upto: Option<usize>) -> Value {
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
/// `{"value": ..., "strategy": ...}`; the value inside.
pub fn unwrap_value(v: &Value) -> &Value {
    match Wrapped::of(v) {
        Some(w) => w.value,
        None => v,
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

    /// `merge` then `resolve`, as `merged` does.
    fn merged_over(mut a: Value, b: Value) -> Value {
        merge(&mut a, &b);
        resolve(&mut a);
        a
    }

    fn wrapped(v: Value, s: &str) -> Value {
        json!({"value": v, "strategy": s, "discard_when_merged": false})
    }

    #[test]
    fn jps_lists_merge_by_their_strategy() {
        // A skill's delta appends its sections to a stored (wrapped) list.
        let a = merged_over(
            json!({"assistant": {"system_prompt_sections": wrapped(json!([1, 2]), "replace")}}),
            json!({"assistant": {"system_prompt_sections": [3]}}),
        );
        assert_eq!(a["assistant"]["system_prompt_sections"], json!([1, 2, 3]));
        // Plain on both sides, a known mergeable list: appended too.
        let a = merged_over(
            json!({"assistant": {"instructions": [1]}}),
            json!({"assistant": {"instructions": [2]}}),
        );
        assert_eq!(a["assistant"]["instructions"], json!([1, 2]));
        // The next list's own strategy decides.
        let a = merged_over(
            json!({"instructions": [1, 2]}),
            json!({"instructions": wrapped(json!([3]), "replace")}),
        );
        assert_eq!(a["instructions"], json!([3]));
        let a = merged_over(
            json!({"instructions": [1]}),
            json!({"instructions": wrapped(json!([0]), "prepend")}),
        );
        assert_eq!(a["instructions"], json!([0, 1]));
        // A default is discarded when anything is merged over it, and
        // stays a default through a merge that wraps it again.
        let a = merged_over(
            json!({"rules": {"value": [9], "discard_when_merged": true}}),
            json!({"rules": [1]}),
        );
        assert_eq!(a["rules"], json!([1]));
        let mut a = json!({"rules": {"value": [9], "discard_when_merged": true}});
        merge(
            &mut a,
            &json!({"rules": {"value": [1], "strategy": "append", "discard_when_merged": true}}),
        );
        merge(&mut a, &json!({"rules": [2]}));
        resolve(&mut a);
        assert_eq!(a["rules"], json!([2]));
    }

    #[test]
    fn jps_strings_and_maps_merge_by_their_strategy() {
        let s = |v: &str, strategy: &str, sep: &str| json!({"value": v, "strategy": strategy, "separator": sep, "discard_when_merged": false});
        let a = merged_over(json!({"p": "a"}), json!({"p": s("b", "append", "line")}));
        assert_eq!(a["p"], "a\nb");
        let a = merged_over(json!({"p": "a"}), json!({"p": s("b", "prepend", "space")}));
        assert_eq!(a["p"], "b a");
        let a = merged_over(json!({"p": s("a", "replace", "none")}), json!({"p": "b"}));
        assert_eq!(a["p"], "b");
        let m = |v: Value, strategy: &str| json!({"value": v, "strategy": strategy});
        let base = json!({"l": {"x": {"a": 1, "b": 2}, "y": 1}});
        let a = merged_over(
            base.clone(),
            json!({"l": m(json!({"x": {"a": 9}}), "deep_merge")}),
        );
        assert_eq!(a["l"], json!({"x": {"a": 9, "b": 2}, "y": 1}));
        let a = merged_over(
            base.clone(),
            json!({"l": m(json!({"x": {"a": 9}}), "merge")}),
        );
        assert_eq!(a["l"], json!({"x": {"a": 9}, "y": 1}));
        let a = merged_over(
            base.clone(),
            json!({"l": m(json!({"x": 0, "z": 3}), "keep")}),
        );
        assert_eq!(a["l"], json!({"x": {"a": 1, "b": 2}, "y": 1, "z": 3}));
        let a = merged_over(base, json!({"l": m(json!({"z": 3}), "replace")}));
        assert_eq!(a["l"], json!({"z": 3}));
        // A section written as `{"value": {...}}` is the table inside.
        let a = merged_over(
            json!({"conversation": {"title": "t", "compaction": {"auto": {"mode": "single"}}}}),
            json!({"conversation": {"value": {"compaction": {"auto": {"min_turns": 3}}}}}),
        );
        assert_eq!(
            a["conversation"],
            json!({"title": "t", "compaction": {"auto": {"mode": "single", "min_turns": 3}}})
        );
        // An ordinary object with a `value` key is not a wrapper.
        let a = merged_over(json!({}), json!({"param": {"value": {"type": "string"}}}));
        assert_eq!(a["param"], json!({"value": {"type": "string"}}));
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
