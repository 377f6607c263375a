//! Moving through the panes and the compaction list, by key and by mouse.

use super::route;
use crate::keymap::Action;
use crate::tui::layout::{Area, hit_test};
use crate::tui::panels::Panel;
use crate::tui::state::{Focus, State};
use crate::tui::status_log::Level;
use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

fn rows(state: &State) -> usize {
    state.inspection.as_ref().map_or(0, |m| m.layout.rows())
}

pub(super) fn step(state: &mut State, dir: isize) {
    if state.nav.focus == Focus::Compactions {
        let n = state.list_len();
        if n > 0 {
            state.nav.list_cursor = state.nav.list_cursor.saturating_add_signed(dir).min(n - 1);
        }
        return show_selected_compaction(state);
    }
    let n = rows(state);
    let mut r = state.nav.cursor;
    while let Some(next) = r.checked_add_signed(dir).filter(|&x| x < n) {
        r = next;
        if state.selectable(r) {
            state.nav.cursor = r;
            break;
        }
    }
    state.ensure_visible();
}

pub(super) fn page(state: &mut State, dir: isize) {
    if state.nav.focus == Focus::Compactions {
        return step(state, dir * 5);
    }
    let h = state.pane_height() as isize;
    let n = rows(state);
    if n == 0 {
        return;
    }
    state.nav.cursor = state.nav.cursor.saturating_add_signed(dir * h).min(n - 1);
    state.nav.scroll = state.nav.scroll.saturating_add_signed(dir * h);
    // Land on something selectable, searching forward then back.
    let mut r = state.nav.cursor;
    while r + 1 < n && !state.selectable(r) {
        r += 1;
    }
    while r > 0 && !state.selectable(r) {
        r -= 1;
    }
    state.nav.cursor = r;
    state.ensure_visible();
}

pub(super) fn jump(state: &mut State, top: bool) {
    if state.nav.focus == Focus::Compactions {
        state.nav.list_cursor = if top {
            0
        } else {
            state.list_len().saturating_sub(1)
        };
        return show_selected_compaction(state);
    }
    let n = rows(state);
    state.nav.cursor = if top { 0 } else { n.saturating_sub(1) };
    if !top {
        while state.nav.cursor > 0 && !state.selectable(state.nav.cursor) {
            state.nav.cursor -= 1;
        }
    }
    state.ensure_visible();
}

pub(super) fn turn(state: &mut State, dir: isize) {
    let Some(m) = &state.inspection else {
        return;
    };
    let b = m.layout.block_of(state.nav.cursor);
    let at_header = m.layout.offsets[b] == state.nav.cursor;
    let target = match dir {
        d if d > 0 => (b + 1).min(m.layout.blocks().saturating_sub(1)),
        _ if !at_header => b,
        _ => b.saturating_sub(1),
    };
    state.nav.cursor = m.layout.offsets[target];
    // Put the turn at the top so both panes show it from its start.
    state.nav.scroll = state.nav.cursor;
    state.ensure_visible();
}

/// The compaction selected in the list: both panes scroll to the start of
/// its range, and its bands stand out (until the focus leaves the list).
pub(super) fn show_selected_compaction(state: &mut State) {
    let selected = (state.nav.focus == Focus::Compactions)
        .then(|| {
            state
                .inspection
                .as_ref()?
                .compactions
                .get(state.nav.list_cursor)
                .map(|r| (r.position, r.range))
        })
        .flatten();
    let Some(m) = &mut state.inspection else {
        return;
    };
    m.selected_position = selected.map(|(p, _)| p);
    if let Some((_, Some(range))) = selected {
        let b = range.from.min(m.layout.blocks().saturating_sub(1));
        state.nav.cursor = m.layout.offsets[b];
        state.nav.scroll = state.nav.cursor;
        state.ensure_visible();
    }
}

pub(super) fn switch(state: &mut State, forward: bool) {
    let has_list = state.list_len() > 0;
    state.nav.focus = match (state.nav.focus, forward) {
        (Focus::Raw, true) => Focus::Projected,
        (Focus::Projected, true) if has_list => Focus::Compactions,
        (Focus::Projected, true) => Focus::Raw,
        (Focus::Compactions, true) => Focus::Raw,
        (Focus::Raw, false) if has_list => Focus::Compactions,
        (Focus::Raw, false) => Focus::Projected,
        (Focus::Projected, false) => Focus::Raw,
        (Focus::Compactions, false) => Focus::Projected,
    };
    if state.nav.focus != Focus::Compactions && !state.selectable(state.nav.cursor) {
        step(state, 1);
        if !state.selectable(state.nav.cursor) {
            step(state, -1);
        }
    }
    show_selected_compaction(state);
}

pub(super) fn mouse(state: &mut State, m: MouseEvent) {
    let area = hit_test(
        state.width,
        state.height,
        state.list_len(),
        state.curve_height(),
        m.column,
        m.row,
    );
    match m.kind {
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            if let Some(Panel::Detail(_)) = state.panel {
                let a = if m.kind == MouseEventKind::ScrollDown {
                    Action::Down
                } else {
                    Action::Up
                };
                for _ in 0..3 {
                    route::detail_key(state, a);
                }
                return;
            }
            let by: isize = if m.kind == MouseEventKind::ScrollDown {
                3
            } else {
                -3
            };
            let n = rows(state);
            let h = state.pane_height();
            state.nav.scroll = state
                .nav
                .scroll
                .saturating_add_signed(by)
                .min(n.saturating_sub(h));
            // Keep the selection on screen.
            state.nav.cursor = state
                .nav
                .cursor
                .clamp(state.nav.scroll, (state.nav.scroll + h).saturating_sub(1));
        }
        MouseEventKind::Down(MouseButton::Left) => match area {
            Area::Raw(line) | Area::Projected(line) => {
                state.nav.focus = if matches!(area, Area::Raw(_)) {
                    Focus::Raw
                } else {
                    Focus::Projected
                };
                let r = state.nav.scroll + line;
                if r < rows(state) {
                    state.nav.cursor = r;
                }
                state.ensure_visible();
            }
            Area::List(line) => {
                if state.list_len() > 0 {
                    state.nav.focus = Focus::Compactions;
                    state.nav.list_cursor = line.min(state.list_len() - 1);
                }
            }
            Area::Other => {}
        },
        _ => {}
    }
}

/// `v`: the panes show the next kind of event; the cursor stays on the
/// event it was on where that is shown, else on its turn's header.
pub(super) fn show_next_kind(state: &mut State) {
    use crate::tui::inspection::Cell;
    state.shown = state.shown.next();
    let (shown, focus) = (state.shown, state.nav.focus);
    let Some(m) = &mut state.inspection else {
        return;
    };
    let rows = m.layout.rows();
    let (b, raw, proj) = m.layout.cells(state.nav.cursor.min(rows.saturating_sub(1)));
    m.layout = std::mem::take(&mut m.layout).showing(shown, &m.conv, &m.projection);
    state.nav.cursor = match (focus, raw, proj) {
        (Focus::Projected, _, Cell::Event(k)) => m.layout.row_of_projected(b, k),
        (_, Cell::Event(i), _) => m.layout.row_of_raw(b, i),
        _ => m.layout.offsets[b],
    };
    state.ensure_visible();
    state.set_status(
        format!("showing {} · v: {}", shown.label(), shown.next().label()),
        Level::Info,
    );
}
