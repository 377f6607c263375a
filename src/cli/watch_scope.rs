//! What `watch` watches: each storage folder (the workspace's `.jp` and
//! jp's silo), its `locks` and `conversations` folders, and the folder of
//! each conversation it serves, every one by itself and never through a
//! link. A recursive watch would walk whatever a cloned workspace links to
//! (a ladder of links is exponential, a link to `/` the whole system); here
//! the watches are a few per storage and one per conversation.

use crate::core::model::id::ConversationId;
use crate::core::ops::boundary::{self, NewFolder};
use notify::{RecursiveMode, Watcher as _};
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

pub struct Scope {
    watcher: notify::RecommendedWatcher,
    /// Each storage folder, canonical: nothing outside them is watched.
    homes: Vec<PathBuf>,
    watched: HashSet<PathBuf>,
}

impl Scope {
    /// Watches the storage folders holding `conversations` folders, and the
    /// conversations in them that `serves` (by id).
    pub fn new(
        watcher: notify::RecommendedWatcher,
        conversations: &[PathBuf],
        serves: impl Fn(u64) -> bool,
    ) -> notify::Result<Scope> {
        let mut scope = Scope {
            watcher,
            homes: Vec::new(),
            watched: HashSet::new(),
        };
        for storage in conversations.iter().filter_map(|d| d.parent()) {
            if let Ok(home) = fs::canonicalize(storage)
                && !scope.homes.contains(&home)
            {
                scope.homes.push(home);
                scope.add(storage)?;
                scope.add(&boundary::locks_of(storage))?;
            }
        }
        for dir in conversations {
            scope.add(dir)?;
            for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if ConversationId::of_dir(&path).is_some_and(|id| serves(id.0)) {
                    scope.add(&path)?;
                }
            }
        }
        Ok(scope)
    }

    /// How many folders are watched.
    pub fn len(&self) -> usize {
        self.watched.len()
    }

    /// Takes in the folders `ev` says were made: a storage's `locks`
    /// folder, a new (or renamed) conversation folder that `serves`.
    pub fn grow(&mut self, ev: &notify::Event, serves: impl Fn(u64) -> bool) {
        if !matches!(
            ev.kind,
            notify::EventKind::Create(_)
                | notify::EventKind::Modify(notify::event::ModifyKind::Name(_))
        ) {
            return;
        }
        for path in &ev.paths {
            let Some(parent) = path.parent() else {
                continue;
            };
            let wanted = match boundary::new_folder(path) {
                NewFolder::Locks => true,
                NewFolder::Conversation(id) => serves(id),
                NewFolder::Other => false,
            };
            if wanted && self.watched.contains(parent) {
                // A folder gone again meanwhile is no error.
                let _ = self.add(path);
            }
        }
    }

    /// Watches `dir` alone if it is a real folder inside a storage folder:
    /// a link, or a folder reached through one, is left unwatched.
    fn add(&mut self, dir: &Path) -> notify::Result<()> {
        if self.watched.contains(dir) {
            return Ok(());
        }
        let real =
            fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir() && !m.file_type().is_symlink());
        let inside =
            fs::canonicalize(dir).is_ok_and(|c| self.homes.iter().any(|h| c.starts_with(h)));
        if !real || !inside {
            return Ok(());
        }
        self.watcher.watch(dir, RecursiveMode::NonRecursive)?;
        self.watched.insert(dir.to_path_buf());
        Ok(())
    }
}
