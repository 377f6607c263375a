//! What a finished job changes.

use super::{commands, run};
use crate::core::error::Error;
use crate::core::fmt::thousands;
use crate::core::ops::Why;
use crate::core::ops::boundary::Boundary;
use crate::core::ops::boundary::Look;
use crate::tui::job::{Done, JobResult};
use crate::tui::job::{Job, UndoKind};
use crate::tui::msg::Effect;
use crate::tui::panels::ConfirmKind;
use crate::tui::panels::Panel;
use crate::tui::panels::Preview;
use crate::tui::state::State;
use crate::tui::status_log::Level;

/// An error as the status line says it.
fn say(state: &mut State, e: &Error) {
    state.set_status(e.to_string(), Level::Error);
}

pub(super) fn finished(state: &mut State, done: Done, fx: &mut Vec<Effect>) {
    let current = done.generation == state.generation;
    // A conversation left for the picker before it finished loading.
    if state.in_picker && !matches!(done.result, JobResult::Details(_)) {
        state.status.busy = None;
        return;
    }
    match done.result {
        JobResult::Loaded(Ok(loaded)) => on_loaded(state, *loaded, fx),
        JobResult::Loaded(Err(e)) => on_load_failed(state, &e),
        JobResult::Previewed(result) => on_previewed(state, result, current),
        JobResult::Written(Ok(w)) => on_written(state, w),
        JobResult::Written(Err(e)) => {
            state.status.busy = None;
            say(state, &e);
        }
        JobResult::ResetPreviewed { reset, plan } if current => {
            on_reset_previewed(state, reset, plan)
        }
        JobResult::ResetPreviewed { .. } => {}
        JobResult::Boundary(turns, result) => on_boundary(state, turns, result, fx),
        JobResult::Checked(result) => {
            // A check that found nothing new (our own write, a read) stays
            // silent; a failed one is for the reload to say.
            if let Ok(changes) = result
                && !changes.is_empty()
                && current
            {
                state.set_status(
                    format!("changed on disk: {changes} · r reloads, f follows"),
                    Level::Info,
                );
                state.changed_on_disk = Some(changes);
            }
        }
        JobResult::History(points, cost) => on_history(state, points, *cost, fx),
        JobResult::AsOf { end, inspection } => on_as_of(state, end, inspection),
        JobResult::ToolsReported(report) => {
            state.status.busy = None;
            if let Some(Panel::Tools(v)) = &mut state.panel {
                v.report = Some(Ok(*report));
            }
        }
        JobResult::HintWritten(done) => on_hint_written(state, done, fx),
        JobResult::ReportWritten(done) => super::report::written(state, done),
        JobResult::Simulated(runs) => {
            state.status.busy = None;
            if let Some(Panel::Simulation(s)) = &mut state.panel {
                s.runs = Some(runs.map_err(|e| e.to_string()));
            }
        }
        JobResult::ListKnows(marks) => {
            state.status.busy = None;
            state.list_marks_asked = None;
            if current {
                state.list_marks = Some((state.generation, marks));
            } else {
                // The list changed while they were judged: ask for the
                // marks of what it shows now.
                super::ask_list_marks(state, fx);
            }
        }
        JobResult::Searched { query, hits } if current => on_searched(state, query, hits),
        JobResult::Searched { .. } => state.status.busy = None,
        JobResult::Details(read) => {
            if let Some(p) = &mut state.picker {
                p.fill(read);
            }
            // One chunk at a time: a conversation opened meanwhile waits
            // for one chunk at most.
            if state.in_picker {
                fx.extend(super::picker::fill(state));
            }
        }
        JobResult::RangeFacts {
            position,
            range,
            got,
        } if current => super::range_facts::found(state, position, range, got, fx),
        JobResult::RangeFacts { .. } => {}
        JobResult::Judge {
            position,
            kind,
            outcome,
        } if current => super::judge::came(state, position, kind, outcome, fx),
        JobResult::Judge { .. } => state.status.busy = None,
        JobResult::Highlighted { title, lines } => on_highlighted(state, &title, lines),
    }
}

fn on_load_failed(state: &mut State, e: &Error) {
    state.status.busy = None;
    if state.inspection.is_none() {
        // Nothing to show: the error is the screen.
        state.load_error = Some(e.to_string());
    }
    say(state, e);
    state.status.from_load = true;
}

