//! The simulation: replay a conversation from its first turn under a
//! strategy and a window, evaluating the trigger at every turn boundary
//! exactly as `jp` would, and measure every request the model would have
//! been sent.
//!
//! The conversation's own compaction events are ignored: each run starts
//! from the raw events.

use super::config::AutoConfig;
use super::rerun::Rerun;
use super::run::{BACKSTOP_KEEP_LATEST, Firing, RequestPoint, Run, Strategy};
use super::sends::Sends;
use super::trigger;
use crate::core::auto::decision::ActionKind;
use crate::core::compact::budget::Budget;
use crate::core::compact::estimate;
use crate::core::compact::fate::Alteration;
use crate::core::compact::projection;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use crate::core::model::timestamp::Timestamp;
use crate::core::summarize::Summarizer;

/// Replays `conv` under `policy` with a `window`-token context.
pub fn run(
    conv: &Conversation,
    policy: Strategy,
    window: u64,
    base: &AutoConfig,
    summarizer: &dyn Summarizer,
) -> Result<Run, crate::core::error::SummarizeError> {
    let budget = Budget::of_config(conv.merged_config(), None, base.context);
    run_with(conv, &budget, policy, window, base, summarizer)
}

/// `run` with the conversation's budget already read (the grid reads it
/// once per conversation, not once per run).
pub fn run_with(
    conv: &Conversation,
    budget: &Budget,
    policy: Strategy,
    window: u64,
    base: &AutoConfig,
    summarizer: &dyn Summarizer,
) -> Result<Run, crate::core::error::SummarizeError> {
    let config = policy.config(base);
    let budget = budget.at(window);
    let usable = budget.usable().unwrap_or(window);
    let mut rerun = Rerun::new(conv);
    rerun.overhead = budget.overhead_chars();
    let mut out = Run {
        policy,
        window,
        usable,
        peak_ratio: 0.0,
        overflows: 0,
        requests: 0,
        input_tokens: 0,
        elisions: 0,
        summaries: 0,
        summarizer_input_tokens: 0,
        summarizer_output_tokens: 0,
        firings: Vec::new(),
        points: Vec::new(),
        compactions: Vec::new(),
        final_chars: 0,
        turns: conv.turn_count,
        backstop_elisions: 0,
        billed: None,
    };
    // The backstop's candidates: the live turn's tool results over the
    // bound, oldest first, as (characters sent, characters once elided,
    // projected characters before it).
    let backstop = policy == Strategy::StagedBackstop;
    let bound = config
        .as_ref()
        .and_then(|c| c.elide.tool_calls)
        .and_then(|t| t.over())
        .unwrap_or(1024);
    let hard_limit = config
        .as_ref()
        .map_or(u64::MAX, |c| (usable as f64 * c.hard_ratio).floor() as u64);
    let mut live: Vec<(u64, u64, u64)> = Vec::new();
    let mut sends = Sends::default();
    let mut elided_in_turn = 0;
    // Simulated compactions are stamped after the stream's last event so
    // they always win, in the order they fire.
    let mut clock: Timestamp = conv
        .events
        .iter()
        .filter_map(|e| e.timestamp)
        .max()
        .unwrap_or_default();
    let mut last_visible: Option<&Kind> = None;
    let mut current_turn: Option<usize> = None;

    for (i, e) in conv.events.iter().enumerate() {
        if matches!(e.kind, Kind::Compaction(_)) {
            continue;
        }
        if e.kind.is_conversation_event() && current_turn != Some(e.turn) {
            if let (Some(done), Some(config)) = (current_turn, &config) {
                clock += chrono::Duration::seconds(1);
                if let Some(cut) =
                    boundary(conv, &mut rerun, done, config, summarizer, clock, &mut out)?
                {
                    sends.cut(cut);
                }
            }
            current_turn = Some(e.turn);
            rerun.visible = e.turn + 1;
            live.clear();
            elided_in_turn = 0;
        }
        let is_output = matches!(e.kind, Kind::ChatResponse(_) | Kind::ToolCallRequest { .. });
        let after_input = matches!(
            last_visible,
            Some(Kind::ChatRequest | Kind::ToolCallResponse { .. })
        );
        if is_output && after_input {
            let mut context = budget.context_tokens(rerun.total);
            while backstop
                && context > hard_limit
                && live.len() > elided_in_turn + BACKSTOP_KEEP_LATEST
            {
                let (sent, elided, before) = live[elided_in_turn];
                elided_in_turn += 1;
                sends.cut(before);
                rerun.turn_chars[e.turn] -= sent - elided;
                rerun.total -= sent - elided;
                out.backstop_elisions += 1;
                context = budget.context_tokens(rerun.total);
            }
            out.requests += 1;
            out.input_tokens += context;
            if context > usable {
                out.overflows += 1;
            }
            out.peak_ratio = out.peak_ratio.max(context as f64 / usable as f64);
            let (answer, kept) = sends.request(out.points.last().map(|p| p.context), &budget);
            if let Some(last) = out.points.last_mut() {
                last.output = answer;
            }
            out.points.push(RequestPoint {
                turn: e.turn,
                context,
                at: e.timestamp,
                kept,
                output: 0,
            });
        }
        sends.see(&e.kind, e.chars);
        if e.kind.is_model_visible() {
            last_visible = Some(&e.kind);
            // The turn being replayed has no compaction yet: raw size.
            rerun.turn_chars[e.turn] += e.chars;
            rerun.total += e.chars;
            if let (true, Kind::ToolCallResponse { .. }) = (backstop, &e.kind)
                && e.payload > bound
            {
                let name = rerun.pairing.name(&conv.events, i);
                let elided = projection::sent_chars(e, Alteration::StatusLine, || name);
                live.push((e.chars, elided.min(e.chars), rerun.total - e.chars));
            }
        }
    }
    if let Some(last) = out.points.last_mut() {
        last.output = sends.last_answer();
    }
    // The boundary after the last turn, as a watcher beside jp (or the
    // inspector's replay) evaluates it: its firings are the policy's too,
    // though no request here comes after them.
    if let (Some(done), Some(config)) = (current_turn, &config) {
        clock += chrono::Duration::seconds(1);
        boundary(conv, &mut rerun, done, config, summarizer, clock, &mut out)?;
    }
    out.final_chars = rerun.total;
    out.compactions = rerun.overlays.into_iter().map(|o| o.compaction).collect();
    Ok(out)
}

