//! Which events the panes show: all of them, or one kind (the user's
//! messages, the assistant's, the tool calls, the tool errors), so a
//! reviewer reads one thread of a long session turn by turn.

use crate::core::model::conversation::Conversation;
use crate::core::model::event::{Kind, ResponseKind};
use crate::core::ops::{Projected, Projection};

/// The kinds `v` steps through, `All` last.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Shown {
    #[default]
    All,
    User,
    Assistant,
    ToolCalls,
    ToolErrors,
}

impl Shown {
    pub fn next(self) -> Shown {
        match self {
            Shown::All => Shown::User,
            Shown::User => Shown::Assistant,
            Shown::Assistant => Shown::ToolCalls,
            Shown::ToolCalls => Shown::ToolErrors,
            Shown::ToolErrors => Shown::All,
        }
    }

    /// What the panes show, in words ("only tool errors").
    pub fn label(self) -> &'static str {
        match self {
            Shown::All => "every event",
            Shown::User => "only the user's messages",
            Shown::Assistant => "only the assistant's messages",
            Shown::ToolCalls => "only tool calls",
            Shown::ToolErrors => "only tool errors",
        }
    }

    /// Whether raw event `i` is shown.
    pub fn raw(self, conv: &Conversation, i: usize) -> bool {
        let Some(e) = conv.events.get(i) else {
            return false;
        };
        match (self, &e.kind) {
            (Shown::All, _) => true,
            (Shown::User, Kind::ChatRequest) => true,
            (Shown::Assistant, Kind::ChatResponse(ResponseKind::Message)) => true,
            (Shown::ToolCalls, Kind::ToolCallRequest { .. }) => true,
            (Shown::ToolErrors, Kind::ToolCallResponse { is_error, .. }) => *is_error,
            _ => false,
        }
    }

    /// Whether a projected event is shown: one taken from the stream as
    /// its raw event is; a summary's injected events never but with all.
    pub fn projected(self, conv: &Conversation, p: &Projected) -> bool {
        match p {
            Projected::Raw { index, .. } => self.raw(conv, *index),
            Projected::Summary { .. } => self == Shown::All,
        }
    }
}

/// The events each block (turn) shows on each side, when not all are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Picks {
    pub raw: Vec<Vec<usize>>,
    pub proj: Vec<Vec<usize>>,
}

impl Picks {
    /// The picks of every block of `starts` (raw and projected block
    /// boundaries, `blocks + 1` each).
    pub fn of(
        shown: Shown,
        conv: &Conversation,
        p: &Projection,
        raw_start: &[usize],
        proj_start: &[usize],
    ) -> Picks {
        let blocks = raw_start.len().saturating_sub(1);
        Picks {
            raw: (0..blocks)
                .map(|b| {
                    (raw_start[b]..raw_start[b + 1])
                        .filter(|&i| shown.raw(conv, i))
                        .collect()
                })
                .collect(),
            proj: (0..blocks)
                .map(|b| {
                    (proj_start[b]..proj_start[b + 1])
                        .filter(|&k| shown.projected(conv, &p.events[k]))
                        .collect()
                })
                .collect(),
        }
    }
}
