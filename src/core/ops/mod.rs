//! The use cases every shell calls, in the spirit of gitui's
//! `asyncgit::sync`: one function per operation, taking what the person
//! asked (parsed) and returning what to present, choosing the
//! configuration, the summarizer and the budget itself. Previews make one
//! [`Plan`] type, and one function writes a plan. The shells see the core
//! only through this module and the model (`tests/it/layers.rs`): they build
//! a request, make one call and present the result.

mod asked;
pub mod auto_now;
pub mod boundary;
pub mod catalog;
pub mod changes;
pub mod command_line;
pub mod compact;
pub mod cost;
pub mod count;
pub mod hint;
mod impact;
pub mod inspect;
pub mod jp_files;
pub mod judge;
pub mod knows;
pub mod largest;
pub mod lost;
pub mod models;
mod plan;
mod preview;
pub mod project;
pub mod reach;
pub mod read;
pub mod replay;
pub mod request;
pub mod reset;
pub mod review;
mod rules;
pub mod session;
pub mod show;
mod simulate;
pub mod stats;
pub mod stats_compactions;
mod tool_weight;
pub mod tools;
mod write;

pub use crate::core::store::safe_fs::Guard;

// The types a shell names in its requests and presents from the results,
// offered here: the shells see the core only through `ops` and the model.
pub use crate::core::auto::history::HistoryPoint;
pub use crate::core::auto::run::{RUN_METRICS_HEADER, RUN_METRICS_HEADER_NARROW, Run, Strategy};
pub use crate::core::auto::sweep::Sweep;
pub use crate::core::auto::{ActionKind, AutoConfig, Mode};
pub use crate::core::compact::budget::{Budget, Measure};
pub use crate::core::compact::estimate::{Category, Estimate};
pub use crate::core::compact::fate::Alteration;
pub use crate::core::compact::fate::Fate;
pub use crate::core::compact::fate::Projected;
pub use crate::core::compact::fate::SummaryPart;
pub use crate::core::compact::fate::TurnOrigin;
pub use crate::core::compact::jp_view::View;
pub use crate::core::compact::ledger::{HiddenItem, LedgerEntry};
pub use crate::core::compact::projection::{Overlay, Projection, SUMMARY_REQUEST};
pub use crate::core::compact::range::Keep;
pub use crate::core::compact::reset::Reset;
pub use crate::core::compact::rule::{Rule, SYNTAX_HELP};
pub use crate::core::compact::threshold::Reached;
pub use crate::core::compact::window::Window;
pub use crate::core::compact::window::WindowSource;
pub use crate::core::cost::{Bill, Billed, Break, Payback, Prices, Unit};
pub use crate::core::facts::matching::Siblings;
pub use crate::core::facts::meaning::Verdict;
pub use crate::core::facts::{Fact, FactKind, Judged, Mark, Sent, Survival, Where};
pub use crate::core::providers::cache::{Listing, Measured, Models};
pub use crate::core::providers::{Endpoint, Provider};
pub use crate::core::redact::redact;
pub use crate::core::search::Needle;
pub use crate::core::store::edit::Edit;
pub use crate::core::store::reload::Reloaded;
pub use crate::core::store::save::Saved;
pub use crate::core::store::workspace::{Location, Workspace};
pub use crate::core::summarize::Summarizer;
pub use crate::core::summarize::config::{SummarizerConfig, SummarizerKind};
pub use asked::{AskError, Asked, rules_asked};
pub use impact::{Impact, saved_per_compaction};
pub use plan::{Addition, Plan, PlanKind, PlanNote, Skipped, Tokens, Why, WithheldSummaries};
pub use preview::{
    PreviewAsk, PreviewOf, RuleOptions, auto_headline, configured_rules, preview, preview_auto,
    preview_reset, preview_rules,
};
pub use simulate::{
    DEFAULT_WINDOWS, Grid, Setting, SimulateRequest, Simulated, Simulation, SimulationJob, Total,
    default_windows, simulate, simulate_grid, totals,
};
pub use write::{Change, refused, write};

use crate::core::error::Result;
use crate::core::model::config::JpResolved;
use crate::core::model::conversation::Conversation;
use serde_json::Value;
use std::path::Path;

