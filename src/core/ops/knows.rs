//! What the model would still know after a plan's compactions: the facts
//! of each addition's range judged against the projection with the plan
//! applied, so a summary can be judged before it is written.

use super::plan::Plan;
use crate::core::compact::jp_view::View;
use crate::core::compact::projection::{self, Projection};
use crate::core::facts::{self, Judged};
use crate::core::model::conversation::Conversation;

/// The facts of `range` judged against the projection `p`: what the model
/// still knows of them.
pub fn judged(
    conv: &Conversation,
    p: &Projection,
    range: crate::core::model::TurnRange,
) -> Vec<Judged> {
    facts::judged(conv, p, range)
}

/// The facts of `range` found afresh, without what the conversation's
/// first look kept: what finding them costs (the benches time it).
pub fn found_afresh(conv: &Conversation, range: crate::core::model::TurnRange) -> Vec<facts::Fact> {
    facts::extract::of_range(conv, range)
}

/// Each addition's facts, judged; `None` for a summary the preview did
/// not make (a withheld summarizer: nothing to judge yet).
pub fn of_additions(conv: &Conversation, plan: &Plan, view: View) -> Vec<Option<Vec<Judged>>> {
    if plan.additions.is_empty() {
        return Vec::new();
    }
    of_additions_in(conv, plan, &projected_with(conv, plan, view))
}

/// `conv` projected as `view` does with `plan`'s compactions made.
pub fn projected_with(conv: &Conversation, plan: &Plan, view: View) -> Projection {
    let extra: Vec<_> = plan
        .additions
        .iter()
        .map(|a| a.compaction.clone())
        .collect();
    let overlays = view.apply(projection::with_preview(conv, &extra));
    projection::project(&conv.events, conv.turn_count, overlays)
}

/// [`of_additions`] in `p`, the projection with the plan's compactions
/// already made (the inspector's preview has it).
pub fn of_additions_in(
    conv: &Conversation,
    plan: &Plan,
    p: &Projection,
) -> Vec<Option<Vec<Judged>>> {
    let unmade = |a: &super::Addition| {
        a.compaction.summary.is_some()
            && plan
                .withheld
                .as_ref()
                .is_some_and(|w| w.ranges.contains(&a.range()))
    };
    let ranges: Vec<_> = plan.additions.iter().map(|a| a.range()).collect();
    plan.additions
        .iter()
        .zip(facts::judged_many(conv, p, &ranges))
        .map(|(a, judged)| (!unmade(a)).then_some(judged))
        .collect()
}

/// For the inspector's compaction list: each compaction's (and each
/// previewed one's) marks, by position, judged in the projection with
/// `preview` as `view` projects it.
pub fn marks(
    conv: &Conversation,
    preview: &[crate::core::model::compaction::Compaction],
    view: View,
) -> std::collections::HashMap<usize, facts::Mark> {
    let overlays = view.apply(projection::with_preview(conv, preview));
    let p = projection::project(&conv.events, conv.turn_count, overlays);
    let ranges: Vec<_> = p.overlays.iter().map(|o| o.compaction.range()).collect();
    p.overlays
        .iter()
        .zip(facts::judged_many(conv, &p, &ranges))
        .map(|(o, judged)| (o.position, facts::Mark::of(&judged)))
        .collect()
}

/// What each of `runs` of one conversation leaves the model knowing: the
/// facts of every turn its compactions cover, judged against the
/// projection with all of them (each turn once, however many compactions
/// cover it). The facts are found once for all runs, the runs judged on as
/// many threads as there are cores.
pub fn of_runs(
    conv: &Conversation,
    runs: &[&[crate::core::model::compaction::Compaction]],
) -> Vec<facts::Survival> {
    if runs.iter().all(|c| c.is_empty()) {
        return vec![facts::Survival::default(); runs.len()];
    }
    // Runs that appended the same compactions leave the same projection
    // (a backstop that never fired is its policy's run): judged once.
    let first: Vec<usize> = (0..runs.len())
        .map(|k| (0..k).find(|&j| runs[j] == runs[k]).unwrap_or(k))
        .collect();
    let distinct: Vec<usize> = (0..runs.len()).filter(|&k| first[k] == k).collect();
    // Most turns are sent the same way by many runs (a policy at another
    // window strips or elides the same calls): each fact is judged once per
    // way its turn is sent, whichever thread judges it.
    let verdicts = facts::Verdicts::default();
    let all = facts::occurrences(conv);
    let judged = crate::core::parallel::each(distinct.len(), |d| {
        survival(conv, &all, runs[distinct[d]], &verdicts)
    });
    first
        .iter()
        .map(|f| judged[distinct.binary_search(f).unwrap_or(0)].clone())
        .collect()
}

fn survival(
    conv: &Conversation,
    all: &[facts::Fact],
    compactions: &[crate::core::model::compaction::Compaction],
    verdicts: &facts::Verdicts,
) -> facts::Survival {
    if compactions.is_empty() {
        return facts::Survival::default();
    }
    let p = projection::project(
        &conv.events,
        conv.turn_count,
        projection::with_preview(conv, compactions),
    );
    let mut ranges: Vec<crate::core::model::TurnRange> =
        compactions.iter().map(|c| c.range()).collect();
    ranges.sort_by_key(|r| (r.from, r.to));
    let mut merged: Vec<crate::core::model::TurnRange> = Vec::new();
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.from <= last.to.saturating_add(1) => last.to = last.to.max(r.to),
            _ => merged.push(r),
        }
    }
    let mut total = facts::Survival::default();
    facts::judged_each_with(conv, all, &p, &merged, verdicts, |_, judged| {
        total.add(&facts::Survival::of(&judged));
    });
    total
}

