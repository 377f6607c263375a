//! The request jp would send at a point of a conversation, in a neutral
//! shape (system prompt, tool definitions, messages of text, tool calls and
//! tool results) and rendered in each provider's own: what `count` asks the
//! provider to count.

use crate::core::compact::projection::Projection;
use crate::core::model::conversation::Conversation;
use crate::core::model::overhead::{self, ToolDefinition};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        id: String,
        name: String,
        content: String,
        is_error: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub blocks: Vec<Block>,
}

/// What a request carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub system: String,
    pub tools: Vec<ToolDefinition>,
    pub messages: Vec<Message>,
}

/// Which parts of a request to render (`count` measures each part by
/// leaving the others out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Include {
    pub system: bool,
    pub tools: bool,
}

impl Include {
    pub const ALL: Include = Include {
        system: true,
        tools: true,
    };
}

/// The request of `conv` seen through `p`, made of the projected events
/// before projected event `end`, with the system prompt and tools of the
/// merged `config`. Reasoning is sent as text (a thinking block would need
/// the provider's signature to be counted).
pub fn build(conv: &Conversation, p: &Projection, end: usize, config: &Value) -> Request {
    let sp = overhead::system_prompt(config);
    let system = std::iter::once(sp.prompt.as_str())
        .chain(sp.sections.iter().map(String::as_str))
        .chain(sp.instructions.iter().map(String::as_str))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut messages: Vec<Message> = Vec::new();
    let mut push = |role: Role, block: Block| match messages.last_mut() {
        Some(m) if m.role == role => m.blocks.push(block),
        _ => messages.push(Message {
            role,
            blocks: vec![block],
        }),
    };
    let mut names: std::collections::HashMap<String, String> = Default::default();
    for e in p.events.iter().take(end) {
        let v = p.plain(conv, e);
        let s = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        match v.get("type").and_then(Value::as_str) {
            Some("chat_request") if !s("content").is_empty() => {
                push(Role::User, Block::Text(s("content")))
            }
            Some("chat_response") => {
                let text = [s("message"), s("reasoning")].concat();
                let text = if text.is_empty() {
                    v.get("data").map(Value::to_string).unwrap_or_default()
                } else {
                    text
                };
                if !text.is_empty() {
                    push(Role::Assistant, Block::Text(text));
                }
            }
            Some("tool_call_request") => {
                names.insert(s("id"), s("name"));
                push(
                    Role::Assistant,
                    Block::ToolUse {
                        id: s("id"),
                        name: s("name"),
                        input: v.get("arguments").cloned().unwrap_or(json!({})),
                    },
                );
            }
            Some("tool_call_response") => push(
                Role::User,
                Block::ToolResult {
                    name: names.get(&s("id")).cloned().unwrap_or_default(),
                    id: s("id"),
                    content: s("content"),
                    is_error: v.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                },
            ),
            _ => {}
        }
    }
    // Every provider wants the conversation to open with the user.
    if messages.first().is_none_or(|m| m.role != Role::User) {
        messages.insert(
            0,
            Message {
                role: Role::User,
                blocks: vec![Block::Text(".".into())],
            },
        );
    }
    Request {
        system,
        tools: overhead::tool_definitions(config),
        messages,
    }
}

impl Request {
    /// Anthropic's `/v1/messages/count_tokens` body.
    pub fn anthropic(&self, model: &str, inc: Include) -> Value {
        let messages: Vec<Value> = self
            .messages
            .iter()
            .map(|m| {
                let content: Vec<Value> = m
                    .blocks
                    .iter()
                    .map(|b| match b {
                        Block::Text(t) => json!({"type": "text", "text": t}),
                        Block::ToolUse { id, name, input } => {
                            json!({"type": "tool_use", "id": id, "name": name, "input": input})
                        }
                        Block::ToolResult {
                            id,
                            content,
                            is_error,
                            ..
                        } => json!({"type": "tool_result", "tool_use_id": id,
                                    "content": content, "is_error": is_error}),
                    })
                    .collect();
                json!({"role": role(m.role, "assistant"), "content": content})
            })
            .collect();
        let mut body = json!({"model": model, "messages": messages});
        if inc.system && !self.system.is_empty() {
            body["system"] = json!(self.system);
        }
        if inc.tools && !self.tools.is_empty() {
            body["tools"] = Value::Array(
                self.tools
                    .iter()
                    .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.schema}))
                    .collect(),
            );
        }
        body
    }

    /// OpenAI's `/v1/responses/input_tokens` body.
    pub fn openai(&self, model: &str, inc: Include) -> Value {
        let mut input = Vec::new();
        for m in &self.messages {
            for b in &m.blocks {
                input.push(match b {
                    Block::Text(t) => json!({"role": role(m.role, "assistant"), "content": t}),
                    Block::ToolUse { id, name, input } => json!({"type": "function_call",
                        "call_id": id, "name": name, "arguments": input.to_string()}),
                    Block::ToolResult { id, content, .. } => {
                        json!({"type": "function_call_output", "call_id": id, "output": content})
                    }
                });
            }
        }
        let mut body = json!({"model": model, "input": input});
        if inc.system && !self.system.is_empty() {
            body["instructions"] = json!(self.system);
        }
        if inc.tools && !self.tools.is_empty() {
            body["tools"] = Value::Array(
                self.tools
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

    /// Google's `models/{model}:countTokens` body.
    pub fn google(&self, model: &str, inc: Include) -> Value {
        let contents: Vec<Value> = self
            .messages
            .iter()
            .map(|m| {
                let parts: Vec<Value> = m
                    .blocks
                    .iter()
                    .map(|b| match b {
                        Block::Text(t) => json!({"text": t}),
                        Block::ToolUse { name, input, .. } => {
                            json!({"functionCall": {"name": name, "args": input}})
                        }
                        Block::ToolResult { name, content, .. } => json!({"functionResponse":
                            {"name": name, "response": {"content": content}}}),
                    })
                    .collect();
                json!({"role": role(m.role, "model"), "parts": parts})
            })
            .collect();
        let mut req = json!({"model": format!("models/{model}"), "contents": contents});
        if inc.system && !self.system.is_empty() {
            req["systemInstruction"] = json!({"parts": [{"text": self.system}]});
        }
        if inc.tools && !self.tools.is_empty() {
            req["tools"] = json!([{"functionDeclarations": self.tools.iter()
                .map(|t| json!({"name": t.name, "description": t.description, "parameters": t.schema}))
                .collect::<Vec<_>>()}]);
        }
        json!({"generateContentRequest": req})
    }
}

fn role(r: Role, assistant: &'static str) -> &'static str {
    match r {
        Role::User => "user",
        Role::Assistant => assistant,
    }
}
