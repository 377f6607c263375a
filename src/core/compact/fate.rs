//! What the projection says of each event and turn: a raw event's fate,
//! the change made to what is sent, the projected events, and where each
//! projected turn came from.

use serde_json::{Value, json};

/// What happened to a raw event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fate {
    /// Sent as it is (or, for events the model never sees, passed through).
    Kept,
    /// Sent shrunk (tool arguments emptied, tool content replaced by a status
    /// line), or, for reasoning, left out by a reasoning strip.
    Stripped,
    /// Left out with its pair by a tool `omit`.
    Omitted,
    /// Replaced, with the rest of its turns, by a summary.
    Summarized,
    /// A compaction event: consumed by the projection.
    Overlay,
}

impl Fate {
    pub fn as_str(self) -> &'static str {
        match self {
            Fate::Kept => "kept",
            Fate::Stripped => "stripped",
            Fate::Omitted => "omitted",
            Fate::Summarized => "summarised",
            Fate::Overlay => "overlay",
        }
    }

    /// What happened, in words, for a person reading one event.
    pub fn describe(self) -> &'static str {
        match self {
            Fate::Kept => "sent to the model as is",
            Fate::Stripped => "stripped",
            Fate::Omitted => "omitted",
            Fate::Summarized => "replaced by a summary",
            Fate::Overlay => "an overlay (consumed by the projection)",
        }
    }

    /// Whether a listing marks it (`[stripped]`): the events the projection
    /// changed.
    pub fn is_change(self) -> bool {
        matches!(self, Fate::Stripped | Fate::Omitted | Fate::Summarized)
    }
}

impl Default for EventFate {
    fn default() -> Self {
        EventFate {
            fate: Fate::Kept,
            by: None,
        }
    }
}

/// A raw event's fate and the overlay (index into the overlay list) that
/// decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventFate {
    pub fate: Fate,
    pub by: Option<usize>,
}

/// How a kept raw event is changed on its way to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alteration {
    None,
    /// A request's arguments become `{}`.
    EmptyArguments,
    /// A response's content becomes `[compacted] <tool>: success|error`.
    StatusLine,
}

/// Which of the three injected events of a summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryPart {
    TurnStart,
    Request,
    Response,
}

impl SummaryPart {
    /// The label a listing gives it, as it gives raw events theirs.
    pub fn label(self) -> &'static str {
        match self {
            SummaryPart::TurnStart => "turn",
            SummaryPart::Request => "user",
            SummaryPart::Response => "summary",
        }
    }
}

/// One event of the projected view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Projected {
    Raw {
        index: usize,
        change: Alteration,
    },
    Summary {
        /// Index into the overlay list.
        overlay: usize,
        part: SummaryPart,
        /// The raw turn at which the summary run starts (its events' turn).
        turn: usize,
        /// The raw event whose timestamp the injected events carry.
        at: usize,
    },
}

/// Where a projected turn came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnOrigin {
    Kept(usize),
    /// A contiguous run of raw turns won by one summary (inclusive).
    Summary {
        from: usize,
        to: usize,
        overlay: usize,
    },
}

impl TurnOrigin {
    /// `{"kept": t}` or `{"summary": [from, to]}`, 0-based, as `jp` reports.
    pub fn to_json(&self) -> Value {
        match *self {
            TurnOrigin::Kept(t) => json!({ "kept": t }),
            TurnOrigin::Summary { from, to, .. } => json!({ "summary": [from, to] }),
        }
    }
}
