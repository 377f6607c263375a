//! Why the automatic policy decided what the `auto` preview shows: the
//! mode, the usable window and the context, then the trigger's own notes —
//! the recent window and its budget, each threshold against the estimate,
//! why a stage fired or did not. The same words as `jp-inspect auto`.

use crate::core::ops;
use crate::tui::panels::Preview;
use crate::tui::state::State;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

/// The lines of the explanation.
pub fn lines(p: &Preview, state: &State) -> Vec<String> {
    let usable = state.budget().and_then(|b| b.usable());
    let mut out = vec![ops::auto_headline(
        &state.settings.config,
        usable,
        p.plan.tokens.before,
    )];
    out.extend(p.plan.notes.iter().map(|n| format!("· {n}")));
    out
}

/// Draws the explanation at the bottom of `panes`, as tall as it needs:
/// half of them at most when there is room to spare, else all but the
/// panes' title and first line, so its last line is read on a small
/// terminal too. What still does not fit ends in a line saying where it
/// is said whole.
pub fn draw(frame: &mut Frame, panes: Rect, p: &Preview, state: &State) {
    let t = &state.theme;
    let mut text = lines(p, state);
    let inner_w = panes.width.saturating_sub(2).max(1) as usize;
    let rows_of = |l: &String| l.chars().count().max(1).div_ceil(inner_w);
    let rows: usize = text.iter().map(rows_of).sum();
    let most = (panes.height / 2).max(panes.height.saturating_sub(3));
    let height = ((rows + 2) as u16).min(most);
    if height < 3 {
        return;
    }
    let room = usize::from(height - 2);
    if rows > room {
        // Whole lines while they fit, then where to read the rest.
        let mut used = 0;
        let keep = text
            .iter()
            .take_while(|l| {
                used += rows_of(l);
                used < room
            })
            .count();
        let left = text.len() - keep;
        text.truncate(keep);
        text.push(format!(
            "… {left} more: `jp-inspect auto CONV --dry-run` says it all"
        ));
    }
    let area = Rect::new(
        panes.x,
        panes.y + panes.height - height,
        panes.width,
        height,
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.accent())
        .title(Span::styled(" why: the automatic policy ", t.title()));
    let body: Vec<Line> = text
        .into_iter()
        .enumerate()
        .map(|(k, l)| {
            if k == 0 {
                Line::from(Span::styled(l, t.title()))
            } else {
                Line::raw(l)
            }
        })
        .collect();
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(body).wrap(Wrap { trim: false }).block(block),
        area,
    );
}
