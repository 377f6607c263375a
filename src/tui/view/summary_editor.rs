//! The summary editor (`E`): the text on the left (or on top at 80
//! columns), the range's facts beside it, each ✓ or ✗ as the text stands,
//! those not named yet first.

use crate::core::facts::Where;
use crate::core::visible::visible_line;
use crate::tui::state::State;
use crate::tui::summary_editor::SummaryEditor;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

/// Wide enough for the checklist beside the text.
const SIDE_BY_SIDE: u16 = 120;

pub fn draw(frame: &mut Frame, area: Rect, e: &SummaryEditor, state: &State) {
    let t = &state.theme;
    let (named, of) = e.named();
    let title = format!(
        " your summary of turns {} · names {named} of {of} facts · Ctrl-S keeps it · Esc drops the edit ",
        e.range.human()
    );
    let [text_area, list_area] = if area.width >= SIDE_BY_SIDE {
        Layout::horizontal([Constraint::Percentage(60), Constraint::Fill(1)]).areas(area)
    } else {
        Layout::vertical([Constraint::Percentage(50), Constraint::Fill(1)]).areas(area)
    };
    frame.render_widget(Clear, area);
    let mut editor = e.area.clone();
    editor.set_block(
        Block::default()
            .borders(Borders::ALL)
            .border_style(t.accent())
            .title(Span::styled(
                super::fit::title(title, text_area.width),
                t.title(),
            )),
    );
    frame.render_widget(&editor, text_area);

    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.dim())
        .title(Span::styled(" the facts of its range ", t.title()));
    let inner = block.inner(list_area);
    frame.render_widget(block, list_area);
    let lines: Vec<Line> = if e.facts.is_empty() {
        vec![Line::from(Span::styled(
            format!(
                "no facts to check in turns {}: no file, command, error, instruction, \
                 decision, link or figure",
                e.range.human()
            ),
            t.dim(),
        ))]
    } else {
        // What the text doesn't name yet first: what is left to write.
        let mut order: Vec<(&crate::core::facts::Fact, &Option<Where>)> =
            e.facts.iter().zip(&e.checks).collect();
        order.sort_by_key(|(_, at)| at.is_some());
        order
            .into_iter()
            .map(|(f, at)| {
                let (mark, style) = match at {
                    Some(Where::Summary) => ("✓", t.ok()),
                    Some(Where::KeptEvent) => ("✓", t.ok()),
                    Some(Where::Named) | None => ("✗", t.error()),
                };
                let kept = match at {
                    Some(Where::KeptEvent) => " (still sent)",
                    _ => "",
                };
                Line::from(vec![
                    Span::styled(format!("{mark} "), style),
                    Span::styled(format!("{:<11} ", f.kind.as_str()), t.dim()),
                    Span::raw(format!("{}{kept}", visible_line(&f.text))),
                ])
            })
            .collect()
    };
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
