//! The trigger: at a turn boundary, which compactions automatic compaction
//! appends, and why (auto.md).
//!
//! Pure: it reads a [`Stream`] (the projected sizes per turn and the
//! existing compactions) and returns a [`Decision`]. Summary texts are made
//! afterwards by a summarizer; [`settle`] then finishes the decision with
//! the real summary sizes.

use super::config::{AutoConfig, Mode, RuleConfig};
use crate::core::compact::estimate;
use crate::core::compact::range;
use crate::core::model::TurnRange;
use crate::core::model::compaction::{Compaction, Source, ToolCalls};
use crate::core::model::timestamp::Timestamp;
use std::borrow::Cow;

/// What the trigger needs to know of a stream at a boundary.
pub trait Stream {
    fn turn_count(&self) -> usize;
    /// Projected characters of each turn under the current compactions.
    fn turn_chars(&self) -> &[u64];
    /// One past the highest `to_turn` of any compaction, or 0.
    fn after_last_compaction(&self) -> usize;
    /// One past the highest `to_turn` of any summary compaction, or 0.
    fn after_last_summary(&self) -> usize;
    /// The ranges of the summary compactions: borrowed where they are
    /// kept (a replay asks at every turn boundary, of thousands).
    fn summary_ranges(&self) -> Cow<'_, [(usize, usize)]>;
    /// The newest compaction timestamp.
    fn latest_timestamp(&self) -> Option<Timestamp>;
    /// Total projected characters if `extra` were appended too.
    fn chars_with(&self, extra: &[Compaction]) -> u64;

    fn total_chars(&self) -> u64 {
        self.turn_chars().iter().sum()
    }
    /// Characters every request carries besides the events (system prompt
    /// and tool definitions); 0 for D50's literal events-only estimate.
    fn overhead_chars(&self) -> u64 {
        0
    }
}

/// The context of a request whose events are `event_chars` long.
fn context(stream: &dyn Stream, event_chars: u64) -> u64 {
    estimate::tokens(event_chars + stream.overhead_chars())
}

/// Now, but after every existing compaction (so ours wins).
fn stamp(now: Timestamp, latest: Option<Timestamp>) -> Timestamp {
    match latest {
        Some(l) if l + chrono::Duration::microseconds(1) > now => {
            l + chrono::Duration::microseconds(1)
        }
        _ => now,
    }
}

use super::decision::{ActionKind, Append, Decision, Note, Threshold};

fn threshold(window: u64, ratio: f64) -> u64 {
    (window as f64 * ratio).floor() as u64
}

fn above(estimate: u64, window: u64, ratio: f64) -> bool {
    estimate as f64 > window as f64 * ratio
}

/// The staged policy's recent window: the longest suffix of turns whose
/// projected size fits in `budget` tokens, but at least `min_turns` turns.
/// Returns (first turn of the window, turns, tokens, floored).
pub fn recent_window(
    turn_chars: &[u64],
    budget: u64,
    min_turns: usize,
) -> (usize, usize, u64, bool) {
    let n = turn_chars.len();
    let mut chars = 0u64;
    let mut turns = 0;
    for c in turn_chars.iter().rev() {
        if estimate::tokens(chars + c) > budget {
            break;
        }
        chars += c;
        turns += 1;
    }
    let floored = turns < min_turns.min(n);
    if floored {
        turns = min_turns.min(n);
        chars = turn_chars[n - turns..].iter().sum();
    }
    (n - turns, turns, estimate::tokens(chars), floored)
}

fn build(rule: &RuleConfig, range: TurnRange, ts: Timestamp, summary: bool) -> Compaction {
    build_with(rule, range, ts, summary, &Default::default())
}

/// `build`, with the tools' own policies (D17) for what is not a summary
/// (a summary replaces the turns whatever their tools).
fn build_with(
    rule: &RuleConfig,
    range: TurnRange,
    ts: Timestamp,
    summary: bool,
    hints: &std::collections::BTreeMap<String, ToolCalls>,
) -> Compaction {
    let tool_overrides = if summary {
        Default::default()
    } else {
        crate::core::model::compaction::resolve_hints(hints, rule.tool_calls)
    };
    Compaction {
        timestamp: ts,
        from_turn: range.from,
        to_turn: range.to,
        summary: summary.then(String::new),
        strip_reasoning: rule.reasoning,
        reasoning_over: rule.reasoning_over.filter(|_| rule.reasoning),
        tool_calls: rule.tool_calls,
        source: Source::Auto,
        summarizer: None,
        authored: false,
        tool_overrides,
    }
}

