//! One conversation, two copies. jp keeps a durable user-local copy of
//! every workspace conversation in its silo (`<data>/workspace/<dir>-<id>/
//! conversations/<ID>…`) beside the workspace's `.jp/conversations/<ID>…`,
//! writes both on every save, and reads whichever holds the newer stream
//! (`events.json` or `base_config.json`), the user-local one on a tie
//! (jp_storage's `load_conversation_stream`). A conversation jp keeps
//! local-only has the silo copy alone.
//!
//! So jp-inspect lists each conversation once, reads the copy jp reads,
//! and writes both, the way jp's own save leaves them.

use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use crate::core::model::id::ConversationId;
use crate::core::store::workspace::jp_reads;
use crate::core::store::workspace::{
    CONVERSATIONS_DIR, STORAGE_DIR, dir_of_id, find_silo_in, is_silo_in, user_data_dir,
};
use std::fs;
use std::path::{Path, PathBuf};

/// Which root a copy is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// The workspace's `.jp`.
    Workspace,
    /// jp's user-local silo.
    User,
}

/// The copies of one conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copies {
    /// The copy jp reads.
    pub read: PathBuf,
    pub read_root: Option<Root>,
    /// The other copy, if there is one.
    pub other: Option<PathBuf>,
}

/// The root `dir` lies in and that root's folder (the silo, or `.jp`),
/// when it sits in a `conversations` folder of either.
pub fn root_of(dir: &Path) -> Option<(Root, PathBuf)> {
    root_of_in(dir, user_data_dir().as_deref())
}

/// [`root_of`] with jp's user data dir given: a silo is only ever one of
/// that dir's (nothing a workspace holds makes its `.jp` one).
fn root_of_in(dir: &Path, data: Option<&Path>) -> Option<(Root, PathBuf)> {
    let parent = dir.parent()?;
    if parent.file_name()? != CONVERSATIONS_DIR {
        return None;
    }
    let root = parent.parent()?;
    if data.is_some_and(|d| is_silo_in(root, d)) {
        return Some((Root::User, root.to_path_buf()));
    }
    (root.file_name()? == STORAGE_DIR).then(|| (Root::Workspace, root.to_path_buf()))
}

/// The other copy of the conversation in `dir`: in the silo for a
/// workspace copy, in the workspace for a silo copy.
pub fn twin_of(dir: &Path) -> Option<PathBuf> {
    twin_in(dir, user_data_dir().as_deref())
}

/// [`twin_of`] with jp's user data dir given.
fn twin_in(dir: &Path, data: Option<&Path>) -> Option<PathBuf> {
    let id = u64::from(ConversationId::of_dir(dir)?);
    let (root, folder) = root_of_in(dir, data)?;
    let other_root = match root {
        Root::User => fs::canonicalize(folder.join("storage")).ok()?,
        Root::Workspace => find_silo_in(&folder, data?)?,
    };
    let twin = dir_of_id(&[other_root.join(CONVERSATIONS_DIR)], id)?;
    // A folder reached through a link is not jp's copy of anything here.
    let real = fs::symlink_metadata(&twin).ok()?;
    (real.is_dir() && !real.file_type().is_symlink()).then_some(twin)
}

/// The copies of the conversation in `dir`, and which one jp reads.
pub fn of(dir: &Path) -> Copies {
    of_in(dir, user_data_dir().as_deref())
}

fn of_in(dir: &Path, data: Option<&Path>) -> Copies {
    let root = root_of_in(dir, data).map(|(r, _)| r);
    let Some(twin) = twin_in(dir, data) else {
        return Copies {
            read: dir.to_path_buf(),
            read_root: root,
            other: None,
        };
    };
    let (user, workspace) = match root {
        Some(Root::User) => (dir.to_path_buf(), twin),
        _ => (twin, dir.to_path_buf()),
    };
    let read_user = jp_reads(&user, &workspace) == user.as_path();
    let (read, other, read_root) = if read_user {
        (user, workspace, Root::User)
    } else {
        (workspace, user, Root::Workspace)
    };
    Copies {
        read,
        read_root: Some(read_root),
        other: Some(other),
    }
}

