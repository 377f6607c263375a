//! Drawing: a pure function of the state.

mod chrome;
mod curve;
mod error_screen;
pub(crate) mod fit;
mod gauge;
mod largest;

mod list;
pub mod messages;
pub mod overlays;
mod panes;
mod picker;
mod simulation;
mod summary_editor;
mod tools;
pub mod why;

use super::layout;
use super::state::State;
use crate::tui::panels::Panel;
use ratatui::Frame;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

/// Draws the whole screen for `state`.
pub fn draw(frame: &mut Frame, state: &State) {
    draw_views(frame, state);
    scrub(frame.buffer_mut());
}

/// Every cell drawn with nothing a terminal would obey: each view shows
/// text through the visible-text rule, and this catches any string that
/// reached a cell without it (a tool name, a folder), so a cloned
/// workspace's names can never set the title or move the cursor.
fn scrub(buffer: &mut ratatui::buffer::Buffer) {
    for cell in buffer.content.iter_mut() {
        if let Some(c) = cell
            .symbol()
            .chars()
            .find_map(crate::core::visible::cell_stand_in)
        {
            cell.set_char(c);
        }
    }
}

/// Under the gauge: an open view over the panes and the list, or the
/// panes, the list and the automatic preview's reasons.
fn body(frame: &mut Frame, s: &layout::Screen, state: &State) {
    let area = frame.area();
    match &state.panel {
        Some(Panel::Detail(d)) => {
            let body =
                ratatui::layout::Rect::new(0, s.raw.y, area.width, s.raw.height + s.list.height);
            overlays::detail(frame, body, d, state);
        }
        Some(Panel::Largest(l)) => {
            let body =
                ratatui::layout::Rect::new(0, s.raw.y, area.width, s.raw.height + s.list.height);
            largest::draw(frame, body, l, state);
        }
        Some(Panel::Tools(v)) => {
            let body =
                ratatui::layout::Rect::new(0, s.raw.y, area.width, s.raw.height + s.list.height);
            tools::draw(frame, body, v, state);
        }
        Some(Panel::Summary(e)) => {
            let body =
                ratatui::layout::Rect::new(0, s.raw.y, area.width, s.raw.height + s.list.height);
            summary_editor::draw(frame, body, e, state);
        }
        Some(Panel::Simulation(sim)) => {
            let body = ratatui::layout::Rect::new(
                0,
                s.gauge.y,
                area.width,
                s.gauge.height + s.raw.height + s.list.height,
            );
            simulation::draw(frame, body, sim, state);
        }
        _ => {
            panes::draw(frame, s.raw, s.projected, state);
            list::draw(frame, s.list, state);
            if let Some(p) = state.preview.as_ref().filter(|p| p.request.is_auto()) {
                let panes = ratatui::layout::Rect {
                    width: area.width,
                    ..s.raw
                };
                why::draw(frame, panes, p, state);
            }
        }
    }
}

fn draw_views(frame: &mut Frame, state: &State) {
    let area = frame.area();
    if area.width < 40 || area.height < 10 {
        frame.render_widget(
            Paragraph::new(vec![
                Line::raw("jp-inspect"),
                Line::raw(format!(
                    "terminal too small ({}x{}); 80x24 or more",
                    area.width, area.height
                )),
            ]),
            area,
        );
        return;
    }
    if let (true, Some(p)) = (state.in_picker, &state.picker) {
        picker::draw(frame, area, p, state);
        return;
    }
    if let (None, Some(error)) = (&state.inspection, &state.load_error) {
        let body = ratatui::layout::Rect {
            height: area.height.saturating_sub(1),
            ..area
        };
        error_screen::draw(frame, body, error, state);
        let footer = ratatui::layout::Rect {
            y: area.y + area.height - 1,
            height: 1,
            ..area
        };
        chrome::footer(frame, footer, state);
        return;
    }
    let s = layout::screen_with(
        area.width,
        area.height,
        state.list_len(),
        state.curve_height(),
    );
    chrome::header(frame, s.header, state);
    let curve_h = state.curve_height().min(s.gauge.height);
    let gauge_area = ratatui::layout::Rect {
        height: s.gauge.height - curve_h,
        ..s.gauge
    };
    gauge::draw(frame, gauge_area, state);
    if curve_h > 0 {
        let curve_area = ratatui::layout::Rect {
            y: s.gauge.y + gauge_area.height,
            height: curve_h,
            ..s.gauge
        };
        curve::draw(frame, curve_area, state);
    }
    body(frame, &s, state);
    chrome::status(frame, s.status, state);
    chrome::footer(frame, s.footer, state);
    match &state.panel {
        Some(Panel::Help { scroll }) => overlays::help(frame, area, *scroll, state),
        Some(Panel::Messages { scroll }) => messages::draw(frame, area, *scroll, state),
        Some(Panel::Confirm(c)) => overlays::confirm(frame, area, c, state),
        _ => {}
    }
}
