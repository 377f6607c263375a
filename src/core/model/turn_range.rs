//! The range of turns a compaction covers, apart from the indexing that
//! finds turns, so a compaction event can name one without knowing events.

/// An inclusive range of 0-based turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnRange {
    pub from: usize,
    pub to: usize,
}

impl TurnRange {
    /// How many turns (never zero: an empty range is `None` upstream).
    pub fn turns(&self) -> usize {
        self.to - self.from + 1
    }

    pub fn intersects(&self, from: usize, to: usize) -> bool {
        self.from <= to && self.to >= from
    }

    /// 1-based, as people read it: `2..9`.
    pub fn human(&self) -> String {
        format!("{}..{}", self.from + 1, self.to.saturating_add(1))
    }
}