/// Evaluates the trigger after turn `done` and applies what it returns;
/// the projected characters at the start that what it applied left as
/// they were, if it applied anything.
fn boundary(
    conv: &Conversation,
    rerun: &mut Rerun<'_>,
    done: usize,
    config: &AutoConfig,
    summarizer: &dyn Summarizer,
    now: Timestamp,
    out: &mut Run,
) -> Result<Option<u64>, crate::core::error::SummarizeError> {
    rerun.visible = done + 1;
    let decision = trigger::evaluate(rerun, Some(out.usable), config, now);
    if !decision.fired() {
        return Ok(None);
    }
    let mut texts = Vec::new();
    for s in super::write_summaries(conv, &decision, config, summarizer)? {
        out.summarizer_input_tokens += estimate::tokens(s.input_chars);
        out.summarizer_output_tokens +=
            estimate::tokens(crate::core::model::event::count_chars(&s.text));
        texts.push(s.text);
    }
    let decision = trigger::settle(rerun, decision, texts, summarizer.name(), config);
    let mut before: Vec<crate::core::model::compaction::Compaction> = Vec::new();
    for a in &decision.actions {
        use super::trigger::Stream;
        let without = rerun.chars_with(&before);
        before.push(a.compaction.clone());
        let saved = estimate::tokens(without.saturating_sub(rerun.chars_with(&before)));
        match a.kind {
            ActionKind::Summary => out.summaries += 1,
            ActionKind::Elision => out.elisions += 1,
            ActionKind::Rule if a.needs_summary() => out.summaries += 1,
            ActionKind::Rule => out.elisions += 1,
        }
        out.firings.push(Firing {
            after_turn: done,
            kind: a.kind,
            range: a.range(),
            saved,
        });
    }
    let compactions: Vec<_> = decision.actions.into_iter().map(|a| a.compaction).collect();
    let cut = rerun.unchanged_chars(&compactions);
    rerun.apply(compactions);
    Ok(Some(cut))
}
