//! What planning a manual compaction from a rule yields, as data: the range
//! a rule resolves to, the compaction it makes, the reason it makes none,
//! and the timeline `jp` prints. The run that asks a summarizer for text is
//! `ops::rules`, above the summarizers.

use crate::core::compact::range::{self, Keeps};
use crate::core::compact::rule::Rule;
use crate::core::model::TurnRange;
use crate::core::model::compaction::Compaction;
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp::Timestamp;
use chrono::Duration;

/// A compaction ready to append.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub spec: String,
    pub rule: Rule,
    /// The range the rule asked for.
    pub requested: TurnRange,
    /// The compaction, whose range may have grown over existing summaries.
    pub compaction: Compaction,
    /// Characters the summarizer read, if it ran.
    pub summarizer_input_chars: u64,
}

impl Planned {
    pub fn range(&self) -> TurnRange {
        self.compaction.range()
    }

    pub fn extended(&self) -> bool {
        self.range() != self.requested
    }
}

/// One rule's outcome.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Planned(Box<Planned>),
    /// The rule resolved to no turns; nothing is written for it.
    Nothing {
        spec: String,
        reason: String,
    },
}

/// The timestamp for a new compaction: now, but never earlier than an
/// existing one, so the newest compaction wins as the person expects even
/// when the file holds timestamps from a clock ahead of ours.
pub fn next_timestamp(now: Timestamp, existing: &[&Compaction]) -> Timestamp {
    let floor = existing
        .iter()
        .map(|c| c.timestamp + Duration::microseconds(1))
        .max();
    match floor {
        Some(f) if f > now => f,
        _ => now,
    }
}

/// The turns `rule` asks for, seeing `existing` compactions (stored and
/// planned before it); `None` when it selects none.
pub fn requested(
    conv: &Conversation,
    existing: &[&Compaction],
    rule: &Rule,
    keeps: Keeps,
    now: Timestamp,
) -> Option<TurnRange> {
    match rule.range {
        Some(r) => range::resolve(conv.turn_count, existing, r.from, r.to),
        None => {
            let k = rule.keeps.unwrap_or(keeps);
            range::keep_bounds(conv, existing, k.keep_first, k.keep_last, now)
        }
    }
}

/// Why a rule that resolved to no turns plans nothing, in words.
pub fn nothing_reason(turn_count: usize, rule: &Rule, keeps: Keeps) -> String {
    if turn_count == 0 {
        return "the conversation has no turns".into();
    }
    match rule.range {
        Some(_) => {
            format!("the range selects none of the {turn_count} turns there are")
        }
        None => format!(
            "keeping the first {} and the last {} of {} leaves nothing to compact",
            keeps.keep_first,
            keeps.keep_last,
            crate::core::fmt::count(turn_count as u64, "turn")
        ),
    }
}

fn turns_phrase(from: usize, to: usize) -> String {
    if from == to {
        format!("turn {}", from + 1)
    } else {
        format!("turns {}..{}", from + 1, to + 1)
    }
}

/// The timeline `jp` prints after compacting: which turns were kept, which
/// compacted and how (1-based); each line with whether it is a compacted one.
pub fn timeline(turn_count: usize, planned: &[&Planned]) -> Vec<(bool, String)> {
    let mut lines = Vec::new();
    let mut ranges: Vec<(TurnRange, String)> = planned
        .iter()
        .map(|p| {
            let mut how = p.rule.describe();
            if p.extended() {
                how.push_str(&format!(
                    ", grown from {} over existing summaries",
                    p.requested.human()
                ));
            }
            (p.range(), how)
        })
        .collect();
    ranges.sort_by_key(|(r, _)| (r.from, r.to));
    let mut next = 0;
    for (r, how) in &ranges {
        if r.from > next {
            lines.push((false, format!("Kept {}.", turns_phrase(next, r.from - 1))));
        }
        lines.push((
            true,
            format!(
                "Compacted {} ({} total, {how}).",
                turns_phrase(r.from, r.to),
                r.turns()
            ),
        ));
        next = next.max(r.to.saturating_add(1));
    }
    if next < turn_count && !ranges.is_empty() {
        lines.push((
            false,
            format!("Kept {}.", turns_phrase(next, turn_count - 1)),
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::compact::rule;
    use crate::core::model::compaction::Source;
    use crate::core::model::timestamp;

    fn planned(spec: &str, from: usize, to: usize) -> Planned {
        let r = rule::parse(spec).unwrap();
        Planned {
            spec: spec.into(),
            compaction: Compaction {
                timestamp: timestamp::parse("2026-01-01 00:00:00").unwrap(),
                from_turn: from,
                to_turn: to,
                summary: None,
                strip_reasoning: r.reasoning,
                reasoning_over: r.reasoning_over,
                tool_calls: r.tools,
                source: Source::Manual,
                summarizer: None,
                authored: false,
                tool_overrides: Default::default(),
            },
            rule: r,
            requested: TurnRange { from, to },
            summarizer_input_chars: 0,
        }
    }

    #[test]
    fn timeline_reads_like_jp() {
        let p = planned("r+t", 1, 8);
        let lines: Vec<String> = timeline(12, &[&p]).into_iter().map(|(_, l)| l).collect();
        assert_eq!(
            lines,
            vec![
                "Kept turn 1.",
                "Compacted turns 2..9 (8 total, reasoning + tools).",
                "Kept turns 10..12."
            ]
        );
    }

    #[test]
    fn timestamps_never_go_backwards() {
        let now = timestamp::parse("2026-01-01 00:00:00").unwrap();
        let p = planned("r", 0, 0);
        let mut later = p.compaction.clone();
        later.timestamp = timestamp::parse("2030-01-01 00:00:00").unwrap();
        let t = next_timestamp(now, &[&later]);
        assert!(t > later.timestamp);
        assert_eq!(next_timestamp(now, &[]), now);
    }
}
