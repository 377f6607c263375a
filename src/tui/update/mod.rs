//! The update: how each message changes the state, and which work it
//! hands to the runtime. Every change to a conversation is a job that goes
//! through `core::ops`.
//!
//! - `route`: which command a key means where the person is;
//! - `nav`: moving through the panes and the list, and the mouse;
//! - `input`: the prompts (rule, search, window);
//! - `commands`: previews, writes, resets, the detail and simulation views;
//! - `jobs`: what to do with a finished job.

mod commands;
mod cursor;
mod input;
mod jobs;
mod judge;
mod largest;
mod lost_trail;
mod nav;
mod outside;
mod picker;
mod range_facts;
mod report;
mod requests;
mod route;
mod settings;
mod summary;
mod tools;

use super::job::Job;
use super::msg::{Effect, Msg};
use super::state::State;
use crate::keymap::Action;
use crate::tui::panels::Panel;
use crate::tui::status_log::Level;
use std::time::Instant;

/// The picker's next background read (the first, when it opens).
pub fn fill_picker(state: &mut State) -> Vec<Effect> {
    picker::fill(state)
}

/// Applies `msg` to `state`; returns what the runtime must do.
pub fn update(state: &mut State, msg: impl Into<Msg>) -> Vec<Effect> {
    let mut fx = Vec::new();
    let generation = state.generation;
    handle(state, msg.into(), &mut fx);
    // A new inspection (a preview made or dropped, a write, a reload):
    // the list's marks of what it shows now, not only once `Enter` asks.
    if state.generation != generation && !state.in_picker && state.inspection.is_some() {
        ask_list_marks(state, &mut fx);
    }
    state.prepare_rows();
    fx
}

/// Marks the state busy with `label` and hands `job` to the worker.
fn run(state: &mut State, fx: &mut Vec<Effect>, label: &str, job: Job) {
    state.status.busy = Some((label.to_string(), Instant::now()));
    fx.push(Effect::job(job));
}

fn handle(state: &mut State, msg: Msg, fx: &mut Vec<Effect>) {
    match msg {
        Msg::Key(k) => {
            // An error stays until the person acts on it.
            if matches!(state.status.message, Some((_, Level::Error))) {
                state.status.message = None;
            }
            // Suspending and leaving at once work from anywhere (an input,
            // a dialog, the picker), as in any terminal program.
            if k.kind != crossterm::event::KeyEventKind::Release {
                match crate::tui::keys::lookup_in(crate::keymap::Scope::Global, &k) {
                    Some(Action::Suspend) => {
                        fx.push(Effect::Suspend);
                        return;
                    }
                    Some(Action::ForceQuit) => {
                        state.quit = true;
                        return;
                    }
                    _ => {}
                }
            }
            if state.in_picker {
                if k.kind != crossterm::event::KeyEventKind::Release {
                    picker::key(state, k, fx);
                }
                return;
            }
            route::key(state, k, fx)
        }
        Msg::Mouse(m) => nav::mouse(state, m),
        Msg::Resize(w, h) => {
            state.width = w;
            state.height = h;
            state.ensure_visible();
        }
        Msg::Tick => {
            state.expire_status(Instant::now());
            if state.status.busy.is_some() {
                state.status.spinner = state.status.spinner.wrapping_add(1);
            }
            if state.settings.auto_waiting && state.status.busy.is_none() {
                jobs::auto_at_boundary(state, fx);
            }
        }
        Msg::Idle => {
            if let Some(Panel::Summary(e)) = &mut state.panel {
                e.recheck_if_stale();
            }
        }
        Msg::Terminate => state.quit = true,
        Msg::LockSeen(held) => state.jp_lock = held,
        Msg::FilesChanged => {
            // "As of" stays in the past; following resumes on return.
            if state.settings.follow && state.as_of.is_none() {
                fx.push(Effect::job(reload(state)));
            } else if let Some(m) = &state.inspection {
                // Not following: find out what changed, show nothing yet.
                fx.push(Effect::job(Job::Check {
                    dir: state.dir.clone(),
                    against: m.conv.clone(),
                }));
            }
        }
        Msg::Done(done) => jobs::finished(state, *done, fx),
        Msg::Action(cmd) => command(state, cmd, fx),
        Msg::EditedOutside(back) => summary::edited_outside(state, back),
    }
}

/// Reads the conversation again, the preview kept on top, saying what
/// changed since the one shown.
pub(super) fn reload(state: &State) -> Job {
    Job::Load {
        dir: state.dir.clone(),
        preview: state
            .preview
            .as_ref()
            .map(|p| p.plan.compactions())
            .unwrap_or_default(),
        config: None,
        view: state.settings.view,
        since: state.inspection.as_ref().map(|m| m.conv.clone()),
    }
}

