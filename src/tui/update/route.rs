//! Which command a key means where the person is: a prompt takes text, a
//! confirmation and the help overlay have their own scopes of the key map,
//! the detail view scrolls, everything else is the main scope.

use super::{commands, input};
use crate::keymap::Action;
use crate::keymap::Scope;
use crate::tui::keys;
use crate::tui::msg::Effect;
use crate::tui::panels::Panel;
use crate::tui::state::State;
use crate::tui::status_log::Level;
use crossterm::event::{KeyEvent, KeyEventKind};

pub(super) fn key(state: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) {
    if k.kind == KeyEventKind::Release {
        return;
    }
    if state.input.is_some() {
        return input::input_key(state, k, fx);
    }
    // The summary editor takes text: every key but its own goes to it.
    if matches!(state.panel, Some(Panel::Summary(_))) {
        return super::summary::key(state, k, fx);
    }
    if matches!(state.panel, Some(Panel::Confirm(_))) {
        return confirm_key(state, k, fx);
    }
    let scope = match &state.panel {
        Some(Panel::Detail(_)) => Scope::Detail,
        Some(Panel::Largest(_)) => Scope::Largest,
        Some(Panel::Tools(_)) => Scope::Tools,
        Some(Panel::Simulation(_)) => Scope::Simulation,
        Some(Panel::Help { .. } | Panel::Messages { .. }) => {
            // Help and the messages scroll; any other key closes them.
            // A page is the box's height, less a line kept for context.
            let page = match state.panel {
                Some(Panel::Messages { .. }) => crate::tui::view::messages::page(state),
                _ => crate::tui::view::overlays::help_page(state),
            }
            .saturating_sub(1)
            .max(1) as isize;
            match keys::lookup(Scope::Help, &k) {
                Some(Action::Down) => scroll_help(state, 1),
                Some(Action::Up) => scroll_help(state, -1),
                Some(Action::PageDown) => scroll_help(state, page),
                Some(Action::PageUp) => scroll_help(state, -page),
                Some(Action::Top) => scroll_help(state, isize::MIN / 2),
                Some(Action::Bottom) => scroll_help(state, isize::MAX / 2),
                Some(Action::ForceQuit) => state.quit = true,
                _ => state.panel = None,
            }
            return;
        }
        Some(Panel::Confirm(_) | Panel::Summary(_)) => return,
        None => Scope::Main,
    };
    // "As of" mode's own keys come before the main ones.
    let as_of = (scope == Scope::Main && state.as_of.is_some())
        .then(|| keys::lookup(Scope::AsOf, &k))
        .flatten();
    // So are a replay's (Space pauses it rather than paging).
    let replay = (scope == Scope::Main && state.replay.is_some() && state.as_of.is_none())
        .then(|| keys::lookup(Scope::Replay, &k))
        .flatten();
    let Some(cmd) = as_of.or(replay).or_else(|| keys::lookup(scope, &k)) else {
        return;
    };
    // An unreadable file: only quitting, help and waiting make sense.
    if state.inspection.is_none()
        && state.load_error.is_some()
        && !matches!(
            cmd,
            Action::Quit | Action::ForceQuit | Action::Follow | Action::Help
        )
    {
        return;
    }
    if scope == Scope::Detail {
        // Leaving the inspector's text for the clipboard or a program is
        // the same from the detail view as from the panes.
        if matches!(
            cmd,
            Action::Copy
                | Action::OpenPager
                | Action::OpenEditor
                | Action::NextLostFact
                | Action::AskJudge
        ) {
            return super::command(state, cmd, fx);
        }
        return detail_key(state, cmd);
    }
    if scope == Scope::Largest {
        return super::largest::largest_key(state, cmd, fx);
    }
    if scope == Scope::Tools {
        return super::tools::key(state, cmd, fx);
    }
    super::command(state, cmd, fx);
}

fn scroll_help(state: &mut State, by: isize) {
    let max = match state.panel {
        Some(Panel::Messages { .. }) => crate::tui::view::messages::max_scroll(state),
        _ => crate::tui::view::overlays::help_max_scroll(state),
    };
    if let Some(Panel::Help { scroll } | Panel::Messages { scroll }) = &mut state.panel {
        *scroll = scroll.saturating_add_signed(by).min(max);
    }
}

pub(super) fn detail_key(state: &mut State, cmd: Action) {
    use crate::tui::detail_layout;
    let Some(Panel::Detail(d)) = &state.panel else {
        return;
    };
    let (h, max, hmax) = (
        detail_layout::room(d, state).max(1),
        detail_layout::max_scroll(d, state),
        detail_layout::max_hscroll(d, state),
    );
    let Some(Panel::Detail(d)) = &mut state.panel else {
        return;
    };
    match cmd {
        Action::Down => d.scroll = (d.scroll + 1).min(max),
        Action::Up => d.scroll = d.scroll.saturating_sub(1),
        Action::PageDown => d.scroll = (d.scroll + h).min(max),
        Action::PageUp => d.scroll = d.scroll.saturating_sub(h),
        Action::Top => d.scroll = 0,
        Action::Bottom => d.scroll = max,
        Action::ToggleRaw => {
            d.show_raw = !d.show_raw;
            d.scroll = 0;
            d.hscroll = 0;
        }
        Action::ToggleWrap => {
            d.wrap = !d.wrap;
            d.scroll = 0;
            d.hscroll = 0;
        }
        Action::SearchNext | Action::SearchPrev => {
            let forward = cmd == Action::SearchNext;
            let Some(Panel::Detail(d)) = &state.panel else {
                return;
            };
            match detail_layout::jump(d, state, forward) {
                Some(row) => {
                    if let Some(Panel::Detail(d)) = &mut state.panel {
                        d.scroll = row;
                    }
                }
                None if d.needle.is_none() => {
                    state.set_status("no search: / searches this text", Level::Info)
                }
                None => state.set_status("no match in this text", Level::Info),
            }
        }
        Action::Search => super::input::open_input(state, crate::tui::panels::InputKind::Search),
        Action::ScrollLeft => d.hscroll = d.hscroll.saturating_sub(8),
        Action::ScrollRight if !d.wrap => d.hscroll = (d.hscroll + 8).min(hmax),
        Action::Cancel | Action::Quit => state.panel = None,
        Action::ForceQuit => state.quit = true,
        Action::Help => state.panel = Some(Panel::Help { scroll: 0 }),
        _ => {}
    }
}

/// A question's answer: `y` does what it asked, `n` or Esc nothing.
fn confirm_key(state: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) {
    use crate::tui::panels::ConfirmKind;
    let Some(Panel::Confirm(c)) = &state.panel else {
        return;
    };
    let c = c.clone();
    match keys::lookup(Scope::Confirm, &k) {
        Some(Action::Confirm) => {
            state.panel = None;
            match c.kind {
                ConfirmKind::Judge { position, kind } => {
                    super::judge::ask(state, position, kind, fx)
                }
                _ => commands::confirmed(state, c, fx),
            }
        }
        Some(Action::Cancel) => {
            state.panel = None;
            let said = match c.kind {
                ConfirmKind::Judge { .. } => "not asked: nothing sent",
                _ => "cancelled: nothing written",
            };
            state.set_status(said, Level::Info);
        }
        _ => {}
    }
}
