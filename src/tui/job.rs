//! The work the inspector hands to its worker thread, and what comes back.

use super::inspection::Inspection;
use crate::core::error::Error;
use crate::core::error::RuleError;
use crate::core::model::compaction::Compaction;
use crate::core::model::conversation::Conversation;
use crate::core::ops::AutoConfig;
use crate::core::ops::Budget;
use crate::core::ops::Plan;
use crate::core::ops::Reset;
use crate::core::ops::Rule;
use crate::core::ops::Run;
use crate::core::ops::View;
use ratatui::text::Line;
use std::path::PathBuf;
use std::sync::Arc;

/// What a preview asks for, parsed once when typed.
#[derive(Debug, Clone, PartialEq)]
pub enum PreviewRequest {
    /// An inline rule, as typed and as parsed.
    Rule { spec: String, rule: Box<Rule> },
    /// What automatic compaction would append now.
    Auto,
}

impl PreviewRequest {
    /// What was typed at `p`: `auto` (any case) for the automatic policy,
    /// else a rule.
    pub fn parse(text: &str) -> Result<PreviewRequest, RuleError> {
        if text.eq_ignore_ascii_case("auto") {
            return Ok(PreviewRequest::Auto);
        }
        Ok(PreviewRequest::Rule {
            spec: text.to_string(),
            rule: Box::new(text.parse::<crate::core::ops::Rule>()?),
        })
    }

    /// As people read it: the rule as typed, or `auto`.
    pub fn spec(&self) -> &str {
        match self {
            PreviewRequest::Rule { spec, .. } => spec,
            PreviewRequest::Auto => "auto",
        }
    }

    pub fn is_auto(&self) -> bool {
        matches!(self, PreviewRequest::Auto)
    }
}

/// Work done off the UI thread. Every change to a conversation is a job
/// that goes through `core::ops`.
#[derive(Debug)]
pub enum Job {
    /// (Re)load the conversation from disk and build what the screen shows.
    Load {
        dir: PathBuf,
        preview: Vec<Compaction>,
        /// Also read the automatic-compaction config (the conversation's,
        /// then this `--config` file): the first load does, off the UI
        /// thread.
        config: Option<ConfigFile>,
        view: View,
        /// The conversation as shown, when an outside write is reloaded:
        /// what changed since is said.
        since: Option<Arc<Conversation>>,
    },
    /// Plan a preview (a rule or the automatic policy).
    Preview {
        conv: Arc<Conversation>,
        request: PreviewRequest,
        budget: Box<Budget>,
        config: AutoConfig,
        /// The time the new compactions are stamped with.
        now: crate::core::model::timestamp::Timestamp,
        view: View,
        /// Make the summaries with the configured summarizer (the person
        /// asked, `S`); otherwise one that would send them anywhere is not
        /// called.
        summarize: bool,
    },
    /// Plan a reset, for its confirmation.
    PreviewReset {
        conv: Arc<Conversation>,
        reset: Reset,
        budget: Budget,
    },
    /// Write an edit under jp's lock, then reload.
    Write {
        dir: PathBuf,
        change: Writing,
        what: String,
        view: View,
        undo: UndoKind,
    },
    /// Automatic compaction at a turn boundary, as `watch` runs it: planned
    /// unlocked, written under the lock if the file still holds what the
    /// plan saw.
    Boundary {
        dir: PathBuf,
        conv: Arc<Conversation>,
        config: AutoConfig,
        window: Option<u64>,
        now: crate::core::model::timestamp::Timestamp,
    },
    /// What an outside write changed, read without showing it (not
    /// following).
    Check {
        dir: PathBuf,
        against: Arc<Conversation>,
    },
    /// The real context curve: every request with what it was sent.
    History {
        conv: Arc<Conversation>,
        config: AutoConfig,
        window: Option<u64>,
    },
    /// What the request before raw event `end` saw (time travel).
    AsOf {
        conv: Arc<Conversation>,
        end: usize,
        view: View,
    },
    /// Read these conversations for the picker's columns.
    Details { dirs: Vec<PathBuf> },
    /// Replay the conversation under each policy at each window.
    Simulate {
        conv: Arc<Conversation>,
        windows: Vec<u64>,
        config: AutoConfig,
    },
    /// Which tools fill the context, with their hints' replayed savings.
    Tools {
        conv: Arc<Conversation>,
        config: AutoConfig,
        window: Option<u64>,
    },
    /// Write the open conversation's report (`W`) to `path`.
    Report {
        conv: Arc<Conversation>,
        config: AutoConfig,
        window: Option<u64>,
        view: View,
        path: PathBuf,
    },
    /// Write a tool's hint into a config file.
    WriteHint {
        file: PathBuf,
        tool: String,
        hint: String,
    },
    /// Find the events whose text contains the query.
    Search {
        conv: Arc<Conversation>,
        query: String,
    },
    /// What the model still knows of each compaction's range, for the
    /// list's marks (asked as the conversation opens, and when the list
    /// gets the focus after a reload).
    ListKnows {
        conv: Arc<Conversation>,
        preview: Vec<crate::core::model::compaction::Compaction>,
        view: crate::core::ops::View,
    },
    /// What the model still knows of one compaction's range, for its
    /// detail (`Enter`), `F` or `E`: found and judged off the UI thread.
    RangeFacts {
        conv: Arc<Conversation>,
        projection: Box<crate::core::ops::Projection>,
        /// Among the compactions (and previewed ones) of the list.
        position: usize,
        /// `None` for a compaction left out of the projection.
        range: Option<crate::core::model::TurnRange>,
        want: FactsWant,
    },
    /// A compaction's facts judged again by the user's own model or
    /// command: first only priced, then asked.
    Judge(Box<JudgeJob>),
    /// Highlight an event's full text for the detail view.
    Highlight {
        title: String,
        text: String,
        language: Option<String>,
        /// Without colour only Markdown's layout is made.
        color: bool,
    },
}

