//! Where the tokens are: the projected events by size, each with its share
//! of the request's context (`L`).

use super::inspection::Inspection;
use crate::core::compact::estimate;
use crate::core::compact::excerpt;
use crate::core::compact::projection::Projected;

/// One projected event of the list.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its index in the projection.
    pub projected: usize,
    /// The raw event it comes from (`None`: an injected summary).
    pub raw: Option<usize>,
    pub turn: usize,
    pub label: String,
    pub tokens: u64,
    pub excerpt: String,
}

/// The list and where the person is in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Largest {
    pub entries: Vec<Entry>,
    pub cursor: usize,
    /// The context the shares are of (system prompt, tools and events).
    pub context: u64,
    /// How many projected events there are, listed or not.
    pub total: usize,
    /// The tokens of the events left out of the list (the smallest).
    pub unlisted_tokens: u64,
}

/// Entries past this are not listed: nobody reads the 10,000th largest.
const SHOWN: usize = 500;

/// The projected events of `m`, largest first (ties in stream order).
pub fn of(m: &Inspection, context: u64) -> Largest {
    let p = &m.projection;
    let mut entries: Vec<Entry> = p
        .events
        .iter()
        .enumerate()
        .map(|(k, e)| {
            let tokens = estimate::tokens(p.chars(&m.conv.events, e));
            let (raw, label) = match *e {
                Projected::Raw { index, .. } => {
                    (Some(index), m.conv.events[index].kind.label().to_string())
                }
                Projected::Summary { part, .. } => (None, part.label().to_string()),
            };
            Entry {
                projected: k,
                raw,
                turn: p.turn_of(&m.conv.events, e),
                label,
                tokens,
                excerpt: String::new(),
            }
        })
        .collect();
    entries.sort_by_key(|e| (std::cmp::Reverse(e.tokens), e.projected));
    let total = entries.len();
    let unlisted_tokens = entries.iter().skip(SHOWN).map(|e| e.tokens).sum();
    entries.truncate(SHOWN);
    for e in &mut entries {
        e.excerpt = excerpt::projected(&m.conv, p, &p.events[e.projected], 120);
    }
    Largest {
        entries,
        cursor: 0,
        context: context.max(1),
        total,
        unlisted_tokens,
    }
}

impl Largest {
    /// An entry's share of the context, in percent.
    pub fn share(&self, e: &Entry) -> f64 {
        e.tokens as f64 / self.context as f64 * 100.0
    }
}
