//! A workspace's conversations at a glance, for `list` and the inspector's
//! picker: first what the folder and `metadata.json` say (cheap, so a
//! thousand conversations list at once), then, one by one, what reading
//! each conversation adds.

use crate::core::auto::AutoConfig;
use crate::core::compact::{estimate, projection};
use crate::core::model::compaction::Source;
use crate::core::model::id::ConversationId;
use crate::core::model::timestamp::{self, Timestamp};
use crate::core::store::workspace::{Entry, Location, Workspace, lock_paths};
use crate::core::store::{load, lock};
use std::fs;
use std::path::{Path, PathBuf};

/// What a listing knows without reading the events.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    pub dir: PathBuf,
    /// `jp-c<ID>`, or the folder's name.
    pub id: String,
    pub title: Option<String>,
    pub location: Location,
    /// jp's other copy (its user-local one), when it keeps two.
    pub twin: Option<PathBuf>,
    /// Bytes of the conversation's files.
    pub size: u64,
    /// jp holds its lock (a query is running).
    pub locked: bool,
    /// When jp last wrote it (`events.json`'s time), else activated it.
    pub last_activity: Option<Timestamp>,
    /// Filled once the conversation is read.
    /// Read on request (the events are parsed); the error said as text.
    pub details: Option<Result<Details, String>>,
}

/// What reading the conversation adds.
#[derive(Debug, Clone, PartialEq)]
pub struct Details {
    pub turns: usize,
    pub events: usize,
    pub manual: usize,
    pub auto: usize,
    /// The context against the usable window, when the window is known.
    pub context_ratio: Option<f64>,
}

/// The conversations of `ws` (its own and the user-storage ones), most
/// recently active first, without reading their events.
pub fn quick(ws: &Workspace) -> Vec<Listing> {
    let mut out: Vec<Listing> = ws.entries().iter().map(listing).collect();
    out.sort_by(|a, b| b.last_activity.cmp(&a.last_activity).then(b.id.cmp(&a.id)));
    out
}

fn listing(entry: &Entry) -> Listing {
    let mut size = 0;
    if let Ok(read) = fs::read_dir(&entry.dir) {
        for e in read.flatten() {
            let Ok(m) = e.metadata() else { continue };
            if m.is_file() {
                size += m.len();
            }
        }
    }
    let locked = entry.id.is_some_and(|id| {
        let (primary, other) = lock_paths(&entry.dir, id);
        lock::is_held(&primary) || other.is_some_and(|o| lock::is_held(&o))
    });
    Listing {
        dir: entry.dir.clone(),
        id: entry
            .id
            .map(|id| ConversationId(id).to_string())
            .unwrap_or_else(|| entry.dir_name()),
        title: entry.title(),
        location: entry.location,
        twin: entry.twin.clone(),
        size,
        locked,
        // The order `--active` picks from: the first listed is the one it
        // takes.
        last_activity: entry.activity(),
        details: None,
    }
}

/// Reads the conversation in `dir` for its details.
pub fn details(dir: &Path) -> crate::core::error::Result<Details> {
    let conv = load::load(dir)?;
    let (mut manual, mut auto) = (0, 0);
    for c in conv.valid_compactions() {
        match c.source {
            Source::Manual => manual += 1,
            Source::Auto => auto += 1,
        }
    }
    let budget = super::budget(&conv, &AutoConfig::default(), None);
    let p = projection::of(&conv);
    let context = budget.context_tokens(estimate::of_projection(&conv.events, &p).total_chars());
    Ok(Details {
        turns: conv.turn_count,
        events: conv.events.len(),
        manual,
        auto,
        context_ratio: budget.usable().map(|u| context as f64 / u.max(1) as f64),
    })
}

impl Listing {
    /// Whether `needle` (smart case) is in its title, id or folder name.
    pub fn matches(&self, needle: &crate::core::search::Needle) -> bool {
        needle.is_empty()
            || needle.matches(self.title.as_deref().unwrap_or(""))
            || needle.matches(&self.id)
            || needle.matches(&self.dir.file_name().unwrap_or_default().to_string_lossy())
    }

    /// `2026-11-30 17:12` for the last activity.
    pub fn when(&self) -> String {
        self.last_activity
            .map(|t| timestamp::short(&t))
            .unwrap_or_else(|| "-".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_lists_most_recent_first_and_details_read_the_events() {
        let tmp = tempfile::tempdir().unwrap();
        let conversations = tmp.path().join(".jp/conversations");
        for (id, title) in [(17000000001u64, "older"), (17000000002, "newer")] {
            let dir = conversations.join(format!("{id}-{title}"));
            fs::create_dir_all(&dir).unwrap();
            fs::write(
                dir.join("events.json"),
                "[\n  {\"timestamp\": \"2026-01-01 00:00:00.0\", \"type\": \"turn_start\"},\n  {\"timestamp\": \"2026-01-01 00:00:01.0\", \"type\": \"chat_request\", \"content\": \"hi\"}\n]\n",
            )
            .unwrap();
            // jp activated the older one last; the newer one never.
            let activated = if title == "older" {
                ", \"last_activated_at\": \"2026-01-02 00:00:00.0\""
            } else {
                ""
            };
            fs::write(
                dir.join("metadata.json"),
                format!("{{\"title\": \"{title}\"{activated}}}"),
            )
            .unwrap();
        }
        // A write (a checkout, a reset) does not make one more recent.
        let newer = conversations.join("17000000002-newer/events.json");
        let text = fs::read(&newer).unwrap();
        fs::write(&newer, text).unwrap();
        let ws = Workspace::find(tmp.path()).unwrap();
        let list = quick(&ws);
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].title.as_deref(), Some("older"));
        assert!(
            list.iter()
                .all(|l| l.details.is_none() && l.size > 0 && !l.locked)
        );
        let d = details(&list[0].dir).unwrap();
        assert_eq!((d.turns, d.events, d.manual, d.auto), (1, 2, 0, 0));
        let needle = crate::core::search::Needle::new("NEW");
        assert!(!list[0].matches(&needle));
        assert!(list[1].matches(&crate::core::search::Needle::new("new")));
    }
}