/// What [`Job::RangeFacts`] is for.
#[derive(Debug, Clone, PartialEq)]
pub enum FactsWant {
    /// The compaction's detail: its ledger and what it keeps.
    Detail,
    /// `F`: the lost facts, in the order a reader follows them.
    Trail,
    /// `E`: the checklist of a summary being written, starting from `text`.
    Checklist { text: String },
}

/// What [`Job::RangeFacts`] found.
#[derive(Debug)]
pub enum FactsGot {
    Detail(crate::core::ops::knows::Detail),
    Trail(crate::core::ops::knows::Trail),
    Checklist {
        text: String,
        facts: Vec<crate::core::ops::Fact>,
        sent: crate::core::ops::Sent,
    },
}

/// What [`Job::Judge`] judges, and whether it only prices (`ask` false).
#[derive(Debug)]
pub struct JudgeJob {
    pub conv: Arc<Conversation>,
    pub projection: crate::core::ops::Projection,
    pub position: usize,
    pub range: Option<crate::core::model::TurnRange>,
    pub config: AutoConfig,
    pub kind: crate::core::ops::SummarizerKind,
    pub ask: bool,
}

/// What [`Job::Judge`] came to.
#[derive(Debug)]
pub enum JudgeOutcome {
    /// Priced, not asked: what it would send and cost (`None`: no fact to
    /// judge).
    Quote(Option<crate::core::ops::judge::JudgeQuote>),
    /// Asked: the detail with its verdicts.
    Judged(crate::core::ops::knows::Detail),
}

/// What a write job writes: the open preview's plan, stamped when it is
/// applied, or the inverse of an earlier write (undo, redo).
#[derive(Debug, Clone)]
pub enum Writing {
    Plan(
        Box<crate::core::ops::Plan>,
        crate::core::model::timestamp::Timestamp,
    ),
    Inverse(crate::core::ops::Edit),
}

/// A finished job. `generation` tells stale results (for a conversation
/// since replaced) from current ones.
#[derive(Debug)]
pub struct Done {
    pub generation: u64,
    pub result: JobResult,
}

