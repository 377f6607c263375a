//! Writing a summary against its checklist (`E`): the text in an editor,
//! the facts of its range beside it, each ✓ while the text (or an event of
//! the range the model is still sent) names it, ✗ while not, updated as
//! the person types. Ctrl-S keeps the text as an authored summary of the
//! range (previewed, then written with `a`); Esc drops the edit.

use crate::core::facts::{Fact, Sent, Where, matching::Siblings};
use crate::core::model::turns::TurnRange;
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
}

impl SummaryEditor {
    /// An editor over `text`, the summary of `range`, with the range's
    /// `facts` and the events `sent` besides.
    pub fn new(text: &str, range: TurnRange, facts: Vec<Fact>, sent: Sent) -> SummaryEditor {
        let mut area = TextArea::new(text.lines().map(str::to_owned).collect());
        area.set_cursor_line_style(ratatui::style::Style::default());
        let mut e = SummaryEditor {
            area,
            range,
            checks: Vec::new(),
            facts,
            sent,
        };
        e.recheck();
        e
    }

    pub fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    /// Judges every fact against the text as it stands.
    pub fn recheck(&mut self) {
        let sent = self.sent.with_summary(&self.text());
        let siblings = Siblings::of(&self.facts);
        self.checks = self
            .facts
            .iter()
            .map(|f| sent.names(f, &siblings))
            .collect();
    }

    /// Facts named, of all.
    pub fn named(&self) -> (usize, usize) {
        (
            self.checks.iter().filter(|c| c.is_some()).count(),
            self.facts.len(),
        )
    }
}