/// The plan of a reset the person is asked to confirm.
fn on_reset_previewed(
    state: &mut State,
    reset: crate::core::ops::Reset,
    plan: Result<crate::core::ops::Plan, Error>,
) {
    if let Some(Panel::Confirm(c)) = &mut state.panel
        && c.kind == ConfirmKind::Reset(reset)
    {
        match plan {
            Ok(plan) => c.plan = Some(plan),
            Err(e) => {
                state.panel = None;
                say(state, &e);
            }
        }
    }
}

/// The session's requests, for time travel: to the first one.
fn on_history(
    state: &mut State,
    points: Vec<crate::core::ops::HistoryPoint>,
    cost: crate::core::ops::cost::SessionCost,
    fx: &mut Vec<Effect>,
) {
    state.status.busy = None;
    if points.is_empty() {
        state.set_status(
            "no request to show: the model was never called",
            Level::Info,
        );
        return;
    }
    state.as_of = Some(crate::tui::as_of::AsOf::new(points).billed(cost));
    commands::step_request(state, 0, fx);
}

/// A search's hits, if it is still the one asked: to the first.
fn on_searched(state: &mut State, query: String, hits: Vec<usize>) {
    state.status.busy = None;
    if let Some(s) = &mut state.search
        && s.query == query
    {
        s.hits = hits;
        s.pending = false;
        if s.hits.is_empty() {
            state.set_status(format!("no match for `{query}`"), Level::Info);
        } else {
            commands::search_step(state, true);
        }
    }
}

/// The open detail's text highlighted, kept on its match.
fn on_highlighted(state: &mut State, title: &str, lines: Vec<ratatui::text::Line<'static>>) {
    if let Some(Panel::Detail(d)) = &mut state.panel
        && d.title == title
    {
        d.lines = lines;
    }
    // The laid-out text moves the match: back to it.
    if let Some(Panel::Detail(d)) = &state.panel
        && let Some(row) = crate::tui::detail_layout::first_match(d, state)
        && let Some(Panel::Detail(d)) = &mut state.panel
    {
        d.scroll = row;
    }
}

/// A replay whose last turn is in: said once, with what to do next.
fn replay_progress(state: &mut State) {
    let turns = state.inspection.as_ref().map_or(0, |m| m.conv.turn_count);
    if let Some(r) = &mut state.replay
        && !r.done
        && turns >= r.total
    {
        r.done = true;
        let total = r.total;
        state.set_status(
            format!("replay done: all {total} turns written; t reviews what each request was sent"),
            Level::Info,
        );
    }
}

/// With `A` on, a conversation that gained turns since automatic compaction
/// last looked is at a boundary (jp writes and releases its lock at the end
/// of a query; a write seen while jp still holds it is evaluated at the
/// next reload).
pub(super) fn auto_at_boundary(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(m) = &state.inspection else {
        return;
    };
    if !state.settings.auto_run {
        state.settings.auto_waiting = false;
        return;
    }
    let conv = m.conv.clone();
    let id = conv.id.unwrap_or_default();
    let look = state.settings.boundaries.look(id, &state.dir, &conv, false);
    if look == Look::NoNewTurn {
        // Looked at already: a replay waiting on it may go on.
        fx.push(Effect::ReplayEvaluated(conv.turn_count));
    }
    // jp writes the file, then lets go of its lock: nothing changes on
    // disk when it does, so the boundary is looked for again at the ticks.
    state.settings.auto_waiting = look == Look::JpBusy;
    if look != Look::Boundary || super::commands::writes_refused(state) {
        return;
    }
    let job = Job::Boundary {
        dir: state.dir.clone(),
        conv,
        config: state.settings.config.clone(),
        window: state.settings.window_override,
        now: state.now(),
    };
    run(state, fx, "automatic compaction", job);
}

