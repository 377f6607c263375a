//! What reaches the update: the key-bound [`Action`]s (deserialised from
//! `assets/keys.toml`, so a misspelt command there is a load error), and
//! the [`Msg`]s that are not key-bound (input, ticks, resizes, job
//! results); and the [`Effect`]s the update asks the runtime to carry out.

use super::job::{Done, Job};
use crossterm::event::{KeyEvent, MouseEvent};

/// Everything that changes the inspector's state.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Time passing (spinner, debounced reloads).
    Tick,
    /// No key came for a frame: the work put off while keys came is done
    /// now (the summary editor's checklist).
    Idle,
    /// SIGTERM, SIGHUP or SIGINT: leave cleanly.
    Terminate,
    /// The conversation's files changed on disk (follow mode).
    FilesChanged,
    /// Whether jp holds the conversation's lock, when that changed.
    LockSeen(bool),
    /// A background job finished.
    Done(Box<Done>),
    /// A command, as a key of the key map or a test asks for it.
    Action(Action),
    /// The summary editor's text back from `$EDITOR` (Ctrl-E), or why not.
    EditedOutside(Result<String, String>),
}

use crate::keymap::Action;

impl From<Action> for Msg {
    fn from(c: Action) -> Msg {
        Msg::Action(c)
    }
}

/// What the update asks the runtime to do.
#[derive(Debug)]
pub enum Effect {
    Job(Box<Job>),
    /// Start (true) or stop watching the conversation's files.
    Watch(bool),
    /// Put the text on the clipboard, by the terminal (OSC 52).
    Copy(String),
    /// Give the terminal back to the shell until it resumes us.
    Suspend,
    /// Tell the replay's writer its pace.
    Replay(ReplayPace),
    /// Have the replay's writer write the next turn now.
    ReplayNext,
    /// Tell the replay's writer the boundary after this many turns was
    /// evaluated.
    ReplayEvaluated(usize),
    /// Tell the replay's writer whether to wait for each evaluation (`A`).
    ReplayLockstep(bool),
    /// The summary editor's text to `$VISUAL`/`$EDITOR`, to be read back.
    EditOutside {
        text: String,
    },
    /// Show `text` in the pager or the editor, the screen given over to it
    /// and restored after.
    Open {
        with: Opener,
        title: String,
        text: String,
        /// The temp file's ending (`md`, `json`), for the program's syntax.
        extension: &'static str,
    },
}

/// What a replay's writer is told: paused or not, and the time between
/// turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayPace {
    pub paused: bool,
    pub every: std::time::Duration,
}

/// The program `o` and `e` hand a text to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opener {
    /// `$PAGER`, else `less`.
    Pager,
    /// `$VISUAL`, else `$EDITOR`, else `vi`; on a read-only copy.
    Editor,
}

impl Effect {
    pub fn job(job: Job) -> Effect {
        Effect::Job(Box::new(job))
    }
}
