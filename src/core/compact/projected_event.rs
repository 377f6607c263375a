//! What a projected event reads as and weighs: its status line, its
//! characters, its plain JSON, and the request a response answers.

use super::projection::{Projection, SUMMARY_REQUEST, sent_chars, status_line};
use crate::core::compact::fate::Alteration;
use crate::core::compact::fate::Projected;
use crate::core::compact::fate::SummaryPart;
use crate::core::compact::pairing::Pairing;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::{Event, Kind, count_chars};
use crate::core::model::timestamp;
use serde_json::{Value, json};

impl Projection {
    /// The tool a stripped response at raw event `index` names: its
    /// request's, else `unknown`.
    pub fn tool_name<'a>(&self, events: &'a [Event], index: usize) -> &'a str {
        let events = &events[..self.len.min(events.len())];
        self.pairing(events).name(events, index)
    }

    /// The request the response at raw event `index` answers.
    pub fn request_of(&self, events: &[Event], index: usize) -> Option<usize> {
        let events = &events[..self.len.min(events.len())];
        self.pairing(events)
            .partner(index, events.len())
            .filter(|&r| matches!(events[r].kind, Kind::ToolCallRequest { .. }))
    }

    /// The pairing of the projected events (`events` cut to them).
    fn pairing(&self, events: &[Event]) -> &Pairing {
        self.pairing.get_or_init(|| self.view.pairing(events))
    }

    /// The status line a stripped response at raw event `index` carries.
    pub fn status_line(&self, events: &[Event], index: usize) -> String {
        let is_error = matches!(
            events[index].kind,
            Kind::ToolCallResponse { is_error: true, .. }
        );
        status_line(self.tool_name(events, index), is_error)
    }

    /// Characters the model is sent for projected event `p`.
    pub fn chars(&self, events: &[Event], p: &Projected) -> u64 {
        match *p {
            Projected::Raw { index, change } => {
                sent_chars(&events[index], change, || self.tool_name(events, index))
            }
            Projected::Summary { overlay, part, .. } => match part {
                SummaryPart::TurnStart => 0,
                SummaryPart::Request => SUMMARY_REQUEST.len() as u64,
                SummaryPart::Response => self.overlays[overlay]
                    .compaction
                    .summary
                    .as_deref()
                    .map_or(0, count_chars),
            },
        }
    }

    /// Projected characters per raw turn; a summary's are counted at the
    /// first turn of its run.
    pub fn turn_chars(&self, events: &[Event], turn_count: usize) -> Vec<u64> {
        let mut per = vec![0; turn_count];
        for p in &self.events {
            let t = self.turn_of(events, p);
            if let Some(slot) = per.get_mut(t) {
                *slot += self.chars(events, p);
            }
        }
        per
    }

    /// The projected event as plain JSON (storage encoding removed), the
    /// shape `show --compacted --json` prints.
    pub fn plain(&self, conv: &Conversation, p: &Projected) -> Value {
        match *p {
            Projected::Raw { index, change } => {
                let mut v = conv.plain(index);
                match (change, &conv.events[index].kind) {
                    (Alteration::EmptyArguments, _) => {
                        v["arguments"] = json!({});
                    }
                    (Alteration::StatusLine, Kind::ToolCallResponse { .. }) => {
                        v["content"] = json!(self.status_line(&conv.events, index));
                    }
                    _ => {}
                }
                v
            }
            Projected::Summary {
                overlay, part, at, ..
            } => {
                let ts = timestamp::format(&conv.events[at].timestamp.unwrap_or_default());
                match part {
                    SummaryPart::TurnStart => json!({"timestamp": ts, "type": "turn_start"}),
                    SummaryPart::Request => {
                        json!({"timestamp": ts, "type": "chat_request", "content": SUMMARY_REQUEST})
                    }
                    SummaryPart::Response => json!({
                        "timestamp": ts,
                        "type": "chat_response",
                        "message": self.overlays[overlay].compaction.summary.clone().unwrap_or_default(),
                    }),
                }
            }
        }
    }

    /// The raw turn a projected event belongs to.
    pub fn turn_of(&self, events: &[Event], p: &Projected) -> usize {
        match *p {
            Projected::Raw { index, .. } => events[index].turn,
            Projected::Summary { turn, .. } => turn,
        }
    }
}
