//! The prompts: a rule (or `auto`) to preview, a search, a window size.

use super::run;
use crate::tui::job::{Job, PreviewRequest};
use crate::tui::msg::Effect;
use crate::tui::panels::Input;
use crate::tui::panels::InputKind;
use crate::tui::panels::Panel;
use crate::tui::panels::Search;
use crate::tui::state::State;
use crate::tui::status_log::Level;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_textarea::TextArea;

pub(super) fn open_input(state: &mut State, kind: InputKind) {
    if state.inspection.is_none() {
        return;
    }
    let initial = match kind {
        InputKind::Preview => state
            .preview
            .as_ref()
            .map(|p| p.request.spec().to_string())
            .unwrap_or_default(),
        InputKind::Search => state
            .search
            .as_ref()
            .map(|s| s.query.clone())
            .unwrap_or_default(),
        InputKind::Window => state
            .window()
            .map(|w| crate::core::fmt::human_tokens(w.tokens))
            .unwrap_or_default(),
        InputKind::Request => state
            .as_of
            .as_ref()
            .map(|a| (a.current + 1).to_string())
            .unwrap_or_default(),
    };
    let mut area = TextArea::new(vec![initial]);
    // Pre-filled text is selected: typing replaces it, an arrow keeps it.
    area.select_all();
    state.input = Some(Input {
        kind,
        area,
        error: None,
    });
}

/// Plans `request` against the conversation as it is now (a new preview,
/// or an open one again after jp appended turns).
pub(super) fn plan_preview(state: &mut State, request: PreviewRequest, fx: &mut Vec<Effect>) {
    plan_preview_with(state, request, false, fx);
}

/// [`plan_preview`], making the summaries with the configured summarizer
/// when `summarize` (the person pressed `S`).
pub(super) fn plan_preview_with(
    state: &mut State,
    request: PreviewRequest,
    summarize: bool,
    fx: &mut Vec<Effect>,
) {
    let (Some(model), Some(budget)) = (&state.inspection, state.budget()) else {
        return;
    };
    let conv = model.conv.clone();
    run(
        state,
        fx,
        "computing the preview",
        Job::Preview {
            conv,
            request,
            budget: Box::new(budget),
            config: state.settings.config.clone(),
            now: state.now(),
            view: state.settings.view,
            summarize,
        },
    );
}

pub(super) fn input_key(state: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) {
    let Some(input) = &mut state.input else {
        return;
    };
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    match k.code {
        KeyCode::Esc => state.input = None,
        KeyCode::Enter => {
            let text = input.text().trim().to_string();
            let kind = input.kind;
            submit(state, kind, text, fx);
        }
        // Ctrl-U clears the line, as in a shell.
        KeyCode::Char('u') if ctrl => {
            input.area.select_all();
            input.area.cut();
            input.error = None;
        }
        // Moving drops the selection instead of stretching it.
        KeyCode::Left | KeyCode::Right | KeyCode::Home | KeyCode::End
            if input.area.is_selecting() =>
        {
            let to_end = matches!(k.code, KeyCode::Right | KeyCode::End);
            input.area.cancel_selection();
            input.area.move_cursor(if to_end {
                tui_textarea::CursorMove::End
            } else {
                tui_textarea::CursorMove::Head
            });
        }
        _ => {
            input.area.input(k);
            input.error = None;
        }
    }
}

fn submit(state: &mut State, kind: InputKind, text: String, fx: &mut Vec<Effect>) {
    let Some(model) = &state.inspection else {
        state.input = None;
        return;
    };
    let conv = model.conv.clone();
    match kind {
        InputKind::Preview => {
            let request = match PreviewRequest::parse(&text) {
                Ok(r) => r,
                Err(e) => {
                    if let Some(input) = &mut state.input {
                        input.error = Some(format!("at column {}: {}", e.at + 1, e.message));
                    }
                    return;
                }
            };
            state.input = None;
            plan_preview(state, request, fx);
        }
        InputKind::Search if matches!(state.panel, Some(Panel::Detail(_))) => {
            // Inside the detail view: this text only, the panes untouched.
            state.input = None;
            search_detail(state, text);
        }
        InputKind::Search => {
            state.input = None;
            if text.is_empty() {
                state.search = None;
                return;
            }
            state.search = Some(Search {
                query: text.clone(),
                pending: true,
                ..Search::default()
            });
            run(state, fx, "searching", Job::Search { conv, query: text });
        }
        InputKind::Window => match crate::core::fmt::parse_tokens(&text) {
            Some(tokens) => {
                let before = state.settings.window_override.replace(tokens);
                state.rebudget();
                if let Some(why) = state.budget().and_then(|b| b.window_too_small()) {
                    // Kept open with the reason, the old window still in force.
                    state.settings.window_override = before;
                    state.rebudget();
                    if let Some(input) = &mut state.input {
                        input.error = Some(why);
                    }
                    return;
                }
                state.input = None;
                state.set_status(
                    format!("window set to {}", crate::core::fmt::count(tokens, "token")),
                    Level::Info,
                );
            }
            None if text.is_empty() => {
                state.input = None;
                state.settings.window_override = None;
                state.rebudget();
                state.set_status("window: back to the table of known models", Level::Info);
            }
            None => {
                if let Some(input) = &mut state.input {
                    input.error = Some(format!(
                        "`{text}` is not a token count (try 200k, 1m or 128000)"
                    ));
                }
            }
        },
        InputKind::Request => {
            let n = state.as_of.as_ref().map_or(0, |a| a.points.len());
            match text.trim().parse::<usize>() {
                Ok(k) if (1..=n).contains(&k) => {
                    state.input = None;
                    super::requests::go_to_request(state, |_| Some(k - 1), fx);
                }
                _ => {
                    if let Some(input) = &mut state.input {
                        input.error = Some(format!("a request number from 1 to {n}"));
                    }
                }
            }
        }
    }
}

/// Marks `query` in the open detail view and goes to its first match.
fn search_detail(state: &mut State, query: String) {
    use crate::tui::detail_layout;
    let Some(Panel::Detail(d)) = &mut state.panel else {
        return;
    };
    d.needle = (!query.is_empty()).then_some(query);
    let Some(Panel::Detail(d)) = &state.panel else {
        return;
    };
    let Some(needle) = d.needle.as_deref().map(crate::core::ops::Needle::new) else {
        return;
    };
    let rows = detail_layout::match_rows(d, detail_layout::inner(state).0, &needle);
    let first = detail_layout::first_match(d, state);
    if let (Some(row), Some(Panel::Detail(d))) = (first, &mut state.panel) {
        d.scroll = row;
    }
    let said = match rows.len() {
        0 => "no match in this text".to_string(),
        n => format!(
            "{} in this text: n next, N previous",
            crate::core::fmt::count(n as u64, "matching row")
        ),
    };
    state.set_status(said, Level::Info);
}
