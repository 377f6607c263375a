//! The picker's keys: typing filters, arrows move, Enter opens the
//! conversation, Tab changes the order; `q` (with nothing typed) or Esc on
//! an empty filter quits, `?` shows the keys, and after `/` every key types
//! (a filter may start with `q`). Back from a conversation opened here, the
//! filter is cleared and the cursor stands on that conversation, so `q`
//! quits.

use crate::tui::job::Job;
use crate::tui::msg::Effect;
use crate::tui::state::State;
use crate::tui::status_log::Level;
use crate::tui::undo::UndoHistory;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::time::Instant;

/// The next background read of the picker's conversations, if any remain.
pub fn fill(state: &mut State) -> Vec<Effect> {
    let Some(p) = &state.picker else {
        return Vec::new();
    };
    let dirs = p.unfilled();
    if dirs.is_empty() {
        return Vec::new();
    }
    vec![Effect::job(Job::Details { dirs })]
}

pub(super) fn key(state: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) {
    let page = state.height.saturating_sub(6).max(1) as usize;
    let Some(p) = &mut state.picker else {
        return;
    };
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    let last = p.visible().len().saturating_sub(1);
    // Any key closes the help (Ctrl-C quits before it gets here).
    if p.help {
        p.help = false;
        return;
    }
    // A command key only where it can't be the start of a filter.
    let command = p.filter.is_empty() && !p.typing;
    match k.code {
        KeyCode::Char('u') if ctrl => p.filter.clear(),
        KeyCode::Char('q') if command => state.quit = true,
        KeyCode::Char('?') if command => p.help = true,
        KeyCode::Char('/') if command => p.typing = true,
        KeyCode::Esc if p.typing && p.filter.is_empty() => p.typing = false,
        KeyCode::Esc if p.filter.is_empty() => state.quit = true,
        KeyCode::Esc => p.filter.clear(),
        KeyCode::Tab | KeyCode::BackTab => {
            p.sort = p.sort.step(k.code == KeyCode::Tab);
            p.cursor = 0;
        }
        KeyCode::Enter => return open(state, fx),
        KeyCode::Down => p.cursor = (p.cursor + 1).min(last),
        KeyCode::Up => p.cursor = p.cursor.saturating_sub(1),
        KeyCode::PageDown => p.cursor = (p.cursor + page).min(last),
        KeyCode::PageUp => p.cursor = p.cursor.saturating_sub(page),
        KeyCode::Home => p.cursor = 0,
        KeyCode::End => p.cursor = last,
        KeyCode::Backspace => {
            p.filter.pop();
        }
        KeyCode::Char(c) if !ctrl => {
            p.filter.push(c);
            p.cursor = 0;
        }
        _ => {}
    }
    p.clamp();
}

/// Opens the selected conversation, fresh: its own settings, no undo of
/// another's writes.
fn open(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(dir) = state
        .picker
        .as_ref()
        .and_then(|p| p.selected())
        .map(|l| l.dir.clone())
    else {
        state.set_status("no conversation matches the filter", Level::Info);
        return;
    };
    state.in_picker = false;
    state.dir = dir.clone();
    state.inspection = None;
    state.budget = None;
    state.measured = None;
    state.load_error = None;
    state.preview = None;
    state.panel = None;
    state.search = None;
    state.as_of = None;
    state.history = UndoHistory::default();
    state.settings.configured = false;
    state.generation += 1;
    state.status.busy = Some(("loading the conversation".into(), Instant::now()));
    fx.push(Effect::job(Job::Load {
        dir,
        preview: Vec::new(),
        since: None,
        config: Some(state.settings.config_asked()),
        view: state.settings.view,
    }));
}

/// `q` in a conversation opened from the picker: back to the list, with
/// that conversation's line read again (it may have changed).
pub(super) fn back(state: &mut State, fx: &mut Vec<Effect>) {
    if state.settings.follow {
        state.settings.follow = false;
        fx.push(Effect::Watch(false));
    }
    state.settings.auto_run = false;
    let dir = state.dir.clone();
    if let Some(p) = &mut state.picker
        && let Some(l) = p.listings.iter_mut().find(|l| l.dir == dir)
    {
        l.details = None;
    }
    // Back with the filter cleared and the cursor on the conversation just
    // left: a filter still set would take the next `q` as a letter
    // ("firstq"), and a person who came back means to quit or pick again.
    if let Some(p) = &mut state.picker {
        p.filter.clear();
        p.typing = false;
        let visible = p.visible();
        p.cursor = visible
            .iter()
            .position(|&i| p.listings[i].dir == dir)
            .unwrap_or(0);
    }
    state.in_picker = true;
    state.inspection = None;
    state.budget = None;
    state.measured = None;
    state.preview = None;
    state.search = None;
    state.as_of = None;
    state.status.message = None;
    state.generation += 1;
    fx.extend(fill(state));
}
