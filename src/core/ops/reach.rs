//! Where a write may reach: a workspace and its own silo, nothing a
//! cloned workspace points at. A `.jp` that is a link out of its workspace
//! makes every conversation found by id or title another workspace's, so
//! the writing use cases refuse it unless the person said so: by naming
//! the conversation's path, or with `--allow-linked-storage`.

use crate::core::error::{Error, Result};
use crate::core::store::workspace::Workspace;

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
