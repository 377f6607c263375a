//! Where conversations live: the workspace found by walking up from a
//! directory, and its JP user silo (format.md, "Where conversations live").

use crate::core::model::conversation::{EVENTS_FILE, METADATA_FILE};
use crate::core::model::id::ConversationId;
use crate::core::model::timestamp::{self, Timestamp};
use serde_json::Value;
use std::collections::HashMap;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub const STORAGE_DIR: &str = ".jp";
pub const CONVERSATIONS_DIR: &str = "conversations";
pub const LOCKS_DIR: &str = "locks";

/// A JP workspace: the directory holding `.jp/`, and its user silo if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    pub root: PathBuf,
    /// `<root>/.jp`
    pub storage: PathBuf,
    /// `<data>/workspace/<silo>` whose `storage` link points at `storage`.
    pub silo: Option<PathBuf>,
}

/// Which storage a conversation was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Workspace,
    User,
}

/// A conversation directory found in a workspace, before it is loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The copy jp reads.
    pub dir: PathBuf,
    pub id: Option<u64>,
    /// Where it lives: a conversation with both copies is a workspace one.
    pub location: Location,
    /// jp's other copy of it (its user-local one, or the workspace's).
    pub twin: Option<PathBuf>,
}

impl Entry {
    pub fn dir_name(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The slug part of `<ID>-<slug>`.
    pub fn slug(&self) -> String {
        let name = self.dir_name();
        match name.split_once('-') {
            Some((_, slug)) => slug.to_string(),
            None => String::new(),
        }
    }

    /// A string field of `metadata.json`, read on demand.
    fn metadata(&self, field: &str) -> Option<String> {
        let bytes = crate::core::store::bounded::read_regular(
            &self.dir.join(METADATA_FILE),
            crate::core::store::safe_fs::METADATA_LIMIT,
            true,
        )
        .ok()?;
        let v: Value = serde_json::from_slice(&bytes).ok()?;
        v.get(field)?.as_str().map(str::to_owned)
    }

    /// The title from `metadata.json`.
    pub fn title(&self) -> Option<String> {
        self.metadata("title")
    }

    /// When jp last made this the active conversation (`metadata.json`).
    pub fn last_activated(&self) -> Option<Timestamp> {
        timestamp::parse(&self.metadata("last_activated_at")?)
    }

    /// jp's session notion where it is cheap: when it was last activated
    /// (`last_activated_at`), else when it was created (its id). Not the
    /// file's mtime, which a checkout or any write resets.
    pub fn activity(&self) -> Option<Timestamp> {
        let created = self.id.and_then(|id| {
            Timestamp::from_timestamp_millis(i64::try_from(id).ok()?.checked_mul(100)?)
        });
        self.last_activated().or(created)
    }

    /// `jp-c<ID> <title>` (or the directory name), for candidate lists.
    pub fn describe(&self) -> String {
        let id = match self.id {
            Some(id) => ConversationId(id).to_string(),
            None => self.dir_name(),
        };
        let title = self.title().unwrap_or_else(|| self.slug());
        let place = match self.location {
            Location::Workspace => "",
            Location::User => " (user storage)",
        };
        format!("{id}  {title}{place}")
    }
}

impl Workspace {
    /// Walks up from `start` to the first directory holding `.jp/`.
    pub fn find(start: &Path) -> Option<Workspace> {
        let start = fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
        start
            .ancestors()
            .find(|d| d.join(STORAGE_DIR).is_dir())
            .map(Workspace::at)
    }

    /// The workspace rooted at `root` (which holds `.jp/`).
    /// The workspace a user named: its root, or its `.jp` folder itself.
    pub fn given(path: &Path) -> crate::core::error::Result<Workspace> {
        let root = match path.file_name() {
            Some(name) if name == STORAGE_DIR => path.parent().unwrap_or(Path::new(".")),
            _ => path,
        };
        let root = if root.as_os_str().is_empty() {
            Path::new(".")
        } else {
            root
        };
        if root.join(STORAGE_DIR).is_dir() {
            Ok(Workspace::at(root))
        } else {
            Err(crate::core::error::Error::NoWorkspace {
                given: Some(path.to_path_buf()),
            })
        }
    }

    pub fn at(root: &Path) -> Workspace {
        let storage = root.join(STORAGE_DIR);
        let silo = find_silo(&storage);
        Workspace {
            root: root.to_path_buf(),
            storage,
            silo,
        }
    }

