//! The largest view (`L`): the projected events and the request's fixed
//! parts by size, with their share of the context, the selected one marked;
//! or the fixed parts alone (`O`).

use crate::core::fmt::human_tokens;
use crate::core::ops::largest::Origin;
use crate::tui::largest::Largest;
use crate::tui::state::State;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

pub fn draw(frame: &mut Frame, area: Rect, l: &Largest, state: &State) {
    let t = &state.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.accent())
        .title(Span::styled(
            super::fit::title(title(l), area.width),
            t.title(),
        ));
    let inner = block.inner(area);
    frame.render_widget(Clear, area);
    frame.render_widget(block, area);
    let rows = (inner.height as usize).saturating_sub(1);
    if rows == 0 {
        return;
    }
    // A row is kept for saying what the list leaves out.
    let cut = l.total > l.entries.len();
    let rows = if cut {
        rows.saturating_sub(1).max(1)
    } else {
        rows
    };
    let first = l.cursor.saturating_sub(rows.saturating_sub(1));
    let width = inner.width as usize;
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "{:>5} {:>8} {:>6} {:>5} {:>6}  {:<13} text",
            "#", "tokens", "share", "Σ", "turn", "kind"
        ),
        t.header_row(),
    ))];
    let mut total = 0.0;
    for (k, e) in l.entries.iter().enumerate() {
        total += l.share(e);
        if k < first || k >= first + rows {
            continue;
        }
        // The running share says how few events make most of the context;
        // in its own column, so it stays put whatever the text.
        // The fixed parts belong to no turn: every request carries them.
        let turn = match &e.origin {
            Origin::Event { turn, .. } => (turn + 1).to_string(),
            Origin::Overhead(_) => "every".into(),
        };
        let head = format!(
            "{:>5} {:>8} {:>5.1}% {:>4.0}% {:>6}  {:<13} ",
            k + 1,
            crate::core::fmt::thousands(e.tokens),
            l.share(e),
            total,
            turn,
            e.label,
        );
        let room = width.saturating_sub(head.chars().count());
        let text: String = e.excerpt.chars().take(room).collect();
        let mut line = Line::from(vec![Span::raw(head), Span::styled(text, t.dim())]);
        if k == l.cursor {
            line = line.style(t.selected());
        }
        lines.push(line);
    }
    // What the list leaves out is said, not silently dropped.
    if cut && first + rows >= l.entries.len() {
        lines.push(Line::from(Span::styled(
            format!(
                "{:>5} {:>8} {:>5.1}%  … {} smaller entries not listed",
                "",
                crate::core::fmt::thousands(l.unlisted_tokens),
                l.unlisted_tokens as f64 / l.context as f64 * 100.0,
                crate::core::fmt::thousands((l.total - l.entries.len()) as u64)
            ),
            t.dim(),
        )));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn title(l: &Largest) -> String {
    if l.overhead_only {
        let sum: u64 = l.entries.iter().map(|e| e.tokens).sum();
        return format!(
            " what every request carries · {} parts, {} · in the order sent · share of the {} context · Enter opens ",
            l.entries.len(),
            human_tokens(sum),
            human_tokens(l.context)
        );
    }
    let what = if l.total > l.entries.len() {
        format!("the largest {} of {}", l.entries.len(), l.total)
    } else {
        format!("{}", l.entries.len())
    };
    format!(
        " where the tokens are · {what} by size · shares of the {} context, Σ so far ",
        human_tokens(l.context)
    )
}
