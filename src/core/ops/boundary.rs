//! Automatic compaction at a turn boundary, as `watch` runs it beside jp:
//! plan unlocked (a summary takes time, and a non-interactive `jp query`
//! fails at once on a held lock), then take jp's lock, re-read, and append
//! only if the conversation still holds what the plan saw, again on a fresh
//! read when jp wrote meanwhile. The tracker says when a followed
//! conversation is at a boundary; `watch` and the inspector's `A` share it.

use super::plan::Plan;
use super::preview::preview_auto;
use crate::core::auto::AutoConfig;
use crate::core::compact::jp_view::View;
use crate::core::error::Result;
use crate::core::model::conversation::Conversation;
use crate::core::model::id::ConversationId;
use crate::core::model::timestamp::Timestamp;
use crate::core::store::save;
use crate::core::store::workspace::{CONVERSATIONS_DIR, LOCKS_DIR, dir_of_id, dirs_by_id};
use crate::core::summarize;
use crate::core::summarize::config::SummarizerKind;
use std::path::{Path, PathBuf};

/// What happened at a boundary.
#[derive(Debug)]
pub enum Boundary {
    /// Compactions appended.
    Fired(Plan),
    /// What a dry run would have appended; nothing was written.
    WouldFire(Plan),
    /// Nothing to do, and why.
    Skipped(String),
}

/// Evaluates `config`'s automatic policy on `conv` (read from `dir`
/// unlocked) and writes what it fires. `force` evaluates even when the
/// configuration has it disabled. A conversation that changed meanwhile is
/// `Error::Changed`; jp holding the lock is `Error::Locked`: nothing is
/// written either way.
fn compact_at_boundary(
    dir: &Path,
    conv: &Conversation,
    config: &AutoConfig,
    at: &AtBoundary,
) -> Result<Boundary> {
    match plan_at_boundary(conv, config, at)? {
        Boundary::WouldFire(plan) if !at.dry_run => {
            if let Some(why) = save::copies_part(dir) {
                return Ok(Boundary::Skipped(format!(
                    "not written: jp's two copies of this conversation are not one \
                     conversation ({why}); a workspace sharing this one's .jp/.id shares jp's \
                     user-local folder"
                )));
            }
            super::write(
                dir,
                super::Change::Plan {
                    plan: &plan,
                    stamp: None,
                    on: Some(conv),
                },
                super::Guard::Strict,
            )?;
            Ok(Boundary::Fired(plan))
        }
        other => Ok(other),
    }
}

/// How a boundary is evaluated.
#[derive(Debug, Clone, Copy)]
pub struct AtBoundary {
    /// The window in place of the model's.
    pub window_override: Option<u64>,
    /// The time stamped on what is appended.
    pub now: Timestamp,
    /// Evaluate even where the configuration leaves it disabled.
    pub force: bool,
    /// Say what would be appended, write nothing.
    pub dry_run: bool,
    /// The summarizer in place of the configured one.
    pub summarizer: Option<SummarizerKind>,
    /// Call the summarizer even in a dry run (a write always does).
    pub summarize: bool,
}

/// The plan a boundary makes: `WouldFire` or `Skipped` with the reason.
fn plan_at_boundary(conv: &Conversation, config: &AutoConfig, at: &AtBoundary) -> Result<Boundary> {
    if !config.enabled && !at.force {
        return Ok(Boundary::Skipped(
            "automatic compaction is not enabled in the configuration (--enable forces it)".into(),
        ));
    }
    let chosen = summarize::chosen(at.summarizer, &config.summarizer)?;
    let summarizer = summarize::for_preview(chosen.as_ref(), !at.dry_run || at.summarize);
    let budget = super::budget(conv, config, at.window_override);
    let plan = preview_auto(
        conv,
        config,
        &budget,
        summarizer.as_ref(),
        at.now,
        View::Inspect,
    )?;
    if plan.additions.is_empty() {
        return Ok(Boundary::Skipped(plan.why_nothing()));
    }
    Ok(Boundary::WouldFire(plan))
}

