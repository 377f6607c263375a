//! What opens over the panes: the one-line input, the preview, a
//! confirmation, the detail view, the simulation and the size list, and the
//! search under way. Parts of the inspector's state.

use crate::core::ops::Plan;
use crate::core::ops::Reset;
use crate::core::ops::Run;
use ratatui::text::Line;
use tui_textarea::TextArea;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Preview,
    Search,
    Window,
    /// A request number, in "as of" mode.
    Request,
}

pub struct Input {
    pub kind: InputKind,
    pub area: TextArea<'static>,
    pub error: Option<String>,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("kind", &self.kind)
            .field("text", &self.area.lines())
            .field("error", &self.error)
            .finish()
    }
}

impl Input {
    pub fn text(&self) -> String {
        self.area.lines().join("")
    }
}

/// A shown preview: what was asked for, and the plan not written yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    pub request: crate::tui::job::PreviewRequest,
    pub plan: Plan,
    /// What the model would still know of each addition's range (`None`:
    /// a summary not made yet).
    pub knows: Vec<Option<Vec<crate::core::ops::Judged>>>,
}

impl Preview {
    /// How the facts of its ranges fare, together, and whether it loses an
    /// instruction or an unfixed error; `None` before its summaries exist.
    pub fn survival(&self) -> Option<(crate::core::ops::Survival, bool)> {
        let mut all = crate::core::ops::Survival::default();
        let mut grave = false;
        for k in &self.knows {
            let k = k.as_ref()?;
            all.add(&crate::core::ops::Survival::of(k));
            grave |= k.iter().any(crate::core::ops::Judged::is_grave);
        }
        (!self.knows.is_empty()).then_some((all, grave))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ConfirmKind {
    Reset(Reset),
    /// Apply a preview that makes every later request larger.
    ApplyAdding,
    /// Ask the user's own model or command to judge compaction
    /// `position`'s facts, at the price the question says.
    Judge {
        position: usize,
        kind: crate::core::ops::SummarizerKind,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Confirm {
    pub kind: ConfirmKind,
    pub question: String,
    /// The change, with the tokens after it, once planned.
    pub plan: Option<Plan>,
}

#[derive(Debug, Clone)]
pub struct Detail {
    pub title: String,
    /// What the event is: type, time, ids, its fate.
    pub header: Vec<Line<'static>>,
    /// The decoded text, highlighted once the worker is done.
    pub lines: Vec<Line<'static>>,
    /// The event as stored (with its encoding).
    pub raw: Vec<Line<'static>>,
    pub show_raw: bool,
    /// The first row shown (a row of wrapped text when wrapping).
    pub scroll: usize,
    /// Long lines wrap (the default); off, they scroll sideways.
    pub wrap: bool,
    /// Columns scrolled sideways when not wrapping.
    pub hscroll: usize,
    /// The search whose matches are marked, and `n`/`N` move between.
    pub needle: Option<String>,
    /// The text as given, for `y`, `o` and `e`: what is shown, readable
    /// or as stored.
    pub text: Outside,
}

/// An event's text as it leaves the inspector (`y`, `o`, `e`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outside {
    pub readable: String,
    pub stored: String,
    /// A file name ending that tells an editor or pager its language.
    pub extension: &'static str,
}

#[derive(Debug, Clone)]
pub struct Simulation {
    pub windows: Vec<u64>,
    pub selected: usize,
    pub runs: Option<Result<Vec<Run>, String>>,
}

#[derive(Debug, Clone)]
pub enum Panel {
    Detail(Detail),
    Help {
        scroll: usize,
    },
    /// The session's messages in full (`M`).
    Messages {
        scroll: usize,
    },
    Confirm(Confirm),
    Simulation(Simulation),
    /// The projected events by size (`L`).
    Largest(super::largest::Largest),
    /// Which tools fill the context (`T`).
    Tools(Box<super::tools_view::ToolsView>),
    /// A summary written against its checklist (`E`).
    Summary(Box<super::summary_editor::SummaryEditor>),
}

#[derive(Debug, Clone, Default)]
pub struct Search {
    pub query: String,
    /// Raw event indices whose text matches.
    pub hits: Vec<usize>,
    pub current: Option<usize>,
    pub pending: bool,
}
