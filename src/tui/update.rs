//! The update: how each action changes the state, and which work it hands
//! to the runtime. Every change to a conversation is a job that goes
//! through the core.

use super::action::{Action, Done, Effect, Job, JobResult, PreviewRequest};
use super::keys::{self, Scope};
use super::model::Cell;
use super::state::{
    Confirm, ConfirmKind, Detail, Focus, Input, InputKind, Level, Overlay, Preview, Search,
    Simulation, State,
};
use super::view::layout::{Area, hit_test};
use crate::core::auto::Mode;
use crate::core::compact::projection::Projected;
use crate::core::compact::reset::{self, Reset};
use crate::core::store::save::{CompactionKey, Edit, Removal};
use crate::core::{compact::rule, compact::window};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use ratatui::text::Line;
use std::time::Instant;
use tui_textarea::TextArea;

/// Applies `action` to `state`; returns what the runtime must do.
pub fn update(state: &mut State, action: Action) -> Vec<Effect> {
    let mut fx = Vec::new();
    apply(state, action, &mut fx);
    state.prepare_rows();
    fx
}

fn run(state: &mut State, fx: &mut Vec<Effect>, label: &str, job: Job) {
    state.busy = Some((label.to_string(), Instant::now()));
    fx.push(Effect::Run(Box::new(job)));
}

fn apply(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    match action {
        Action::Key(k) => key(state, k, fx),
        Action::Mouse(m) => mouse(state, m),
        Action::Resize(w, h) => {
            state.width = w;
            state.height = h;
            state.ensure_visible();
        }
        Action::Tick => {
            if state.busy.is_some() {
                state.spinner = state.spinner.wrapping_add(1);
            }
        }
        Action::Terminate | Action::ForceQuit => state.quit = true,
        Action::FilesChanged => {
            if state.follow {
                let preview = state
                    .preview
                    .as_ref()
                    .map(|p| p.compactions.clone())
                    .unwrap_or_default();
                fx.push(Effect::job(Job::Load {
                    dir: state.dir.clone(),
                    preview,
                }));
            }
        }
        Action::Done(done) => finished(state, done),
        Action::Quit => match state.overlay {
            Some(_) => state.overlay = None,
            None => state.quit = true,
        },
        Action::Help => {
            state.overlay = match state.overlay {
                Some(Overlay::Help { .. }) => None,
                _ => Some(Overlay::Help { scroll: 0 }),
            }
        }
        Action::Down => step(state, 1),
        Action::Up => step(state, -1),
        Action::PageDown => page(state, 1),
        Action::PageUp => page(state, -1),
        Action::Top => jump(state, true),
        Action::Bottom => jump(state, false),
        Action::NextTurn => turn(state, 1),
        Action::PrevTurn => turn(state, -1),
        Action::SwitchPane => switch(state, true),
        Action::SwitchPaneBack => switch(state, false),
        Action::OpenDetail => open_detail(state, fx),
        Action::Search => open_input(state, InputKind::Search),
        Action::SearchNext => search_step(state, true),
        Action::SearchPrev => search_step(state, false),
        Action::Preview => open_input(state, InputKind::Preview),
        Action::Apply => apply_preview(state, fx),
        Action::Cancel => cancel(state, fx),
        Action::ResetAuto => ask_reset(state, Reset::Auto, fx),
        Action::ResetAll => ask_reset(state, Reset::All, fx),
        Action::Delete => delete(state, fx),
        Action::SetWindow => open_input(state, InputKind::Window),
        Action::ToggleMode => {
            state.config.mode = match state.config.mode {
                Mode::Single => Mode::Staged,
                Mode::Staged => Mode::Single,
            };
            let what = match state.config.mode {
                Mode::Single => "single (RFD D50: one trigger at 75%)",
                Mode::Staged => "staged (elide above 60%, summarise above 85%)",
            };
            state.set_status(format!("automatic mode: {what}"), Level::Info);
        }
        Action::Simulation => open_simulation(state, fx),
        Action::Follow => {
            state.follow = !state.follow;
            fx.push(Effect::Watch(state.follow));
            if state.follow {
                state.set_status(
                    "following: the view refreshes when jp appends events",
                    Level::Info,
                );
                // Catch up with anything written while not following.
                apply(state, Action::FilesChanged, fx);
            } else {
                state.set_status("follow off", Level::Info);
            }
        }
        Action::ToggleRaw => {
            if let Some(Overlay::Detail(d)) = &mut state.overlay {
                d.show_raw = !d.show_raw;
                d.scroll = 0;
            }
        }
        Action::PrevWindow | Action::NextWindow => {
            if let Some(Overlay::Simulation(s)) = &mut state.overlay {
                let n = s.windows.len();
                s.selected = if matches!(action, Action::NextWindow) {
                    (s.selected + 1) % n
                } else {
                    (s.selected + n - 1) % n
                };
            }
        }
    }
}

