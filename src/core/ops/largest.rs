//! Where the tokens are: the projected events, and the parts of the system
//! prompt and the tool definitions every request carries, by size; or
//! those parts alone, in the order they are sent.

use crate::core::compact::estimate;
use crate::core::compact::fate::Projected;
use crate::core::compact::projection::Projection;
use crate::core::model::conversation::Conversation;
use crate::core::model::overhead::{self, Part};
use crate::core::visible::one_line;

/// What an entry is.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// A projected event: its index in the projection, the raw event it
    /// comes from (`None`: an injected summary) and its turn.
    Event {
        projected: usize,
        raw: Option<usize>,
        turn: usize,
    },
    /// A part of what every request carries besides the events.
    Overhead(Box<Part>),
}

/// One entry, with its estimate and a line of its text.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub origin: Origin,
    pub label: String,
    pub tokens: u64,
    pub excerpt: String,
}

/// The entries, largest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// At most [`SHOWN`] of them.
    pub entries: Vec<Entry>,
    /// How many there are, listed or not.
    pub total: usize,
    /// The tokens of those left out (the smallest).
    pub unlisted_tokens: u64,
}

/// Entries past this are not listed: nobody reads the 10,000th largest.
pub const SHOWN: usize = 500;

/// Characters of an entry's excerpt.
const EXCERPT: usize = 120;

/// The projected events of `projection` and, when `with_overhead`, the
/// parts every request of `conv` carries, largest first (ties: the
/// overhead in the order it is sent, then the events in stream order).
pub fn largest(conv: &Conversation, projection: &Projection, with_overhead: bool) -> Ranked {
    let p = projection;
    let mut entries = if with_overhead {
        overhead(conv)
    } else {
        Vec::new()
    };
    entries.extend(p.events.iter().enumerate().map(|(k, e)| {
        let tokens = estimate::tokens(p.chars(&conv.events, e));
        let (raw, label) = match *e {
            Projected::Raw { index, .. } => {
                (Some(index), conv.events[index].kind.label().to_string())
            }
            Projected::Summary { part, .. } => (None, part.label().to_string()),
        };
        Entry {
            origin: Origin::Event {
                projected: k,
                raw,
                turn: p.turn_of(&conv.events, e),
            },
            label,
            tokens,
            excerpt: String::new(),
        }
    }));
    // A stable sort: equal sizes keep the order built above.
    entries.sort_by_key(|e| std::cmp::Reverse(e.tokens));
    let total = entries.len();
    let unlisted_tokens = entries.iter().skip(SHOWN).map(|e| e.tokens).sum();
    entries.truncate(SHOWN);
    // Only the listed events' excerpts are made.
    for e in &mut entries {
        if let Origin::Event { projected, .. } = e.origin {
            e.excerpt = p.excerpt(conv, &p.events[projected], EXCERPT);
        }
    }
    Ranked {
        entries,
        total,
        unlisted_tokens,
    }
}

/// The parts every request of `conv` carries besides the events, in the
/// order they are sent: none when its configuration has no system prompt
/// and no tool.
pub fn overhead(conv: &Conversation) -> Vec<Entry> {
    overhead::parts(conv.merged_config())
        .into_iter()
        .map(|part| Entry {
            label: part.kind.label().to_string(),
            tokens: estimate::tokens(part.chars),
            // A part named as its kind says only its text.
            excerpt: if part.name == part.kind.label() {
                one_line(&part.text, EXCERPT)
            } else {
                one_line(&format!("{}: {}", part.name, part.text), EXCERPT)
            },
            origin: Origin::Overhead(Box::new(part)),
        })
        .collect()
}