/// Evaluates the trigger on `stream` at this boundary.
pub fn evaluate(
    stream: &dyn Stream,
    window: Option<u64>,
    config: &AutoConfig,
    now: Timestamp,
) -> Decision {
    let estimate = context(stream, stream.total_chars());
    let mut d = Decision {
        mode: config.mode,
        window,
        estimate,
        estimate_after: estimate,
        actions: Vec::new(),
        notes: Vec::new(),
    };
    if !config.enabled {
        d.notes.push(Note::Disabled);
        return d;
    }
    let Some(window) = window else {
        d.notes.push(Note::WindowUnknown);
        return d;
    };
    match config.mode {
        Mode::Single => single(stream, window, config, now, &mut d),
        Mode::Staged => staged(stream, window, config, now, &mut d),
    }
    d
}

/// The checks both modes start with: the estimate above the first
/// threshold, then more than `min_turns` turns. Notes each step.
fn gate(
    stream: &dyn Stream,
    window: u64,
    c: &AutoConfig,
    which: Threshold,
    ratio: f64,
    d: &mut Decision,
) -> bool {
    let limit = threshold(window, ratio);
    if !above(d.estimate, window, ratio) {
        d.notes.push(Note::BelowThreshold {
            which,
            estimate: d.estimate,
            threshold: limit,
        });
        return false;
    }
    d.notes.push(Note::AboveThreshold {
        which,
        estimate: d.estimate,
        threshold: limit,
    });
    let turns = stream.turn_count();
    if turns <= c.min_turns {
        d.notes.push(Note::TooFewTurns {
            turns,
            min_turns: c.min_turns,
        });
        return false;
    }
    true
}

/// The last turn an existing compaction reaches when that is past the
/// stream's last turn: it covers every turn still to come, so no rolling
/// range can start after it.
fn endless(stream: &dyn Stream) -> Option<usize> {
    let after = stream.after_last_compaction();
    (after > stream.turn_count()).then(|| after - 1)
}

/// RFD D50: one threshold, one rolling rule.
fn single(stream: &dyn Stream, window: u64, c: &AutoConfig, now: Timestamp, d: &mut Decision) {
    if !gate(stream, window, c, Threshold::Trigger, c.trigger_ratio, d) {
        return;
    }
    let turns = stream.turn_count();
    let from = c.rule.keep_first.max(stream.after_last_compaction());
    let to = (turns - 1).checked_sub(c.rule.keep_last);
    let requested = match to {
        Some(to) if from <= to => TurnRange { from, to },
        _ => {
            d.notes.push(Note::RangeEmpty {
                kind: ActionKind::Rule,
                from,
                to,
                covered_to: endless(stream),
            });
            return;
        }
    };
    let summarize = c.rule.summary.is_some();
    let range = if summarize {
        range::extend_over(requested, &stream.summary_ranges())
    } else {
        requested
    };
    let compaction = build_with(
        &c.rule,
        range,
        stamp(now, stream.latest_timestamp()),
        summarize,
        &c.tool_hints,
    );
    // A summary is judged once written (`settle`); a mechanical rule now.
    if !summarize && saved_by(stream, &[], &compaction) <= 0 {
        d.notes.push(Note::SavesNothing {
            kind: ActionKind::Rule,
            range,
            saved: saved_by(stream, &[], &compaction),
        });
        return;
    }
    d.notes.push(Note::Fired {
        kind: ActionKind::Rule,
        range,
        extended_from: (range != requested).then_some(requested),
        hysteresis: false,
    });
    d.actions.push(Append {
        kind: ActionKind::Rule,
        requested,
        compaction,
    });
    settle_estimate(stream, d, window, c);
}

