//! Where a write may reach: a workspace and its own silo, nothing a
//! cloned workspace points at. A `.jp` that is a link out of its workspace
//! makes every conversation found by id or title another workspace's, so
//! the writing use cases refuse it unless the person said so: by naming
//! the conversation's path, or with `--allow-linked-storage`.

use crate::core::error::{Error, Result};
use crate::core::store::resolve;
use crate::core::store::workspace::Workspace;
use std::path::{Path, PathBuf};

/// The flag that lets a write through a linked `.jp`.
pub const ALLOW_FLAG: &str = "--allow-linked-storage";

/// How the conversation to write was named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// A path the person typed: they chose where it is.
    Path,
    /// An id, a title, `--active`, a picker or every conversation: found
    /// through the workspace's `.jp`.
    Workspace,
}

/// The conversation a command names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which<'a> {
    /// CONV as typed: a path, an id or a part of a title.
    Typed(&'a str),
    /// The bundled demo's copy.
    Demo(&'a Path),
    /// The most recently active conversation.
    Active,
}

impl Which<'_> {
    /// Its folder, found in `ws` unless it is a path.
    pub fn dir(self, ws: Option<&Workspace>) -> Result<PathBuf> {
        match self {
            Which::Typed(q) => resolve::resolve(q, ws),
            Which::Demo(dir) => Ok(dir.to_path_buf()),
            Which::Active => resolve::active(ws),
        }
    }

    /// How it was named, for [`check`]: a typed path and the demo are the
    /// person's choice of place.
    pub fn named(self) -> Named {
        match self {
            Which::Typed(q) if resolve::names_a_path(q) => Named::Path,
            Which::Demo(_) => Named::Path,
            _ => Named::Workspace,
        }
    }
}

/// Refuses a write into a conversation found through `ws`'s `.jp` when
/// that resolves outside `ws`'s root, unless `allowed`.
pub fn check(ws: Option<&Workspace>, named: Named, allowed: bool) -> Result<()> {
    match (ws, named, allowed) {
        (Some(ws), Named::Workspace, false) => match refusal(ws) {
            Some(why) => Err(Error::invalid(&ws.storage, why)),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Why writes through `ws`'s `.jp` are refused, if they are.
pub fn refusal(ws: &Workspace) -> Option<String> {
    let real = ws.storage_elsewhere()?;
    Some(format!(
        "not written: .jp links out of this workspace ({ALLOW_FLAG}, or the conversation's \
         path, writes anyway; a cloned workspace can point it at another's conversations): {}",
        crate::core::visible::visible_line(&real.display().to_string())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_path_and_the_demo_are_the_persons_choice_of_place() {
        assert_eq!(Which::Typed("./.jp/conversations/1-x").named(), Named::Path);
        assert_eq!(Which::Typed("/abs/1-x").named(), Named::Path);
        assert_eq!(Which::Demo(Path::new("/tmp/demo")).named(), Named::Path);
        // An id or a title is found through the workspace's `.jp`.
        assert_eq!(Which::Typed("17000000001").named(), Named::Workspace);
        assert_eq!(Which::Typed("release").named(), Named::Workspace);
        assert_eq!(Which::Active.named(), Named::Workspace);
        assert_eq!(
            Which::Demo(Path::new("/tmp/demo")).dir(None).unwrap(),
            Path::new("/tmp/demo").to_path_buf()
        );
    }
}
