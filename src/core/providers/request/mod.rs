//! The request jp sends at a point of a conversation: what its provider
//! code builds from the thread (the projected, provider-visible events, the
//! system parts and the tools), in each provider's own shape. `count` asks
//! the provider to count this body; `request` prints it.
//!
//! The conversation part follows jp's own conversion event by event
//! (crates/jp_llm/src/provider/{anthropic,openai,google}.rs): reasoning a
//! provider signed goes back to it natively, any other as `<think>` text
//! (Anthropic, OpenAI) or a thought part (Google); a stripped call keeps its
//! id and name. `tests/it/request.rs` holds it to the bodies jp's own tests
//! snapshot for every compaction scenario.

mod anthropic;
mod google;
mod openai;

use crate::core::compact::fate::Projected;
use crate::core::compact::projection::Projection;
use crate::core::cost::billing::CachePolicy;
use crate::core::model::config::{self, ModelId};
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use crate::core::model::overhead::{self, ToolDefinition};
use crate::core::model::system_parts;
use serde_json::{Map, Value};

/// What an event says for one provider only, from its `metadata`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    /// The event was made under an Anthropic model (its config's).
    pub anthropic: bool,
    pub thinking_signature: Option<String>,
    pub redacted_thinking: Option<String>,
    pub thought_signature: Option<String>,
    pub openai_item_id: Option<String>,
    pub openai_encrypted: Option<String>,
    pub openai_phase: Option<String>,
    /// jp's `cache_breakpoint`.
    pub cache_breakpoint: bool,
}

/// One provider-visible event of the thread.
#[derive(Debug, Clone, PartialEq)]
pub enum ItemKind {
    Request(String),
    Reasoning(String),
    Message(String),
    /// A structured response, as compact JSON.
    Data(String),
    ToolCall {
        id: String,
        name: String,
        arguments: Map<String, Value>,
    },
    ToolResult {
        id: String,
        content: String,
        is_error: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub kind: ItemKind,
    pub meta: Meta,
}

/// What a request carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// jp's system parts, in order.
    pub system: Vec<String>,
    pub tools: Vec<ToolDefinition>,
    pub items: Vec<Item>,
    pub cache: CachePolicy,
    /// The model the request is sent to, as the config names it.
    pub model: Option<ModelId>,
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

fn string(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn meta_of(event: &Value, anthropic: bool) -> Meta {
    let m = event.get("metadata");
    let get = |k: &str| {
        m.and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    Meta {
        anthropic,
        thinking_signature: get("anthropic_thinking_signature"),
        redacted_thinking: get("anthropic_redacted_thinking"),
        thought_signature: get("google_thought_signature"),
        openai_item_id: get("openai_item_id"),
        openai_encrypted: get("openai_encrypted_content"),
        openai_phase: get("openai_phase"),
        cache_breakpoint: m
            .and_then(|m| m.get("cache_breakpoint"))
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}

/// Whether the model in effect is an Anthropic one, for each raw event:
/// the config changes only at config deltas, so it is read there.
fn anthropic_at(conv: &Conversation, end: usize) -> Vec<bool> {
    let is_anthropic = |cfg: &Value| {
        config::model_id(cfg)
            .map(|m| crate::core::compact::window::resolve_alias(&m, cfg))
            .and_then(|m| super::Provider::of_model(&m))
            == Some(super::Provider::Anthropic)
    };
    let mut out = Vec::with_capacity(end);
    let mut current = is_anthropic(&config::merged(conv, Some(0)));
    for (i, e) in conv.events[..end.min(conv.events.len())].iter().enumerate() {
        if matches!(e.kind, Kind::ConfigDelta) {
            current = is_anthropic(&config::merged(conv, Some(i + 1)));
        }
        out.push(current);
    }
    out
}

/// The request of `conv` seen through `p`, made of the projected events
/// before projected event `end`, with the system parts and tools of the
/// merged `config` (the config as of that point).
pub fn build(conv: &Conversation, p: &Projection, end: usize, config: &Value) -> Request {
    let last_raw = p.events[..end.min(p.events.len())]
        .iter()
        .map(|e| match e {
            Projected::Raw { index, .. } => index + 1,
            Projected::Summary { at, .. } => at + 1,
        })
        .max()
        .unwrap_or(0);
    let anthropic = anthropic_at(conv, last_raw);
    let mut items = Vec::new();
    for e in p.events.iter().take(end) {
        let at = match *e {
            Projected::Raw { index, .. } => index,
            Projected::Summary { at, .. } => at,
        };
        let v = p.plain(conv, e);
        let meta = meta_of(&v, anthropic.get(at).copied().unwrap_or(false));
        let kind = match v.get("type").and_then(Value::as_str) {
            Some("chat_request") => ItemKind::Request(string(&v, "content")),
            Some("chat_response") => {
                if let Some(r) = v.get("reasoning").and_then(Value::as_str) {
                    ItemKind::Reasoning(r.to_string())
                } else if let Some(m) = v.get("message").and_then(Value::as_str) {
                    ItemKind::Message(m.to_string())
                } else {
                    ItemKind::Data(v.get("data").map(Value::to_string).unwrap_or_default())
                }
            }
            Some("tool_call_request") => ItemKind::ToolCall {
                id: string(&v, "id"),
                name: string(&v, "name"),
                arguments: v
                    .get("arguments")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default(),
            },
            Some("tool_call_response") => ItemKind::ToolResult {
                id: string(&v, "id"),
                content: string(&v, "content"),
                is_error: v.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            },
            _ => continue,
        };
        items.push(Item { kind, meta });
    }
    let tools = overhead::tool_definitions(config);
    Request {
        system: system_parts::of(config, !tools.is_empty()),
        tools,
        items,
        cache: CachePolicy::of_config(config),
        model: config::model_id(config)
            .map(|m| crate::core::compact::window::resolve_alias(&m, config)),
    }
}

impl Request {
    /// The body for Anthropic's Messages API (and `count_tokens`).
    pub fn anthropic(&self, model: &str, inc: Include) -> Value {
        anthropic::body(self, model, inc)
    }

    /// The body for OpenAI's Responses API (and `input_tokens`).
    pub fn openai(&self, model: &str, inc: Include) -> Value {
        openai::body(self, model, inc)
    }

    /// The `generateContentRequest` for Google (`countTokens` wraps it).
    pub fn google(&self, model: &str, inc: Include) -> Value {
        google::body(self, model, inc)
    }

    /// Where the body leaves out or may differ from what jp sends, in words.
    pub fn notes(&self, provider: super::Provider) -> Vec<String> {
        let mut notes = vec![
            "attachments of a query are not in the conversation's files: jp adds them to its \
             first user message, so they are not here"
                .to_string(),
        ];
        match provider {
            super::Provider::Anthropic => {
                if let Some(n) = anthropic::continued(self) {
                    notes.push(n);
                }
                if self
                    .items
                    .iter()
                    .any(|i| i.meta.thinking_signature.is_some())
                {
                    notes.push(
                        "signed reasoning goes back as `thinking` blocks under an Anthropic \
                         model (as `<think>` text in the last assistant message, and under \
                         any other model)"
                            .into(),
                    );
                }
            }
            super::Provider::Openai => {
                if self.items.iter().any(|i| i.meta.openai_item_id.is_some()) {
                    notes.push(
                        "OpenAI's own reasoning and message items keep the fields jp's \
                         openai_responses revision writes; this body writes those of the \
                         Responses API, which may name fewer null ones"
                            .into(),
                    );
                }
            }
            super::Provider::Google => {}
        }
        notes
    }
}
