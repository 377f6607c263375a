//! Where the tokens are (`L`, `O`): the view opened, its keys, and a jump
//! to an event.

use crate::core::ops;
use crate::core::ops::largest::Origin;
use crate::keymap::Action;
use crate::tui::detail_text;
use crate::tui::largest::Largest;
use crate::tui::msg::Effect;
use crate::tui::panels::Panel;
use crate::tui::state::{Focus, State};
use crate::tui::status_log::Level;

/// `L`: the projected events and the fixed parts by size, with their
/// share of the context; `O` (`overhead_only`): the fixed parts alone.
pub(super) fn open_largest(state: &mut State, overhead_only: bool) {
    let Some(m) = &state.inspection else {
        return;
    };
    let context = state.context_of(&m.estimate);
    // Listed when the context counts them (not with D50's events-only
    // estimate, where they would add up past 100 %).
    let counted = state.budget().is_some_and(|b| b.overhead_chars() > 0);
    let list = if overhead_only {
        let parts = ops::largest::overhead(&m.conv);
        if parts.is_empty() {
            state.set_status(
                "every request carries no system prompt and no tool here: the configuration has none",
                Level::Info,
            );
            return;
        }
        Largest::overhead(parts, context)
    } else {
        Largest::of(
            ops::largest::largest(&m.conv, &m.projection, counted),
            context,
        )
    };
    state.panel = Some(Panel::Largest(list));
}

/// Keys in the largest view: move, jump to the event (open a fixed part),
/// close.
pub(super) fn largest_key(state: &mut State, cmd: Action, fx: &mut Vec<Effect>) {
    let page = crate::tui::layout::pane_rows(state.width, state.height, 0, 0).max(1);
    let Some(Panel::Largest(l)) = &mut state.panel else {
        return;
    };
    if let Some(to) = super::cursor::list_move(l.cursor, l.entries.len(), page, cmd) {
        l.cursor = to;
        return;
    }
    match cmd {
        Action::OpenDetail => {
            let Some(e) = l.entries.get(l.cursor).cloned() else {
                return;
            };
            let context = l.context;
            state.panel = None;
            match e.origin {
                Origin::Event {
                    turn,
                    projected,
                    raw,
                } => jump_to(state, turn, projected, raw),
                Origin::Overhead(part) => {
                    super::commands::show_detail(
                        state,
                        detail_text::of_overhead(&part, e.tokens, context),
                        fx,
                    );
                }
            }
        }
        Action::Cancel | Action::Quit => state.panel = None,
        Action::ForceQuit => state.quit = true,
        Action::Help => state.panel = Some(Panel::Help { scroll: 0 }),
        _ => {}
    }
}

/// Puts the cursor on an entry's event: its raw event in the raw pane, or
/// an injected summary in the projected one.
pub(super) fn jump_to(state: &mut State, turn: usize, projected: usize, raw: Option<usize>) {
    // An event the panes leave out (`v`) is shown again with all the rest.
    if let Some(m) = &mut state.inspection
        && m.layout.picks.is_some()
    {
        let b = turn.min(m.layout.blocks().saturating_sub(1));
        let hidden = match raw {
            Some(i) => m.layout.row_of_raw(b, i) == m.layout.offsets[b],
            None => m.layout.row_of_projected(b, projected) == m.layout.offsets[b],
        };
        if hidden {
            state.shown = crate::tui::shown::Shown::All;
            m.layout = std::mem::take(&mut m.layout).showing(state.shown, &m.conv, &m.projection);
        }
    }
    let Some(m) = &state.inspection else {
        return;
    };
    let b = turn.min(m.layout.blocks().saturating_sub(1));
    let (focus, row) = match raw {
        Some(i) => (Focus::Raw, m.layout.row_of_raw(b, i)),
        None => (Focus::Projected, m.layout.row_of_projected(b, projected)),
    };
    state.nav.focus = focus;
    state.nav.cursor = row;
    state.ensure_visible();
}
