//! The conversation picker: the workspace's conversations, most recently
//! active first, filtered as the person types. What the folder says is
//! there at once; what reading each conversation adds fills in behind,
//! a few at a time, so a thousand conversations open as fast as one.

use crate::core::ops::catalog::{Details, Listing};
use crate::core::search::Needle;
use std::path::PathBuf;

/// Conversations read per background job: small, so opening one never
/// waits long behind the filling.
pub const CHUNK: usize = 16;

#[derive(Debug, Clone)]
pub struct Picker {
    /// Where the conversations come from (shown in the header).
    pub workspace: PathBuf,
    pub listings: Vec<Listing>,
    pub filter: String,
    /// The selected line among the visible ones.
    pub cursor: usize,
}

impl Picker {
    pub fn new(workspace: PathBuf, listings: Vec<Listing>) -> Picker {
        Picker {
            workspace,
            listings,
            filter: String::new(),
            cursor: 0,
        }
    }

    /// The listings the filter lets through, in order.
    pub fn visible(&self) -> Vec<usize> {
        let needle = Needle::new(&self.filter);
        (0..self.listings.len())
            .filter(|&i| self.listings[i].matches(&needle))
            .collect()
    }

    pub fn selected(&self) -> Option<&Listing> {
        self.visible().get(self.cursor).map(|&i| &self.listings[i])
    }

    /// The next conversations to read, up to `CHUNK` (none once all are).
    pub fn unfilled(&self) -> Vec<PathBuf> {
        self.listings
            .iter()
            .filter(|l| l.details.is_none())
            .take(CHUNK)
            .map(|l| l.dir.clone())
            .collect()
    }

    /// How many are read.
    pub fn filled(&self) -> usize {
        self.listings.iter().filter(|l| l.details.is_some()).count()
    }

    pub fn fill(&mut self, read: Vec<(PathBuf, Result<Details, String>)>) {
        for (dir, details) in read {
            if let Some(l) = self.listings.iter_mut().find(|l| l.dir == dir) {
                l.details = Some(details);
            }
        }
    }

    /// Keeps the cursor on a visible line after the filter changed.
    pub fn clamp(&mut self) {
        self.cursor = self.cursor.min(self.visible().len().saturating_sub(1));
    }
}