/// Whether `cmd` would change the conversation while "as of" shows the
/// past, which it refuses, saying so.
fn refused_in_the_past(state: &mut State, cmd: Action) -> bool {
    let writes = matches!(
        cmd,
        Action::Preview
            | Action::Apply
            | Action::Summarize
            | Action::EditSummary
            | Action::ResetAuto
            | Action::ResetAll
            | Action::Delete
            | Action::ToggleAuto
            | Action::Undo
            | Action::Redo
    );
    if writes && state.as_of.is_some() {
        state.set_status(
            "this is the past: leave \"as of\" (t) to change the conversation",
            Level::Info,
        );
        return true;
    }
    false
}

fn command(state: &mut State, cmd: Action, fx: &mut Vec<Effect>) {
    if refused_in_the_past(state, cmd) {
        return;
    }
    match cmd {
        Action::ForceQuit => state.quit = true,
        Action::Suspend => fx.push(Effect::Suspend),
        Action::Quit => match state.panel {
            Some(_) => state.panel = None,
            // Opened from the picker: back to it.
            None if state.picker.is_some() => picker::back(state, fx),
            None => state.quit = true,
        },
        Action::Help => {
            state.panel = match state.panel {
                Some(Panel::Help { .. }) => None,
                _ => Some(Panel::Help { scroll: 0 }),
            }
        }
        // Opened at its end: the newest message is the one looked for.
        Action::Messages => {
            state.panel = Some(Panel::Messages {
                scroll: crate::tui::view::messages::max_scroll(state),
            })
        }
        Action::Down => nav::step(state, 1),
        Action::Up => nav::step(state, -1),
        Action::PageDown => nav::page(state, 1),
        Action::PageUp => nav::page(state, -1),
        Action::Top => nav::jump(state, true),
        Action::Bottom => nav::jump(state, false),
        Action::NextTurn => nav::turn(state, 1),
        Action::PrevTurn => nav::turn(state, -1),
        Action::SwitchPane => {
            nav::switch(state, true);
            list_marks(state, fx);
        }
        Action::SwitchPaneBack => {
            nav::switch(state, false);
            list_marks(state, fx);
        }
        Action::OpenDetail => commands::open_detail(state, fx),
        Action::Search => input::open_input(state, crate::tui::panels::InputKind::Search),
        Action::SearchNext => commands::search_step(state, true),
        Action::SearchPrev => commands::search_step(state, false),
        Action::Preview => input::open_input(state, crate::tui::panels::InputKind::Preview),
        Action::Apply => commands::apply_preview(state, fx),
        Action::Summarize => commands::summarize_preview(state, fx),
        Action::EditSummary => summary::open(state, fx),
        Action::Cancel => commands::cancel(state, fx),
        Action::ResetAuto => commands::ask_reset(state, crate::core::ops::Reset::Auto, fx),
        Action::ResetAll => commands::ask_reset(state, crate::core::ops::Reset::All, fx),
        Action::Delete => commands::delete(state, fx),
        Action::SetWindow => input::open_input(state, crate::tui::panels::InputKind::Window),
        Action::ToggleMode => settings::toggle_mode(state),
        Action::ToggleJpView => settings::toggle_jp_view(state, fx),
        Action::ToggleAuto => settings::toggle_auto(state, fx),
        Action::AsOf
        | Action::NextRequest
        | Action::PrevRequest
        | Action::GoToRequest
        | Action::FirstRequest
        | Action::LastRequest
        | Action::NextCompaction
        | Action::PrevCompaction => time_travel(state, cmd, fx),
        Action::Simulation => commands::open_simulation(state, fx),
        Action::Follow => settings::toggle_follow(state, fx),
        Action::ToggleRaw | Action::PrevWindow | Action::NextWindow => in_panel(state, cmd),
        Action::Reload => reload_now(state, fx),
        Action::ReplayNext | Action::ReplayPause | Action::ReplayFaster | Action::ReplaySlower => {
            replay_command(state, cmd, fx)
        }
        // The summary editor's own: its keys reach them there.
        Action::KeepSummary
        | Action::EditOutside
        | Action::RestoreSummary
        | Action::FactsDown
        | Action::FactsUp => {}
        Action::Copy => outside::copy(state, fx),
        Action::OpenPager => outside::open_outside(state, super::msg::Opener::Pager, fx),
        Action::OpenEditor => outside::open_outside(state, super::msg::Opener::Editor, fx),
        Action::Largest => largest::open_largest(state, false),
        Action::Tools => tools::open(state, fx),
        Action::WriteReport => report::write(state, fx),
        Action::CopyCommand => outside::copy_command(state, fx),
        Action::NextLostFact => lost_trail::next(state, fx),
        Action::AskJudge => judge::price(state, fx),
        Action::ShowKind => nav::show_next_kind(state),
        Action::Overhead => largest::open_largest(state, true),
        Action::Undo => commands::undo_redo(state, false, fx),
        Action::Redo => commands::undo_redo(state, true, fx),
        // Only meaningful in a confirmation or the detail view, where
        // `route` handles them.
        Action::Confirm | Action::ToggleWrap | Action::ScrollLeft | Action::ScrollRight => {}
    }
}

