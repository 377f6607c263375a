//! The one way a change reaches `events.json`: a plan a use case made, or
//! the inverse an earlier write returned (undo, redo). Under jp's lock,
//! after re-reading the file, atomically (`store::save`); a plan whose
//! summaries were withheld holds placeholders and is refused here, for
//! every shell at once.

use super::plan::Plan;
use crate::core::error::{Error, Result};
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp::Timestamp;
use crate::core::store::edit::{Basis, Edit};
use crate::core::store::safe_fs::Guard;
use crate::core::store::save::{self, Saved};
use std::path::Path;

/// What a write changes.
#[derive(Debug, Clone, Copy)]
pub enum Change<'a> {
    Plan {
        plan: &'a Plan,
        /// Its compactions stamped no earlier than this (a preview may
        /// have been open a while).
        stamp: Option<Timestamp>,
        /// The conversation it was planned on, unlocked (a summary takes
        /// time): it is written only if the file still holds exactly its
        /// compactions and no fewer turns. `None`: whatever was appended.
        on: Option<&'a Conversation>,
    },
    /// The inverse a write returned: an undo, or a redo.
    Inverse(&'a Edit),
}

impl<'a> Change<'a> {
    /// `plan`, as it stands.
    pub fn plan(plan: &'a Plan) -> Change<'a> {
        Change::Plan {
            plan,
            stamp: None,
            on: None,
        }
    }
}

/// Why `plan` can't be written, if it can't: its summaries were withheld.
pub fn refused(plan: &Plan) -> Option<String> {
    plan.withheld.as_ref().map(|w| w.describe())
}

/// What a use case does once it has planned: `plan` written, unless the
/// person asked for a dry run or it changes nothing. `force`: `--force`.
pub fn unless_dry(dir: &Path, plan: &Plan, dry_run: bool, force: bool) -> Result<Option<Saved>> {
    if dry_run || plan.is_empty() {
        return Ok(None);
    }
    write(dir, Change::plan(plan), Guard::forced_if(force)).map(Some)
}

/// Writes `change` to the conversation in `dir`. `guard` says whether an
/// events.json with other hard links or no write permission is written
/// anyway (`--force`) or refused.
pub fn write(dir: &Path, change: Change<'_>, guard: Guard) -> Result<Saved> {
    let edit = match change {
        Change::Plan { plan, stamp, on } => {
            if let Some(why) = refused(plan) {
                return Err(Error::invalid(
                    dir,
                    format!("{why}; make it first; nothing was written"),
                ));
            }
            let mut edit = plan.edit();
            if let Some(now) = stamp {
                edit = edit.stamped_at(now);
            }
            edit.basis = on.map(Basis::of);
            edit
        }
        Change::Inverse(edit) => edit.clone(),
    };
    save::apply_guarded(dir, &edit, guard)
}