/// What a job returns; failures keep the core's typed error, so the
/// inspector can tell a lock held by jp from anything else.
#[derive(Debug)]
pub enum JobResult {
    Loaded(Result<Box<Loaded>, Error>),
    Previewed(Result<Previewed, Error>),
    ResetPreviewed {
        reset: Reset,
        plan: Result<Plan, Error>,
    },
    Written(Result<Written, Error>),
    Simulated(Result<Vec<Run>, Error>),
    ToolsReported(Box<crate::core::ops::tools::ToolsReport>),
    /// A report written (its file and the likely secrets it redacted), or
    /// why not.
    ReportWritten(Result<(PathBuf, usize), String>),
    /// A hint written (the file and the block), or why not.
    HintWritten(Result<(PathBuf, String), Error>),
    /// The session's requests and what each was billed.
    History(
        Vec<crate::core::ops::HistoryPoint>,
        Box<crate::core::ops::cost::SessionCost>,
    ),
    Checked(Result<crate::core::ops::changes::Changes, Error>),
    AsOf {
        end: usize,
        inspection: Box<Inspection>,
    },
    /// What automatic compaction did at a boundary: the plan it wrote, or
    /// why it wrote nothing.
    /// The turns the boundary was after, and what came of it.
    Boundary(usize, Result<crate::core::ops::boundary::Boundary, Error>),
    Searched {
        query: String,
        hits: Vec<usize>,
    },
    /// By compaction position: facts kept of all, and whether it lost an
    /// instruction or an unfixed error.
    ListKnows(std::collections::HashMap<usize, crate::core::ops::Mark>),
    RangeFacts {
        position: usize,
        range: Option<crate::core::model::TurnRange>,
        got: FactsGot,
    },
    /// What asking a judge would cost, or its verdicts, or why not.
    Judge {
        position: usize,
        kind: crate::core::ops::SummarizerKind,
        outcome: Result<JudgeOutcome, String>,
    },
    Highlighted {
        title: String,
        lines: Vec<Line<'static>>,
    },
    Details(Vec<(PathBuf, Result<crate::core::ops::catalog::Details, String>)>),
}

/// Where a write goes in the session's undo history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndoKind {
    /// A new change: undoable, and the redo list is dropped.
    Record,
    /// The last change undone: redoable.
    Undo,
    /// The last undo redone: undoable again.
    Redo,
}

/// A write that happened (or found nothing to change).
#[derive(Debug)]
pub struct Written {
    pub inspection: Box<Inspection>,
    pub what: String,
    pub written: bool,
    /// The edit that takes it back.
    pub inverse: crate::core::ops::Edit,
    pub undo: UndoKind,
}

/// Where the configuration is read from besides the conversation: a
/// `--config` file, and what jp handed over under `jp inspect`.
#[derive(Debug, Clone, Default)]
pub struct ConfigFile {
    pub file: Option<PathBuf>,
    pub jp: Option<crate::core::model::config::JpResolved>,
}

/// A loaded conversation, and its configuration when asked for.
#[derive(Debug)]
pub struct Loaded {
    /// Where it was found: jp renames a conversation's folder when it sets
    /// its title, and the inspector follows it by id.
    pub dir: PathBuf,
    pub inspection: Box<Inspection>,
    pub config: Option<Result<AutoConfig, Error>>,
    /// What changed since the conversation the load was asked with.
    pub changes: Option<crate::core::ops::changes::Changes>,
    /// How a reload read the file: what jp appended only, or whole and why.
    pub read: Option<crate::core::ops::Reloaded>,
}

/// A planned preview, with the screen's view of it.
#[derive(Debug)]
pub struct Previewed {
    pub request: PreviewRequest,
    pub plan: Plan,
    pub inspection: Box<Inspection>,
    /// What the model would still know of each addition's range.
    pub knows: Vec<Option<Vec<crate::core::ops::Judged>>>,
}
