//! What a write changes: the compaction events it removes (by position or by
//! source), puts back and appends, and what it was planned against.

use crate::core::model::compaction::Compaction;
use crate::core::model::conversation::Conversation;

/// Which existing compaction events to remove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Removal {
    None,
    /// Every compaction event (reset all).
    All,
    /// Every `source: auto` compaction (reset auto-only).
    Auto,
    /// These events, named by their exact text and which occurrence of that
    /// text they are, so a position that shifted meanwhile is not mistaken.
    Exact(Vec<CompactionKey>),
}

/// Names one compaction event across a reload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionKey {
    pub raw: String,
    pub occurrence: usize,
}

impl CompactionKey {
    /// The key of the compaction at 0-based `position`.
    pub fn of_position(conv: &Conversation, position: usize) -> Option<CompactionKey> {
        let target = conv.compactions().nth(position)?;
        let raw = conv.raw(target.event).to_string();
        let occurrence = conv
            .compactions()
            .take(position)
            .filter(|c| conv.raw(c.event) == raw)
            .count();
        Some(CompactionKey { raw, occurrence })
    }
}

/// A change to a conversation's compactions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub remove: Removal,
    /// Compaction events put back where they were (an undone removal),
    /// byte for byte.
    pub restore: Vec<Restore>,
    pub append: Vec<Compaction>,
    /// What the edit was planned against, when it is only valid on that:
    /// checked under the lock, after re-reading.
    pub basis: Option<Basis>,
}

/// A compaction event's exact text and its place: after `kept_before`
/// events of the file once the edit's removals are made. Events jp appends
/// later come after it, so the place survives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restore {
    pub raw: String,
    pub kept_before: usize,
}

/// What a plan saw: the compaction events (as stored) and the turns. A
/// write planned unlocked (a summary takes time) is made only if the file
/// still holds exactly those compactions and no fewer turns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Basis {
    pub compactions: Vec<String>,
    pub turn_count: usize,
}

impl Basis {
    pub fn of(conv: &Conversation) -> Basis {
        Basis {
            compactions: conv
                .compactions()
                .map(|c| conv.raw(c.event).to_string())
                .collect(),
            turn_count: conv.turn_count,
        }
    }

    /// Why `conv` is no longer what the plan saw, if it isn't.
    pub(super) fn differs(&self, conv: &Conversation) -> Option<String> {
        let same = conv
            .compactions()
            .map(|c| conv.raw(c.event))
            .eq(self.compactions.iter().map(String::as_str));
        if !same {
            return Some("its compactions changed".into());
        }
        (conv.turn_count < self.turn_count).then(|| {
            format!(
                "it has {}, the plan saw {}",
                crate::core::fmt::count(conv.turn_count as u64, "turn"),
                self.turn_count
            )
        })
    }
}

impl Edit {
    /// Why the edit can no longer be made on `conv` (what it was planned
    /// against changed since), if it can't.
    pub fn stale_for(&self, conv: &Conversation) -> Option<String> {
        self.basis.as_ref().and_then(|b| b.differs(conv))
    }

    pub fn append(compactions: Vec<Compaction>) -> Edit {
        Edit {
            remove: Removal::None,
            restore: Vec::new(),
            append: compactions,
            basis: None,
        }
    }

    /// The edit with its new compactions stamped `now` (in their order, a
    /// microsecond apart) where that is later than when they were planned:
    /// a compaction carries the moment it was written, not the moment it
    /// was previewed. Later still wins over every earlier compaction.
    pub fn stamped_at(mut self, now: crate::core::model::timestamp::Timestamp) -> Edit {
        for (i, c) in self.append.iter_mut().enumerate() {
            let t = now + chrono::Duration::microseconds(i as i64);
            if t > c.timestamp {
                c.timestamp = t;
            }
        }
        self
    }

    pub fn remove(removal: Removal) -> Edit {
        Edit {
            remove: removal,
            restore: Vec::new(),
            append: Vec::new(),
            basis: None,
        }
    }
}
