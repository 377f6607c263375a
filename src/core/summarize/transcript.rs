//! The raw events of a range rendered as plain text: what model-backed
//! summarizers read.

use crate::core::model::TurnRange;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::{Kind, ResponseKind};
use crate::core::model::timestamp;
use std::collections::HashMap;

/// Longest stretch of one event's text kept in a transcript; a summarizer
/// needs the gist of a 200 kB file dump, not all of it.
pub const MAX_EVENT_CHARS: usize = 4000;

/// Renders turns `range` of `conv` from their raw events.
pub fn render(conv: &Conversation, range: TurnRange) -> String {
    let names = tool_names(conv);
    let mut out = String::new();
    let mut current_turn = None;
    for i in conv.events_of_turns(range.from, range.to) {
        let e = &conv.events[i];
        if current_turn != Some(e.turn) {
            current_turn = Some(e.turn);
            let when = e
                .timestamp
                .map(|t| format!(" ({})", timestamp::short(&t)))
                .unwrap_or_default();
            out.push_str(&format!("\n## Turn {}{when}\n", e.turn + 1));
        }
        let label = match &e.kind {
            Kind::ChatRequest => "user".to_string(),
            Kind::ChatResponse(ResponseKind::Message) => "assistant".to_string(),
            Kind::ChatResponse(ResponseKind::Reasoning) => "assistant reasoning".to_string(),
            Kind::ChatResponse(ResponseKind::Data) => "assistant (structured)".to_string(),
            Kind::ToolCallRequest { name, .. } => format!("tool call {name}"),
            Kind::ToolCallResponse { id, is_error } => {
                let name = names.get(&**id).copied().unwrap_or("unknown");
                if *is_error {
                    format!("tool error {name}")
                } else {
                    format!("tool result {name}")
                }
            }
            _ => continue,
        };
        let text = clip(&conv.text(i), MAX_EVENT_CHARS);
        out.push_str(&format!("[{label}] {text}\n"));
    }
    out.trim_start().to_string()
}

/// Tool names by call id, from the requests.
pub fn tool_names(conv: &Conversation) -> HashMap<&str, &str> {
    conv.events
        .iter()
        .filter_map(|e| match &e.kind {
            Kind::ToolCallRequest { id, name } => Some((&**id, &**name)),
            _ => None,
        })
        .collect()
}

/// At most `max` characters of `text`, saying how much was cut.
pub fn clip(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_string();
    }
    let kept = crate::core::cut::head_chars(text, max);
    format!("{kept}[… {} more characters]", total - max)
}
