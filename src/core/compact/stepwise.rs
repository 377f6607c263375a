//! The projection grown one overlay at a time, for what each compaction
//! adds to the ones before it. Projecting every prefix of the overlays
//! anew cost compactions × (events + covered turns): quadratic in a long
//! session's automatic compactions. Here a step repaints only the turns
//! its overlay covers and re-derives only those turns (and the next, whose
//! summary run may start there), so a whole pass costs the events plus the
//! turns the overlays cover, times a logarithm.
//!
//! Exactness is the contract: every step agrees with [`projection::project`]
//! of the same prefix (the tests compare them), so it reuses its decisions
//! (`decide`, `sent_chars`, the winning order) rather than restating them.

use crate::core::compact::estimate::Category;
use crate::core::compact::fate::Alteration;
use crate::core::compact::fate::SummaryPart;
use crate::core::compact::pairing::Pairing;
use crate::core::compact::projection::{
    Bounds, Overlay, SUMMARY_REQUEST, TurnPolicy, decide, sent_chars,
};
use crate::core::model::event::{Event, Kind, count_chars};
use crate::core::model::timestamp::Timestamp;
use std::ops::Range;

/// What one projected element is, compared without regard to which
/// overlay made it: a summary is its text, a raw event its index and
/// change (the identity `effects` compares requests by).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sent<'a> {
    Raw(usize, Alteration),
    Summary(Option<&'a str>, SummaryPart, usize),
}

/// What adding one overlay did, in characters of the estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub chars_before: u64,
    pub chars_after: u64,
    /// Whether anything sent changed.
    pub changes: bool,
    /// Characters at the start of the context before the step that it
    /// leaves as they were sent.
    pub kept_chars: u64,
}

/// Prefix sums over segments, updated in place.
struct Fenwick(Vec<i64>);

impl Fenwick {
    fn new(n: usize) -> Fenwick {
        Fenwick(vec![0; n + 1])
    }

    fn add(&mut self, i: usize, delta: i64) {
        let mut i = i + 1;
        while i < self.0.len() {
            self.0[i] += delta;
            i += i & i.wrapping_neg();
        }
    }

    /// The sum of the first `n` slots.
    fn prefix(&self, n: usize) -> i64 {
        let (mut i, mut s) = (n, 0);
        while i > 0 {
            s += self.0[i];
            i &= i - 1;
        }
        s
    }
}

/// The state after some prefix of the overlays.
pub struct Stepwise<'a> {
    events: &'a [Event],
    overlays: &'a [Overlay],
    pairing: Pairing,
    /// Segment 0 holds what comes before the first turn; segment `t + 1`
    /// turn `t` from its first event to the next turn's.
    segments: Vec<Range<usize>>,
    /// The winners so far; a winner's key is (timestamp, index), as
    /// `resolve_policies` paints them.
    policies: Vec<TurnPolicy>,
    chars: Fenwick,
    applied: usize,
}

impl<'a> Stepwise<'a> {
    /// The projection of `events` with none of `overlays` applied yet, or
    /// `None` when a turn's events are not contiguous in the stream (no jp
    /// writes such a stream; the caller projects each prefix instead).
    pub fn new(events: &'a [Event], turn_count: usize, overlays: &'a [Overlay]) -> Option<Self> {
        let mut starts = vec![usize::MAX; turn_count];
        let mut last_turn = 0;
        for (i, e) in events.iter().enumerate() {
            if !e.kind.is_conversation_event() {
                continue;
            }
            if e.turn >= turn_count || e.turn < last_turn {
                return None;
            }
            if starts[e.turn] == usize::MAX {
                starts[e.turn] = i;
            }
            last_turn = e.turn;
        }
        // A turn without events starts where the next one does.
        let mut next = events.len();
        for s in starts.iter_mut().rev() {
            if *s == usize::MAX {
                *s = next;
            }
            next = *s;
        }
        let mut segments = Vec::with_capacity(turn_count + 1);
        let mut from = 0;
        for &s in &starts {
            segments.push(from..s);
            from = s;
        }
        segments.push(from..events.len());
        let mut me = Stepwise {
            events,
            overlays,
            pairing: Pairing::of(events),
            chars: Fenwick::new(segments.len()),
            segments,
            policies: vec![TurnPolicy::default(); turn_count],
            applied: 0,
        };
        for s in 0..me.segments.len() {
            let c = me.segment_chars(s);
            me.chars.add(s, c as i64);
        }
        Some(me)
    }

