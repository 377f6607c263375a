//! The key map of the inspector, read from `assets/keys.toml` straight into
//! typed [`Action`]s, each with the help text `?` and the man page show.
//! Apart from the inspector (no terminal types here), so that the CLI's man
//! page reads the same table without depending on the TUI.

use serde::Deserialize;
use std::sync::OnceLock;

/// The commands keys are bound to in `assets/keys.toml` (by their
/// snake_case names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    ForceQuit,
    /// Back to the shell for now (Ctrl-Z), as a terminal program is.
    Suspend,
    Help,
    /// The session's messages in full.
    Messages,
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
    Summarize,
    /// Write the preview's (or the selected compaction's) summary against
    /// its checklist.
    EditSummary,
    Cancel,
    Confirm,
    ResetAuto,
    ResetAll,
    Delete,
    SetWindow,
    ToggleMode,
    ToggleJpView,
    ToggleAuto,
    AsOf,
    NextRequest,
    PrevRequest,
    /// "As of": the first and the last request of the session.
    FirstRequest,
    LastRequest,
    /// "As of": the first request after the next (or previous) compaction,
    /// where the prompt cache breaks.
    NextCompaction,
    PrevCompaction,
    Simulation,
    Follow,
    ToggleRaw,
    PrevWindow,
    NextWindow,
    Undo,
    Redo,
    ToggleWrap,
    ScrollLeft,
    ScrollRight,
    Largest,
    /// The tools view.
    Tools,
    /// A report of the open conversation, to share (`W`).
    WriteReport,
    /// The preview in force as the command line that makes it (`Y`).
    CopyCommand,
    /// The event of the next fact a compaction lost (`F`).
    NextLostFact,
    /// A compaction's facts judged again by the user's own model or
    /// command, its price asked about first (`J`).
    AskJudge,
    /// Show one kind of event in the panes, the next one (`v`).
    ShowKind,
    /// The system prompt's parts and the tool definitions (`O`).
    Overhead,
    /// Read the conversation again (`r`).
    Reload,
    /// Type a request number to go to ("as of").
    GoToRequest,
    /// Pause or resume a replay (Space).
    ReplayPause,
    /// Half the time between a replay's turns (`+`).
    ReplayFaster,
    /// Twice the time between a replay's turns (`-`).
    ReplaySlower,
    /// A replay's next turn, now (`]`).
    ReplayNext,
    /// The selected text to the clipboard (`y`).
    Copy,
    /// The selected text in `$PAGER` (`o`).
    OpenPager,
    /// The selected text, a read-only copy, in `$EDITOR` (`e`).
    OpenEditor,
    /// The summary editor: preview the text as an authored summary.
    KeepSummary,
    /// The summary editor: the text in `$VISUAL`/`$EDITOR`, and back.
    EditOutside,
    /// The summary editor: start again from the summary as it was.
    RestoreSummary,
    /// The summary editor: scroll the checklist.
    FactsDown,
    FactsUp,
}

const BINDINGS: &str = include_str!("../assets/keys.toml");

#[derive(Debug, Clone, Copy, PartialEq, Hash, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Global,
    Main,
    Detail,
    Simulation,
    Confirm,
    Help,
    /// "As of" mode, before the main bindings.
    AsOf,
    /// The largest events (`L`).
    Largest,
    /// The tools view (`T`).
    Tools,
    /// A replay (`--replay`), before the main bindings.
    Replay,
    /// The summary editor (`E`): its own keys, every other one typed.
    Summary,
}

/// Each scope with the title `?` and `man` list its bindings under, in
/// the order they list them.
pub const SECTIONS: [(Scope, &str); 11] = [
    (Scope::Main, "The panes"),
    (Scope::Global, "Everywhere"),
    (Scope::AsOf, "As of (t)"),
    (Scope::Replay, "A replay (--replay)"),
    (Scope::Detail, "The full text (Enter)"),
    (Scope::Largest, "Where the tokens are (L, O)"),
    (Scope::Tools, "The tools (T)"),
    (Scope::Simulation, "The simulation (s)"),
    (Scope::Summary, "Your summary (E)"),
    (Scope::Confirm, "A question"),
    (Scope::Help, "The help (?)"),
];

#[derive(Debug, Clone, Deserialize)]
pub struct Binding {
    pub scope: Scope,
    pub keys: Vec<String>,
    #[serde(rename = "action")]
    pub command: Action,
    pub help: String,
}

#[derive(Debug, Deserialize)]
struct File {
    key: Vec<Binding>,
}

/// The bindings of `assets/keys.toml`, in its order.
pub fn bundled() -> &'static [Binding] {
    static B: OnceLock<Vec<Binding>> = OnceLock::new();
    B.get_or_init(|| {
        toml::from_str::<File>(BINDINGS)
            .expect("assets/keys.toml is valid")
            .key
    })
}

static EFFECTIVE: OnceLock<Vec<Binding>> = OnceLock::new();

/// Makes `bindings` (the user's over the bundled ones) the ones in force;
/// once, before the screen opens.
pub fn install(bindings: Vec<Binding>) {
    let _ = EFFECTIVE.set(bindings);
}

/// Whether the user's bindings were installed.
pub fn installed() -> bool {
    EFFECTIVE.get().is_some()
}

/// Every binding in force: the installed ones, else the bundled.
pub fn bindings() -> &'static [Binding] {
    EFFECTIVE.get().map_or_else(bundled, Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_command_is_a_load_error() {
        let bad = "[[key]]\nscope = \"main\"\nkeys = [\"j\"]\naction = \"dwon\"\nhelp = \"x\"\n";
        let err = toml::from_str::<File>(bad).unwrap_err().to_string();
        assert!(err.contains("dwon"), "{err}");
    }
}