    /// Where `.jp` really is, when that is outside the workspace's root
    /// (`.jp` a link to another workspace's).
    pub fn storage_elsewhere(&self) -> Option<PathBuf> {
        let real = fs::canonicalize(&self.storage).ok()?;
        let root = fs::canonicalize(&self.root).ok()?;
        (!real.starts_with(&root)).then_some(real)
    }

    /// The directories searched for conversations.
    pub fn conversation_dirs(&self) -> Vec<(PathBuf, Location)> {
        let mut dirs = vec![(self.storage.join(CONVERSATIONS_DIR), Location::Workspace)];
        if let Some(silo) = &self.silo {
            dirs.push((silo.join(CONVERSATIONS_DIR), Location::User));
        }
        dirs
    }

    /// Every conversation, oldest first, once: a conversation jp keeps in
    /// both the workspace and its user-local silo is one entry, naming the
    /// copy jp reads. A folder reached through a link out of the workspace
    /// storage or the silo is none of this workspace's (a cloned workspace
    /// could otherwise point jp-inspect at another one's conversations).
    pub fn entries(&self) -> Vec<Entry> {
        let mut out = Vec::new();
        for (dir, location) in self.conversation_dirs() {
            let home = match location {
                Location::Workspace => fs::canonicalize(&self.storage),
                Location::User => self.silo.as_ref().map_or_else(
                    || Err(std::io::ErrorKind::NotFound.into()),
                    fs::canonicalize,
                ),
            };
            let Ok(home) = home else {
                continue;
            };
            let Ok(read) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in read.flatten() {
                let path = entry.path();
                if !path.join(EVENTS_FILE).is_file() || !lives_in(&path, &home) {
                    continue;
                }
                out.push(Entry {
                    id: ConversationId::of_dir(&path).map(u64::from),
                    dir: path,
                    location,
                    twin: None,
                });
            }
        }
        out.sort_by(|a, b| a.id.cmp(&b.id).then_with(|| a.dir.cmp(&b.dir)));
        one_per_conversation(out)
    }

    /// jp's session notion where it is cheap: the conversation most recently
    /// activated (`last_activated_at`), a conversation without it counting
    /// from its creation (its id), the newest winning a tie.
    pub fn most_recently_active(&self) -> Option<Entry> {
        self.entries()
            .into_iter()
            .max_by_key(|e| (e.activity(), e.id))
    }
}

/// When a copy's stream last changed, as jp compares copies: the newer of
/// its `events.json` and `base_config.json` (a missing file counts as
/// never).
pub fn stream_mtime(dir: &Path) -> SystemTime {
    let mtime = |name: &str| {
        fs::metadata(dir.join(name))
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH)
    };
    mtime(EVENTS_FILE).max(mtime(crate::core::model::conversation::BASE_CONFIG_FILE))
}

/// Of the user-local and the workspace copy, the one jp reads.
pub fn jp_reads<'a>(user: &'a Path, workspace: &'a Path) -> &'a Path {
    if stream_mtime(user) >= stream_mtime(workspace) {
        user
    } else {
        workspace
    }
}

/// Whether `dir` really lies inside `home` (canonical), links resolved.
fn lives_in(dir: &Path, home: &Path) -> bool {
    fs::canonicalize(dir).is_ok_and(|real| real.starts_with(home))
}

/// Folds each conversation's workspace and user-local copies (sorted by
/// id) into one entry for the copy jp reads.
fn one_per_conversation(sorted: Vec<Entry>) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::with_capacity(sorted.len());
    for e in sorted {
        if let Some(last) = out.last_mut()
            && last.id.is_some()
            && last.id == e.id
            && last.twin.is_none()
            && last.location != e.location
        {
            let (user, workspace) = match last.location {
                Location::User => (last.dir.clone(), e.dir),
                Location::Workspace => (e.dir, last.dir.clone()),
            };
            let read = jp_reads(&user, &workspace).to_path_buf();
            last.twin = Some(if read == user { workspace } else { user });
            last.dir = read;
            last.location = Location::Workspace;
            continue;
        }
        out.push(e);
    }
    out
}

/// The directory of conversation `id` in `conversations` dirs, wherever jp
/// renamed it to (`<ID>` or `<ID>-<slug>`).
pub fn dir_of_id(conversations: &[PathBuf], id: u64) -> Option<PathBuf> {
    conversations.iter().find_map(|dir| {
        fs::read_dir(dir)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                ConversationId::of_dir(p).map(u64::from) == Some(id)
                    && p.join(EVENTS_FILE).is_file()
            })
    })
}

