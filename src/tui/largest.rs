//! Where the tokens are: the projected events, and the parts of the system
//! prompt and the tool definitions every request carries, by size, each
//! with its share of the request's context (`L`); or those parts alone, in
//! the order they are sent (`O`).

use super::inspection::Inspection;
use crate::core::compact::estimate;
use crate::core::model::overhead::Part;
use crate::core::ops::Projected;

/// What an entry of the list is.
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

/// One entry of the list.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub origin: Origin,
    pub label: String,
    pub tokens: u64,
    pub excerpt: String,
}

/// The list and where the person is in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Largest {
    /// The fixed overhead alone, in the order it is sent (`O`).
    pub overhead_only: bool,
    pub entries: Vec<Entry>,
    pub cursor: usize,
    /// The context the shares are of (system prompt, tools and events).
    pub context: u64,
    /// How many entries there are, listed or not.
    pub total: usize,
    /// The tokens of the entries left out of the list (the smallest).
    pub unlisted_tokens: u64,
}

/// Entries past this are not listed: nobody reads the 10,000th largest.
const SHOWN: usize = 500;

/// The projected events of `m` and the `overhead` parts (none when the
/// context doesn't count them), largest first (ties: the overhead in the
/// order it is sent, then the events in stream order).
pub fn of(m: &Inspection, overhead: Vec<Part>, context: u64) -> Largest {
    let p = &m.projection;
    let mut entries: Vec<Entry> = overhead_entries(overhead);
    entries.extend(p.events.iter().enumerate().map(|(k, e)| {
        let tokens = estimate::tokens(p.chars(&m.conv.events, e));
        let (raw, label) = match *e {
            Projected::Raw { index, .. } => {
                (Some(index), m.conv.events[index].kind.label().to_string())
            }
            Projected::Summary { part, .. } => (None, part.label().to_string()),
        };
        Entry {
            origin: Origin::Event {
                projected: k,
                raw,
                turn: p.turn_of(&m.conv.events, e),
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
    for e in &mut entries {
        if let Origin::Event { projected, .. } = e.origin {
            e.excerpt = p.excerpt(&m.conv, &p.events[projected], 120);
        }
    }
    Largest {
        overhead_only: false,
        entries,
        cursor: 0,
        context: context.max(1),
        total,
        unlisted_tokens,
    }
}

/// The `overhead` parts alone, in the order they are sent (`O`).
pub fn overhead(overhead: Vec<Part>, context: u64) -> Largest {
    let entries = overhead_entries(overhead);
    Largest {
        overhead_only: true,
        total: entries.len(),
        entries,
        cursor: 0,
        context: context.max(1),
        unlisted_tokens: 0,
    }
}

fn overhead_entries(parts: Vec<Part>) -> Vec<Entry> {
    parts
        .into_iter()
        .map(|part| Entry {
            label: part.kind.label().to_string(),
            tokens: estimate::tokens(part.chars),
            // A part named as its kind says only its text.
            excerpt: if part.name == part.kind.label() {
                crate::core::visible::one_line(&part.text, 120)
            } else {
                crate::core::visible::one_line(&format!("{}: {}", part.name, part.text), 120)
            },
            origin: Origin::Overhead(Box::new(part)),
        })
        .collect()
}

impl Largest {
    /// An entry's share of the context, in percent.
    pub fn share(&self, e: &Entry) -> f64 {
        e.tokens as f64 / self.context as f64 * 100.0
    }
}
