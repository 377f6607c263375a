//! The conversation picker: the workspace's conversations, most recently
//! active first (or by size, context, compactions or title), filtered as the person
//! types. What the folder says is
//! there at once; what reading each conversation adds fills in behind,
//! a few at a time, so a thousand conversations open as fast as one.

use crate::core::ops::Needle;
use crate::core::ops::catalog::{Details, Listing};
use std::path::PathBuf;

/// Conversations read per background job: small, so opening one never
/// waits long behind the filling.
pub const CHUNK: usize = 16;

/// What the list is ordered by (`Tab` goes to the next).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortKey {
    /// Most recently active first (jp's `last_activated_at`).
    #[default]
    Activity,
    /// Largest files first.
    Size,
    /// Fullest context first; not yet read, or no window known, last.
    Context,
    /// Most compactions first (manual and automatic); not yet read last.
    Compactions,
    /// By title, A to Z; untitled last.
    Title,
}

impl SortKey {
    const ALL: [SortKey; 5] = [
        SortKey::Activity,
        SortKey::Size,
        SortKey::Context,
        SortKey::Compactions,
        SortKey::Title,
    ];

    pub fn label(self) -> &'static str {
        match self {
            SortKey::Activity => "activity",
            SortKey::Size => "size",
            SortKey::Context => "context %",
            SortKey::Compactions => "compactions",
            SortKey::Title => "title",
        }
    }

    /// The next key (`forward`), or the one before.
    pub fn step(self, forward: bool) -> SortKey {
        let n = Self::ALL.len();
        let k = Self::ALL.iter().position(|&s| s == self).unwrap_or(0);
        Self::ALL[if forward {
            (k + 1) % n
        } else {
            (k + n - 1) % n
        }]
    }
}

#[derive(Debug, Clone)]
pub struct Picker {
    /// Where the conversations come from (shown in the header).
    pub workspace: PathBuf,
    /// Most recently active first, as listed.
    pub listings: Vec<Listing>,
    pub filter: String,
    /// The selected line among the visible ones.
    pub cursor: usize,
    pub sort: SortKey,
    /// `/` was pressed: every key types, `q` and `?` included.
    pub typing: bool,
    /// `?`: the picker's keys are shown.
    pub help: bool,
}

impl Picker {
    pub fn new(workspace: PathBuf, listings: Vec<Listing>) -> Picker {
        Picker {
            workspace,
            listings,
            filter: String::new(),
            cursor: 0,
            sort: SortKey::default(),
            typing: false,
            help: false,
        }
    }

    /// The listings the filter lets through, in the sort's order (ties in
    /// the order of activity).
    pub fn visible(&self) -> Vec<usize> {
        let needle = Needle::new(&self.filter);
        let mut out: Vec<usize> = (0..self.listings.len())
            .filter(|&i| self.listings[i].matches(&needle))
            .collect();
        let l = &self.listings;
        match self.sort {
            SortKey::Activity => {}
            SortKey::Size => out.sort_by_key(|&i| std::cmp::Reverse(l[i].size)),
            SortKey::Context => out.sort_by(|&a, &b| {
                let ratio = |i: usize| match &l[i].details {
                    Some(Ok(d)) => d.context_ratio,
                    _ => None,
                };
                // Known before unknown, then fullest first.
                match (ratio(a), ratio(b)) {
                    (Some(x), Some(y)) => y.total_cmp(&x),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                }
            }),
            SortKey::Compactions => out.sort_by_key(|&i| match &l[i].details {
                Some(Ok(d)) => (false, std::cmp::Reverse(d.manual + d.auto)),
                _ => (true, std::cmp::Reverse(0)),
            }),
            SortKey::Title => out.sort_by_cached_key(|&i| match &l[i].title {
                Some(t) if !t.trim().is_empty() => (false, t.to_lowercase()),
                _ => (true, String::new()),
            }),
        }
        out
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