/// A conversation (re)loaded: shown, and what came with it said.
fn on_loaded(state: &mut State, loaded: crate::tui::job::Loaded, fx: &mut Vec<Effect>) {
    state.status.busy = None;
    // A follow error that the file's next version fixed.
    if state.status.from_load {
        state.status.message = None;
        state.status.from_load = false;
    }
    let first = state.inspection.is_none();
    if let Some(config) = loaded.config {
        state.configure(config);
    }
    let warnings: Vec<String> = loaded
        .inspection
        .conv
        .warnings
        .iter()
        .map(ToString::to_string)
        .collect();
    if loaded.dir != state.dir {
        state.set_status(
            format!("jp moved the conversation to {}", loaded.dir.display()),
            Level::Info,
        );
        state.dir = loaded.dir;
        fx.push(Effect::Watch(true));
    } else if first {
        // Watched followed or not: an outside write is said even
        // when the view doesn't refresh by itself.
        fx.push(Effect::Watch(true));
    }
    let grew = state
        .inspection
        .as_ref()
        .is_some_and(|m| loaded.inspection.conv.events.len() != m.conv.events.len());
    state.set_inspection(*loaded.inspection);
    state.changed_on_disk = None;
    if let Some(said) = reload_said(loaded.changes.as_ref(), loaded.read) {
        let verdict_shown = state.status.from_auto
            && state
                .status
                .since
                .is_some_and(|t| t.elapsed() < crate::tui::state::INFO_SHOWN);
        if verdict_shown {
            // Automatic compaction's verdict stays on screen; `M` has both.
            let at = state.now();
            state.status.log.push(at, &said, Level::Info);
        } else {
            state.set_status(said, Level::Info);
        }
    }
    // New events under an open preview: plan it again against them,
    // so a relative rule (`s:..-3`) moves with the stream.
    if grew && let Some(p) = &state.preview {
        let request = p.request.clone();
        super::input::plan_preview(state, request, fx);
    }
    auto_at_boundary(state, fx);
    replay_progress(state);
    if first {
        super::ask_list_marks(state, fx);
    }
    if first && !warnings.is_empty() {
        state.set_status(
            format!(
                "{} reading the file; the first: {}",
                crate::core::fmt::count(warnings.len() as u64, "warning"),
                warnings[0]
            ),
            Level::Error,
        );
    }
}

/// A preview planned: opened, or why there is nothing to compact.
fn on_previewed(
    state: &mut State,
    result: Result<crate::tui::job::Previewed, Error>,
    current: bool,
) {
    state.status.busy = None;
    if !current {
        state.set_status(
            "the conversation changed meanwhile: preview again (p)",
            Level::Info,
        );
        return;
    }
    match result {
        Ok(p) if p.plan.additions.is_empty() => {
            // The automatic policy says why at each step, all of it.
            let why = if p.request.is_auto() {
                p.plan.why_nothing()
            } else {
                p.plan
                    .skipped
                    .last()
                    .map(|s| s.reason.clone())
                    .or_else(|| p.plan.notes.last().map(ToString::to_string))
                    .unwrap_or_default()
            };
            state.set_status(format!("nothing to compact: {why}"), Level::Info);
        }
        Ok(p) => {
            let status = match &p.plan.withheld {
                Some(w) => format!("previewing: {}; S makes it, Esc drops", w.describe()),
                None => "previewing: a applies, Esc drops".to_string(),
            };
            // A question asked of the preview before it was planned again
            // (new events under it) asks with the figures it has now.
            if let Some(Panel::Confirm(c)) = &mut state.panel
                && c.kind == crate::tui::panels::ConfirmKind::ApplyAdding
            {
                match super::commands::adding_question(&p.plan) {
                    Some(question) => {
                        c.question = question;
                        c.plan = Some(p.plan.clone());
                    }
                    None => state.panel = None,
                }
            }
            state.preview = Some(Preview {
                request: p.request,
                plan: p.plan,
                knows: p.knows,
            });
            state.set_inspection(*p.inspection);
            state.set_status(status, Level::Info);
        }
        Err(e) => say(state, &e),
    }
}

/// A write done: the conversation as written, and the undo history.
fn on_written(state: &mut State, w: crate::tui::job::Written) {
    state.status.busy = None;
    state.preview = None;
    state.set_inspection(*w.inspection);
    let step = crate::tui::undo::UndoEntry {
        what: w.what.clone(),
        inverse: w.inverse,
    };
    let said = match w.undo {
        UndoKind::Record if w.written => {
            state.history.undo.push(step);
            state.history.redo.clear();
            format!("{} · u undoes", w.what)
        }
        UndoKind::Record => w.what,
        UndoKind::Undo => {
            state.history.undo.pop();
            state.history.redo.push(step);
            format!("undone: {} · Ctrl-R redoes", w.what)
        }
        UndoKind::Redo => {
            state.history.redo.pop();
            state.history.undo.push(step);
            format!("redone: {}", w.what)
        }
    };
    state.set_status(said, Level::Info);
}

