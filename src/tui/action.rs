//! The one `Action` enum every change of the inspector goes through, and
//! the effects the update asks the runtime to carry out.

use super::model::Model;
use crate::core::Conversation;
use crate::core::auto::AutoConfig;
use crate::core::auto::simulate::Run;
use crate::core::compact::reset::Reset;
use crate::core::model::compaction::Compaction;
use crate::core::store::save::Edit;
use crossterm::event::{KeyEvent, MouseEvent};
use ratatui::text::Line;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug)]
pub enum Action {
    // Input from the terminal.
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Time passing (spinner, debounced reloads).
    Tick,
    /// SIGTERM, SIGHUP or SIGINT: leave cleanly.
    Terminate,
    /// The conversation's files changed on disk (follow mode).
    FilesChanged,
    /// A background job finished.
    Done(Done),

    // Commands, bound to keys in assets/keys.toml.
    Quit,
    ForceQuit,
    Help,
    Down,
    Up,
    PageDown,
    PageUp,
    Top,
    Bottom,
    NextTurn,
    PrevTurn,
    SwitchPane,
    SwitchPaneBack,
    OpenDetail,
    Search,
    SearchNext,
    SearchPrev,
    Preview,
    Apply,
    Cancel,
    ResetAuto,
    ResetAll,
    Delete,
    SetWindow,
    ToggleMode,
    Simulation,
    Follow,
    ToggleRaw,
    PrevWindow,
    NextWindow,
}

impl Action {
    /// The command an action name of the key map stands for.
    pub fn from_name(name: &str) -> Option<Action> {
        Some(match name {
            "quit" => Action::Quit,
            "force_quit" => Action::ForceQuit,
            "help" => Action::Help,
            "down" => Action::Down,
            "up" => Action::Up,
            "page_down" => Action::PageDown,
            "page_up" => Action::PageUp,
            "top" => Action::Top,
            "bottom" => Action::Bottom,
            "next_turn" => Action::NextTurn,
            "prev_turn" => Action::PrevTurn,
            "switch_pane" => Action::SwitchPane,
            "switch_pane_back" => Action::SwitchPaneBack,
            "open_detail" => Action::OpenDetail,
            "search" => Action::Search,
            "search_next" => Action::SearchNext,
            "search_prev" => Action::SearchPrev,
            "preview" => Action::Preview,
            "apply" => Action::Apply,
            "cancel" => Action::Cancel,
            "reset_auto" => Action::ResetAuto,
            "reset_all" => Action::ResetAll,
            "delete" => Action::Delete,
            "set_window" => Action::SetWindow,
            "toggle_mode" => Action::ToggleMode,
            "simulation" => Action::Simulation,
            "follow" => Action::Follow,
            "toggle_raw" => Action::ToggleRaw,
            "prev_window" => Action::PrevWindow,
            "next_window" => Action::NextWindow,
            _ => return None,
        })
    }
}

/// What a preview asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum PreviewRequest {
    /// An inline rule, as typed.
    Rule(String),
    /// What automatic compaction would append now.
    Auto,
}

/// Work done off the UI thread.
#[derive(Debug)]
pub enum Job {
    /// (Re)load the conversation from disk and build its model.
    Load {
        dir: PathBuf,
        preview: Vec<Compaction>,
    },
    /// Plan a preview and build the model with it.
    Plan {
        conv: Arc<Conversation>,
        request: PreviewRequest,
        window: Option<u64>,
        config: AutoConfig,
        /// The time the new compactions are stamped with.
        now: crate::core::model::timestamp::Timestamp,
    },
    /// Write a change under jp's lock, then reload.
    Save {
        dir: PathBuf,
        edit: Edit,
        what: String,
    },
    /// The projected tokens after a reset, for its confirmation.
    ResetEstimate {
        conv: Arc<Conversation>,
        reset: Reset,
    },
    /// Replay the conversation under each policy at each window.
    Simulate {
        conv: Arc<Conversation>,
        windows: Vec<u64>,
        config: AutoConfig,
    },
    /// Find the events whose text contains the query.
    Search {
        conv: Arc<Conversation>,
        query: String,
    },
    /// Highlight an event's full text for the detail view.
    Highlight {
        title: String,
        text: String,
        language: Option<String>,
    },
}

/// A finished job. `generation` tells stale results (for a conversation
/// since replaced) from current ones.
#[derive(Debug)]
pub struct Done {
    pub generation: u64,
    pub result: JobResult,
}

#[derive(Debug)]
pub enum JobResult {
    Loaded(Result<Box<Model>, String>),
    Planned(Result<Planned, String>),
    Saved(Result<(Box<Model>, String), String>),
    ResetEstimated {
        reset: Reset,
        tokens: u64,
    },
    Simulated(Result<Vec<Run>, String>),
    Searched {
        query: String,
        hits: Vec<usize>,
    },
    Highlighted {
        title: String,
        lines: Vec<Line<'static>>,
    },
}

/// A planned preview.
#[derive(Debug)]
pub struct Planned {
    pub request: PreviewRequest,
    pub compactions: Vec<Compaction>,
    /// Why (the trigger's notes, or the rules' timeline).
    pub notes: Vec<String>,
    pub model: Box<Model>,
}

/// What the update asks the runtime to do.
#[derive(Debug)]
pub enum Effect {
    Run(Box<Job>),
    /// Start (true) or stop watching the conversation's files.
    Watch(bool),
}

impl Effect {
    pub fn job(job: Job) -> Effect {
        Effect::Run(Box::new(job))
    }
}