fn key(state: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) {
    if k.kind == KeyEventKind::Release {
        return;
    }
    // Ctrl-C leaves from anywhere: an input, a dialog, a view.
    if k.code == KeyCode::Char('c')
        && k.modifiers
            .contains(crossterm::event::KeyModifiers::CONTROL)
    {
        state.quit = true;
        return;
    }
    if state.input.is_some() {
        return input_key(state, k, fx);
    }
    if let Some(Overlay::Confirm(c)) = &state.overlay {
        match k.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => {
                let c = c.clone();
                state.overlay = None;
                confirmed(state, c, fx);
            }
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc | KeyCode::Char('q') => {
                state.overlay = None;
                state.set_status("cancelled: nothing written", Level::Info);
            }
            _ => {}
        }
        return;
    }
    let scope = match &state.overlay {
        Some(Overlay::Detail(_)) => Scope::Detail,
        Some(Overlay::Simulation(_)) => Scope::Simulation,
        Some(Overlay::Help { .. }) => {
            // Help scrolls with the detail keys; anything else closes it.
            match keys::lookup(Scope::Detail, &k).and_then(Action::from_name) {
                Some(Action::Down) | Some(Action::PageDown) => scroll_help(state, 3),
                Some(Action::Up) | Some(Action::PageUp) => scroll_help(state, -3),
                Some(Action::ForceQuit) => state.quit = true,
                _ => state.overlay = None,
            }
            return;
        }
        Some(Overlay::Confirm(_)) => return,
        None => Scope::Main,
    };
    let Some(action) = keys::lookup(scope, &k).and_then(Action::from_name) else {
        return;
    };
    if scope == Scope::Detail {
        return detail_key(state, action);
    }
    apply(state, action, fx);
}

fn scroll_help(state: &mut State, by: isize) {
    if let Some(Overlay::Help { scroll }) = &mut state.overlay {
        *scroll = scroll.saturating_add_signed(by);
    }
}

fn detail_key(state: &mut State, action: Action) {
    let h = state.height.saturating_sub(4) as usize;
    let Some(Overlay::Detail(d)) = &mut state.overlay else {
        return;
    };
    let len = if d.show_raw {
        d.raw.len()
    } else {
        d.lines.len()
    };
    let max = len.saturating_sub(h);
    match action {
        Action::Down => d.scroll = (d.scroll + 1).min(max),
        Action::Up => d.scroll = d.scroll.saturating_sub(1),
        Action::PageDown => d.scroll = (d.scroll + h).min(max),
        Action::PageUp => d.scroll = d.scroll.saturating_sub(h),
        Action::Top => d.scroll = 0,
        Action::Bottom => d.scroll = max,
        Action::ToggleRaw => {
            d.show_raw = !d.show_raw;
            d.scroll = 0;
        }
        Action::Cancel | Action::Quit => state.overlay = None,
        Action::ForceQuit => state.quit = true,
        Action::Help => state.overlay = Some(Overlay::Help { scroll: 0 }),
        _ => {}
    }
}