/// Whether jp is mid-query on the conversation in `dir` (it holds the
/// lock): its release is the next boundary, and a write now would be
/// refused. The one place the shells ask, as they poll.
pub fn jp_mid_query(dir: &Path) -> bool {
    save::jp_holds(dir)
}

/// What a look at a followed conversation found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// No turn completed since the last look.
    NoNewTurn,
    /// jp holds the lock, mid-query: its release is the boundary, so look
    /// again then.
    JpBusy,
    /// A turn completed and jp let go: evaluate now (its turns are
    /// recorded as seen).
    Boundary,
}

/// The followed conversations whose last boundary withheld a summary, so
/// the reason is said once per episode of them, not at every turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Withheld(std::collections::BTreeSet<u64>);

impl Withheld {
    /// What to say of `plan`'s withheld summary at this boundary of `id`:
    /// its reason the first time in an episode; nothing after, nor when
    /// none was withheld (which ends the episode).
    pub fn say(&mut self, id: u64, plan: &Plan) -> Option<String> {
        match plan.withheld_summary() {
            Some(note) => self.0.insert(id).then(|| note.to_string()),
            None => {
                self.0.remove(&id);
                None
            }
        }
    }
}

/// The turn boundaries of the conversations being followed, by id (jp
/// renames a folder when the title changes; the id stays).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tracker {
    seen: std::collections::BTreeMap<u64, usize>,
}

impl Tracker {
    /// Follows conversation `id` from `turns` on.
    pub fn follow(&mut self, id: u64, turns: usize) {
        self.seen.insert(id, turns);
    }

    pub fn follows(&self, id: u64) -> bool {
        self.seen.contains_key(&id)
    }

    pub fn ids(&self) -> Vec<u64> {
        self.seen.keys().copied().collect()
    }

    pub fn len(&self) -> usize {
        self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// Whether `conv` (read from `dir`) is at a new turn boundary, or
    /// `always` (`watch --once`) while jp isn't mid-query.
    pub fn look(&mut self, id: u64, dir: &Path, conv: &Conversation, always: bool) -> Look {
        if !always && conv.turn_count <= self.seen.get(&id).copied().unwrap_or(0) {
            return Look::NoNewTurn;
        }
        if save::jp_holds(dir) {
            return Look::JpBusy;
        }
        self.seen.insert(id, conv.turn_count);
        Look::Boundary
    }
}

/// How evaluating a boundary ended, retries included.
#[derive(Debug)]
pub enum Attempt {
    /// Compactions appended to `conv` (as it was read for the write).
    Fired(Box<Conversation>, Plan),
    /// What a dry run would have appended to `conv`.
    WouldFire(Box<Conversation>, Plan),
    /// Nothing to do at `conv`, and why: the conversation as it was read,
    /// for the next read to extend.
    Skipped(Box<Conversation>, String),
    /// jp kept writing: every attempt met a changed file.
    KeptChanging,
    /// The conversation could not be read again.
    Unreadable(crate::core::error::Error),
    Failed(crate::core::error::Error),
}

/// Attempts at a boundary before giving up until the next one.
const ATTEMPTS: usize = 3;

/// Runs `fire` (plan and write, as [`compact_at_boundary`] does) on `conv`,
/// and again on a fresh read when jp wrote meanwhile, up to three times.
fn with_retries(
    dir: &Path,
    conv: Conversation,
    mut fire: impl FnMut(&Conversation) -> Result<Boundary>,
) -> Attempt {
    let mut conv = conv;
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            conv = match crate::core::store::load::load(dir) {
                Ok(c) => c,
                Err(e) => return Attempt::Unreadable(e),
            };
        }
        match fire(&conv) {
            Ok(Boundary::Fired(plan)) => return Attempt::Fired(Box::new(conv), plan),
            Ok(Boundary::WouldFire(plan)) => return Attempt::WouldFire(Box::new(conv), plan),
            Ok(Boundary::Skipped(why)) => return Attempt::Skipped(Box::new(conv), why),
            Err(crate::core::error::Error::Changed { .. }) => continue,
            Err(e) => return Attempt::Failed(e),
        }
    }
    Attempt::KeptChanging
}

