//! One-line previews of raw events, shared by the listings of the CLI and
//! the inspector.

use crate::core::model::config::ModelId;
use crate::core::model::config::delta_of;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use crate::core::visible::one_line;
use serde_json::Value;

impl Conversation {
    /// The text of raw event `index` on one line, at most `max` characters.
    pub fn excerpt(&self, index: usize, max: usize) -> String {
        let conv = self;
        let e = &conv.events[index];
        let text = match &e.kind {
            Kind::TurnStart => String::new(),
            Kind::ChatRequest | Kind::ChatResponse(_) => conv.text(index),
            Kind::ToolCallRequest { name, .. } => format!("{name} {}", conv.text(index)),
            Kind::ToolCallResponse { .. } => conv.text(index),
            Kind::InquiryRequest => {
                let v = conv.plain(index);
                v.pointer("/question/text")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| compact(&v, &["type", "timestamp"]))
            }
            Kind::InquiryResponse => {
                let v = conv.plain(index);
                v.get("answer").map(Value::to_string).unwrap_or_default()
            }
            Kind::ConfigDelta => {
                let v = conv.plain(index);
                config_delta(&delta_of(&v))
            }
            Kind::Compaction(Ok(c)) => {
                format!(
                    "turns {}..{} {} ({})",
                    c.from_turn + 1,
                    c.to_turn.saturating_add(1),
                    c.policy_label(),
                    c.source.as_str()
                )
            }
            Kind::Compaction(Err(why)) => format!("INVALID: {why}"),
            Kind::Unknown(_) => compact(&conv.plain(index), &["type", "timestamp"]),
        };
        one_line(&text, max)
    }
}

fn config_delta(delta: &Value) -> String {
    if let Some(id) = delta
        .pointer("/assistant/model/id")
        .and_then(ModelId::from_json)
    {
        return format!("model -> {id}");
    }
    match delta.as_object() {
        Some(obj) if !obj.is_empty() => {
            let keys: Vec<String> = obj
                .iter()
                .map(|(k, v)| match v.as_object() {
                    Some(inner) if inner.len() == 1 => {
                        format!("{k}.{}", inner.keys().next().unwrap_or(&String::new()))
                    }
                    _ => k.clone(),
                })
                .collect();
            format!("changes {}", keys.join(", "))
        }
        _ => "no changes".into(),
    }
}

fn compact(v: &Value, skip: &[&str]) -> String {
    match v.as_object() {
        Some(obj) => {
            let rest: serde_json::Map<String, Value> = obj
                .iter()
                .filter(|(k, _)| !skip.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            Value::Object(rest).to_string()
        }
        None => v.to_string(),
    }
}