/// A compaction's detail: what the model no longer knows of its range and
/// what it hid, as the inspector's detail view says them.
#[derive(Debug, Clone, Default)]
pub struct Detail {
    /// Its range's facts judged; `None` without a range to judge.
    pub knows: Option<Vec<Judged>>,
    /// The loss ledger's lines, then the facts lost; `None` when the
    /// compaction is not in force in `p`.
    pub hid: Option<Vec<String>>,
}

/// The detail of the compaction at `position` (among the compaction
/// events) over `range`, in the projection `p`.
pub fn detail(
    conv: &Conversation,
    p: &Projection,
    position: usize,
    range: Option<crate::core::model::TurnRange>,
) -> Detail {
    detail_of(conv, p, position, range.map(|r| facts::judged(conv, p, r)))
}

/// [`detail`] with its facts judged again by the judge of `kind` (the
/// user's own model or command), `before_asking` shown the price first
/// and asking only when it says yes.
#[allow(clippy::too_many_arguments)]
pub fn detail_judged(
    conv: &Conversation,
    p: &Projection,
    position: usize,
    range: Option<crate::core::model::TurnRange>,
    config: &crate::core::auto::AutoConfig,
    kind: crate::core::summarize::config::SummarizerKind,
    prices: &crate::core::cost::Prices,
    before_asking: &mut dyn FnMut(&super::judge::JudgeQuote) -> bool,
) -> Result<Detail, crate::core::error::SummarizeError> {
    let mut knows = range.map(|r| facts::judged(conv, p, r));
    if let (Some(r), Some(k)) = (range, knows.as_mut()) {
        super::judge::ask(conv, config, p, &mut [(r, k)], kind, prices, before_asking)?;
    }
    Ok(detail_of(conv, p, position, knows))
}

fn detail_of(
    conv: &Conversation,
    p: &Projection,
    position: usize,
    knows: Option<Vec<Judged>>,
) -> Detail {
    let hid = crate::core::compact::ledger::of(conv, p)
        .into_iter()
        .find(|l| l.position == position)
        .map(|l| {
            let mut out = l.lines();
            if let Some(k) = &knows {
                out.extend(lines(k, "lost"));
            }
            out
        });
    Detail { knows, hid }
}

/// The most lost facts listed per compaction; `--json` has them all.
const LISTED: usize = 20;

/// What the model still knows of a compaction's range, and what it lost,
/// most important first; `!` marks an instruction or an unfixed error.
pub fn lines(judged: &[Judged], lost_word: &str) -> Vec<String> {
    lines_of(judged, &facts::Survival::of(judged), lost_word)
}

/// [`lines`] of a list that may hold fewer facts than `survival` counts
/// (a bounded listing).
pub fn lines_of(judged: &[Judged], survival: &facts::Survival, lost_word: &str) -> Vec<String> {
    let by = judged
        .iter()
        .find_map(|j| j.by.as_deref())
        .map(|who| format!(" (judged by {})", crate::core::visible::visible_line(who)))
        .unwrap_or_default();
    let mut out = vec![format!("  keeps {}{by}", survival.describe())];
    let lost: Vec<&Judged> = judged.iter().filter(|j| !j.kept).collect();
    if lost.is_empty() {
        return out;
    }
    out.push(format!("  {lost_word}:"));
    for j in lost.iter().take(LISTED) {
        let f = &j.fact;
        let state = match (f.kind, f.fixed, f.failed) {
            (facts::FactKind::Error, Some(true), _) => " (fixed later)",
            (facts::FactKind::Error, _, _) => " (not fixed in the range)",
            (facts::FactKind::Command, _, Some(true)) => " (failed)",
            _ if j.at == Some(facts::Where::Named) => " (named, contents gone)",
            _ if j.at == Some(facts::Where::Partly) => " (partly)",
            _ => "",
        };
        out.push(format!(
            "  {} turn {:<4} {:<11} {}{state}",
            if j.is_grave() { "!" } else { " " },
            f.turn,
            f.kind.as_str(),
            crate::core::visible::visible_line(&f.shown())
        ));
    }
    if lost.len() > LISTED {
        out.push(format!(
            "    and {} more (--json lists every fact)",
            lost.len() - LISTED
        ));
    }
    out
}

/// What a compaction over `range` lost, as a reader follows it: the lost
/// facts a reader can't do without first (an instruction, an unfixed
/// error), then the rest, each in the order of the conversation; and what
/// it keeps of all.
#[derive(Debug, Clone, Default)]
pub struct Trail {
    pub lost: Vec<Judged>,
    pub survival: facts::Survival,
}

/// The [`Trail`] of `range` in the projection `p`.
pub fn trail(conv: &Conversation, p: &Projection, range: crate::core::model::TurnRange) -> Trail {
    let judged = facts::judged(conv, p, range);
    let survival = facts::Survival::of(&judged);
    let mut lost: Vec<Judged> = judged.into_iter().filter(|j| !j.kept).collect();
    lost.sort_by_key(|j| (!j.is_grave(), j.fact.event));
    Trail { lost, survival }
}

/// What a summary of `range` must name, and what the projection `p` still
/// sends of it: the summary editor's checklist, judged per key.
pub fn checklist(
    conv: &Conversation,
    p: &Projection,
    range: crate::core::model::TurnRange,
) -> (Vec<facts::Fact>, facts::Sent) {
    (
        facts::checklist(conv, range),
        facts::Sent::of(conv, p, range),
    )
}
