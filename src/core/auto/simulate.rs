//! The simulation: replay a conversation from its first turn under a policy
//! and a window, evaluating the trigger at every turn boundary exactly as
//! `jp` would, and measure every request the model would have been sent.
//!
//! The conversation's own compaction events are ignored: each run starts
//! from the raw events. The projection is kept incrementally (per turn), so a
//! run costs O(events), not O(turns × events).

use super::config::{AutoConfig, Mode};
use super::trigger::{self, ActionKind, Stream};
use crate::core::compact::budget::Budget;
use crate::core::compact::estimate;
use crate::core::compact::projection::{self, Change, Overlay, TurnPolicy};
use crate::core::compact::range::TurnRange;
use crate::core::model::compaction::Compaction;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::{Event, Kind};
use crate::core::model::timestamp::Timestamp;
use crate::core::summarize::{self, Summarizer};
use std::collections::HashMap;

/// What is being compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    None,
    /// D50 with its defaults.
    Single,
    /// The staged policy with the ticket's defaults.
    Staged,
    /// Staged, plus the backstop the ticket says D50 assumes but jp lacks:
    /// at a request that would cross the hard ratio inside a turn, the live
    /// turn's oldest tool results over the bound are elided, the latest
    /// ones kept verbatim. A proposal: jp's event model (compactions cover
    /// whole turns) cannot store it yet.
    StagedBackstop,
}

/// Tool results of the live turn the backstop always leaves verbatim.
pub const BACKSTOP_KEEP_LATEST: usize = 2;

impl Policy {
    pub const ALL: [Policy; 4] = [
        Policy::None,
        Policy::Single,
        Policy::Staged,
        Policy::StagedBackstop,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Policy::None => "none",
            Policy::Single => "single",
            Policy::Staged => "staged",
            Policy::StagedBackstop => "staged+backstop",
        }
    }

    pub fn parse(s: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// The configuration a policy runs with: `base` (defaults unless the
    /// caller changed them), enabled, in the policy's mode.
    pub fn config(self, base: &AutoConfig) -> Option<AutoConfig> {
        let mode = match self {
            Policy::None => return None,
            Policy::Single => Mode::Single,
            Policy::Staged | Policy::StagedBackstop => Mode::Staged,
        };
        Some(AutoConfig {
            enabled: true,
            mode,
            ..base.clone()
        })
    }
}

/// One compaction the policy made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Firing {
    /// The 0-based turn after which it fired.
    pub after_turn: usize,
    pub kind: ActionKind,
    pub range: TurnRange,
}

/// One model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestPoint {
    pub turn: usize,
    /// Projected tokens of everything before it plus the system prompt.
    pub context: u64,
}

/// A run's measurements (auto.md's table).
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub policy: Policy,
    pub window: u64,
    /// The window less the output reserve: what the thresholds and the
    /// overflows are measured against.
    pub usable: u64,
    pub peak_ratio: f64,
    pub overflows: usize,
    pub requests: usize,
    pub input_tokens: u64,
    pub elisions: usize,
    pub summaries: usize,
    pub summarizer_input_tokens: u64,
    pub summarizer_output_tokens: u64,
    pub firings: Vec<Firing>,
    pub points: Vec<RequestPoint>,
    /// The compactions the policy appended, in order.
    pub compactions: Vec<Compaction>,
    /// Projected characters of the whole conversation at the end of the
    /// replay (its last turn included).
    pub final_chars: u64,
    /// Turns replayed.
    pub turns: usize,
    /// Tool results the backstop elided inside turns.
    pub backstop_elisions: usize,
}

/// Summary output is priced at this many input tokens (auto.md).
pub const OUTPUT_WEIGHT: u64 = 5;

impl Run {
    /// input tokens + summarizer input + 5 × summarizer output.
    pub fn cost(&self) -> u64 {
        self.input_tokens
            + self.summarizer_input_tokens
            + OUTPUT_WEIGHT * self.summarizer_output_tokens
    }