/// The boundary step `watch` and `A` share: `conv`'s configuration
/// (`config`, asked again for each fresh read), its automatic policy
/// evaluated and what fires written, read again and tried again while jp
/// keeps writing.
pub fn step(
    dir: &Path,
    conv: Conversation,
    mut config: impl FnMut(&Conversation) -> Result<AutoConfig>,
    at: &AtBoundary,
) -> Attempt {
    with_retries(dir, conv, |conv| {
        compact_at_boundary(dir, conv, &config(conv)?, at)
    })
}

/// The conversation ids a file event's `paths` are about: files in a
/// conversation folder, or jp's lock files (`jp-c<ID>.lock`).
pub fn ids_of_paths<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Vec<u64> {
    paths
        .into_iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            if let Some(id) = ConversationId::of_lock_name(name) {
                return Some(id.0);
            }
            p.ancestors()
                .find(|a| {
                    a.parent()
                        .and_then(Path::file_name)
                        .is_some_and(|n| n == CONVERSATIONS_DIR)
                })
                .and_then(ConversationId::of_dir)
                .map(u64::from)
        })
        .collect()
}

/// Where each conversation of the `conversations` folders is now, by id,
/// listed once: a burst of changes looks each one up here.
pub fn where_now(conversations: &[PathBuf]) -> std::collections::HashMap<u64, PathBuf> {
    dirs_by_id(conversations)
}

/// What a folder that appeared in a storage folder is to a watcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewFolder {
    /// jp's lock files' folder: where a boundary is seen.
    Locks,
    /// A conversation's folder, made or renamed, and its id.
    Conversation(u64),
    /// Anything else.
    Other,
}

/// What `path`, a folder just made or renamed, is to a watcher.
pub fn new_folder(path: &Path) -> NewFolder {
    if path.file_name().is_some_and(|n| n == LOCKS_DIR) {
        return NewFolder::Locks;
    }
    let in_conversations = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == CONVERSATIONS_DIR);
    match ConversationId::of_dir(path) {
        Some(id) if in_conversations => NewFolder::Conversation(id.0),
        _ => NewFolder::Other,
    }
}

/// The folder of jp's lock files in a storage folder.
pub fn locks_of(storage: &Path) -> PathBuf {
    storage.join(LOCKS_DIR)
}