/// What automatic compaction did at a turn boundary, said.
fn on_boundary(
    state: &mut State,
    turns: usize,
    result: Result<Boundary, Error>,
    fx: &mut Vec<Effect>,
) {
    state.status.busy = None;
    // However it went, that boundary has been looked at: a replay
    // may write the next turn.
    fx.push(Effect::ReplayEvaluated(turns));
    match result {
        Ok(Boundary::Fired(plan)) => {
            let what: Vec<String> = plan
                .additions
                .iter()
                .map(|a| {
                    let kind = match a.why {
                        Why::Auto(k) => k.as_str(),
                        Why::Rule { .. } => "rule",
                    };
                    format!("{kind} of turns {}", a.range().human())
                })
                .collect();
            let id = state
                .inspection
                .as_ref()
                .and_then(|m| m.conv.id)
                .unwrap_or(0);
            let withheld = state
                .settings
                .withheld
                .say(id, &plan)
                .map(|why| format!("; {why}"))
                .unwrap_or_default();
            state.set_status(
                format!(
                    "automatic compaction fired: {} ({} → {} tok){withheld}",
                    what.join(", "),
                    thousands(plan.tokens.before),
                    thousands(plan.tokens.after)
                ),
                Level::Info,
            );
            state.status.from_auto = true;
            // Show it (the watcher reports the write too; this is
            // for a follow that missed it).
            fx.push(Effect::job(Job::Load {
                dir: state.dir.clone(),
                preview: Vec::new(),
                since: None,
                config: None,
                view: state.settings.view,
            }));
        }
        // Said once per turn: the tracker looks once per turn.
        Ok(Boundary::Skipped(why)) => {
            // The turns of the file it judged (read again at the boundary).
            state.set_status(
                format!("automatic compaction after turn {turns}: nothing fired: {why}"),
                Level::Info,
            );
            state.status.from_auto = true;
        }
        // The inspector never asks for a dry run.
        Ok(Boundary::WouldFire(_)) => {}
        Err(e) => say(state, &e),
    }
}

/// What a request of the session was sent, shown.
fn on_as_of(state: &mut State, end: usize, inspection: Box<crate::tui::inspection::Inspection>) {
    state.status.busy = None;
    let shown = state
        .as_of
        .as_ref()
        .and_then(|a| a.point())
        .map(|p| p.raw_index);
    if shown == Some(end) {
        state.set_inspection(*inspection);
        // Put the request's answer under the cursor.
        if let Some(m) = &state.inspection
            && let Some(e) = m.conv.events.get(end)
        {
            let b = e.turn.min(m.layout.blocks().saturating_sub(1));
            state.nav.focus = crate::tui::state::Focus::Raw;
            state.nav.cursor = m.layout.row_of_raw(b, end);
            state.ensure_visible();
        }
    }
}

/// A tool's hint written into a config file, or why not.
fn on_hint_written(
    state: &mut State,
    done: Result<(std::path::PathBuf, String), Error>,
    fx: &mut Vec<Effect>,
) {
    state.status.busy = None;
    match done {
        Ok((file, block)) => {
            // The configuration is read again, so that what is
            // previewed or applied from now on takes the hint.
            let mut job = super::reload(state);
            if let Job::Load { config, .. } = &mut job {
                *config = Some(state.settings.config_asked());
            }
            run(state, fx, "reading the configuration again", job);
            state.set_status(
                format!(
                    "wrote `{}` into {}: compactions made from now on take it (older ones \
                     keep what they stored)",
                    block.lines().collect::<Vec<_>>().join(" "),
                    file.display()
                ),
                Level::Info,
            );
        }
        Err(e) => state.set_status(format!("not written: {e}"), Level::Error),
    }
}

/// What a reload says: what changed, and when the file had to be read
/// whole, why (an append is the usual case and goes without saying).
fn reload_said(
    changes: Option<&crate::core::ops::changes::Changes>,
    read: Option<crate::core::ops::Reloaded>,
) -> Option<String> {
    use crate::core::ops::Reloaded;
    let changes = changes.filter(|c| !c.is_empty());
    match (read, changes) {
        (Some(Reloaded::Whole(why)), Some(c)) => Some(format!("reloaded whole ({why}): {c}")),
        (Some(Reloaded::Whole(why)), None) => Some(format!("reloaded whole: {why}")),
        (_, Some(c)) => Some(format!("reloaded: {c}")),
        (_, None) => None,
    }
}
