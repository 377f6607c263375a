//! Automatic compaction at a turn boundary, as `watch` runs it beside jp:
//! plan unlocked (a summary takes time, and a non-interactive `jp query`
//! fails at once on a held lock), then take jp's lock, re-read, and append
//! only if the conversation still holds what the plan saw.

use super::plan::Plan;
use super::preview::preview_auto;
use crate::core::auto::AutoConfig;
use crate::core::compact::jp_view::View;
use crate::core::error::Result;
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp::Timestamp;
use crate::core::store::save::{self, Basis};
use crate::core::summarize::Summarizer;
use std::path::Path;

/// What happened at a boundary.
#[derive(Debug)]
pub enum Boundary {
    /// Compactions appended.
    Fired(Plan),
    /// Nothing to do, and why.
    Skipped(String),
}

/// Evaluates `config`'s automatic policy on `conv` (read from `dir`
/// unlocked) and writes what it fires. `force` evaluates even when the
/// configuration has it disabled. A conversation that changed meanwhile is
/// `Error::Changed`; jp holding the lock is `Error::Locked`: nothing is
/// written either way.
pub fn compact_at_boundary(
    dir: &Path,
    conv: &Conversation,
    config: &AutoConfig,
    window_override: Option<u64>,
    summarizer: &dyn Summarizer,
    now: Timestamp,
    force: bool,
) -> Result<Boundary> {
    if !config.enabled && !force {
        return Ok(Boundary::Skipped(
            "automatic compaction is not enabled in the configuration (--enable forces it)".into(),
        ));
    }
    let budget = super::budget(conv, config, window_override);
    let plan = preview_auto(conv, config, &budget, summarizer, now, View::Inspect)?;
    if plan.additions.is_empty() {
        let why = plan.notes.last().cloned().unwrap_or_default();
        return Ok(Boundary::Skipped(why));
    }
    let mut edit = plan.edit();
    edit.basis = Some(Basis::of(conv));
    save::apply(dir, &edit)?;
    Ok(Boundary::Fired(plan))
}
