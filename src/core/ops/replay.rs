//! A finished conversation played back as jp wrote it: a copy with no
//! turns yet, then one turn at a time, each the way a `jp query` ends (jp's
//! lock taken, the file read again, the turn's events appended to what is
//! there, compactions another writer added included, the whole file
//! replaced atomically, the lock let go). The conversation's own
//! compactions are left out: what compacts it during a replay is whoever
//! follows it (the inspector's `A`, `watch`).

use crate::core::error::{Error, Result};
use crate::core::model::conversation::{
    BASE_CONFIG_FILE, Conversation, EVENTS_FILE, METADATA_FILE,
};
use crate::core::model::event::Kind;
use crate::core::store::{load, safe_fs, save};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// The turns still to write, and where.
#[derive(Debug)]
pub struct Replay {
    /// The copy being written.
    pub dir: PathBuf,
    /// Each turn's events, as stored, compactions left out.
    turns: Vec<Vec<String>>,
    /// Turns written so far.
    written: usize,
}

/// Copies `source` into `root` (a workspace's root: `.jp/conversations/`
/// is made there) with its configuration and title and no event yet.
pub fn prepare(source: &Conversation, root: &Path) -> Result<Replay> {
    let name = source
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::invalid(&source.dir, "has no folder name to copy"))?;
    let dir = root.join(".jp/conversations").join(name);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let base = save::pretty_element(&source.base_config) + "\n";
    std::fs::write(dir.join(BASE_CONFIG_FILE), base).map_err(|e| Error::io(&dir, e))?;
    if let Some(meta) = &source.metadata {
        let text = save::pretty_element(meta) + "\n";
        std::fs::write(dir.join(METADATA_FILE), text).map_err(|e| Error::io(&dir, e))?;
    }
    std::fs::write(dir.join(EVENTS_FILE), "[]\n").map_err(|e| Error::io(&dir, e))?;
    let mut turns: Vec<Vec<String>> = vec![Vec::new(); source.turn_count.max(1)];
    for (i, e) in source.events.iter().enumerate() {
        if matches!(e.kind, Kind::Compaction(_)) {
            continue;
        }
        let t = e.turn.min(turns.len() - 1);
        turns[t].push(source.raw(i).to_string());
    }
    turns.retain(|t| !t.is_empty());
    Ok(Replay {
        dir,
        turns,
        written: 0,
    })
}

impl Replay {
    /// How many turns the replay writes in all.
    pub fn total(&self) -> usize {
        self.turns.len()
    }

    /// How many are written.
    pub fn written(&self) -> usize {
        self.written
    }

    /// Writes the next turn as jp does; `false` once all are written. A
    /// held lock (someone mid-write) is `Error::Locked`: try again later.
    pub fn step(&mut self) -> Result<bool> {
        let Some(turn) = self.turns.get(self.written) else {
            return Ok(false);
        };
        let lock = save::lock_for(&self.dir)?;
        let current = load::load(&self.dir)?;
        let mut parts: Vec<Cow<'_, str>> = (0..current.events.len())
            .map(|i| Cow::Borrowed(current.raw(i)))
            .collect();
        parts.extend(turn.iter().map(|t| Cow::Borrowed(t.as_str())));
        let text = save::join_array(&parts);
        let path = self.dir.join(EVENTS_FILE);
        let temp = safe_fs::write_temp(&path, text.as_bytes(), None)?;
        safe_fs::commit(&temp, &path)?;
        drop(lock);
        self.written += 1;
        Ok(true)
    }
}

/// What a replay wrote into its copy, for the person watching it: one
/// line per compaction (`after turn 21: elision of turns 6..8`), in order.
pub fn written_compactions(dir: &Path) -> Result<Vec<String>> {
    let conv = load::load(dir)?;
    Ok(conv
        .valid_compactions()
        .iter()
        .zip(conv.compactions().filter(|c| c.parsed.is_ok()))
        .map(|(c, r)| {
            let what = match (&c.summary, c.tool_calls.is_some() || c.strip_reasoning) {
                (Some(_), _) => "summary",
                (None, true) => "elision",
                (None, false) => "compaction",
            };
            format!(
                "after turn {}: {what} of turns {}..{}",
                conv.events[r.event].turn + 1,
                c.from_turn + 1,
                c.to_turn + 1
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_turn_by_turn_keeping_what_others_appended_and_no_compaction_of_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src/17000000000-t");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("base_config.json"), "{}\n").unwrap();
        let events = serde_json::json!([
            {"type": "turn_start", "timestamp": "2026-01-01T00:00:00Z"},
            {"type": "chat_request", "timestamp": "2026-01-01T00:00:01Z", "content": "one"},
            {"type": "turn_start", "timestamp": "2026-01-01T00:01:00Z"},
            {"type": "chat_request", "timestamp": "2026-01-01T00:01:01Z", "content": "two"},
            {"type": "compaction", "timestamp": "2026-01-01T00:01:02Z", "from_turn": 0, "to_turn": 0,
             "reasoning": "strip"},
        ]);
        std::fs::write(src.join("events.json"), events.to_string()).unwrap();
        let source = load::load(&src).unwrap();
        let root = tmp.path().join("replay");
        let mut r = prepare(&source, &root).unwrap();
        assert_eq!(r.total(), 2);
        assert_eq!(load::load(&r.dir).unwrap().events.len(), 0);
        assert!(r.step().unwrap());
        let after_one = load::load(&r.dir).unwrap();
        assert_eq!(after_one.turn_count, 1);
        // Another writer appends a compaction between the turns: kept.
        let compactions = source.valid_compactions();
        assert_eq!(compactions.len(), 1);
        save::apply(&r.dir, &crate::core::store::edit::Edit::append(compactions)).unwrap();
        assert!(r.step().unwrap());
        assert!(!r.step().unwrap());
        let done = load::load(&r.dir).unwrap();
        assert_eq!(done.turn_count, 2);
        assert_eq!(
            done.compactions().count(),
            1,
            "the other writer's, not the source's"
        );
        let texts: Vec<String> = (0..done.events.len()).map(|i| done.text(i)).collect();
        assert!(texts.contains(&"one".to_string()) && texts.contains(&"two".to_string()));
        // The lock is let go after each turn (its file emptied).
        let lock = root.join(".jp/locks/jp-c17000000000.lock");
        assert_eq!(std::fs::read(&lock).unwrap(), b"");
    }
}
