//! The largest view's list (`L`, `O`): what `ops::largest` ranks, the
//! context its shares are of, and where the person is in it.

use crate::core::ops::largest::{Entry, Ranked};

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

impl Largest {
    /// The projected events and the fixed parts, largest first.
    pub fn of(ranked: Ranked, context: u64) -> Largest {
        Largest {
            overhead_only: false,
            entries: ranked.entries,
            cursor: 0,
            context: context.max(1),
            total: ranked.total,
            unlisted_tokens: ranked.unlisted_tokens,
        }
    }

    /// The fixed parts alone, in the order they are sent (`O`).
    pub fn overhead(entries: Vec<Entry>, context: u64) -> Largest {
        Largest {
            overhead_only: true,
            total: entries.len(),
            entries,
            cursor: 0,
            context: context.max(1),
            unlisted_tokens: 0,
        }
    }

    /// An entry's share of the context, in percent.
    pub fn share(&self, e: &Entry) -> f64 {
        e.tokens as f64 / self.context as f64 * 100.0
    }
}