/// The ticket's T4: elide above the soft threshold, then summarise if still
/// above the hard one.
fn staged(stream: &dyn Stream, window: u64, c: &AutoConfig, now: Timestamp, d: &mut Decision) {
    if !gate(stream, window, c, Threshold::Soft, c.soft_ratio, d) {
        return;
    }
    let budget = threshold(window, c.recent_ratio);
    let (recent_from, recent_turns, recent_tokens, floored) =
        recent_window(stream.turn_chars(), budget, c.recent_min_turns);
    let end = recent_from + recent_turns;
    // Only the summaries that reach into the recent window are looked at
    // for each of its turns: a long session has thousands of them.
    let summarised: Vec<(usize, usize)> = stream
        .summary_ranges()
        .iter()
        .copied()
        .filter(|&(a, b)| a < end && b >= recent_from)
        .collect();
    let verbatim = (recent_from..end)
        .filter(|t| !summarised.iter().any(|&(a, b)| a <= *t && *t <= b))
        .count();
    d.notes.push(Note::RecentWindow {
        from: recent_from,
        turns: recent_turns,
        verbatim,
        tokens: recent_tokens,
        budget,
        floored,
    });
    let end = recent_from.checked_sub(1);
    let mut appended: Vec<Compaction> = Vec::new();
    let mut ts = stamp(now, stream.latest_timestamp());

    // Elision.
    let from = c.keep_first.max(stream.after_last_compaction());
    match end {
        Some(to) if from <= to => {
            let range = TurnRange { from, to };
            let compaction = build_with(&c.elide, range, ts, false, &c.tool_hints);
            let saved = saved_by(stream, &[], &compaction);
            if saved <= 0 {
                // Nothing over the bound in these turns: an elision that
                // changes nothing is no firing.
                d.notes.push(Note::SavesNothing {
                    kind: ActionKind::Elision,
                    range,
                    saved,
                });
            } else {
                ts = stamp(ts, Some(ts));
                d.notes.push(Note::Fired {
                    kind: ActionKind::Elision,
                    range,
                    extended_from: None,
                    hysteresis: false,
                });
                appended.push(compaction.clone());
                d.actions.push(Append {
                    kind: ActionKind::Elision,
                    requested: range,
                    compaction,
                });
            }
        }
        _ => d.notes.push(Note::RangeEmpty {
            kind: ActionKind::Elision,
            from,
            to: end,
            covered_to: endless(stream),
        }),
    }

    // Summary, measured after the elision.
    let after = context(stream, stream.chars_with(&appended));
    d.estimate_after = after;
    let hard = threshold(window, c.hard_ratio);
    if !above(after, window, c.hard_ratio) {
        d.notes.push(Note::BelowThreshold {
            which: Threshold::Hard,
            estimate: after,
            threshold: hard,
        });
        return;
    }
    d.notes.push(Note::AboveThreshold {
        which: Threshold::Hard,
        estimate: after,
        threshold: hard,
    });
    let from = c.keep_first.max(stream.after_last_summary());
    match end {
        Some(to) if from <= to => {
            let requested = TurnRange { from, to };
            let summaries = stream.summary_ranges();
            let mut range = range::extend_over(requested, &summaries);
            let over_summaries = range;
            let rule = RuleConfig {
                keep_first: c.keep_first,
                keep_last: 0,
                reasoning: false,
                reasoning_over: None,
                tool_calls: None,
                summary: Some(c.summary.clone()),
            };
            // Hysteresis: summarise enough to land below the soft
            // threshold, reaching into the recent window down to its floor,
            // so a tail hovering at the hard threshold does not buy a
            // summary at every boundary. (The summary is measured empty
            // here; `settle` measures the written one.)
            let with = |r: TurnRange| {
                let mut extra = appended.clone();
                extra.push(build(&rule, r, ts, true));
                context(stream, stream.chars_with(&extra))
            };
            let floor_end = stream.turn_count().checked_sub(1 + c.recent_min_turns);
            let mut estimate = with(range);
            let mut reached = false;
            while above(estimate, window, c.soft_ratio) && floor_end.is_some_and(|f| range.to < f) {
                range = range::extend_over(
                    TurnRange {
                        from: range.from,
                        to: range.to.saturating_add(1),
                    },
                    &summaries,
                );
                estimate = with(range);
                reached = true;
            }
            // A summary is a model call: one that leaves the context over
            // the hard threshold anyway and takes out little more than the
            // elision does is not bought (once per turn it would be).
            let gain = after.saturating_sub(estimate);
            let min_gain = (window as f64 * c.summary_min_gain).floor() as u64;
            if c.summary_min_gain > 0.0 && above(estimate, window, c.hard_ratio) && gain < min_gain
            {
                d.notes.push(Note::SummaryWithheld {
                    range,
                    estimate,
                    threshold: hard,
                    gain,
                    min_gain,
                });
                return;
            }
            let soft = threshold(window, c.soft_ratio);
            if above(estimate, window, c.soft_ratio) {
                d.notes.push(Note::AboveSoftAtFloor {
                    estimate,
                    threshold: soft,
                    floor: c.recent_min_turns,
                });
            } else if reached {
                d.notes.push(Note::Hysteresis {
                    to: range.to,
                    estimate,
                    threshold: soft,
                });
            }
            // An elision this summary covers would be superseded at once.
            if let Some(k) = d.actions.iter().position(|a| {
                a.kind == ActionKind::Elision
                    && range.from <= a.compaction.from_turn
                    && a.compaction.to_turn <= range.to
            }) {
                let e = d.actions.remove(k);
                let r = e.range();
                d.notes.retain(|n| {
                    !matches!(n, Note::Fired { kind: ActionKind::Elision, range, .. } if *range == r)
                });
                d.notes.push(Note::Superseded { range: r });
            }
            let compaction = build(&rule, range, ts, true);
            d.notes.push(Note::Fired {
                kind: ActionKind::Summary,
                range,
                extended_from: (range != requested).then_some(requested),
                hysteresis: range != over_summaries,
            });
            d.actions.push(Append {
                kind: ActionKind::Summary,
                requested,
                compaction,
            });
            settle_estimate(stream, d, window, c);
        }
        _ => {
            d.notes.push(Note::RangeEmpty {
                kind: ActionKind::Summary,
                from,
                to: end,
                covered_to: endless(stream),
            });
            d.notes.push(Note::OverBudgetAfter {
                which: Threshold::Hard,
                estimate: after,
                threshold: hard,
            });
        }
    }
}

