//! The typed view of one event, read off its raw JSON text.
//!
//! The raw text is the truth (it is what gets written back); the typed view
//! holds only what the projection, the estimate and the screens need, so a
//! loaded conversation stays close to the size of its file.

use crate::core::model::compaction::Compaction;
use crate::core::model::timestamp::Timestamp;

/// Byte range of an event's JSON text in its conversation's source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// Which of its three forms a `chat_response` has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResponseKind {
    Message,
    Reasoning,
    Data,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    TurnStart,
    ChatRequest,
    ChatResponse(ResponseKind),
    ToolCallRequest {
        id: Box<str>,
        name: Box<str>,
    },
    ToolCallResponse {
        id: Box<str>,
        is_error: bool,
    },
    InquiryRequest,
    InquiryResponse,
    ConfigDelta,
    /// A compaction, or why it is invalid (then it is skipped).
    Compaction(Result<Box<Compaction>, Box<str>>),
    /// A type this version does not know; kept and shown, never dropped.
    Unknown(Box<str>),
}

impl Kind {
    /// The `type` tag as stored.
    pub fn tag(&self) -> &str {
        match self {
            Kind::TurnStart => "turn_start",
            Kind::ChatRequest => "chat_request",
            Kind::ChatResponse(_) => "chat_response",
            Kind::ToolCallRequest { .. } => "tool_call_request",
            Kind::ToolCallResponse { .. } => "tool_call_response",
            Kind::InquiryRequest => "inquiry_request",
            Kind::InquiryResponse => "inquiry_response",
            Kind::ConfigDelta => "config_delta",
            Kind::Compaction(_) => "compaction",
            Kind::Unknown(tag) => tag,
        }
    }

    /// A short label for one-line listings.
    pub fn label(&self) -> &str {
        match self {
            Kind::TurnStart => "turn",
            Kind::ChatRequest => "user",
            Kind::ChatResponse(ResponseKind::Message) => "assistant",
            Kind::ChatResponse(ResponseKind::Reasoning) => "reasoning",
            Kind::ChatResponse(ResponseKind::Data) => "structured",
            Kind::ToolCallRequest { .. } => "tool call",
            Kind::ToolCallResponse {
                is_error: false, ..
            } => "tool result",
            Kind::ToolCallResponse { is_error: true, .. } => "tool error",
            Kind::InquiryRequest => "inquiry",
            Kind::InquiryResponse => "answer",
            Kind::ConfigDelta => "config",
            Kind::Compaction(Ok(_)) => "compaction",
            Kind::Compaction(Err(_)) => "compaction!",
            Kind::Unknown(_) => "unknown",
        }
    }

    /// Conversation events make up turns (format.md, Turns).
    pub fn is_conversation_event(&self) -> bool {
        matches!(
            self,
            Kind::TurnStart
                | Kind::ChatRequest
                | Kind::ChatResponse(_)
                | Kind::ToolCallRequest { .. }
                | Kind::ToolCallResponse { .. }
                | Kind::InquiryRequest
                | Kind::InquiryResponse
        )
    }

    /// Whether the event is part of what the model is sent.
    pub fn is_model_visible(&self) -> bool {
        matches!(
            self,
            Kind::ChatRequest
                | Kind::ChatResponse(_)
                | Kind::ToolCallRequest { .. }
                | Kind::ToolCallResponse { .. }
        )
    }

    pub fn is_tool(&self) -> bool {
        matches!(
            self,
            Kind::ToolCallRequest { .. } | Kind::ToolCallResponse { .. }
        )
    }
}

/// One event of the stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub span: Span,
    pub timestamp: Option<Timestamp>,
    pub kind: Kind,
    /// 0-based turn (format.md, Turns); non-conversation events inherit the
    /// turn they sit in.
    pub turn: usize,
    /// Model-visible characters (Unicode scalar values) as compaction.md
    /// counts them; 0 for events the model is not sent.
    pub chars: u64,
    /// Bytes `over` judges: a tool call request's arguments as compact
    /// JSON, a response's content, a reasoning block's text.
    pub payload: u64,
}

impl Event {
    pub fn compaction(&self) -> Option<&Compaction> {
        match &self.kind {
            Kind::Compaction(Ok(c)) => Some(c),
            _ => None,
        }
    }
}

/// Characters, as the estimate counts them.
pub fn count_chars(s: &str) -> u64 {
    s.chars().count() as u64
}