/// What `conv`'s requests are measured against: its merged config's
/// window (or `window_override`), output reserve, system prompt and tools,
/// as `config` asks (`context = "events"` for D50's literal estimate).
pub fn budget(conv: &Conversation, config: &AutoConfig, window_override: Option<u64>) -> Budget {
    let mut b = budget_of(conv.merged_config(), window_override, config);
    b.measured = measured_scale(conv, config);
    b
}

/// The budget of one merged config: the window is the override, else what
/// the provider said (`models --refresh`), else the table's; the one place
/// every shell's budget is built.
pub fn budget_of(merged: &Value, window_override: Option<u64>, config: &AutoConfig) -> Budget {
    let known = crate::core::providers::cache::Models::cached();
    Budget::of_config_with(merged, window_override, config.context, &|m| {
        known.listed(m)
    })
}

/// The ratio the thresholds account for: the conversation's measured one
/// when the config asks for it (`estimate = "measured"`) and `count` has
/// measured it; else none, D50's characters / 4.
pub fn measured_scale(conv: &Conversation, config: &AutoConfig) -> Option<f64> {
    (config.estimate == crate::core::auto::Estimate::Measured)
        .then(|| count::measured(conv).map(|m| m.ratio()))
        .flatten()
}

/// The real context curve of `conv`: every request with the context it was
/// sent (the compactions appended before it, the system prompt and tools in
/// force then), in one pass.
pub fn history(
    conv: &Conversation,
    config: &AutoConfig,
    window_override: Option<u64>,
) -> Vec<crate::core::auto::history::HistoryPoint> {
    crate::core::auto::history::history(conv, |i| {
        budget_of(
            &crate::core::model::config::merged(conv, Some(i)),
            window_override,
            config,
        )
    })
}

/// `conv`'s compaction configuration as a command asks for it: jp's
/// files (or what jp handed over, `jp`), then the `--config` file, with
/// the policy `mode` over it.
pub fn configured(
    conv: &Conversation,
    file: Option<&Path>,
    mode: Option<crate::core::auto::Mode>,
    jp: Option<&JpResolved>,
) -> Result<AutoConfig> {
    let mut config = crate::core::auto::config_for(conv, file, jp)?;
    if let Some(mode) = mode {
        config.mode = mode;
    }
    Ok(config)
}

/// The conversation in `dir` and its compaction configuration (see
/// `auto::config_for`, `file` last). jp's config files are read on a
/// second thread while the conversation loads: in a workspace that extends
/// many files that is a third of `stats`. The configuration's error comes
/// with the conversation, so a shell can say the file's warnings first.
pub fn open(
    dir: &Path,
    file: Option<&Path>,
    jp: Option<&JpResolved>,
) -> Result<(Conversation, Result<crate::core::auto::AutoConfig>)> {
    let (conv, files) = std::thread::scope(|s| {
        let files = s.spawn(|| crate::core::store::jp_config::files_for(dir, jp));
        let conv = crate::core::store::load::load(dir);
        (conv, files.join())
    });
    let conv = conv?;
    let config = match files {
        Ok(files) => files.and_then(|f| crate::core::auto::config_from(&conv, f, file, jp)),
        // A config reader that panicked: read again here, where it says why.
        Err(_) => crate::core::auto::config_for(&conv, file, jp),
    };
    Ok((conv, config))
}

/// The raw index of the request before turn `turn`'s (0-based) first
/// answer: what `--at TURN` shows.
pub fn request_of_turn(conv: &Conversation, turn: usize) -> Option<usize> {
    conv.events.iter().position(|e| {
        e.turn == turn
            && matches!(
                e.kind,
                crate::core::model::event::Kind::ChatResponse(_)
                    | crate::core::model::event::Kind::ToolCallRequest { .. }
            )
    })
}

/// The most of a summary read back from a file: far past any summary a
/// window holds, short of what a file can be made to hold.
pub const SUMMARY_FILE_LIMIT: u64 = 4 << 20;

/// A summary the person wrote in a file (their editor's save): read
/// through a bounded reader, refused past [`SUMMARY_FILE_LIMIT`] or when
/// it isn't UTF-8, naming the file.
pub fn summary_from_file(path: &Path) -> std::result::Result<String, String> {
    crate::core::store::bounded::read_text(path, SUMMARY_FILE_LIMIT, false)
        .map_err(|e| format!("{}: {e}; the summary is as it was", path.display()))
}