fn open_input(state: &mut State, kind: InputKind) {
    if state.model.is_none() {
        return;
    }
    let initial = match kind {
        InputKind::Preview => state
            .preview
            .as_ref()
            .map(|p| p.spec.clone())
            .unwrap_or_default(),
        InputKind::Search => state
            .search
            .as_ref()
            .map(|s| s.query.clone())
            .unwrap_or_default(),
        InputKind::Window => state
            .window()
            .map(|w| window::human_tokens(w.tokens))
            .unwrap_or_default(),
    };
    let mut area = TextArea::new(vec![initial]);
    area.move_cursor(tui_textarea::CursorMove::End);
    state.input = Some(Input {
        kind,
        area,
        error: None,
    });
}

fn input_key(state: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) {
    let Some(input) = &mut state.input else {
        return;
    };
    match k.code {
        KeyCode::Esc => state.input = None,
        KeyCode::Enter => {
            let text = input.text().trim().to_string();
            let kind = input.kind;
            submit(state, kind, text, fx);
        }
        _ => {
            input.area.input(k);
            input.error = None;
        }
    }
}

fn submit(state: &mut State, kind: InputKind, text: String, fx: &mut Vec<Effect>) {
    let Some(model) = &state.model else {
        state.input = None;
        return;
    };
    let conv = model.conv.clone();
    match kind {
        InputKind::Preview => {
            let request = if text.eq_ignore_ascii_case("auto") {
                PreviewRequest::Auto
            } else {
                if let Err(e) = rule::parse(&text) {
                    if let Some(input) = &mut state.input {
                        input.error = Some(format!("at column {}: {}", e.at + 1, e.message));
                    }
                    return;
                }
                PreviewRequest::Rule(text.clone())
            };
            state.input = None;
            let window = state.window().map(|w| w.tokens);
            run(
                state,
                fx,
                "computing the preview",
                Job::Plan {
                    conv,
                    request,
                    window,
                    config: state.config.clone(),
                    now: state.now(),
                },
            );
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
        InputKind::Window => match window::parse_tokens(&text) {
            Some(tokens) => {
                state.input = None;
                state.window_override = Some(tokens);
                state.set_status(
                    format!("window set to {} tokens", crate::fmt::thousands(tokens)),
                    Level::Info,
                );
            }
            None if text.is_empty() => {
                state.input = None;
                state.window_override = None;
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
    }
}

fn rows(state: &State) -> usize {
    state.model.as_ref().map_or(0, |m| m.layout.rows())
}

fn step(state: &mut State, dir: isize) {
    if state.focus == Focus::Compactions {
        let n = state.list_len();
        if n > 0 {
            state.list_cursor = state.list_cursor.saturating_add_signed(dir).min(n - 1);
        }
        return;
    }
    let n = rows(state);
    let mut r = state.cursor;
    while let Some(next) = r.checked_add_signed(dir).filter(|&x| x < n) {
        r = next;
        if state.selectable(r) {
            state.cursor = r;
            break;
        }
    }
    state.ensure_visible();
}

fn page(state: &mut State, dir: isize) {
    if state.focus == Focus::Compactions {
        return step(state, dir * 5);
    }
    let h = state.pane_height() as isize;
    let n = rows(state);
    if n == 0 {
        return;
    }
    state.cursor = state.cursor.saturating_add_signed(dir * h).min(n - 1);
    state.scroll = state.scroll.saturating_add_signed(dir * h);
    // Land on something selectable, searching forward then back.
    let mut r = state.cursor;
    while r + 1 < n && !state.selectable(r) {
        r += 1;
    }
    while r > 0 && !state.selectable(r) {
        r -= 1;
    }
    state.cursor = r;
    state.ensure_visible();
}

fn jump(state: &mut State, top: bool) {
    if state.focus == Focus::Compactions {
        state.list_cursor = if top {
            0
        } else {
            state.list_len().saturating_sub(1)
        };
        return;
    }
    let n = rows(state);
    state.cursor = if top { 0 } else { n.saturating_sub(1) };
    if !top {
        while state.cursor > 0 && !state.selectable(state.cursor) {
            state.cursor -= 1;
        }
    }
    state.ensure_visible();
}

fn turn(state: &mut State, dir: isize) {
    let Some(m) = &state.model else {
        return;
    };
    let b = m.layout.block_of(state.cursor);
    let at_header = m.layout.offsets[b] == state.cursor;
    let target = match dir {
        d if d > 0 => (b + 1).min(m.layout.blocks().saturating_sub(1)),
        _ if !at_header => b,
        _ => b.saturating_sub(1),
    };
    state.cursor = m.layout.offsets[target];
    // Put the turn at the top so both panes show it from its start.
    state.scroll = state.cursor;
    state.ensure_visible();
}

fn switch(state: &mut State, forward: bool) {
    let has_list = state.list_len() > 0;
    state.focus = match (state.focus, forward) {
        (Focus::Raw, true) => Focus::Projected,
        (Focus::Projected, true) if has_list => Focus::Compactions,
        (Focus::Projected, true) => Focus::Raw,
        (Focus::Compactions, true) => Focus::Raw,
        (Focus::Raw, false) if has_list => Focus::Compactions,
        (Focus::Raw, false) => Focus::Projected,
        (Focus::Projected, false) => Focus::Raw,
        (Focus::Compactions, false) => Focus::Projected,
    };
    if state.focus != Focus::Compactions && !state.selectable(state.cursor) {
        step(state, 1);
        if !state.selectable(state.cursor) {
            step(state, -1);
        }
    }
}

fn mouse(state: &mut State, m: MouseEvent) {
    let area = hit_test(state.width, state.height, state.list_len(), m.column, m.row);
    match m.kind {
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            if let Some(Overlay::Detail(_)) = state.overlay {
                let a = if m.kind == MouseEventKind::ScrollDown {
                    Action::Down
                } else {
                    Action::Up
                };
                for _ in 0..3 {
                    detail_key(state, clone_nav(&a));
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
            state.scroll = state
                .scroll
                .saturating_add_signed(by)
                .min(n.saturating_sub(h));
            // Keep the selection on screen.
            state.cursor = state
                .cursor
                .clamp(state.scroll, (state.scroll + h).saturating_sub(1));
        }
        MouseEventKind::Down(MouseButton::Left) => match area {
            Area::Raw(line) | Area::Projected(line) => {
                state.focus = if matches!(area, Area::Raw(_)) {
                    Focus::Raw
                } else {
                    Focus::Projected
                };
                let r = state.scroll + line;
                if r < rows(state) {
                    state.cursor = r;
                }
                state.ensure_visible();
            }
            Area::List(line) => {
                if state.list_len() > 0 {
                    state.focus = Focus::Compactions;
                    state.list_cursor = line.min(state.list_len() - 1);
                }
            }
            Area::Other => {}
        },
        _ => {}
    }
}

fn clone_nav(a: &Action) -> Action {
    match a {
        Action::Down => Action::Down,
        _ => Action::Up,
    }
}

fn open_detail(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(m) = &state.model else {
        return;
    };
    let conv = &m.conv;
    let (title, header, text, language, raw) = match state.focus {
        Focus::Compactions => {
            let Some(row) = m.compactions.get(state.list_cursor) else {
                return;
            };
            let (text, raw) = match row.event {
                Some(i) => {
                    let plain = serde_json::to_string_pretty(&conv.plain(i)).unwrap_or_default();
                    (plain, conv.raw(i).to_string())
                }
                None => {
                    let preview = state.preview.as_ref();
                    let c = preview.and_then(|p| {
                        p.compactions
                            .get(row.position.saturating_sub(conv.compactions().count()))
                    });
                    let text = c
                        .map(|c| serde_json::to_string_pretty(&c.to_json()).unwrap_or_default())
                        .unwrap_or_default();
                    (text.clone(), text)
                }
            };
            let mut header = vec![format!(
                "compaction #{} · {}",
                row.position + 1,
                if row.preview {
                    "preview, not written"
                } else {
                    "stored"
                }
            )];
            if let Some(why) = &row.invalid {
                header.push(format!("INVALID, left out of the projection: {why}"));
            }
            (
                format!("compaction #{}", row.position + 1),
                header,
                text,
                Some("json".to_string()),
                raw,
            )
        }
        focus => {
            let (_, raw_cell, proj_cell) = m.layout.cells(state.cursor);
            match (focus, raw_cell, proj_cell) {
                (Focus::Raw, Cell::Event(i), _) => {
                    let d = super::detail::raw_event(m, i);
                    (
                        d.title,
                        d.header,
                        d.body,
                        d.language,
                        conv.raw(i).to_string(),
                    )
                }
                (Focus::Projected, _, Cell::Event(k)) => {
                    let p = m.projection.events[k];
                    let d = super::detail::projected_event(m, &p);
                    let raw = serde_json::to_string_pretty(&m.projection.plain(conv, &p))
                        .unwrap_or_default();
                    let raw = match p {
                        Projected::Raw { index, .. } => {
                            format!("{raw}\n\n── stored as ──\n{}", conv.raw(index))
                        }
                        Projected::Summary { .. } => raw,
                    };
                    (d.title, d.header, d.body, d.language, raw)
                }
                _ => return,
            }
        }
    };
    let lines: Vec<Line<'static>> = text.lines().map(|l| Line::raw(l.to_string())).collect();
    let raw_lines: Vec<Line<'static>> = raw.lines().map(|l| Line::raw(l.to_string())).collect();
    state.overlay = Some(Overlay::Detail(Detail {
        title: title.clone(),
        header: header.into_iter().map(Line::raw).collect(),
        lines,
        raw: raw_lines,
        show_raw: false,
        scroll: 0,
    }));
    if state.theme.color {
        fx.push(Effect::job(Job::Highlight {
            title,
            text,
            language,
        }));
    }
}

fn search_step(state: &mut State, forward: bool) {
    let Some(m) = &state.model else {
        return;
    };
    let Some(search) = &mut state.search else {
        state.set_status("no search: press / first", Level::Info);
        return;
    };
    if search.hits.is_empty() {
        let q = search.query.clone();
        state.set_status(format!("no match for `{q}`"), Level::Info);
        return;
    }
    // From the raw event under the cursor (or the turn's first one).
    let b = m.layout.block_of(state.cursor);
    let here = match m.layout.cells(state.cursor).1 {
        Cell::Event(i) => i,
        _ => m.layout.raw_start[b],
    };
    let n = search.hits.len();
    let idx = if forward {
        search.hits.partition_point(|&h| h <= here) % n
    } else {
        (search.hits.partition_point(|&h| h < here) + n - 1) % n
    };
    search.current = Some(idx);
    let target = search.hits[idx];
    let tb = m.conv.events[target]
        .turn
        .min(m.layout.blocks().saturating_sub(1));
    state.focus = Focus::Raw;
    state.cursor = m.layout.row_of_raw(tb, target);
    let q = search.query.clone();
    state.set_status(format!("match {} of {n} for `{q}`", idx + 1), Level::Info);
    state.ensure_visible();
}

fn apply_preview(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(preview) = &state.preview else {
        state.set_status(
            "nothing to apply: preview a compaction first (p)",
            Level::Info,
        );
        return;
    };
    let n = preview.compactions.len();
    let edit = Edit::append(preview.compactions.clone());
    let what = format!("appended {n} compaction(s) ({})", preview.spec);
    run(
        state,
        fx,
        "writing under jp's lock",
        Job::Save {
            dir: state.dir.clone(),
            edit,
            what,
        },
    );
}

fn cancel(state: &mut State, fx: &mut Vec<Effect>) {
    if state.overlay.is_some() {
        state.overlay = None;
        return;
    }
    if state.preview.take().is_some() {
        state.set_status("preview dropped", Level::Info);
        run(
            state,
            fx,
            "reloading",
            Job::Load {
                dir: state.dir.clone(),
                preview: Vec::new(),
            },
        );
        return;
    }
    if state.search.take().is_some() {
        state.set_status("search cleared", Level::Info);
    }
}

fn ask_reset(state: &mut State, reset: Reset, fx: &mut Vec<Effect>) {
    let Some(m) = &state.model else {
        return;
    };
    let count = reset::count(&m.conv, reset);
    if count == 0 {
        let what = match reset {
            Reset::Auto => "no automatic compactions to reset",
            _ => "no compactions to reset",
        };
        state.set_status(what, Level::Info);
        return;
    }
    let question = match reset {
        Reset::All => format!("Remove all {count} compaction(s)?"),
        Reset::Auto => format!("Remove {count} automatic compaction(s)?"),
        Reset::Position(n) => format!("Delete compaction #{n}?"),
    };
    let conv = m.conv.clone();
    state.overlay = Some(Overlay::Confirm(Confirm {
        kind: ConfirmKind::Reset(reset),
        question,
        after: None,
    }));
    fx.push(Effect::job(Job::ResetEstimate { conv, reset }));
}

fn delete(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(m) = &state.model else {
        return;
    };
    let position = match state.focus {
        Focus::Compactions => m
            .compactions
            .get(state.list_cursor)
            .map(|r| (r.position, r.preview)),
        _ => state.selected_raw().and_then(|i| {
            m.compactions
                .iter()
                .find(|r| r.event == Some(i))
                .map(|r| (r.position, false))
        }),
    };
    match position {
        Some((p, true)) => {
            // A previewed compaction is not written yet: drop it from the
            // preview.
            let stored = m.conv.compactions().count();
            if let Some(preview) = &mut state.preview {
                let k = p.saturating_sub(stored);
                if k < preview.compactions.len() {
                    preview.compactions.remove(k);
                }
                let rest = preview.compactions.clone();
                if rest.is_empty() {
                    state.preview = None;
                }
                run(
                    state,
                    fx,
                    "updating the preview",
                    Job::Load {
                        dir: state.dir.clone(),
                        preview: rest,
                    },
                );
            }
        }
        Some((p, false)) => ask_reset(state, Reset::Position(p + 1), fx),
        None => state.set_status(
            "select a compaction to delete: in the list (Tab) or its event in the raw pane",
            Level::Info,
        ),
    }
}

fn confirmed(state: &mut State, c: Confirm, fx: &mut Vec<Effect>) {
    let Some(m) = &state.model else {
        return;
    };
    let ConfirmKind::Reset(reset) = c.kind;
    let removal = match reset {
        Reset::All => Removal::All,
        Reset::Auto => Removal::Auto,
        Reset::Position(n) => match CompactionKey::of_position(&m.conv, n - 1) {
            Some(key) => Removal::Exact(vec![key]),
            None => {
                state.set_status(format!("compaction #{n} is gone"), Level::Error);
                return;
            }
        },
    };
    let what = match reset {
        Reset::All => "reset all compactions".to_string(),
        Reset::Auto => "reset the automatic compactions".to_string(),
        Reset::Position(n) => format!("deleted compaction #{n}"),
    };
    // A reset starts from what is on disk; a pending preview no longer fits.
    state.preview = None;
    run(
        state,
        fx,
        "writing under jp's lock",
        Job::Save {
            dir: state.dir.clone(),
            edit: Edit::remove(removal),
            what,
        },
    );
}

fn open_simulation(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(m) = &state.model else {
        return;
    };
    let mut windows = vec![32_000, 64_000, 128_000, 200_000];
    let current = state.window().map(|w| w.tokens);
    if let Some(w) = current
        && !windows.contains(&w)
    {
        windows.push(w);
        windows.sort_unstable();
    }
    let selected = current
        .and_then(|w| windows.iter().position(|&x| x == w))
        .unwrap_or(windows.len() - 1);
    state.overlay = Some(Overlay::Simulation(Simulation {
        windows: windows.clone(),
        selected,
        runs: None,
    }));
    let conv = m.conv.clone();
    run(
        state,
        fx,
        "simulating none / single / staged",
        Job::Simulate {
            conv,
            windows,
            config: state.config.clone(),
        },
    );
}

fn finished(state: &mut State, done: Done) {
    let current = done.generation == state.generation;
    match done.result {
        JobResult::Loaded(Ok(model)) => {
            state.busy = None;
            let first = state.model.is_none();
            let warnings: Vec<String> = model
                .conv
                .warnings
                .iter()
                .map(ToString::to_string)
                .collect();
            state.set_model(*model);
            if first && !warnings.is_empty() {
                state.set_status(
                    format!(
                        "{} warning(s) reading the file; the first: {}",
                        warnings.len(),
                        warnings[0]
                    ),
                    Level::Error,
                );
            }
        }
        JobResult::Loaded(Err(e)) => {
            state.busy = None;
            state.set_status(e, Level::Error);
        }
        JobResult::Planned(result) => {
            state.busy = None;
            if !current {
                state.set_status(
                    "the conversation changed meanwhile: preview again (p)",
                    Level::Info,
                );
                return;
            }
            match result {
                Ok(p) if p.compactions.is_empty() => {
                    let why = p.notes.last().cloned().unwrap_or_default();
                    state.set_status(format!("nothing to compact: {why}"), Level::Info);
                }
                Ok(p) => {
                    let spec = match &p.request {
                        PreviewRequest::Auto => "auto".to_string(),
                        PreviewRequest::Rule(s) => s.clone(),
                    };
                    state.preview = Some(Preview {
                        spec,
                        compactions: p.compactions,
                        notes: p.notes,
                    });
                    state.set_model(*p.model);
                    state.set_status("previewing: a applies, Esc drops", Level::Info);
                }
                Err(e) => state.set_status(e, Level::Error),
            }
        }
        JobResult::Saved(Ok((model, what))) => {
            state.busy = None;
            state.preview = None;
            state.set_model(*model);
            state.set_status(what, Level::Info);
        }
        JobResult::Saved(Err(e)) => {
            state.busy = None;
            state.set_status(e, Level::Error);
        }
        JobResult::ResetEstimated { reset, tokens } => {
            if let Some(Overlay::Confirm(c)) = &mut state.overlay
                && c.kind == ConfirmKind::Reset(reset)
                && current
            {
                c.after = Some(tokens);
            }
        }
        JobResult::Simulated(runs) => {
            state.busy = None;
            if let Some(Overlay::Simulation(s)) = &mut state.overlay {
                s.runs = Some(runs);
            }
        }
        JobResult::Searched { query, hits } => {
            state.busy = None;
            if let Some(s) = &mut state.search
                && s.query == query
                && current
            {
                s.hits = hits;
                s.pending = false;
                let n = s.hits.len();
                if n == 0 {
                    state.set_status(format!("no match for `{query}`"), Level::Info);
                } else {
                    search_step(state, true);
                }
            }
        }
        JobResult::Highlighted { title, lines } => {
            if let Some(Overlay::Detail(d)) = &mut state.overlay
                && d.title == title
            {
                d.lines = lines;
            }
        }
    }
}
