//! Keys of the tools view (`T`): its list, a tool's calls, and writing a
//! tool's hint after a question.

use super::run;
use crate::core::ops::hint;
use crate::core::ops::tools::calls_of;
use crate::keymap::Action;
use crate::tui::job::Job;
use crate::tui::msg::Effect;
use crate::tui::panels::Panel;
use crate::tui::state::State;
use crate::tui::status_log::Level;
use crate::tui::tools_view::{Calls, HintWrite, ToolsView};

/// `T`: opens the view and computes it off the UI thread (the savings
/// replay the staged policy once per hint).
pub(super) fn open(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(m) = &state.inspection else {
        return;
    };
    let conv = m.conv.clone();
    state.panel = Some(Panel::Tools(Box::new(ToolsView::pending())));
    let job = Job::Tools {
        conv,
        config: state.settings.config.clone(),
        window: state.settings.window_override,
    };
    run(
        state,
        fx,
        "weighing the tools (replaying the staged policy per hint)",
        job,
    );
}

pub(super) fn key(state: &mut State, cmd: Action, fx: &mut Vec<Effect>) {
    let Some(Panel::Tools(v)) = &state.panel else {
        return;
    };
    // A question first: only its answers and Tab count.
    if v.write.is_some() {
        question_key(state, cmd, fx);
    } else if v.calls.is_some() {
        calls_key(state, cmd);
    } else {
        list_key(state, cmd);
    }
}

/// The question of where to write a hint: Tab chooses the file, y writes.
fn question_key(state: &mut State, cmd: Action, fx: &mut Vec<Effect>) {
    let Some(Panel::Tools(v)) = &mut state.panel else {
        return;
    };
    let Some(w) = &mut v.write else {
        return;
    };
    match cmd {
        Action::SwitchPane => w.chosen = (w.chosen + 1) % w.files.len().max(1),
        Action::SwitchPaneBack => {
            w.chosen = (w.chosen + w.files.len().max(1) - 1) % w.files.len().max(1)
        }
        Action::Confirm => {
            let Some(file) = w.files.get(w.chosen).cloned() else {
                return;
            };
            let (tool, hint) = (w.tool.clone(), w.hint.clone());
            v.write = None;
            run(
                state,
                fx,
                "writing the hint",
                Job::WriteHint { file, tool, hint },
            );
        }
        Action::Cancel | Action::Quit => {
            v.write = None;
            state.set_status("nothing was written", Level::Info);
        }
        Action::ForceQuit => state.quit = true,
        _ => {}
    }
}

/// A tool's calls: move, jump to one, back to the list.
fn calls_key(state: &mut State, cmd: Action) {
    let page = crate::tui::layout::pane_rows(state.width, state.height, 0, 0).max(1);
    let Some(Panel::Tools(v)) = &mut state.panel else {
        return;
    };
    let Some(c) = &mut v.calls else {
        return;
    };
    if let Some(to) = super::cursor::list_move(c.cursor, c.calls.len(), page, cmd) {
        c.cursor = to;
        return;
    }
    match cmd {
        Action::OpenDetail => {
            let Some(call) = c.calls.get(c.cursor).cloned() else {
                return;
            };
            state.panel = None;
            super::largest::jump_to(state, call.turn, 0, Some(call.raw));
        }
        Action::Cancel | Action::Quit => v.calls = None,
        Action::ForceQuit => state.quit = true,
        Action::Help => state.panel = Some(Panel::Help { scroll: 0 }),
        _ => {}
    }
}

/// The list of tools: move, sort, list a tool's calls, write its hint.
fn list_key(state: &mut State, cmd: Action) {
    let page = crate::tui::layout::pane_rows(state.width, state.height, 0, 0).max(1);
    let Some(Panel::Tools(v)) = &mut state.panel else {
        return;
    };
    if let Some(to) = super::cursor::list_move(v.cursor, v.rows().len(), page, cmd) {
        v.cursor = to;
        return;
    }
    match cmd {
        Action::SwitchPane | Action::SwitchPaneBack => {
            // The cursor stays on the tool it was on.
            let on = v.selected().map(|t| t.name.clone());
            v.sort = v.sort.step(cmd == Action::SwitchPane);
            v.cursor = on
                .and_then(|n| v.rows().iter().position(|t| t.name == n))
                .unwrap_or(0);
        }
        Action::OpenDetail => {
            let Some(tool) = v.selected().map(|t| t.name.clone()) else {
                return;
            };
            let Some(m) = &state.inspection else {
                return;
            };
            let calls = calls_of(&m.conv, &tool);
            let Some(Panel::Tools(v)) = &mut state.panel else {
                return;
            };
            v.calls = Some(Calls {
                tool,
                calls,
                cursor: 0,
            });
        }
        Action::Apply => ask_where_to_write(state),
        Action::Cancel | Action::Quit => state.panel = None,
        Action::ForceQuit => state.quit = true,
        Action::Help => state.panel = Some(Panel::Help { scroll: 0 }),
        _ => {}
    }
}

/// `a`: the selected tool's hint, and the question of which file to
/// write it into.
fn ask_where_to_write(state: &mut State) {
    let Some(Panel::Tools(v)) = &state.panel else {
        return;
    };
    let Some(t) = v.selected() else {
        return;
    };
    let Some(hint) = t.hint.clone() else {
        let said = format!("`{}` has no suggested hint to write", t.name);
        state.set_status(said, Level::Info);
        return;
    };
    let tool = t.name.clone();
    let files = hint::files(state.settings.reach.workspace.as_deref());
    if files.is_empty() {
        state.set_status(
            "no config file to write into: no workspace and no user config directory",
            Level::Error,
        );
        return;
    }
    let Some(Panel::Tools(v)) = &mut state.panel else {
        return;
    };
    v.write = Some(HintWrite {
        tool,
        hint,
        files,
        chosen: 0,
    });
}