    /// `count` per 100 turns of the replayed session.
    pub fn per_100_turns(&self, count: usize) -> f64 {
        count as f64 * 100.0 / self.turns.max(1) as f64
    }

    /// The highest context ratio of each turn's requests (for charts).
    pub fn ratio_by_turn(&self, turn_count: usize) -> Vec<Option<f64>> {
        let mut out = vec![None; turn_count];
        for p in &self.points {
            if let Some(slot) = out.get_mut(p.turn) {
                let r = p.context as f64 / self.usable as f64;
                *slot = Some(slot.map_or(r, |o: f64| o.max(r)));
            }
        }
        out
    }
}

/// The replayed stream: the conversation's events up to the current
/// boundary, with the compactions the policy made so far.
struct Replay<'a> {
    events: &'a [Event],
    /// Events of turn t: `turn_spans[t]`.
    turn_spans: Vec<(usize, usize)>,
    /// Turns visible so far (completed, plus the one being replayed).
    visible: usize,
    turn_chars: Vec<u64>,
    total: u64,
    overlays: Vec<Overlay>,
    policies: Vec<TurnPolicy>,
    names: HashMap<&'a str, &'a str>,
    pairs: HashMap<&'a str, u64>,
    after_last: usize,
    after_last_summary: usize,
    summary_ranges: Vec<(usize, usize)>,
    /// What every request carries besides the events.
    overhead: u64,
}

impl<'a> Replay<'a> {
    fn new(conv: &'a Conversation) -> Self {
        let events = &conv.events[..];
        let turn_spans = (0..conv.turn_count)
            .map(|t| {
                (
                    events.partition_point(|e| e.turn < t),
                    events.partition_point(|e| e.turn <= t),
                )
            })
            .collect();
        let mut names = HashMap::new();
        for e in events {
            if let Kind::ToolCallRequest { id, name } = &e.kind {
                names.insert(&**id, &**name);
            }
        }
        Replay {
            events,
            turn_spans,
            visible: 0,
            turn_chars: vec![0; conv.turn_count],
            total: 0,
            overlays: Vec::new(),
            policies: vec![TurnPolicy::default(); conv.turn_count],
            names,
            pairs: projection::pair_payloads(events),
            after_last: 0,
            after_last_summary: 0,
            summary_ranges: Vec::new(),
            overhead: 0,
        }
    }

    /// The compaction of overlay index `i`: the replay's own, then
    /// `extra` (being tried) after them.
    fn compaction<'c>(&'c self, extra: &'c [Compaction], i: usize) -> &'c Compaction {
        match self.overlays.get(i) {
            Some(o) => &o.compaction,
            None => &extra[i - self.overlays.len()],
        }
    }

    /// The winners of turn `t` with `extra` painted over (they are the
    /// newest, so they win wherever they have an opinion).
    fn policy_with(&self, t: usize, extra: &[Compaction]) -> TurnPolicy {
        let mut p = self.policies[t];
        for (k, c) in extra.iter().enumerate() {
            if c.from_turn <= t && t <= c.to_turn {
                p.paint(c, self.overlays.len() + k);
            }
        }
        p
    }

    /// Projected characters of turn `t` with `extra` painted over.
    fn chars_of_turn(&self, t: usize, extra: &[Compaction]) -> u64 {
        let p = self.policy_with(t, extra);
        if let Some(s) = p.summary {
            let run_start = t == 0 || self.policy_with(t - 1, extra).summary != Some(s);
            return if run_start {
                projection::summary_chars(
                    self.compaction(extra, s).summary.as_deref().unwrap_or(""),
                )
            } else {
                0
            };
        }
        let pairs = |id: &str| self.pairs.get(id).copied();
        let tools_of = |i: usize| self.compaction(extra, i).tool_calls;
        let (start, end) = self.turn_spans[t];
        self.events[start..end]
            .iter()
            .filter(|e| e.chars > 0 && e.kind.is_model_visible())
            .map(|e| {
                let d = projection::decide(e, &p, &tools_of, &pairs);
                if d.is_sent() {
                    projection::sent_chars(e, d.change, |id| {
                        self.names.get(id).copied().unwrap_or("unknown")
                    })
                } else {
                    0
                }
            })
            .sum()
    }

