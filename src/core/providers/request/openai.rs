//! OpenAI's Responses `input` as jp builds it: its system parts as the
//! first message (an empty list when there are none), then one item per
//! event. Reasoning and messages OpenAI itself made (an `openai_item_id`)
//! go back as its own items; any other reasoning as `<think>` text.

use super::{Include, ItemKind, Request};
use serde_json::{Value, json};

fn message(role: &str, content: Value, phase: Option<&String>) -> Value {
    let mut m = json!({"type": "message", "role": role, "content": content});
    if let Some(p) = phase.filter(|p| matches!(p.as_str(), "commentary" | "final_answer")) {
        m["phase"] = json!(p);
    }
    m
}

fn items(req: &Request) -> Vec<Value> {
    req.items
        .iter()
        .map(|item| {
            let m = &item.meta;
            let phase = m.openai_phase.as_ref();
            match &item.kind {
                ItemKind::Request(text) => message("user", json!(text), None),
                ItemKind::Reasoning(text) => match &m.openai_item_id {
                    Some(id) => json!({
                        "type": "reasoning",
                        "id": id,
                        "summary": [{"type": "summary_text", "text": text}],
                        "encrypted_content": m.openai_encrypted,
                    }),
                    None => message(
                        "assistant",
                        json!(format!("<think>\n{text}\n</think>\n\n")),
                        phase,
                    ),
                },
                ItemKind::Message(text) => match &m.openai_item_id {
                    Some(id) => {
                        let mut out = json!({
                            "type": "message",
                            "id": id,
                            "role": "assistant",
                            "content": [{"type": "output_text", "text": text, "annotations": []}],
                            "status": "completed",
                        });
                        if let Some(p) = phase {
                            out["phase"] = json!(p);
                        }
                        out
                    }
                    None => message("assistant", json!(text), phase),
                },
                ItemKind::Data(text) => message("assistant", json!(text), phase),
                ItemKind::ToolCall {
                    id,
                    name,
                    arguments,
                } => json!({
                    "type": "function_call",
                    "arguments": Value::Object(arguments.clone()).to_string(),
                    "call_id": id,
                    "id": null,
                    "name": name,
                    "status": null,
                }),
                ItemKind::ToolResult { id, content, .. } => json!({
                    "type": "function_call_output",
                    "id": null,
                    "status": null,
                    "call_id": id,
                    "output": content,
                }),
            }
        })
        .collect()
}

pub(super) fn body(req: &Request, model: &str, inc: Include) -> Value {
    let mut input = Vec::new();
    if inc.system {
        let parts: Vec<Value> = req
            .system
            .iter()
            .map(|text| json!({"type": "input_text", "text": text}))
            .collect();
        input.push(message("system", Value::Array(parts), None));
    }
    input.extend(items(req));
    let mut body = json!({"model": model, "input": input});
    if inc.tools && !req.tools.is_empty() {
        body["tools"] = Value::Array(
            req.tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "name": t.name,
                           "description": t.description, "parameters": t.schema})
                })
                .collect(),
        );
    }
    body
}
