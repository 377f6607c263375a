//! The use cases every shell calls, in the spirit of gitui's
//! `asyncgit::sync`: plain functions from a loaded conversation (and the
//! person's choices) to one [`Plan`] type, and one function that writes a
//! plan. The CLI and the inspector only resolve, load, call these, save
//! and present.

mod plan;
mod preview;
mod report;
mod simulate;

pub use plan::{Addition, Plan, PlanKind, Skipped, Tokens, Why};
pub use preview::{RuleOptions, preview_auto, preview_reset, preview_rules};
pub use report::saved_per_compaction;
pub use simulate::{SimulationJob, simulate_grid};

use crate::core::error::Result;
use crate::core::store::save::{self, Saved};
use std::path::Path;

/// Writes `plan` to the conversation in `dir`, under jp's lock, after
/// re-reading the file (see `store::save`).
pub fn apply(dir: &Path, plan: &Plan) -> Result<Saved> {
    save::apply(dir, &plan.edit())
}