    /// The estimate's characters of the current projection.
    pub fn total_chars(&self) -> u64 {
        self.chars.prefix(self.segments.len()) as u64
    }

    /// Applies the next overlay, returning what it changed.
    pub fn step(&mut self) -> Step {
        let k = self.applied;
        self.applied += 1;
        let before = self.total_chars();
        let unchanged = Step {
            chars_before: before,
            chars_after: before,
            changes: false,
            kept_chars: before,
        };
        let c = &self.overlays[k].compaction;
        let Some(last) = self.policies.len().checked_sub(1) else {
            return unchanged;
        };
        if c.from_turn > c.to_turn || c.from_turn > last {
            return unchanged;
        }
        let (lo, hi) = (c.from_turn, c.to_turn.min(last));
        // The turns whose elements may change: the covered ones and the
        // next, where a summary run may now start or end.
        let touched = (lo + 1)..(hi + 2).min(self.segments.len() - 1) + 1;
        let old: Vec<Vec<(Sent<'a>, u64)>> =
            touched.clone().map(|s| self.segment_sent(s)).collect();
        let key = (c.timestamp, k);
        for t in lo..=hi {
            let mut next = self.policies[t];
            let wins = |w: Option<usize>| w.is_none_or(|w| key > self.key_of(w));
            if c.summary.is_some() && wins(next.summary) {
                next.summary = Some(k);
            }
            if c.strip_reasoning && wins(next.reasoning) {
                next.reasoning = Some(k);
            }
            if c.has_tool_policy() && wins(next.tools) {
                next.tools = Some(k);
            }
            self.policies[t] = next;
        }
        let mut changes = false;
        let mut kept_chars = None;
        for (s, was) in touched.zip(old) {
            let now = self.segment_sent(s);
            if was == now {
                continue;
            }
            changes = true;
            let sum = |l: &[(Sent, u64)]| l.iter().map(|(_, c)| c).sum::<u64>();
            self.chars.add(s, sum(&now) as i64 - sum(&was) as i64);
            if kept_chars.is_none() {
                let same: u64 = was
                    .iter()
                    .zip(&now)
                    .take_while(|(a, b)| a.0 == b.0)
                    .map(|(a, _)| a.1)
                    .sum();
                kept_chars = Some(self.chars.prefix(s) as u64 + same);
            }
        }
        Step {
            chars_before: before,
            chars_after: self.total_chars(),
            changes,
            kept_chars: kept_chars.unwrap_or(before),
        }
    }

    fn key_of(&self, i: usize) -> (Timestamp, usize) {
        (self.overlays[i].compaction.timestamp, i)
    }

    fn segment_chars(&self, s: usize) -> u64 {
        self.segment_sent(s).iter().map(|(_, c)| c).sum()
    }

    /// Segment `s`'s projected elements with the estimate's characters of
    /// each (0 for what the estimate leaves out), as `project` lays them.
    fn segment_sent(&self, s: usize) -> Vec<(Sent<'a>, u64)> {
        let (events, overlays) = (self.events, self.overlays);
        let of = |i: usize| Bounds::of(&overlays[i].compaction);
        let mut out = Vec::new();
        let mut injected = false;
        for i in self.segments[s].clone() {
            let e = &events[i];
            if let Kind::Compaction(_) = e.kind {
                continue;
            }
            let counted = |change: Alteration| match Category::of(&e.kind) {
                Some(_) => sent_chars(e, change, || self.pairing.name(events, i)),
                None => 0,
            };
            if !e.kind.is_conversation_event() {
                out.push((Sent::Raw(i, Alteration::None), counted(Alteration::None)));
                continue;
            }
            let policy = self.policies[e.turn];
            if let Some(w) = policy.summary {
                let run_start = e.turn == 0 || self.policies[e.turn - 1].summary != Some(w);
                if run_start && !injected {
                    injected = true;
                    let text = overlays[w].compaction.summary.as_deref();
                    for (part, chars) in [
                        (SummaryPart::TurnStart, 0),
                        (SummaryPart::Request, SUMMARY_REQUEST.len() as u64),
                        (SummaryPart::Response, text.map_or(0, count_chars)),
                    ] {
                        out.push((Sent::Summary(text, part, e.turn), chars));
                    }
                }
                continue;
            }
            let pair = if e.kind.is_tool() {
                self.pairing.pair_bytes(events, i)
            } else {
                0
            };
            let d = decide(e, &policy, &of, pair, || self.pairing.name(events, i));
            if d.is_sent() {
                out.push((Sent::Raw(i, d.change), counted(d.change)));
            }
        }
        out
    }
}
