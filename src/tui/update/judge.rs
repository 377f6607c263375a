//! `J` in a compaction's detail: its facts judged again by the person's
//! own model or command. The price comes first (a job that only prices),
//! then a question; only a yes sends anything, and the verdicts land in
//! the detail, each signed by who gave it.

use crate::core::ops::SummarizerKind;
use crate::tui::job::{Job, JudgeJob, JudgeOutcome};
use crate::tui::msg::Effect;
use crate::tui::panels::{Confirm, ConfirmKind, Panel};
use crate::tui::state::{Focus, State};
use crate::tui::status_log::Level;

/// The judge the person's own config defines: a cloned workspace cannot
/// name one (the summarizers' trust boundary), and the digest judges
/// nothing a model would not.
fn own_judge(state: &State) -> Option<SummarizerKind> {
    let kind = state.settings.config.user_summarizer.as_ref()?.kind();
    (kind != SummarizerKind::Digest).then_some(kind)
}

/// The job for compaction `position` of the open inspection.
fn job(state: &State, position: usize, kind: SummarizerKind, ask: bool) -> Option<Job> {
    let m = state.inspection.as_ref()?;
    let row = m.compactions.iter().find(|r| r.position == position)?;
    Some(Job::Judge(Box::new(JudgeJob {
        conv: m.conv.clone(),
        projection: m.projection.clone(),
        position,
        range: row.range.filter(|_| row.invalid.is_none()),
        config: state.settings.config.clone(),
        kind,
        ask,
    })))
}

/// `J`: what judging the selected compaction would send and cost, found
/// off the UI thread; the question comes with it.
pub(super) fn price(state: &mut State, fx: &mut Vec<Effect>) {
    let position = state
        .inspection
        .as_ref()
        .filter(|_| state.nav.focus == Focus::Compactions)
        .and_then(|m| m.compactions.get(state.nav.list_cursor))
        .map(|r| r.position);
    let Some(position) = position else {
        return state.set_status(
            "J judges a compaction's facts: open one from the list (Tab, Enter)",
            Level::Info,
        );
    };
    let Some(kind) = own_judge(state) else {
        return state.set_status(
            "no model to judge with: your own config (or --config) defines none; set \
             [plugins.command.inspect.options.auto.summarizer] kind = \"openai\", \
             \"anthropic\" or \"command\"",
            Level::Info,
        );
    };
    if let Some(j) = job(state, position, kind, false) {
        state.status.busy = Some(("pricing the judge".into(), std::time::Instant::now()));
        fx.push(Effect::job(j));
    }
}

/// The person said yes to the price: the judge is asked.
pub(super) fn ask(state: &mut State, position: usize, kind: SummarizerKind, fx: &mut Vec<Effect>) {
    if let Some(j) = job(state, position, kind, true) {
        state.status.busy = Some(("asking the judge".into(), std::time::Instant::now()));
        fx.push(Effect::job(j));
    }
}

/// A judge job finished: its price asked about, or its verdicts shown in
/// the compaction's detail.
pub(super) fn came(
    state: &mut State,
    position: usize,
    kind: SummarizerKind,
    outcome: Result<JudgeOutcome, String>,
    fx: &mut Vec<Effect>,
) {
    state.status.busy = None;
    match outcome {
        Err(why) => state.set_status(format!("the judge: {why}"), Level::Error),
        Ok(JudgeOutcome::Quote(None)) => state.set_status(
            format!("compaction #{} has no fact to judge", position + 1),
            Level::Info,
        ),
        Ok(JudgeOutcome::Quote(Some(q))) => {
            state.panel = Some(Panel::Confirm(Confirm {
                kind: ConfirmKind::Judge { position, kind },
                question: format!("{}. Ask it?", q.describe()),
                plan: None,
            }));
        }
        Ok(JudgeOutcome::Judged(detail)) => {
            state.compaction_facts = Some((state.generation, position, detail));
            state.panel = None;
            super::commands::open_detail(state, fx);
        }
    }
}
