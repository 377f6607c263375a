//! Reset: remove compaction events (all, automatic ones only, or one by its
//! position). Raw events are never touched.

use crate::core::compact::projection::{self, Overlay};
use crate::core::model::compaction::Source;
use crate::core::model::conversation::Conversation;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reset {
    All,
    /// Only `source: auto` compactions (D50's source-filtered reset).
    Auto,
    /// One compaction by its 1-based position among the compaction events.
    Position(usize),
}

impl Reset {
    /// What the reset removes, in words.
    pub fn what(self) -> String {
        match self {
            Reset::All => "all compactions".into(),
            Reset::Auto => "automatic compactions".into(),
            Reset::Position(n) => format!("compaction #{n}"),
        }
    }

    /// How many of `conv`'s compaction events it removes.
    pub fn removes_from(self, conv: &Conversation) -> usize {
        count(conv, self)
    }
}

/// Whether the compaction at 0-based `position` (with `source`, if valid) is
/// removed by `reset`.
pub fn removes(reset: Reset, position: usize, source: Option<Source>) -> bool {
    match reset {
        Reset::All => true,
        Reset::Auto => source == Some(Source::Auto),
        Reset::Position(n) => n == position + 1,
    }
}

/// The overlays left after `reset`, for previews and dry runs.
pub fn remaining(conv: &Conversation, reset: Reset) -> Vec<Overlay> {
    projection::overlays(conv)
        .into_iter()
        .filter(|o| !removes(reset, o.position, Some(o.source())))
        .collect()
}

/// How many compaction events `reset` removes.
pub fn count(conv: &Conversation, reset: Reset) -> usize {
    conv.compactions()
        .filter(|c| {
            removes(
                reset,
                c.position,
                c.parsed.ok().map(|compaction| compaction.source),
            )
        })
        .count()
}