    /// The turns `extra` changes (its ranges, and the turn after each, which
    /// may start a new summary run) with their new characters. Touches only
    /// those turns, so a run stays O(events).
    fn changes(&self, extra: &[Compaction]) -> Vec<(usize, u64)> {
        let Some(last) = self.visible.checked_sub(1) else {
            return Vec::new();
        };
        let mut touched: Vec<usize> = Vec::new();
        for c in extra {
            if c.from_turn > c.to_turn || c.from_turn > last {
                continue;
            }
            touched.extend(c.from_turn..=(c.to_turn.min(last) + 1).min(last));
        }
        touched.sort_unstable();
        touched.dedup();
        touched
            .into_iter()
            .map(|t| (t, self.chars_of_turn(t, extra)))
            .collect()
    }

    fn apply(&mut self, compactions: Vec<Compaction>) {
        let changes = self.changes(&compactions);
        let last = self.visible.saturating_sub(1);
        for c in &compactions {
            if c.from_turn <= c.to_turn && c.from_turn <= last {
                for t in c.from_turn..=c.to_turn.min(last) {
                    self.policies[t] = self.policy_with(t, &compactions);
                }
            }
        }
        for (t, chars) in changes {
            self.total = self.total - self.turn_chars[t] + chars;
            self.turn_chars[t] = chars;
        }
        for c in compactions {
            self.record(c);
        }
    }

    /// Keeps `c` among the replay's compactions (for the trigger's
    /// questions: after the last one, the summaries' ranges).
    fn record(&mut self, c: Compaction) {
        self.after_last = self.after_last.max(c.to_turn.saturating_add(1));
        if c.summary.is_some() {
            self.after_last_summary = self.after_last_summary.max(c.to_turn.saturating_add(1));
            self.summary_ranges.push((c.from_turn, c.to_turn));
        }
        let position = self.overlays.len();
        self.overlays.push(Overlay {
            compaction: c,
            position,
            preview: false,
        });
    }
}

impl Stream for Replay<'_> {
    fn turn_count(&self) -> usize {
        self.visible
    }

    fn turn_chars(&self) -> &[u64] {
        &self.turn_chars[..self.visible]
    }

    fn after_last_compaction(&self) -> usize {
        self.after_last
    }

    fn after_last_summary(&self) -> usize {
        self.after_last_summary
    }

    fn summary_ranges(&self) -> Vec<(usize, usize)> {
        self.summary_ranges.clone()
    }

    fn latest_timestamp(&self) -> Option<Timestamp> {
        self.overlays.last().map(|o| o.compaction.timestamp)
    }

    fn total_chars(&self) -> u64 {
        self.total
    }

    fn overhead_chars(&self) -> u64 {
        self.overhead
    }

    fn chars_with(&self, extra: &[Compaction]) -> u64 {
        self.changes(extra)
            .into_iter()
            .fold(self.total, |total, (t, chars)| {
                total - self.turn_chars[t] + chars
            })
    }
}

/// Replays `conv` under `policy` with a `window`-token context.
pub fn run(
    conv: &Conversation,
    policy: Policy,
    window: u64,
    base: &AutoConfig,
    summarizer: &dyn Summarizer,
) -> Result<Run, summarize::SummarizeError> {
    let budget = Budget::of_config(conv.merged_config(), None, base.context);
    run_with(conv, &budget, policy, window, base, summarizer)
}

