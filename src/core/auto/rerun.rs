//! The stream run again, turn by turn, that the simulation and the real
//! context curve share: a conversation's events up to a boundary with the
//! compactions made so far, its projection kept per turn so a rerun costs
//! O(events).

use super::trigger::Stream;
use crate::core::compact::pairing::Pairing;
use crate::core::compact::projection::{self, Bounds, Overlay, TurnPolicy};
use crate::core::model::compaction::Compaction;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Event;
use crate::core::model::timestamp::Timestamp;
use std::borrow::Cow;

/// The stream run again: the conversation's events up to the current
/// boundary, with the compactions the policy made so far.
pub(super) struct Rerun<'a> {
    pub(super) events: &'a [Event],
    /// Events of turn t: `turn_spans[t]`.
    pub(super) turn_spans: Vec<(usize, usize)>,
    /// Turns visible so far (completed, plus the one being run again).
    pub(super) visible: usize,
    pub(super) turn_chars: Vec<u64>,
    pub(super) total: u64,
    pub(super) overlays: Vec<Overlay>,
    pub(super) policies: Vec<TurnPolicy>,
    pub(super) pairing: Pairing,
    pub(super) after_last: usize,
    pub(super) after_last_summary: usize,
    pub(super) summary_ranges: Vec<(usize, usize)>,
    /// What every request carries besides the events.
    pub(super) overhead: u64,
}

impl<'a> Rerun<'a> {
    pub(super) fn new(conv: &'a Conversation) -> Self {
        let events = &conv.events[..];
        let turn_spans = (0..conv.turn_count)
            .map(|t| {
                (
                    events.partition_point(|e| e.turn < t),
                    events.partition_point(|e| e.turn <= t),
                )
            })
            .collect();
        Rerun {
            events,
            turn_spans,
            visible: 0,
            turn_chars: vec![0; conv.turn_count],
            total: 0,
            overlays: Vec::new(),
            policies: vec![TurnPolicy::default(); conv.turn_count],
            pairing: Pairing::of(events),
            after_last: 0,
            after_last_summary: 0,
            summary_ranges: Vec::new(),
            overhead: 0,
        }
    }

    /// The compaction of overlay index `i`: the rerun's own, then
    /// `extra` (being tried) after them.
    pub(super) fn compaction<'c>(&'c self, extra: &'c [Compaction], i: usize) -> &'c Compaction {
        match self.overlays.get(i) {
            Some(o) => &o.compaction,
            None => &extra[i - self.overlays.len()],
        }
    }

    /// The winners of turn `t` with `extra` painted over (they are the
    /// newest, so they win wherever they have an opinion).
    pub(super) fn policy_with(&self, t: usize, extra: &[Compaction]) -> TurnPolicy {
        let mut p = self.policies[t];
        for (k, c) in extra.iter().enumerate() {
            if c.from_turn <= t && t <= c.to_turn {
                p.paint(c, self.overlays.len() + k);
            }
        }
        p
    }

    /// Projected characters of turn `t` with `extra` painted over.
    pub(super) fn chars_of_turn(&self, t: usize, extra: &[Compaction]) -> u64 {
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
        let of = |i: usize| Bounds::of(self.compaction(extra, i));
        let (start, end) = self.turn_spans[t];
        (start..end)
            .filter(|&i| self.events[i].chars > 0 && self.events[i].kind.is_model_visible())
            .map(|i| {
                let e = &self.events[i];
                let d = projection::decide(e, &p, &of, self.pair(i), || {
                    self.pairing.name(self.events, i)
                });
                if d.is_sent() {
                    projection::sent_chars(e, d.change, || self.pairing.name(self.events, i))
                } else {
                    0
                }
            })
            .sum()
    }

    /// The turns `extra` changes (its ranges, and the turn after each, which
    /// may start a new summary run) with their new characters. Touches only
    /// those turns, so a run stays O(events).
    pub(super) fn changes(&self, extra: &[Compaction]) -> Vec<(usize, u64)> {
        self.touched(extra)
            .into_iter()
            .map(|t| (t, self.chars_of_turn(t, extra)))
            .collect()
    }

    /// The visible turns `extra` may change, in order: its ranges, and the
    /// turn after each.
    fn touched(&self, extra: &[Compaction]) -> Vec<usize> {
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
    }

    /// Projected characters at the start of the stream run again that
    /// `extra` leaves as they are sent now: everything before the first
    /// event whose fate it changes (a summary changes its whole first
    /// turn). All of it when `extra` changes nothing.
    pub(super) fn unchanged_chars(&self, extra: &[Compaction]) -> u64 {
        let touched = self.touched(extra);
        let of = |i: usize| Bounds::of(self.compaction(extra, i));
        // Characters of the turns before `t`, summed as `t` moves on.
        let (mut before, mut upto) = (0u64, 0usize);
        for t in touched {
            before += self.turn_chars[upto..t].iter().sum::<u64>();
            upto = t;
            let old = self.policies[t];
            let new = self.policy_with(t, extra);
            if old.summary != new.summary {
                return before;
            }
            if old.summary.is_some() || old == new {
                continue;
            }
            let (start, end) = self.turn_spans[t];
            let mut within = 0;
            for i in (start..end)
                .filter(|&i| self.events[i].chars > 0 && self.events[i].kind.is_model_visible())
            {
                let e = &self.events[i];
                let name = || self.pairing.name(self.events, i);
                let a = projection::decide(e, &old, &of, self.pair(i), name);
                let b = projection::decide(e, &new, &of, self.pair(i), name);
                if (a.fate, a.change) != (b.fate, b.change) {
                    return before + within;
                }
                if a.is_sent() {
                    within +=
                        projection::sent_chars(e, a.change, || self.pairing.name(self.events, i));
                }
            }
        }
        self.total
    }

    /// The bytes of both halves of the call event `i` belongs to.
    fn pair(&self, i: usize) -> u64 {
        if self.events[i].kind.is_tool() {
            self.pairing.pair_bytes(self.events, i)
        } else {
            0
        }
    }

    pub(super) fn apply(&mut self, compactions: Vec<Compaction>) {
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

    /// Keeps `c` among the rerun's compactions (for the trigger's
    /// questions: after the last one, the summaries' ranges).
    pub(super) fn record(&mut self, c: Compaction) {
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

impl Stream for Rerun<'_> {
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

    fn summary_ranges(&self) -> Cow<'_, [(usize, usize)]> {
        Cow::Borrowed(&self.summary_ranges)
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

/// A rerun holding the projection of the first `end` events, for the rare
/// stream whose compactions are out of timestamp order.
pub(super) fn rerun_of_prefix(conv: &Conversation, end: usize) -> Rerun<'_> {
    let mut rerun = Rerun::new(conv);
    let p = projection::as_of(conv, end, crate::core::compact::jp_view::View::Inspect);
    rerun.visible = conv.events[..end]
        .iter()
        .filter(|e| e.kind.is_conversation_event())
        .map(|e| e.turn + 1)
        .max()
        .unwrap_or(0);
    let turn_chars = p.turn_chars(&conv.events, conv.turn_count);
    rerun.total = turn_chars.iter().sum();
    rerun.turn_chars = turn_chars;
    rerun.policies = p.policies.clone();
    for o in p.overlays {
        rerun.record(o.compaction);
    }
    rerun
}
