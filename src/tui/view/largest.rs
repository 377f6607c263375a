//! The largest view (`L`): the projected events by size, with their share
//! of the context, the selected one marked.

use crate::core::compact::window::human_tokens;
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
            format!(
                " where the tokens are · {} events by size · share of the {} context, Σ so far ",
                l.entries.len(),
                human_tokens(l.context)
            ),
            t.title(),
        ));
    let inner = block.inner(area);
    frame.render_widget(Clear, area);
    frame.render_widget(block, area);
    let rows = (inner.height as usize).saturating_sub(1);
    if rows == 0 {
        return;
    }
    let first = l.cursor.saturating_sub(rows.saturating_sub(1));
    let width = inner.width as usize;
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "{:>5} {:>8} {:>6} {:>6}  {:<12} text",
            "#", "tokens", "share", "turn", "kind"
        ),
        t.header_row(),
    ))];
    let mut total = 0.0;
    for (k, e) in l.entries.iter().enumerate() {
        total += l.share(e);
        if k < first || k >= first + rows {
            continue;
        }
        // The running share says how few events make most of the context.
        let head = format!(
            "{:>5} {:>8} {:>5.1}% {:>6}  {:<12} ",
            k + 1,
            crate::fmt::thousands(e.tokens),
            l.share(e),
            e.turn + 1,
            e.label,
        );
        let room = width.saturating_sub(head.chars().count() + 8);
        let text: String = e.excerpt.chars().take(room).collect();
        let mut line = Line::from(vec![
            Span::raw(head),
            Span::styled(text, t.dim()),
            Span::styled(format!("  Σ{total:.0}%"), t.dim()),
        ]);
        if k == l.cursor {
            line = line.style(t.selected());
        }
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
