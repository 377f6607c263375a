//! The session's writes, each with the edit that takes it back (`u`,
//! `Ctrl-R`).

use crate::core::model::conversation::Conversation;

/// One write of this session, and the edit that takes it back.
#[derive(Debug, Clone)]
pub struct UndoEntry {
    pub what: String,
    pub inverse: crate::core::ops::Edit,
}

/// The session's writes, for `u` and `Ctrl-R`.
#[derive(Debug, Clone, Default)]
pub struct UndoHistory {
    pub undo: Vec<UndoEntry>,
    pub redo: Vec<UndoEntry>,
}

impl UndoHistory {
    /// The step `u` (or, `redo`, `Ctrl-R`) would take, and why it can't be
    /// taken on `conv` any more if another writer changed the compactions
    /// it was made against.
    pub fn next(
        &self,
        redo: bool,
        conv: Option<&Conversation>,
    ) -> Option<(&UndoEntry, Option<String>)> {
        let step = if redo {
            self.redo.last()
        } else {
            self.undo.last()
        }?;
        let stale = conv.and_then(|c| step.inverse.stale_for(c));
        Some((step, stale))
    }
}
