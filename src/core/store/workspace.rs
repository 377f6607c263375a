//! Where conversations live: the workspace found by walking up from a
//! directory, and its JP user silo (format.md, "Where conversations live").

use crate::core::model::conversation::{EVENTS_FILE, METADATA_FILE};
use crate::core::model::id::ConversationId;
use crate::core::model::timestamp::{self, Timestamp};
use crate::core::store::load::id_of_dir;
use serde_json::Value;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

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
    pub dir: PathBuf,
    pub id: Option<u64>,
    pub location: Location,
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
        let bytes = fs::read(self.dir.join(METADATA_FILE)).ok()?;
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
    pub fn given(path: &Path) -> crate::core::Result<Workspace> {
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
            Err(crate::core::Error::NoWorkspace {
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

    /// The directories searched for conversations.
    pub fn conversation_dirs(&self) -> Vec<(PathBuf, Location)> {
        let mut dirs = vec![(self.storage.join(CONVERSATIONS_DIR), Location::Workspace)];
        if let Some(silo) = &self.silo {
            dirs.push((silo.join(CONVERSATIONS_DIR), Location::User));
        }
        dirs
    }

    /// Every conversation directory, oldest first.
    pub fn entries(&self) -> Vec<Entry> {
        let mut out = Vec::new();
        for (dir, location) in self.conversation_dirs() {
            let Ok(read) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in read.flatten() {
                let path = entry.path();
                if path.join(EVENTS_FILE).is_file() {
                    out.push(Entry {
                        id: id_of_dir(&path),
                        dir: path,
                        location,
                    });
                }
            }
        }
        out.sort_by(|a, b| a.id.cmp(&b.id).then_with(|| a.dir.cmp(&b.dir)));
        out
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

/// The directory of conversation `id` in `conversations` dirs, wherever jp
/// renamed it to (`<ID>` or `<ID>-<slug>`).
pub fn dir_of_id(conversations: &[PathBuf], id: u64) -> Option<PathBuf> {
    conversations.iter().find_map(|dir| {
        fs::read_dir(dir)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| id_of_dir(p) == Some(id) && p.join(EVENTS_FILE).is_file())
    })
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
    let data = user_data_dir()?;
    let want = fs::canonicalize(storage).ok()?;
    let read = fs::read_dir(data.join("workspace")).ok()?;
    read.flatten()
        .map(|e| e.path())
        .find(|silo| fs::canonicalize(silo.join("storage")).is_ok_and(|target| target == want))
}

/// Where `jp` takes the lock of the conversation in `dir`: under the user
/// silo when there is one, else under the workspace's `.jp/`. The second path
/// is the other location, which `jp` also honours when a lock file exists
/// there.
pub fn lock_paths(dir: &Path, id: u64) -> (PathBuf, Option<PathBuf>) {
    let name = ConversationId(id).lock_name();
    let parent = dir.parent().unwrap_or(dir);
    let in_conversations = parent.file_name().is_some_and(|n| n == CONVERSATIONS_DIR);
    let root = if in_conversations {
        parent.parent().unwrap_or(parent)
    } else {
        parent
    };
    // A silo holds a `storage` link back to the workspace's `.jp`.
    let (storage, silo) = if root.join("storage").exists() {
        (
            fs::canonicalize(root.join("storage")).ok(),
            Some(root.to_path_buf()),
        )
    } else {
        (Some(root.to_path_buf()), find_silo(root))
    };
    let workspace_lock = storage.map(|s| s.join(LOCKS_DIR).join(&name));
    match silo {
        Some(silo) => (silo.join(LOCKS_DIR).join(&name), workspace_lock),
        None => (
            workspace_lock.unwrap_or_else(|| root.join(LOCKS_DIR).join(&name)),
            None,
        ),
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