/// `run` with the conversation's budget already read (the grid reads it
/// once per conversation, not once per run).
pub fn run_with(
    conv: &Conversation,
    budget: &Budget,
    policy: Policy,
    window: u64,
    base: &AutoConfig,
    summarizer: &dyn Summarizer,
) -> Result<Run, summarize::SummarizeError> {
    let config = policy.config(base);
    let budget = budget.at(window);
    let usable = budget.usable().unwrap_or(window);
    let mut replay = Replay::new(conv);
    replay.overhead = budget.overhead_chars();
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
    };
    // The backstop's candidates: the live turn's tool results over the
    // bound, oldest first, as (characters sent, characters once elided).
    let backstop = policy == Policy::StagedBackstop;
    let bound = config
        .as_ref()
        .and_then(|c| c.elide.tool_calls)
        .and_then(|t| t.over())
        .unwrap_or(1024);
    let hard_limit = config
        .as_ref()
        .map_or(u64::MAX, |c| (usable as f64 * c.hard_ratio).floor() as u64);
    let mut live: Vec<(u64, u64)> = Vec::new();
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

    for e in &conv.events {
        if matches!(e.kind, Kind::Compaction(_)) {
            continue;
        }
        if e.kind.is_conversation_event() && current_turn != Some(e.turn) {
            if let (Some(done), Some(config)) = (current_turn, &config) {
                clock += chrono::Duration::seconds(1);
                boundary(conv, &mut replay, done, config, summarizer, clock, &mut out)?;
            }
            current_turn = Some(e.turn);
            replay.visible = e.turn + 1;
            live.clear();
            elided_in_turn = 0;
        }
        let is_output = matches!(e.kind, Kind::ChatResponse(_) | Kind::ToolCallRequest { .. });
        let after_input = matches!(
            last_visible,
            Some(Kind::ChatRequest | Kind::ToolCallResponse { .. })
        );
        if is_output && after_input {
            let mut context = budget.context_tokens(replay.total);
            while backstop
                && context > hard_limit
                && live.len() > elided_in_turn + BACKSTOP_KEEP_LATEST
            {
                let (sent, elided) = live[elided_in_turn];
                elided_in_turn += 1;
                replay.turn_chars[e.turn] -= sent - elided;
                replay.total -= sent - elided;
                out.backstop_elisions += 1;
                context = budget.context_tokens(replay.total);
            }
            out.requests += 1;
            out.input_tokens += context;
            if context > usable {
                out.overflows += 1;
            }
            out.peak_ratio = out.peak_ratio.max(context as f64 / usable as f64);
            out.points.push(RequestPoint {
                turn: e.turn,
                context,
            });
        }
        if e.kind.is_model_visible() {
            last_visible = Some(&e.kind);
            // The turn being replayed has no compaction yet: raw size.
            replay.turn_chars[e.turn] += e.chars;
            replay.total += e.chars;
            if let (true, Kind::ToolCallResponse { id, .. }) = (backstop, &e.kind)
                && e.payload > bound
            {
                let name = replay.names.get(&**id).copied().unwrap_or("unknown");
                let elided = projection::sent_chars(e, Change::StatusLine, |_| name);
                live.push((e.chars, elided.min(e.chars)));
            }
        }
    }
    out.final_chars = replay.total;
    out.compactions = replay.overlays.into_iter().map(|o| o.compaction).collect();
    Ok(out)
}

/// Evaluates the trigger after turn `done` and applies what it returns.
fn boundary(
    conv: &Conversation,
    replay: &mut Replay<'_>,
    done: usize,
    config: &AutoConfig,
    summarizer: &dyn Summarizer,
    now: Timestamp,
    out: &mut Run,
) -> Result<(), summarize::SummarizeError> {
    replay.visible = done + 1;
    let decision = trigger::evaluate(replay, Some(out.usable), config, now);
    if !decision.fired() {
        return Ok(());
    }
    let mut texts = Vec::new();
    for s in super::write_summaries(conv, &decision, config, summarizer)? {
        out.summarizer_input_tokens += estimate::tokens(s.input_chars);
        out.summarizer_output_tokens +=
            estimate::tokens(crate::core::model::event::count_chars(&s.text));
        texts.push(s.text);
    }
    let decision = trigger::settle(replay, decision, texts, config);
    for a in &decision.actions {
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
        });
    }
    replay.apply(decision.actions.into_iter().map(|a| a.compaction).collect());
    Ok(())
}

