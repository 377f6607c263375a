//! The real context curve: every request of a session with the context it
//! was sent, replayed with the stream's own compactions where they were
//! appended.

use super::rerun::{Rerun, rerun_of_prefix};
use super::sends::Sends;
use crate::core::compact::budget::Budget;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use crate::core::model::timestamp::Timestamp;

/// One request of the session as it really happened.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPoint {
    /// The raw event the model produced in answer (the request is sent just
    /// before it).
    pub raw_index: usize,
    pub turn: usize,
    pub timestamp: Option<Timestamp>,
    /// The context actually sent: the projection of the stream before it
    /// (the compactions appended before it, none after), with the system
    /// prompt and tools in force then.
    pub context: u64,
    /// The usable window in force then, if known.
    pub usable: Option<u64>,
    /// Compaction events (0-based positions) appended since the request
    /// before.
    pub compactions_since: Vec<usize>,
    /// Tokens at the start of `context` sent exactly as in the request
    /// before (the prompt cache can serve no more): its whole context
    /// unless a compaction or a new system prompt, tools or model came
    /// between them; 0 for the first request.
    pub kept: u64,
    /// Tokens the model produced in answer, up to the next input.
    pub output: u64,
}

impl HistoryPoint {
    /// The request as the prompt cache sees it.
    pub fn sent(&self) -> crate::core::cost::Sent {
        crate::core::cost::Sent {
            at: self.timestamp,
            context: self.context,
            kept: self.kept,
            output: self.output,
            refused: self.usable.is_some_and(|u| self.context > u),
        }
    }
}

/// The real context curve of `conv`: every request (as the simulation
/// defines one) with what it was sent, in one pass. The same rerun as the
/// simulation, fed the stream's own compactions where they were appended
/// instead of a policy's. `budget_at(i)` is the budget in force before raw
/// event `i` (asked again only after a config delta).
pub fn history(conv: &Conversation, budget_at: impl FnMut(usize) -> Budget) -> Vec<HistoryPoint> {
    curve(conv, budget_at, true)
}

/// The same session as if it had no compaction: every request with the
/// whole stream before it (what `report` bills "without compaction").
pub fn without_compactions(
    conv: &Conversation,
    budget_at: impl FnMut(usize) -> Budget,
) -> Vec<HistoryPoint> {
    curve(conv, budget_at, false)
}

fn curve(
    conv: &Conversation,
    mut budget_at: impl FnMut(usize) -> Budget,
    compacted: bool,
) -> Vec<HistoryPoint> {
    let mut rerun = Rerun::new(conv);
    let mut budget = budget_at(0);
    let mut points: Vec<HistoryPoint> = Vec::new();
    let mut since: Vec<usize> = Vec::new();
    let mut last_visible: Option<&Kind> = None;
    let mut newest: Option<Timestamp> = None;
    let mut position = 0;
    let mut sends = Sends::default();
    // What the cache is keyed on besides the events: the system prompt and
    // tools (their characters stand for them) and the model.
    let model = |b: &Budget| (b.overhead_chars(), b.model.clone());
    for (i, e) in conv.events.iter().enumerate() {
        match &e.kind {
            Kind::Compaction(parsed) => {
                if let Ok(c) = parsed
                    && compacted
                {
                    sends.cut(rerun.unchanged_chars(std::slice::from_ref(&**c)));
                    // The rerun paints what it is given as newest; a
                    // compaction stamped before an earlier one loses to it
                    // in the projection, so the prefix is projected afresh.
                    if newest.is_some_and(|n| c.timestamp < n) {
                        rerun = rerun_of_prefix(conv, i + 1);
                    } else {
                        rerun.apply(vec![(**c).clone()]);
                    }
                    newest = newest.max(Some(c.timestamp));
                    since.push(position);
                }
                position += 1;
                continue;
            }
            Kind::ConfigDelta => {
                let next = budget_at(i + 1);
                // Tools and the system prompt come first in a request: a
                // change there (or another model) shares nothing.
                if model(&next) != model(&budget) {
                    sends.cut_everything();
                }
                budget = next;
            }
            _ => {}
        }
        if e.kind.is_conversation_event() {
            rerun.visible = rerun.visible.max(e.turn + 1);
        }
        let is_output = matches!(e.kind, Kind::ChatResponse(_) | Kind::ToolCallRequest { .. });
        let after_input = matches!(
            last_visible,
            Some(Kind::ChatRequest | Kind::ToolCallResponse { .. })
        );
        if is_output && after_input {
            let context = budget.context_tokens(rerun.total);
            let (answer, kept) = sends.request(points.last().map(|p| p.context), &budget);
            if let Some(last) = points.last_mut() {
                last.output = answer;
            }
            points.push(HistoryPoint {
                raw_index: i,
                turn: e.turn,
                timestamp: e.timestamp,
                context,
                usable: budget.usable(),
                compactions_since: std::mem::take(&mut since),
                kept,
                output: 0,
            });
        }
        sends.see(&e.kind, e.chars);
        if e.kind.is_model_visible() {
            last_visible = Some(&e.kind);
            rerun.turn_chars[e.turn] += e.chars;
            rerun.total += e.chars;
        }
    }
    if let Some(last) = points.last_mut() {
        last.output = sends.last_answer();
    }
    points
}