/// Every conversation directory of `conversations` dirs by id, listed once
/// (the first of an id found wins, as [`dir_of_id`] finds it): a pass
/// over many conversations looks each up here, not by listing again.
pub fn dirs_by_id(conversations: &[PathBuf]) -> HashMap<u64, PathBuf> {
    let mut out = HashMap::new();
    for dir in conversations {
        let Ok(read) = fs::read_dir(dir) else {
            continue;
        };
        for p in read.flatten().map(|e| e.path()) {
            if let Some(id) = ConversationId::of_dir(&p).map(u64::from)
                && !out.contains_key(&id)
                && p.join(EVENTS_FILE).is_file()
            {
                out.insert(id, p);
            }
        }
    }
    out
}

/// The JP user data directory (format.md).
pub fn user_data_dir() -> Option<PathBuf> {
    if let Some(d) = env::var_os("JP_USER_DATA_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(x) = env::var_os("XDG_DATA_HOME").map(PathBuf::from)
        && x.is_absolute()
    {
        return Some(x.join("jp"));
    }
    env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share/jp"))
}

/// The silo under the user data dir whose `storage` link points at
/// `storage`.
pub fn find_silo(storage: &Path) -> Option<PathBuf> {
    find_silo_in(storage, &user_data_dir()?)
}

/// [`find_silo`] under the user data dir `data`.
pub fn find_silo_in(storage: &Path, data: &Path) -> Option<PathBuf> {
    let want = fs::canonicalize(storage).ok()?;
    let read = fs::read_dir(data.join("workspace")).ok()?;
    read.flatten()
        .map(|e| e.path())
        .find(|silo| fs::canonicalize(silo.join("storage")).is_ok_and(|target| target == want))
}

/// Whether `root` is one of jp's silos: a folder directly under the user
/// data dir's `workspace/`, holding a `storage` link. Nothing inside a
/// workspace is ever taken for a silo, whatever it holds: a cloned
/// workspace could otherwise plant `.jp/storage` and have another
/// workspace's conversation taken for jp's other copy.
pub fn is_silo_in(root: &Path, data: &Path) -> bool {
    let (Ok(real), Ok(home)) = (
        fs::canonicalize(root),
        fs::canonicalize(data.join("workspace")),
    ) else {
        return false;
    };
    real.parent() == Some(home.as_path())
        && fs::symlink_metadata(root.join("storage")).is_ok_and(|m| m.file_type().is_symlink())
}

/// Where `jp` takes the lock of the conversation in `dir`: under the user
/// silo when there is one, else under the workspace's `.jp/`. The second path
/// is the other location, which `jp` also honours when a lock file exists
/// there.
pub fn lock_paths(dir: &Path, id: u64) -> (PathBuf, Option<PathBuf>) {
    lock_paths_in(dir, id, user_data_dir().as_deref())
}

/// [`lock_paths`] with jp's user data dir given.
pub fn lock_paths_in(dir: &Path, id: u64, data: Option<&Path>) -> (PathBuf, Option<PathBuf>) {
    let name = ConversationId(id).lock_name();
    let parent = dir.parent().unwrap_or(dir);
    let in_conversations = parent.file_name().is_some_and(|n| n == CONVERSATIONS_DIR);
    let root = if in_conversations {
        parent.parent().unwrap_or(parent)
    } else {
        parent
    };
    if in_conversations && data.is_some_and(|d| is_silo_in(root, d)) {
        let storage = fs::canonicalize(root.join("storage")).ok();
        return (
            root.join(LOCKS_DIR).join(&name),
            storage.map(|s| s.join(LOCKS_DIR).join(&name)),
        );
    }
    let workspace_lock = root.join(LOCKS_DIR).join(&name);
    match data.and_then(|d| find_silo_in(root, d)) {
        Some(silo) => (silo.join(LOCKS_DIR).join(&name), Some(workspace_lock)),
        None => (workspace_lock, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_goes_under_the_workspace_storage_without_a_silo() {
        let tmp = tempfile::tempdir().unwrap();
        let conv = tmp.path().join(".jp/conversations/17000000000-x");
        fs::create_dir_all(&conv).unwrap();
        let (primary, other) = lock_paths(&conv, 17000000000);
        assert_eq!(primary, tmp.path().join(".jp/locks/jp-c17000000000.lock"));
        assert!(other.is_none() || other.as_deref() != Some(primary.as_path()));
    }

    #[test]
    fn finds_workspace_walking_up() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir_all(tmp.path().join(".jp/conversations")).unwrap();
        let deep = tmp.path().join("a/b/c");
        fs::create_dir_all(&deep).unwrap();
        let ws = Workspace::find(&deep).unwrap();
        assert_eq!(ws.root, fs::canonicalize(tmp.path()).unwrap());
    }
}