/// Time travel's keys: on and off, the next or previous request, one by
/// number, the first, the last, the next or previous compaction.
fn time_travel(state: &mut State, cmd: Action, fx: &mut Vec<Effect>) {
    match cmd {
        Action::AsOf => commands::toggle_as_of(state, fx),
        Action::NextRequest => commands::step_request(state, 1, fx),
        Action::PrevRequest => commands::step_request(state, -1, fx),
        Action::GoToRequest if state.as_of.is_some() => {
            input::open_input(state, crate::tui::panels::InputKind::Request);
        }
        Action::FirstRequest => requests::go_to_request(state, |_| Some(0), fx),
        Action::LastRequest => {
            requests::go_to_request(state, |a| a.points.len().checked_sub(1), fx)
        }
        Action::NextCompaction => requests::go_to_request(
            state,
            |a| {
                (a.current + 1..a.points.len()).find(|&k| !a.points[k].compactions_since.is_empty())
            },
            fx,
        ),
        Action::PrevCompaction => requests::go_to_request(
            state,
            |a| {
                (0..a.current)
                    .rev()
                    .find(|&k| !a.points[k].compactions_since.is_empty())
            },
            fx,
        ),
        _ => {}
    }
}

/// Keys of the panel open over the panes: the detail's raw text, the
/// simulation's window.
fn in_panel(state: &mut State, cmd: Action) {
    match cmd {
        Action::ToggleRaw => {
            if let Some(Panel::Detail(d)) = &mut state.panel {
                d.show_raw = !d.show_raw;
                d.scroll = 0;
            }
        }
        Action::PrevWindow | Action::NextWindow => {
            if let Some(Panel::Simulation(s)) = &mut state.panel {
                let n = s.windows.len();
                s.selected = if matches!(cmd, Action::NextWindow) {
                    (s.selected + 1) % n
                } else {
                    (s.selected + n - 1) % n
                };
            }
        }
        _ => {}
    }
}

/// `r`: the conversation read again, unless the screen shows the past.
fn reload_now(state: &mut State, fx: &mut Vec<Effect>) {
    if state.as_of.is_some() {
        state.set_status(
            "this is the past: leave \"as of\" (t) to reload",
            Level::Info,
        );
        return;
    }
    let job = reload(state);
    run(state, fx, "reloading", job);
}

/// The replay's keys: the next turn now, pause, faster, slower.
fn replay_command(state: &mut State, cmd: Action, fx: &mut Vec<Effect>) {
    match cmd {
        Action::ReplayNext if state.replay.is_some_and(|r| !r.done) => {
            fx.push(Effect::ReplayNext);
            state.set_status("writing the next turn now", Level::Info);
        }
        Action::ReplayPause | Action::ReplayFaster | Action::ReplaySlower => {
            commands::replay_pace(state, cmd, fx)
        }
        _ => {}
    }
}

/// With the list focused, asks once per inspection what the model still
/// knows of each compaction's range (the marks its rows show).
fn list_marks(state: &mut State, fx: &mut Vec<Effect>) {
    if state.nav.focus == crate::tui::state::Focus::Compactions {
        ask_list_marks(state, fx);
    }
}

/// Asks what the model still knows of each compaction's range, once per
/// inspection: as a conversation opens, so a person scanning the list
/// sees its `!` at once, and again when the list gets the focus.
pub(super) fn ask_list_marks(state: &mut State, fx: &mut Vec<Effect>) {
    let fresh = state
        .list_marks
        .as_ref()
        .is_some_and(|(g, _)| *g == state.generation);
    if fresh {
        return;
    }
    let Some(m) = &state.inspection else {
        return;
    };
    if m.compactions.is_empty() || m.as_of.is_some() {
        return;
    }
    // One out at a time: the one out asks again for the newest when it
    // comes back stale.
    if state.list_marks_asked.is_some() {
        return;
    }
    state.list_marks_asked = Some(state.generation);
    fx.push(Effect::job(Job::ListKnows {
        conv: m.conv.clone(),
        preview: state
            .preview
            .as_ref()
            .map(|p| p.plan.compactions())
            .unwrap_or_default(),
        view: state.settings.view,
    }));
}
