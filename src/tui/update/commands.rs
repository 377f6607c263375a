//! The commands that plan, write or open a view: previews, apply, resets
//! and deletes (each a job through `core::ops`), search, the detail and
//! simulation views.

use super::run;
use crate::core::ops;
use crate::core::ops::Reset;
use crate::keymap::Action;
use crate::tui::detail_text;
use crate::tui::inspection::Cell;
use crate::tui::job::{Job, UndoKind, Writing};
use crate::tui::msg::Effect;
use crate::tui::panels::Confirm;
use crate::tui::panels::ConfirmKind;
use crate::tui::panels::Detail;
use crate::tui::panels::Panel;
use crate::tui::panels::Simulation;
use crate::tui::state::{Focus, State};
use crate::tui::status_log::Level;
use ratatui::text::Line;

pub(super) fn open_detail(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(text) = detail_text::of_selection(state) else {
        return;
    };
    show_detail(state, text, fx);
    // A compaction's facts are found off the UI thread: the detail opens
    // at once and takes them when they come.
    if let Some(job) = detail_text::wants_facts(state) {
        fx.push(Effect::job(job));
    }
}

/// The detail view of `text`, at the search's first match when searching.
pub(super) fn show_detail(state: &mut State, text: detail_text::DetailText, fx: &mut Vec<Effect>) {
    let lines: Vec<Line<'static>> = text
        .body
        .lines()
        .map(|l| Line::raw(l.to_string()))
        .collect();
    let raw: Vec<Line<'static>> = text.raw.lines().map(|l| Line::raw(l.to_string())).collect();
    let outside = text.outside();
    state.panel = Some(Panel::Detail(Detail {
        text: outside,
        title: text.title.clone(),
        header: text.header.into_iter().map(Line::raw).collect(),
        lines,
        raw,
        show_raw: false,
        scroll: 0,
        wrap: true,
        hscroll: 0,
        needle: state
            .search
            .as_ref()
            .map(|s| s.query.clone())
            .filter(|q| !q.is_empty()),
    }));
    // Opened on a search: at its first match, marked.
    if let Some(Panel::Detail(d)) = &state.panel
        && let Some(row) = crate::tui::detail_layout::first_match(d, state)
        && let Some(Panel::Detail(d)) = &mut state.panel
    {
        d.scroll = row;
    }
    // Markdown is laid out (lists, tables) even without colour.
    let markdown = text.language.as_deref() == Some("md");
    if state.theme.color || markdown {
        fx.push(Effect::job(Job::Highlight {
            title: text.title,
            text: text.body,
            language: text.language,
            color: state.theme.color,
        }));
    }
}

pub(super) fn search_step(state: &mut State, forward: bool) {
    let Some(m) = &state.inspection else {
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
    let b = m.layout.block_of(state.nav.cursor);
    let here = match m.layout.cells(state.nav.cursor).1 {
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
    state.nav.focus = Focus::Raw;
    state.nav.cursor = m.layout.row_of_raw(tb, target);
    let q = search.query.clone();
    state.set_status(format!("match {} of {n} for `{q}`", idx + 1), Level::Info);
    state.ensure_visible();
}

pub(super) fn apply_preview(state: &mut State, fx: &mut Vec<Effect>) {
    if state.preview.is_some() && writes_refused(state) {
        return;
    }
    let Some(preview) = &state.preview else {
        state.set_status(
            "nothing to apply: preview a compaction first (p)",
            Level::Info,
        );
        return;
    };
    if let Some(why) = ops::refused(&preview.plan) {
        let why = format!("not applied: {why}; S makes it first");
        state.set_status(why, Level::Error);
        return;
    }
    // A compaction that makes every later request larger is seldom what
    // the person meant: it is asked about first, with its reason.
    if let Some(question) = adding_question(&preview.plan) {
        state.panel = Some(Panel::Confirm(Confirm {
            kind: ConfirmKind::ApplyAdding,
            question,
            plan: Some(preview.plan.clone()),
        }));
        return;
    }
    write_preview(state, fx);
}

/// The question a plan that makes every later request larger is asked
/// with, its reason and figures in it; none for a plan that doesn't.
pub(super) fn adding_question(plan: &ops::Plan) -> Option<String> {
    if plan.tokens.after <= plan.tokens.before {
        return None;
    }
    let why = plan
        .additions
        .iter()
        .find_map(|a| a.raises())
        .unwrap_or_else(|| "it adds tokens to every later request".to_string());
    Some(format!("Apply it anyway? {why}"))
}

/// Writes the open preview as it stands.
fn write_preview(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(preview) = &state.preview else {
        return;
    };
    let n = preview.plan.additions.len();
    let what = format!(
        "appended {} ({})",
        crate::core::fmt::count(n as u64, "compaction"),
        preview.request.spec()
    );
    let job = Job::Write {
        dir: state.dir.clone(),
        // Stamped now: the preview may have been open a while.
        change: Writing::Plan(Box::new(preview.plan.clone()), state.now()),
        what,
        view: state.settings.view,
        undo: UndoKind::Record,
    };
    run(state, fx, "writing under jp's lock", job);
}

/// Plans the open preview again, this time calling the summarizer it
/// withheld (`S`): the person has read where the ranges go.
pub(super) fn summarize_preview(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(preview) = &state.preview else {
        state.set_status(
            "nothing to summarise: preview a compaction first (p)",
            Level::Info,
        );
        return;
    };
    if preview.plan.withheld.is_none() {
        let summaries = preview
            .plan
            .compactions()
            .iter()
            .filter(|c| c.summary.is_some())
            .count();
        // S runs a command or LLM summarizer the preview withheld; the
        // digest has nothing to withhold.
        let said = if summaries == 0 {
            "nothing for S to make: this preview has no summary".to_string()
        } else {
            format!(
                "nothing for S to make: `{}` made the {} already",
                state.settings.config.summarizer.name(),
                if summaries == 1 {
                    "summary"
                } else {
                    "summaries"
                }
            )
        };
        state.say_over_preview(said);
        return;
    }
    let request = preview.request.clone();
    super::input::plan_preview_with(state, request, true, fx);
}

pub(super) fn cancel(state: &mut State, fx: &mut Vec<Effect>) {
    if state.panel.is_some() {
        state.panel = None;
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
                since: None,
                config: None,
                view: state.settings.view,
            },
        );
        return;
    }
    if state.search.take().is_some() {
        state.set_status("search cleared", Level::Info);
    }
}

