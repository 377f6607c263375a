//! `auto` as one use case: automatic compaction evaluated now on the
//! conversation as it stands (whatever its configuration's `enabled`
//! says: running it is asking for it), judged, and written unless it is a
//! dry run.

use super::plan::Plan;
use crate::core::auto::{AutoConfig, Mode};
use crate::core::compact::budget::Budget;
use crate::core::compact::jp_view::View;
use crate::core::error::Error;
use crate::core::facts::Judged;
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp::Timestamp;
use crate::core::store::save::Saved;
use crate::core::summarize::config::SummarizerKind;
use std::path::{Path, PathBuf};

/// What the person asked `auto` for.
#[derive(Debug, Clone)]
pub struct AutoRequest {
    /// The policy in place of the configured one.
    pub mode: Option<Mode>,
    /// The window in place of the model's.
    pub window: Option<u64>,
    pub config_file: Option<PathBuf>,
    /// What jp handed over, under `jp inspect`: read in place of its files.
    pub jp: Option<crate::core::model::config::JpResolved>,
    pub summarizer: Option<SummarizerKind>,
    pub dry_run: bool,
    /// In a dry run, make the summaries too.
    pub summarize: bool,
    pub force: bool,
    pub view: View,
    pub now: Timestamp,
}

/// What `auto` decided, and did.
#[derive(Debug)]
pub struct AutoDone {
    /// The conversation as it was read, before the write.
    pub conv: Conversation,
    /// The configuration evaluated (`enabled` set: it was asked for).
    pub config: AutoConfig,
    /// Whether the configuration left it disabled.
    pub was_disabled: bool,
    pub budget: Budget,
    pub plan: Plan,
    pub knows: Vec<Option<Vec<Judged>>>,
    pub written: Option<Saved>,
}

/// Why nothing was evaluated.
#[derive(Debug, thiserror::Error)]
pub enum AutoError {
    /// The window asked for can't hold what every request carries.
    #[error("--window: {0}")]
    WindowTooSmall(String),
    #[error(transparent)]
    Failed(#[from] Error),
}

/// Evaluates automatic compaction on the conversation in `dir` as
/// `request` asks, and writes what fires unless it is a dry run.
pub fn auto(dir: &Path, request: &AutoRequest) -> Result<AutoDone, AutoError> {
    let conv = crate::core::store::load::load(dir)?;
    let mut config = super::configured(
        &conv,
        request.config_file.as_deref(),
        request.mode,
        request.jp.as_ref(),
    )?;
    let was_disabled = !config.enabled;
    config.enabled = true;
    let chosen = crate::core::summarize::chosen(request.summarizer, &config.summarizer)
        .map_err(Error::from)?;
    let summarizer =
        crate::core::summarize::for_preview(chosen.as_ref(), !request.dry_run || request.summarize);
    let budget = super::budget(&conv, &config, request.window);
    if request.window.is_some()
        && let Some(why) = budget.window_too_small()
    {
        return Err(AutoError::WindowTooSmall(why));
    }
    let plan = super::preview_auto(
        &conv,
        &config,
        &budget,
        summarizer.as_ref(),
        request.now,
        request.view,
    )?;
    let written = super::write::unless_dry(dir, &plan, request.dry_run, request.force)?;
    let knows = super::knows::of_additions(&conv, &plan, request.view);
    Ok(AutoDone {
        conv,
        config,
        was_disabled,
        budget,
        plan,
        knows,
        written,
    })
}
