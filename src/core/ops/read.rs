//! Reading a conversation the inspector or `watch` already holds, again:
//! only what jp appended when the file still starts with what was read,
//! else the whole file; from the folder jp moved it to when it renamed it;
//! with what changed since and, when asked, its configuration. One use
//! case for every reader that follows jp.

use super::changes::Changes;
use crate::core::auto::AutoConfig;
use crate::core::error::Result;
use crate::core::model::conversation::Conversation;
use crate::core::store::reload::Reloaded;
use std::path::{Path, PathBuf};

/// What a reader asks for.
#[derive(Debug, Clone, Copy)]
pub struct ReadRequest<'a> {
    /// Where the conversation was found last.
    pub dir: &'a Path,
    /// The conversation as held: only what was appended since is parsed.
    pub since: Option<&'a Conversation>,
    /// Say what changed since the conversation held. Only a viewer that
    /// reports it asks: after a whole read it compares every event, which
    /// `watch` and `A` at each boundary need not pay for.
    pub changes: bool,
    /// Its configuration too (the conversation's, then this `--config`
    /// file), when asked.
    pub config: Option<Option<&'a Path>>,
    /// What jp handed over, under `jp inspect`: read in place of its files.
    pub jp: Option<&'a crate::core::model::config::JpResolved>,
}

/// The conversation as it is now.
#[derive(Debug)]
pub struct Read {
    /// Where it is now: jp renames a folder when it sets the title.
    pub dir: PathBuf,
    pub conversation: Conversation,
    /// How the file was read, when it was held before.
    pub how: Option<Reloaded>,
    /// What changed since the conversation held, when asked and there was
    /// one.
    pub changes: Option<Changes>,
    /// Its configuration, when asked; its error comes beside the
    /// conversation so a shell can say the file's warnings first.
    pub config: Option<Result<AutoConfig>>,
}

/// The conversation `request` names, read again.
pub fn read(request: ReadRequest<'_>) -> Result<Read> {
    let dir = super::boundary::relocated(request.dir.to_path_buf());
    let (conversation, how) = match request.since {
        Some(held) => {
            let (c, how) = crate::core::store::reload::reload(&dir, held)?;
            (c, Some(how))
        }
        None => (crate::core::store::load::load(&dir)?, None),
    };
    let changes = request
        .since
        .filter(|_| request.changes)
        .map(|held| super::changes::between(held, &conversation));
    let config = request
        .config
        .map(|file| crate::core::auto::config_for(&conversation, file, request.jp));
    Ok(Read {
        dir,
        conversation,
        how,
        changes,
        config,
    })
}

/// A small text file (a config, a summary, the user's own file) read
/// through the store's bounded reader: refused past `limit` bytes, when it
/// is not a regular file or not UTF-8 (naming the first bad byte), and
/// through a link only when `follow`.
pub fn bounded_text(path: &Path, limit: u64, follow: bool) -> std::io::Result<String> {
    crate::core::store::bounded::read_text(path, limit, follow)
}

/// Records, beside the conversation in `dir`, which of its compactions are
/// automatic and their bounds, as a write by jp-inspect does: so a copy
/// that jp rewrites, dropping those fields, still says so. Best effort.
pub fn remember_sources(dir: &Path) {
    use crate::core::store::{load, provenance};
    if let Ok(conv) = load::load(dir) {
        let _ = provenance::write(dir, &provenance::records_of(&conv));
    }
}

/// The conversation in `dir` (or where jp moved it), read whole.
pub fn whole(dir: &Path) -> Result<Conversation> {
    read(ReadRequest {
        dir,
        since: None,
        changes: false,
        config: None,
        jp: None,
    })
    .map(|r| r.conversation)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn turn(t: u32) -> Vec<Value> {
        vec![
            json!({"type": "turn_start", "timestamp": format!("2026-01-01T00:0{t}:00Z")}),
            json!({"type": "chat_request", "timestamp": format!("2026-01-01T00:0{t}:01Z"), "content": "hi"}),
        ]
    }

    /// `events` written as jp writes them: pretty, two spaces, a final
    /// newline.
    fn write(dir: &Path, events: &[Value]) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("base_config.json"), "{}\n").unwrap();
        let text = serde_json::to_string_pretty(events).unwrap() + "\n";
        std::fs::write(dir.join("events.json"), text).unwrap();
    }

    #[test]
    fn reads_what_jp_appended_where_jp_moved_it() {
        let tmp = tempfile::tempdir().unwrap();
        let first = tmp.path().join("17000000000-untitled");
        write(&first, &turn(0));
        let held = read(ReadRequest {
            dir: &first,
            since: None,
            changes: true,
            config: Some(None),
            jp: None,
        })
        .unwrap();
        assert!(held.how.is_none() && held.changes.is_none());
        assert!(held.config.as_ref().is_some_and(|c| c.is_ok()));
        // jp sets a title: the folder is renamed, and a turn appended.
        let moved = tmp.path().join("17000000000-a-title");
        std::fs::rename(&first, &moved).unwrap();
        let two: Vec<Value> = turn(0).into_iter().chain(turn(1)).collect();
        write(&moved, &two);
        let again = read(ReadRequest {
            dir: &first,
            since: Some(&held.conversation),
            changes: true,
            config: None,
            jp: None,
        })
        .unwrap();
        assert_eq!(again.dir, moved);
        assert_eq!(again.conversation.turn_count, 2);
        assert!(
            matches!(again.how, Some(Reloaded::Appended(2))),
            "{:?}",
            again.how
        );
        let changes = again.changes.unwrap();
        assert_eq!(
            (changes.added, changes.removed, changes.turns_added),
            (2, 0, 1)
        );
        assert!(again.config.is_none());
        // Not asked: not compared.
        let quiet = read(ReadRequest {
            dir: &moved,
            since: Some(&held.conversation),
            changes: false,
            config: None,
            jp: None,
        })
        .unwrap();
        assert!(quiet.changes.is_none());
    }
}
