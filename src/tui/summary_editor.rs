//! Writing a summary against its checklist (`E`): the text in an editor,
//! the facts of its range beside it, each ✓ while the text (or an event of
//! the range the model is still sent) names it, ✗ while not, updated as
//! the person types. Ctrl-S keeps the text as an authored summary of the
//! range (previewed, then written with `a`); Esc drops the edit, asking
//! first when the text was changed; Ctrl-E hands the text to `$EDITOR`.
//! Long lines wrap (see `view::summary_editor`), and the checklist
//! scrolls on its own keys.

use crate::core::model::TurnRange;
use crate::core::ops::{Fact, Sent, Siblings, Verdict, Where};
use tui_textarea::TextArea;

#[derive(Debug, Clone)]
pub struct SummaryEditor {
    pub area: TextArea<'static>,
    pub range: TurnRange,
    pub facts: Vec<Fact>,
    /// Where each fact is named now.
    pub checks: Vec<Option<Where>>,
    /// What the model is still sent of the range besides the summary.
    sent: Sent,
    /// Whether an event still sent names each fact: judged once, as no
    /// edit of the summary changes it.
    by_events: Vec<bool>,
    /// The text changed since `checks` were judged: they are judged again
    /// when the keys stop coming ([`SummaryEditor::recheck_if_stale`]), so
    /// a key is drawn at once whatever the summary's length.
    stale: bool,
    /// The text it opened on, to tell an edit from none and to start over.
    pub original: String,
    /// The checklist's first line shown.
    pub facts_scroll: u16,
    /// Esc was pressed once on a changed text: the next one drops it.
    pub dropping: bool,
}

impl SummaryEditor {
    /// An editor over `text`, the summary of `range`, with the range's
    /// `facts` and the events `sent` besides.
    pub fn new(text: &str, range: TurnRange, facts: Vec<Fact>, sent: Sent) -> SummaryEditor {
        let mut area = TextArea::new(text.lines().map(str::to_owned).collect());
        area.set_cursor_line_style(ratatui::style::Style::default());
        let siblings = Siblings::of(&facts);
        let by_events = facts
            .iter()
            .map(|f| sent.keeps_by_events(f, &siblings))
            .collect();
        let mut e = SummaryEditor {
            area,
            range,
            checks: Vec::new(),
            facts,
            sent,
            by_events,
            stale: false,
            original: text.to_string(),
            facts_scroll: 0,
            dropping: false,
        };
        e.recheck();
        e
    }

    pub fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    /// Whether the text differs from the one it opened on.
    pub fn changed(&self) -> bool {
        self.text() != self.original
    }

    /// Puts `text` in place of the text (the editor's own, or the one it
    /// opened on), the cursor at its start, where a reader begins; judged
    /// again when the keys stop.
    pub fn replace(&mut self, text: &str) {
        let mut area = TextArea::new(text.lines().map(str::to_owned).collect());
        area.set_cursor_line_style(ratatui::style::Style::default());
        self.area = area;
        self.stale = true;
        self.dropping = false;
    }

    /// Scrolls the checklist by `by` lines, within its `len` lines.
    pub fn scroll_facts(&mut self, by: i32, len: usize) {
        let top =
            (i64::from(self.facts_scroll) + i64::from(by)).clamp(0, len.saturating_sub(1) as i64);
        self.facts_scroll = u16::try_from(top).unwrap_or(u16::MAX);
    }

    /// Takes a key into the text; the checks wait until the keys stop.
    pub fn input(&mut self, key: crossterm::event::KeyEvent) {
        self.dropping = false;
        if self.area.input(key) {
            self.stale = true;
        }
    }

    /// Whether the text changed since the checks were judged.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// Judges the checks again if the text changed since they were.
    pub fn recheck_if_stale(&mut self) {
        if self.stale {
            self.recheck();
        }
    }

    /// Judges every fact against the text as it stands: only the summary
    /// is read again, once for all the facts no event names.
    pub fn recheck(&mut self) {
        let sent = self.sent.with_summary(&self.text());
        let siblings = Siblings::of(&self.facts);
        self.checks = self
            .facts
            .iter()
            .zip(&self.by_events)
            .map(|(f, &kept)| {
                if kept {
                    Some(Where::KeptEvent)
                } else {
                    match sent.by_summary(f, &siblings) {
                        Verdict::Conveyed => Some(Where::Summary),
                        Verdict::Partly => Some(Where::Partly),
                        Verdict::Missing => None,
                    }
                }
            })
            .collect();
        self.stale = false;
    }

    /// Facts named, of all.
    pub fn named(&self) -> (usize, usize) {
        (
            self.checks
                .iter()
                .filter(|c| c.is_some_and(|w| w.keeps()))
                .count(),
            self.facts.len(),
        )
    }
}
