//! `M`: the session's messages in full, newest last, each with its time
//! and wrapped under itself, so that one cut off on the status line or gone
//! after a few seconds can be read.

use crate::tui::state::State;
use crate::tui::status_log::Level;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

/// "12:04:31 " before each message.
const TIME: usize = 9;

/// Where the box sits, and its text inside the borders.
fn boxes(area: Rect) -> (Rect, Rect) {
    let w = area.width.saturating_sub(4).min(120);
    let h = area.height.saturating_sub(2);
    let box_area = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    let inner = Block::default().borders(Borders::ALL).inner(box_area);
    (box_area, inner)
}

fn lines(state: &State, width: usize) -> Vec<Line<'static>> {
    let t = &state.theme;
    let room = width.saturating_sub(TIME).max(10);
    let mut out = Vec::new();
    for said in &state.status.log.said {
        let style = match said.level {
            Level::Error => t.error(),
            Level::Info => t.plain(),
        };
        let at = said.at.format("%H:%M:%S ").to_string();
        let text = crate::core::visible::visible_line(&said.text);
        for (k, part) in super::fit::wrap_words(&text, room).into_iter().enumerate() {
            let head = if k == 0 { at.clone() } else { " ".repeat(TIME) };
            out.push(Line::from(vec![
                Span::styled(head, t.dim()),
                Span::styled(part, style),
            ]));
        }
    }
    if out.is_empty() {
        out.push(Line::from(Span::styled("nothing said yet", t.dim())));
    }
    out
}

/// The rows one screen of messages shows.
pub fn page(state: &State) -> usize {
    let (_, inner) = boxes(Rect::new(0, 0, state.width, state.height));
    inner.height as usize
}

/// The farthest the messages scroll: the newest at the box's foot.
pub fn max_scroll(state: &State) -> usize {
    let (_, inner) = boxes(Rect::new(0, 0, state.width, state.height));
    lines(state, inner.width as usize)
        .len()
        .saturating_sub(inner.height as usize)
}

pub fn draw(frame: &mut Frame, area: Rect, scroll: usize, state: &State) {
    let t = &state.theme;
    let (box_area, inner) = boxes(area);
    let all = lines(state, inner.width as usize);
    let max = all.len().saturating_sub(inner.height as usize);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.accent())
        .title(Span::styled(
            format!(" messages · {} this session ", state.status.log.said.len()),
            t.title(),
        ));
    frame.render_widget(Clear, box_area);
    frame.render_widget(block, box_area);
    frame.render_widget(
        Paragraph::new(all).scroll((scroll.min(max) as u16, 0)),
        inner,
    );
}