/// One request of the session as it really happened.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPoint {
    /// The raw event the model produced in answer (the request is sent just
    /// before it).
    pub raw_index: usize,
    pub turn: usize,
    pub timestamp: Option<Timestamp>,
    /// The context actually sent: the projection of the stream before it
    /// (the compactions appended before it, none after), with the system
    /// prompt and tools in force then.
    pub context: u64,
    /// The usable window in force then, if known.
    pub usable: Option<u64>,
    /// Compaction events (0-based positions) appended since the request
    /// before.
    pub compactions_since: Vec<usize>,
}

/// The real context curve of `conv`: every request (as the simulation
/// defines one) with what it was sent, in one pass. The same replay as the
/// simulation, fed the stream's own compactions where they were appended
/// instead of a policy's. `budget_at(i)` is the budget in force before raw
/// event `i` (asked again only after a config delta).
pub fn history(
    conv: &Conversation,
    mut budget_at: impl FnMut(usize) -> Budget,
) -> Vec<HistoryPoint> {
    let mut replay = Replay::new(conv);
    let mut budget = budget_at(0);
    let mut points = Vec::new();
    let mut since: Vec<usize> = Vec::new();
    let mut last_visible: Option<&Kind> = None;
    let mut newest: Option<Timestamp> = None;
    let mut position = 0;
    for (i, e) in conv.events.iter().enumerate() {
        match &e.kind {
            Kind::Compaction(parsed) => {
                if let Ok(c) = parsed {
                    // The replay paints what it is given as newest; a
                    // compaction stamped before an earlier one loses to it
                    // in the projection, so the prefix is projected afresh.
                    if newest.is_some_and(|n| c.timestamp < n) {
                        replay = replay_of_prefix(conv, i + 1);
                    } else {
                        replay.apply(vec![(**c).clone()]);
                    }
                    newest = newest.max(Some(c.timestamp));
                    since.push(position);
                }
                position += 1;
                continue;
            }
            Kind::ConfigDelta => budget = budget_at(i + 1),
            _ => {}
        }
        if e.kind.is_conversation_event() {
            replay.visible = replay.visible.max(e.turn + 1);
        }
        let is_output = matches!(e.kind, Kind::ChatResponse(_) | Kind::ToolCallRequest { .. });
        let after_input = matches!(
            last_visible,
            Some(Kind::ChatRequest | Kind::ToolCallResponse { .. })
        );
        if is_output && after_input {
            points.push(HistoryPoint {
                raw_index: i,
                turn: e.turn,
                timestamp: e.timestamp,
                context: budget.context_tokens(replay.total),
                usable: budget.usable(),
                compactions_since: std::mem::take(&mut since),
            });
        }
        if e.kind.is_model_visible() {
            last_visible = Some(&e.kind);
            replay.turn_chars[e.turn] += e.chars;
            replay.total += e.chars;
        }
    }
    points
}

/// A replay holding the projection of the first `end` events, for the rare
/// stream whose compactions are out of timestamp order.
fn replay_of_prefix(conv: &Conversation, end: usize) -> Replay<'_> {
    let mut replay = Replay::new(conv);
    let p = projection::as_of(conv, end, crate::core::compact::jp_view::View::Inspect);
    replay.visible = conv.events[..end]
        .iter()
        .filter(|e| e.kind.is_conversation_event())
        .map(|e| e.turn + 1)
        .max()
        .unwrap_or(0);
    let turn_chars = p.turn_chars(&conv.events, conv.turn_count);
    replay.total = turn_chars.iter().sum();
    replay.turn_chars = turn_chars;
    replay.policies = p.policies.clone();
    for o in p.overlays {
        replay.record(o.compaction);
    }
    replay
}