pub(super) fn ask_reset(state: &mut State, which: Reset, fx: &mut Vec<Effect>) {
    let (Some(m), Some(budget)) = (&state.inspection, state.budget()) else {
        return;
    };
    let count = which.removes_from(&m.conv);
    if count == 0 {
        let what = match which {
            Reset::Auto => "no automatic compactions to reset",
            _ => "no compactions to reset",
        };
        state.set_status(what, Level::Info);
        return;
    }
    let question = match which {
        Reset::All if count == 1 => "Remove the only compaction?".to_string(),
        Reset::All => format!("Remove all {count} compactions?"),
        Reset::Auto => format!(
            "Remove {}?",
            crate::core::fmt::count(count as u64, "automatic compaction")
        ),
        Reset::Position(n) => format!("Delete compaction #{n}?"),
    };
    let conv = m.conv.clone();
    state.panel = Some(Panel::Confirm(Confirm {
        kind: ConfirmKind::Reset(which),
        question,
        plan: None,
    }));
    fx.push(Effect::job(Job::PreviewReset {
        conv,
        reset: which,
        budget,
    }));
}

pub(super) fn delete(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(m) = &state.inspection else {
        return;
    };
    let position = match state.nav.focus {
        Focus::Compactions => m
            .compactions
            .get(state.nav.list_cursor)
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
                preview.plan.drop_addition(p.saturating_sub(stored));
                let rest = preview.plan.compactions();
                if rest.is_empty() {
                    state.preview = None;
                }
                let job = Job::Load {
                    dir: state.dir.clone(),
                    preview: rest,
                    since: None,
                    config: None,
                    view: state.settings.view,
                };
                run(state, fx, "updating the preview", job);
            }
        }
        Some((p, false)) => ask_reset(state, Reset::Position(p + 1), fx),
        None => state.set_status(
            "select a compaction to delete: in the list (Tab) or its event in the raw pane",
            Level::Info,
        ),
    }
}

pub(super) fn confirmed(state: &mut State, c: Confirm, fx: &mut Vec<Effect>) {
    let (Some(m), Some(budget)) = (&state.inspection, state.budget()) else {
        return;
    };
    let which = match c.kind {
        ConfirmKind::Judge { .. } => return,
        ConfirmKind::Reset(which) => which,
        ConfirmKind::ApplyAdding => {
            if !writes_refused(state) {
                write_preview(state, fx);
            }
            return;
        }
    };
    // The plan comes from the worker; pressing `y` before it arrives plans
    // here (the removal is cheap, only its estimate is not).
    let plan = match c.plan {
        Some(plan) => plan,
        None => match ops::preview_reset(&m.conv, which, &budget) {
            Ok(plan) => plan,
            Err(e) => {
                state.set_status(e.to_string(), Level::Error);
                return;
            }
        },
    };
    let what = match which {
        Reset::All => "reset all compactions".to_string(),
        Reset::Auto => "reset the automatic compactions".to_string(),
        Reset::Position(n) => format!("deleted compaction #{n}"),
    };
    // A reset starts from what is on disk; a pending preview no longer fits.
    state.preview = None;
    if writes_refused(state) {
        return;
    }
    let job = Job::Write {
        dir: state.dir.clone(),
        change: Writing::Plan(Box::new(plan), state.now()),
        what,
        view: state.settings.view,
        undo: UndoKind::Record,
    };
    run(state, fx, "writing under jp's lock", job);
}

