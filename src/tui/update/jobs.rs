//! What a finished job changes.

use super::commands;
use crate::core::error::Error;
use crate::tui::job::{Done, JobResult, PreviewRequest};
use crate::tui::state::{ConfirmKind, Level, Panel, Preview, State};

/// An error as the status line says it.
fn say(state: &mut State, e: &Error) {
    state.set_status(e.to_string(), Level::Error);
}

pub(super) fn finished(state: &mut State, done: Done) {
    let current = done.generation == state.generation;
    match done.result {
        JobResult::Loaded(Ok(loaded)) => {
            state.status.busy = None;
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
            state.set_inspection(*loaded.inspection);
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
            state.status.busy = None;
            say(state, &e);
        }
        JobResult::Previewed(result) => {
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
                    let why = p
                        .plan
                        .skipped
                        .last()
                        .map(|s| s.reason.clone())
                        .or_else(|| p.plan.notes.last().cloned())
                        .unwrap_or_default();
                    state.set_status(format!("nothing to compact: {why}"), Level::Info);
                }
                Ok(p) => {
                    let spec = match &p.request {
                        PreviewRequest::Auto => "auto".to_string(),
                        PreviewRequest::Rule(s) => s.clone(),
                    };
                    state.preview = Some(Preview { spec, plan: p.plan });
                    state.set_inspection(*p.inspection);
                    state.set_status("previewing: a applies, Esc drops", Level::Info);
                }
                Err(e) => say(state, &e),
            }
        }
        JobResult::Written(Ok((inspection, what))) => {
            state.status.busy = None;
            state.preview = None;
            state.set_inspection(*inspection);
            state.set_status(what, Level::Info);
        }
        JobResult::Written(Err(e)) => {
            state.status.busy = None;
            say(state, &e);
        }
        JobResult::ResetPreviewed { reset, plan } => {
            if let Some(Panel::Confirm(c)) = &mut state.panel
                && c.kind == ConfirmKind::Reset(reset)
                && current
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
        JobResult::Simulated(runs) => {
            state.status.busy = None;
            if let Some(Panel::Simulation(s)) = &mut state.panel {
                s.runs = Some(runs.map_err(|e| e.to_string()));
            }
        }
        JobResult::Searched { query, hits } => {
            state.status.busy = None;
            if let Some(s) = &mut state.search
                && s.query == query
                && current
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
        JobResult::Highlighted { title, lines } => {
            if let Some(Panel::Detail(d)) = &mut state.panel
                && d.title == title
            {
                d.lines = lines;
            }
        }
    }
}