/// Characters `extra` takes out of the stream's projection when appended
/// after `before` (negative when it adds).
fn saved_by(stream: &dyn Stream, before: &[Compaction], extra: &Compaction) -> i64 {
    let mut with = before.to_vec();
    let without = stream.chars_with(&with) as i64;
    with.push(extra.clone());
    without - stream.chars_with(&with) as i64
}

/// Recomputes the estimate after the actions and notes a still-exceeded
/// threshold.
fn settle_estimate(stream: &dyn Stream, d: &mut Decision, window: u64, c: &AutoConfig) {
    let extra: Vec<Compaction> = d.actions.iter().map(|a| a.compaction.clone()).collect();
    d.estimate_after = context(stream, stream.chars_with(&extra));
    d.notes
        .retain(|n| !matches!(n, Note::OverBudgetAfter { .. }));
    let (which, ratio) = match c.mode {
        Mode::Single => (Threshold::Trigger, c.trigger_ratio),
        Mode::Staged => (Threshold::Hard, c.hard_ratio),
    };
    let applies = match c.mode {
        Mode::Single => true,
        Mode::Staged => d.actions.iter().any(|a| a.kind == ActionKind::Summary),
    };
    if applies && above(d.estimate_after, window, ratio) {
        d.notes.push(Note::OverBudgetAfter {
            which,
            estimate: d.estimate_after,
            threshold: threshold(window, ratio),
        });
    }
}

/// Completes a decision once its summaries are written: puts the texts in
/// and measures the result.
/// `by` names the summarizer that wrote them.
pub fn settle(
    stream: &dyn Stream,
    mut d: Decision,
    summaries: Vec<String>,
    by: &str,
    config: &AutoConfig,
) -> Decision {
    let mut texts = summaries.into_iter();
    for a in d.actions.iter_mut().filter(|a| a.needs_summary()) {
        a.compaction.summary = Some(texts.next().unwrap_or_default());
        a.compaction.summarizer = Some(by.to_string());
    }
    // A written summary no shorter than what it replaces takes nothing out:
    // it is not written (and said), whatever the summarizer.
    let mut kept: Vec<Compaction> = Vec::new();
    let mut actions = Vec::with_capacity(d.actions.len());
    for a in std::mem::take(&mut d.actions) {
        if a.needs_summary() {
            let saved = saved_by(stream, &kept, &a.compaction);
            if saved <= 0 {
                let range = a.range();
                d.notes.retain(
                    |n| !matches!(n, Note::Fired { kind, range: r, .. } if *kind == a.kind && *r == range),
                );
                d.notes.push(Note::SavesNothing {
                    kind: a.kind,
                    range,
                    saved,
                });
                continue;
            }
        }
        kept.push(a.compaction.clone());
        actions.push(a);
    }
    d.actions = actions;
    if let Some(window) = d.window
        && d.fired()
    {
        settle_estimate(stream, &mut d, window, config);
    }
    d
}