/// `dir`, or where jp moved it: the folder of the same conversation id
/// beside it (jp renames a folder when the title changes).
pub fn relocated(dir: PathBuf) -> PathBuf {
    if dir.exists() {
        return dir;
    }
    let found = ConversationId::of_dir(&dir).and_then(|id| {
        let parent = dir.parent()?.to_path_buf();
        dir_of_id(&[parent], id.0)
    });
    found.unwrap_or(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::Error;
    use std::cell::Cell;

    #[test]
    fn a_withheld_summary_is_said_once_per_episode_and_per_conversation() {
        use crate::core::auto::decision::Note;
        let plan = |withheld: bool| Plan {
            kind: super::super::plan::PlanKind::Auto,
            additions: Vec::new(),
            skipped: Vec::new(),
            removal: crate::core::store::edit::Removal::None,
            removes: 0,
            notes: withheld
                .then_some(super::super::plan::PlanNote::Trigger(
                    Note::SummaryWithheld {
                        range: crate::core::model::TurnRange { from: 8, to: 27 },
                        estimate: 55_000,
                        threshold: 41_000,
                        gain: 3_000,
                        min_gain: 4_800,
                    },
                ))
                .into_iter()
                .collect(),
            tokens: super::super::plan::Tokens {
                before: 0,
                after: 0,
            },
            withheld: None,
        };
        let mut w = Withheld::default();
        let said = w.say(1, &plan(true)).unwrap();
        assert!(
            said.starts_with("summary of turns 9..28 not worth its call"),
            "{said}"
        );
        assert_eq!(w.say(1, &plan(true)), None, "said once while it lasts");
        assert!(
            w.say(2, &plan(true)).is_some(),
            "another conversation has its own"
        );
        assert_eq!(w.say(1, &plan(false)), None);
        assert!(
            w.say(1, &plan(true)).is_some(),
            "a new episode is said again"
        );
    }

    fn conversation(root: &Path, turns: usize) -> (PathBuf, Conversation) {
        let dir = root.join(".jp/conversations/17000000000-t");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("base_config.json"), "{}\n").unwrap();
        let mut events = Vec::new();
        for t in 0..turns {
            events.push(serde_json::json!({"type": "turn_start", "timestamp": format!("2026-01-01T00:0{t}:00Z")}));
            events.push(serde_json::json!({"type": "chat_request", "timestamp": format!("2026-01-01T00:0{t}:01Z"), "content": "hi"}));
        }
        std::fs::write(
            dir.join("events.json"),
            serde_json::to_string(&events).unwrap(),
        )
        .unwrap();
        let conv = crate::core::store::load::load(&dir).unwrap();
        (dir, conv)
    }

    #[test]
    fn a_boundary_is_a_turn_more_than_last_seen_and_is_seen_once() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, conv) = conversation(tmp.path(), 3);
        assert_eq!(conv.turn_count, 3);
        let mut t = Tracker::default();
        t.follow(17000000000, 3);
        assert_eq!(t.look(17000000000, &dir, &conv, false), Look::NoNewTurn);
        assert_eq!(t.look(17000000000, &dir, &conv, true), Look::Boundary);
        t.follow(17000000000, 2);
        assert_eq!(t.look(17000000000, &dir, &conv, false), Look::Boundary);
        assert_eq!(t.look(17000000000, &dir, &conv, false), Look::NoNewTurn);
    }

    #[test]
    fn a_changed_file_is_read_again_and_planned_again_up_to_three_times() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, conv) = conversation(tmp.path(), 2);
        let changed = || Error::Changed {
            path: dir.clone(),
            why: "jp wrote".into(),
        };
        let calls = Cell::new(0);
        let second = with_retries(&dir, conv.clone(), |_| {
            calls.set(calls.get() + 1);
            if calls.get() < 2 {
                Err(changed())
            } else {
                Ok(Boundary::Skipped("nothing to do".into()))
            }
        });
        assert!(matches!(second, Attempt::Skipped(_, ref w) if w == "nothing to do"));
        assert_eq!(calls.get(), 2);
        let calls = Cell::new(0);
        let never = with_retries(&dir, conv.clone(), |_| {
            calls.set(calls.get() + 1);
            Err(changed())
        });
        assert!(matches!(never, Attempt::KeptChanging));
        assert_eq!(calls.get(), 3);
        let other = with_retries(&dir, conv, |_| Err(Error::invalid(&dir, "broken")));
        assert!(matches!(other, Attempt::Failed(Error::Invalid { .. })));
    }

    #[test]
    fn a_new_folder_is_a_lock_folder_a_conversation_or_nothing() {
        assert_eq!(new_folder(Path::new("/w/.jp/locks")), NewFolder::Locks);
        assert_eq!(
            new_folder(Path::new("/w/.jp/conversations/17000000001-a-title")),
            NewFolder::Conversation(17000000001)
        );
        // Named like one, but not in a `conversations` folder.
        assert_eq!(
            new_folder(Path::new("/w/.jp/17000000001-a-title")),
            NewFolder::Other
        );
        assert_eq!(
            new_folder(Path::new("/w/.jp/conversations/notes")),
            NewFolder::Other
        );
        assert_eq!(
            locks_of(Path::new("/w/.jp")),
            Path::new("/w/.jp/locks").to_path_buf()
        );
    }

    #[test]
    fn file_events_name_conversations_by_folder_or_lock() {
        let paths = [
            Path::new("/w/.jp/conversations/17000000001-a-title/events.json"),
            Path::new("/w/.jp/locks/jp-c17000000002.lock"),
            Path::new("/w/.jp/config.toml"),
            Path::new("/w/.jp/locks/jp-c17000000003.lock.tmp"),
        ];
        assert_eq!(ids_of_paths(paths), vec![17000000001, 17000000002]);
    }

    #[test]
    fn a_renamed_folder_is_found_by_its_id() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, _) = conversation(tmp.path(), 1);
        let old = dir.with_file_name("17000000000-old-title");
        assert_eq!(relocated(old), dir);
        let gone = dir.with_file_name("17000000009-gone");
        assert_eq!(relocated(gone.clone()), gone);
    }
}
