//! The summary editor (`E`): the text on the left (or on top at 80
//! columns), the range's facts beside it, each ✓ or ✗ as the text stands,
//! those not named yet first.

use crate::core::ops::Where;
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
        " your summary of turns {} · names {named} of {of} facts · Ctrl-S keeps it · Esc drops the edit · Ctrl-E $EDITOR ",
        e.range.human()
    );
    let [text_area, list_area] = if area.width >= SIDE_BY_SIDE {
        Layout::horizontal([Constraint::Percentage(60), Constraint::Fill(1)]).areas(area)
    } else {
        Layout::vertical([Constraint::Percentage(50), Constraint::Fill(1)]).areas(area)
    };
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.accent())
        .title(Span::styled(
            super::fit::title(title, text_area.width),
            t.title(),
        ));
    let inner = block.inner(text_area);
    frame.render_widget(block, text_area);
    frame.render_widget(Paragraph::new(wrapped_text(e, inner)), inner);

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
        let mut order: Vec<(&crate::core::ops::Fact, &Option<Where>)> =
            e.facts.iter().zip(&e.checks).collect();
        order.sort_by_key(|(_, at)| at.is_some_and(|w| w.keeps()));
        order
            .into_iter()
            .map(|(f, at)| {
                let (mark, style) = match at {
                    Some(Where::Summary) => ("✓", t.ok()),
                    Some(Where::KeptEvent) => ("✓", t.ok()),
                    Some(Where::Partly) => ("~", t.accent()),
                    Some(Where::Named) | None => ("✗", t.error()),
                };
                let kept = match at {
                    Some(Where::KeptEvent) => " (still sent)",
                    Some(Where::Partly) => " (partly)",
                    _ => "",
                };
                Line::from(vec![
                    Span::styled(format!("{mark} "), style),
                    Span::styled(format!("{:<11} ", f.kind.as_str()), t.dim()),
                    Span::raw(format!(
                        "{}{kept}",
                        visible_line(&f.shown_within(usize::MAX))
                    )),
                ])
            })
            .collect()
    };
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((e.facts_scroll, 0)),
        inner,
    );
}

/// The text's lines wrapped to `area`'s width (at a space where one is,
/// else mid-word), scrolled so the cursor's row is on screen, the cursor
/// drawn as a reversed cell.
fn wrapped_text(e: &SummaryEditor, area: Rect) -> Vec<Line<'static>> {
    let width = usize::from(area.width.max(1));
    let (cursor_line, cursor_col) = e.area.cursor();
    let mut rows: Vec<Line<'static>> = Vec::new();
    let mut cursor_row = 0;
    for (k, line) in e.area.lines().iter().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let spans = wrap_row_spans(&chars, width);
        for (n, &(from, to)) in spans.iter().enumerate() {
            let last = n + 1 == spans.len();
            let here = k == cursor_line
                && cursor_col >= from
                && (cursor_col < to || (last && cursor_col == to));
            if !here {
                rows.push(Line::raw(chars[from..to].iter().collect::<String>()));
                continue;
            }
            cursor_row = rows.len();
            let before: String = chars[from..cursor_col].iter().collect();
            let under: String = chars.get(cursor_col).map_or(" ".into(), |c| c.to_string());
            let after: String = chars
                .get(cursor_col + 1..to)
                .map_or(String::new(), |r| r.iter().collect());
            rows.push(Line::from(vec![
                Span::raw(before),
                Span::styled(
                    under,
                    ratatui::style::Style::default()
                        .add_modifier(ratatui::style::Modifier::REVERSED),
                ),
                Span::raw(after),
            ]));
        }
    }
    let height = usize::from(area.height.max(1));
    let top = (cursor_row + 1).saturating_sub(height);
    rows.into_iter().skip(top).take(height).collect()
}

/// The rows a line of `chars` takes at `width` columns, as char ranges:
/// each ends after its last space that fits, or where the width ends in a
/// word longer than a row. An empty line is one empty row.
pub fn wrap_row_spans(chars: &[char], width: usize) -> Vec<(usize, usize)> {
    use unicode_width::UnicodeWidthChar;
    let width = width.max(1);
    let mut out = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let mut used = 0;
        let mut end = start;
        let mut after_space = None;
        while end < chars.len() {
            let w = chars[end].width().unwrap_or(0);
            if used + w > width && end > start {
                break;
            }
            used += w;
            if chars[end] == ' ' {
                after_space = Some(end + 1);
            }
            end += 1;
        }
        let cut = match after_space {
            Some(s) if end < chars.len() && s > start => s,
            _ => end,
        };
        out.push((start, cut));
        start = cut;
    }
    if out.is_empty() {
        out.push((0, 0));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::wrap_row_spans;

    #[test]
    fn rows_break_after_a_space_else_mid_word() {
        let c = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(
            wrap_row_spans(&c("alpha beta gamma"), 11),
            [(0, 11), (11, 16)]
        );
        assert_eq!(
            wrap_row_spans(&c("abcdefghij"), 4),
            [(0, 4), (4, 8), (8, 10)]
        );
        assert_eq!(wrap_row_spans(&c(""), 4), [(0, 0)]);
        assert_eq!(wrap_row_spans(&c("ab"), 2), [(0, 2)]);
    }
}
