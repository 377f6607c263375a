//! What a process that plays jp needs to write a conversation the way jp
//! does: the lock jp takes for a conversation's folder, and jp's
//! pretty-printed arrays. The synthetic conversations, the demo's generator
//! and the tests that stand in for a running jp write through these, so
//! what they leave on disk is what jp would.

use crate::core::error::{Error, Result};
use crate::core::store::{load, lock, save, workspace};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// jp's lock of a conversation, held by this process until it drops.
#[derive(Debug)]
pub struct Held(#[allow(dead_code)] lock::Lock);

/// The conversation id a folder's name holds (`<id>` or `<id>-<title>`).
pub fn id_of_dir(dir: &Path) -> Option<u64> {
    load::id_of_dir(dir)
}

/// Where jp takes the lock of the conversation `id` in `dir` (see
/// `store::workspace::lock_paths`): the path jp writes, and the other one
/// it honours when a lock file exists there.
pub fn lock_paths(dir: &Path, id: u64) -> (PathBuf, Option<PathBuf>) {
    workspace::lock_paths(dir, id)
}

/// The path jp locks for the conversation in `dir`, its id read from the
/// folder's name.
pub fn lock_path(dir: &Path) -> Result<PathBuf> {
    Ok(lock_paths(dir, id_of(dir)?).0)
}

/// Takes jp's lock of the conversation in `dir`, as jp does before it
/// writes; released when the [`Held`] drops.
pub fn hold(dir: &Path) -> Result<Held> {
    let (primary, other) = lock_paths(dir, id_of(dir)?);
    lock::Lock::acquire(&primary, other.as_deref()).map(Held)
}

fn id_of(dir: &Path) -> Result<u64> {
    id_of_dir(dir).ok_or_else(|| Error::Invalid {
        path: dir.to_path_buf(),
        message: "not a conversation folder: its name holds no id".into(),
    })
}

/// jp's other copy of the conversation in `dir`, when it keeps two (the
/// workspace's and the user-local one beside jp's user data).
pub fn other_copy(dir: &Path) -> Option<PathBuf> {
    crate::core::store::copies::of(dir).other
}

/// Whether some process holds the lock file at `path` now.
pub fn is_held(path: &Path) -> bool {
    lock::is_held(path)
}

/// An element's text as it sits inside jp's pretty-printed array.
pub fn pretty_element(value: &serde_json::Value) -> String {
    save::pretty_element(value)
}

/// Element texts joined into the array jp writes: two spaces, a final
/// newline.
pub fn join_array(parts: &[Cow<'_, str>]) -> String {
    save::join_array(parts)
}
