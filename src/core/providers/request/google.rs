//! Google's `generateContentRequest` as jp builds it: one part per event,
//! consecutive parts of one role in one content; reasoning a thought part;
//! every function call with its thought signature, or the dummy one Google
//! accepts in its place; a response named by the request with its id.

use super::{Include, ItemKind, Request};
use serde_json::{Value, json};
use std::collections::HashMap;

/// What jp sends for a function call that carries no signature.
const NO_SIGNATURE: &str = "skip_thought_signature_validator";

fn contents(req: &Request) -> Vec<Value> {
    // Google wants the tool's name on its response too; jp takes it from
    // the request with the id, once.
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut out: Vec<(bool, Vec<Value>)> = Vec::new();
    for item in &req.items {
        let sig = item.meta.thought_signature.as_ref();
        let (user, mut part) = match &item.kind {
            ItemKind::Request(text) => (true, json!({"text": text})),
            ItemKind::Reasoning(text) => (false, json!({"thought": true, "text": text})),
            ItemKind::Message(text) | ItemKind::Data(text) => (false, json!({"text": text})),
            ItemKind::ToolCall {
                id,
                name,
                arguments,
            } => {
                names.insert(id, name);
                (
                    false,
                    json!({
                        "functionCall": {"id": id, "name": name, "args": arguments},
                        "thoughtSignature": sig.map_or(NO_SIGNATURE, String::as_str),
                    }),
                )
            }
            ItemKind::ToolResult { id, content, .. } => (
                true,
                json!({"functionResponse": {
                    "id": id,
                    "name": names.remove(id.as_str()).unwrap_or_default(),
                    "response": {"content": content},
                }}),
            ),
        };
        if let (Some(sig), None) = (sig, part.get("thoughtSignature")) {
            part["thoughtSignature"] = json!(sig);
        }
        match out.last_mut() {
            Some((u, parts)) if *u == user => parts.push(part),
            _ => out.push((user, vec![part])),
        }
    }
    out.into_iter()
        .map(|(user, parts)| json!({"parts": parts, "role": if user { "user" } else { "model" }}))
        .collect()
}

pub(super) fn body(req: &Request, model: &str, inc: Include) -> Value {
    let mut body = json!({"model": format!("models/{model}"), "contents": contents(req)});
    if inc.system && !req.system.is_empty() {
        let parts: Vec<Value> = req.system.iter().map(|t| json!({"text": t})).collect();
        body["systemInstruction"] = json!({"parts": parts});
    }
    if inc.tools && !req.tools.is_empty() {
        body["tools"] = json!([{"functionDeclarations": req.tools.iter()
            .map(|t| json!({"name": t.name, "description": t.description, "parameters": t.schema}))
            .collect::<Vec<_>>()}]);
    }
    body
}
