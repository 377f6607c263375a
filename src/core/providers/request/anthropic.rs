//! Anthropic's Messages body as jp builds it: one content block per event,
//! consecutive blocks of one role in one message, an empty request left
//! out; a cache breakpoint where jp marked one; the last assistant
//! message's thinking as text; and jp's continue message after an
//! assistant message for a model that takes no prefill.

use super::{Include, ItemKind, Request};
use crate::core::cost::billing::CachePolicy;
use serde_json::{Value, json};

/// jp's words when a model that cannot continue its own message must.
const CONTINUE: &str = "Continue your response exactly from where you left off. Do not repeat content you already produced.";

/// The models jp's table says accept an assistant prefill; any other gets
/// the continue message (jp's rule: unknown support reads as none).
const PREFILL: [&str; 8] = [
    "claude-opus-4-5",
    "claude-opus-4-5-20251101",
    "claude-haiku-4-5",
    "claude-haiku-4-5-20251001",
    "claude-sonnet-4-5",
    "claude-sonnet-4-5-20250929",
    "claude-opus-4-1",
    "claude-opus-4-1-20250805",
];

fn cache_control(policy: CachePolicy) -> Option<Value> {
    let ttl = match policy {
        CachePolicy::Off => return None,
        CachePolicy::Long => "1h",
        CachePolicy::Custom(d) if d >= std::time::Duration::from_secs(30 * 60) => "1h",
        CachePolicy::Short | CachePolicy::Custom(_) => "5m",
    };
    Some(json!({"type": "ephemeral", "ttl": ttl}))
}

fn think(text: &str) -> Value {
    json!({"type": "text", "text": format!("<think>\n{text}\n</think>\n\n")})
}

/// The messages, before the trailing rules.
fn messages(req: &Request) -> Vec<(bool, Vec<Value>)> {
    let cache = cache_control(req.cache);
    let mut out: Vec<(bool, Vec<Value>)> = Vec::new();
    for item in &req.items {
        let m = &item.meta;
        let (user, mut block) = match &item.kind {
            ItemKind::Request(text) if text.is_empty() => continue,
            ItemKind::Request(text) => (true, json!({"type": "text", "text": text})),
            ItemKind::Reasoning(text) => (
                false,
                match (&m.thinking_signature, &m.redacted_thinking) {
                    (Some(sig), _) if m.anthropic => {
                        json!({"type": "thinking", "thinking": text, "signature": sig})
                    }
                    (None, Some(data)) if m.anthropic => {
                        json!({"type": "redacted_thinking", "data": data})
                    }
                    _ => think(text),
                },
            ),
            ItemKind::Message(text) | ItemKind::Data(text) => {
                (false, json!({"type": "text", "text": text}))
            }
            ItemKind::ToolCall {
                id,
                name,
                arguments,
            } => (
                false,
                json!({"type": "tool_use", "id": id, "input": arguments, "name": name}),
            ),
            ItemKind::ToolResult {
                id,
                content,
                is_error,
            } => (
                true,
                json!({"type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error}),
            ),
        };
        let cacheable = matches!(
            block["type"].as_str(),
            Some("text" | "tool_use" | "tool_result")
        );
        if let (true, true, Some(c)) = (m.cache_breakpoint, cacheable, &cache) {
            block["cache_control"] = c.clone();
        }
        match out.last_mut() {
            Some((u, blocks)) if *u == user => blocks.push(block),
            _ => out.push((user, vec![block])),
        }
    }
    // The last assistant message is being continued: Anthropic rejects a
    // native thinking block there, so readable thinking becomes text and
    // redacted thinking goes.
    if let Some((false, blocks)) = out.last_mut() {
        *blocks = std::mem::take(blocks)
            .into_iter()
            .filter_map(|b| match b["type"].as_str() {
                Some("thinking") => Some(think(b["thinking"].as_str().unwrap_or_default())),
                Some("redacted_thinking") => None,
                _ => Some(b),
            })
            .collect();
    }
    out
}

fn takes_prefill(model: &str) -> bool {
    PREFILL.contains(&model)
}

/// What the continue message is doing there, when it is.
pub(super) fn continued(req: &Request) -> Option<String> {
    let model = req.model.as_ref()?.name().to_string();
    let ends_with_assistant = matches!(messages(req).last(), Some((false, _)));
    (ends_with_assistant && !takes_prefill(&model)).then(|| {
        format!(
            "the thread ends with the assistant and {model} takes no prefill: jp adds its \
             continue message as the last user message"
        )
    })
}

pub(super) fn body(req: &Request, model: &str, inc: Include) -> Value {
    let mut msgs = messages(req);
    if matches!(msgs.last(), Some((false, _))) && !takes_prefill(model) {
        msgs.push((true, vec![json!({"type": "text", "text": CONTINUE})]));
    }
    let messages: Vec<Value> = msgs
        .into_iter()
        .map(|(user, content)| {
            json!({"role": if user { "user" } else { "assistant" }, "content": content})
        })
        .collect();
    let mut body = json!({"model": model, "messages": messages});
    let cache = cache_control(req.cache);
    if inc.system && !req.system.is_empty() {
        let last = req.system.len() - 1;
        let system: Vec<Value> = req
            .system
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let mut b = json!({"type": "text", "text": text});
                if let (true, Some(c)) = (i == last, &cache) {
                    b["cache_control"] = c.clone();
                }
                b
            })
            .collect();
        body["system"] = Value::Array(system);
    }
    if inc.tools && !req.tools.is_empty() {
        body["tools"] = Value::Array(
            req.tools
                .iter()
                .map(|t| {
                    json!({"name": t.name, "description": t.description, "input_schema": t.schema})
                })
                .collect(),
        );
    }
    body
}
