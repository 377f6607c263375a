//! `reset` as one use case: which compactions to remove, planned on the
//! conversation as it is, and written unless it is a dry run.

use super::plan::Plan;
use crate::core::compact::reset::Reset;
use crate::core::error::Result;
use crate::core::model::conversation::Conversation;
use crate::core::store::save::Saved;
use std::path::{Path, PathBuf};

/// What the person asked `reset` for.
#[derive(Debug, Clone)]
pub struct ResetRequest {
    pub which: Reset,
    /// A file applied over the conversation's configuration (what the
    /// estimate counts besides the events).
    pub config_file: Option<PathBuf>,
    /// What jp handed over, under `jp inspect`: read in place of its files.
    pub jp: Option<crate::core::model::config::JpResolved>,
    pub dry_run: bool,
    /// Write an unusual file (hard links, no write permission) anyway.
    pub force: bool,
}

/// What `reset` did, or would do.
#[derive(Debug)]
pub struct ResetDone {
    /// The conversation as it was read, before the write.
    pub conv: Conversation,
    pub notices: Vec<String>,
    pub plan: Plan,
    pub written: Option<Saved>,
}

/// Plans `request` on the conversation in `dir` and writes it unless it
/// is a dry run or removes nothing.
pub fn reset(dir: &Path, request: &ResetRequest) -> Result<ResetDone> {
    let conv = crate::core::store::load::load(dir)?;
    let config =
        crate::core::auto::config_for(&conv, request.config_file.as_deref(), request.jp.as_ref())?;
    let budget = super::budget(&conv, &config, None);
    let plan = super::preview_reset(&conv, request.which, &budget)?;
    let written = super::write::unless_dry(dir, &plan, request.dry_run, request.force)?;
    Ok(ResetDone {
        conv,
        notices: config.notices.clone(),
        plan,
        written,
    })
}