pub(super) fn open_simulation(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(m) = &state.inspection else {
        return;
    };
    let mut windows = crate::core::ops::DEFAULT_WINDOWS.to_vec();
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
    state.panel = Some(Panel::Simulation(Simulation {
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
            config: state.settings.config.clone(),
        },
    );
}

/// `t`: into "as of" mode (the session's requests, from the last), or back
/// to now.
pub(super) fn toggle_as_of(state: &mut State, fx: &mut Vec<Effect>) {
    if state.as_of.take().is_some() {
        state.set_status("back to now", Level::Info);
        let job = Job::Load {
            dir: state.dir.clone(),
            preview: Vec::new(),
            since: None,
            config: None,
            view: state.settings.view,
        };
        run(state, fx, "reloading", job);
        return;
    }
    let Some(m) = &state.inspection else {
        return;
    };
    state.preview = None;
    let job = Job::History {
        conv: m.conv.clone(),
        config: state.settings.config.clone(),
        window: state.settings.window_override,
    };
    run(state, fx, "replaying the session's requests", job);
}

/// `]`/`[` in "as of" mode: the next or previous request.
pub(super) fn step_request(state: &mut State, by: isize, fx: &mut Vec<Effect>) {
    super::requests::go_to_request(
        state,
        |a| {
            Some(
                a.current
                    .saturating_add_signed(by)
                    .min(a.points.len().saturating_sub(1)),
            )
        },
        fx,
    );
}

/// `u` / `Ctrl-R`: writes the inverse of the last write this session made
/// (or of the last undo), a normal locked, atomic write of its own.
pub(super) fn undo_redo(state: &mut State, redo: bool, fx: &mut Vec<Effect>) {
    if writes_refused(state) {
        return;
    }
    let conv = state.inspection.as_ref().map(|m| m.conv.as_ref());
    let Some((step, stale)) = state.history.next(redo, conv) else {
        state.set_status(
            if redo {
                "nothing to redo"
            } else {
                "nothing to undo: this session has written nothing yet"
            },
            Level::Info,
        );
        return;
    };
    // Another writer changed the compactions it was made against: it would
    // be refused under the lock anyway; say so before trying.
    if let Some(why) = stale {
        state.set_status(
            format!(
                "can't {} \"{}\" any more: {why} since (another writer); nothing written",
                if redo { "redo" } else { "undo" },
                step.what
            ),
            Level::Error,
        );
        return;
    }
    let job = Job::Write {
        dir: state.dir.clone(),
        change: Writing::Inverse(step.inverse.clone()),
        what: step.what.clone(),
        view: state.settings.view,
        undo: if redo { UndoKind::Redo } else { UndoKind::Undo },
    };
    // What is undone is what is on disk; a pending preview no longer fits.
    state.preview = None;
    run(
        state,
        fx,
        if redo {
            "redoing under jp's lock"
        } else {
            "undoing under jp's lock"
        },
        job,
    );
}

/// Space, `+` and `-` during a replay: pause or resume, faster, slower
/// (between 100 ms and a minute a turn).
pub(super) fn replay_pace(state: &mut State, cmd: Action, fx: &mut Vec<Effect>) {
    use std::time::Duration;
    let Some(r) = &mut state.replay else {
        return;
    };
    let every = r.pace.every;
    match cmd {
        Action::ReplayPause => r.pace.paused = !r.pace.paused,
        Action::ReplayFaster => r.pace.every = (every / 2).max(Duration::from_millis(100)),
        Action::ReplaySlower => r.pace.every = (every * 2).min(Duration::from_secs(60)),
        _ => return,
    }
    let pace = r.pace;
    fx.push(Effect::Replay(pace));
    let said = if pace.paused {
        "replay paused (Space resumes)".to_string()
    } else {
        format!(
            "replaying a turn every {} (Space pauses, + and - change it)",
            humantime::format_duration(pace.every)
        )
    };
    state.set_status(said, Level::Info);
}

/// Whether the inspector's writes are refused (its workspace's `.jp` links
/// out of it), said on the status line when they are.
pub(super) fn writes_refused(state: &mut State) -> bool {
    match state.settings.reach.refused.clone() {
        Some(why) => {
            state.set_status(why, Level::Error);
            true
        }
        None => false,
    }
}