impl Copies {
    /// "the user-local copy" / "the workspace copy", for messages.
    pub fn describe_read(&self) -> &'static str {
        match self.read_root {
            Some(Root::User) => "jp's user-local copy",
            Some(Root::Workspace) => "the workspace copy",
            None => "the folder given",
        }
    }
}

/// Why `a` and `b` are not jp's two copies of one conversation, if they
/// aren't: both name the same id, and one's events other than compactions
/// are the other's or begin them (jp's newer copy may hold a turn more).
/// Two workspaces that share a `.jp/.id` share jp's silo, so the silo may
/// hold another workspace's conversation under this id; writing one copy
/// over the other would then replace that conversation's text.
pub fn diverge(a: &Conversation, b: &Conversation) -> Option<String> {
    if a.id != b.id {
        return Some("they name different conversations".into());
    }
    let stream = |c: &'_ Conversation| -> Vec<usize> {
        c.events
            .iter()
            .enumerate()
            .filter(|(_, e)| !matches!(e.kind, Kind::Compaction(_)))
            .map(|(i, _)| i)
            .collect()
    };
    let (sa, sb) = (stream(a), stream(b));
    let same = |i: usize, j: usize| a.raw(i) == b.raw(j) || a.plain(i) == b.plain(j);
    sa.iter()
        .zip(&sb)
        .position(|(&i, &j)| !same(i, j))
        .map(|k| {
            format!(
                "they part at turn {}: one holds events the other does not",
                a.events[sa[k]].turn + 1
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::conversation::{BASE_CONFIG_FILE, EVENTS_FILE};
    use std::time::{Duration, SystemTime};

    /// A workspace with its silo (its `storage` link back to `.jp`) and one
    /// conversation in both.
    fn mirrored() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws/.jp/conversations/17000000000-a");
        let silo = tmp.path().join("data/workspace/ws-abc12");
        let user = silo.join("conversations/17000000000-a");
        for d in [&ws, &user] {
            fs::create_dir_all(d).unwrap();
            fs::write(d.join(EVENTS_FILE), "[]\n").unwrap();
        }
        std::os::unix::fs::symlink(tmp.path().join("ws/.jp"), silo.join("storage")).unwrap();
        (tmp, ws, user)
    }

    fn touch(path: &Path, at: SystemTime) {
        fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }

    #[test]
    fn jp_reads_the_newer_stream_and_the_user_copy_on_a_tie() {
        let (_t, ws, user) = mirrored();
        let now = SystemTime::now();
        touch(&ws.join(EVENTS_FILE), now);
        touch(&user.join(EVENTS_FILE), now);
        assert_eq!(jp_reads(&user, &ws), user.as_path());
        touch(&ws.join(EVENTS_FILE), now + Duration::from_secs(2));
        assert_eq!(jp_reads(&user, &ws), ws.as_path());
        // A newer base config makes the stream newer too.
        fs::write(user.join(BASE_CONFIG_FILE), "{}").unwrap();
        touch(&user.join(BASE_CONFIG_FILE), now + Duration::from_secs(4));
        assert_eq!(jp_reads(&user, &ws), user.as_path());
    }

    #[test]
    fn each_copy_finds_the_other() {
        let (tmp, ws, user) = mirrored();
        let data = tmp.path().join("data");
        let same =
            |a: PathBuf, b: &Path| fs::canonicalize(a).unwrap() == fs::canonicalize(b).unwrap();
        assert!(same(twin_in(&ws, Some(&data)).unwrap(), &user));
        assert!(same(twin_in(&user, Some(&data)).unwrap(), &ws));
        assert!(twin_in(&ws, None).is_none(), "no user data dir, no silo");
        assert!(of_in(&ws, Some(&data)).other.is_some());
        let loose = tmp.path().join("loose/17000000000");
        fs::create_dir_all(&loose).unwrap();
        assert_eq!(of_in(&loose, Some(&data)).other, None);
    }
}
