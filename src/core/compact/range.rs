//! User-facing range bounds, resolved against the stream to absolute turns
//! once, when a compaction is created (never at projection time).

use crate::core::model::compaction::Compaction;
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp::Timestamp;

/// One end of a range, as a person gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Absolute 0-based turn.
    Absolute(usize),
    /// `n` turns before the last (`FromEnd(0)` is the last turn).
    FromEnd(usize),
    /// One past the highest `to_turn` of any compaction, or 0.
    AfterLastCompaction,
}

pub use crate::core::model::turns::TurnRange;

/// How many turns a rule protects at one end: a count, or (jp's form) a
/// duration such as `"5h"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    Turns(usize),
    /// `keep_first`: the opening window after the conversation's start;
    /// `keep_last`: the trailing window before now.
    Duration(chrono::Duration),
}

impl Keep {
    /// `3`, or a duration humantime understands (`5h`, `2days`, `90m`).
    pub fn parse(s: &str) -> Option<Keep> {
        let s = s.trim();
        if let Ok(n) = s.parse::<usize>() {
            return Some(Keep::Turns(n));
        }
        let d = humantime::parse_duration(s).ok()?;
        chrono::Duration::from_std(d).ok().map(Keep::Duration)
    }
}

impl std::fmt::Display for Keep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Keep::Turns(n) => f.write_str(&crate::core::fmt::count(*n as u64, "turn")),
            Keep::Duration(d) => match d.to_std() {
                Ok(d) => write!(f, "{}", humantime::format_duration(d)),
                Err(_) => write!(f, "{d}"),
            },
        }
    }
}

/// The range used when a rule gives none (compaction.md: default 1 and 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keeps {
    pub keep_first: Keep,
    pub keep_last: Keep,
}

impl Default for Keeps {
    fn default() -> Self {
        Keeps {
            keep_first: Keep::Turns(1),
            keep_last: Keep::Turns(1),
        }
    }
}

/// The turns left between `first` and `last` kept turns, jp's way: a
/// `keep_first` duration protects the turns that began within it after the
/// conversation's first event, a `keep_last` duration the turns that began
/// after `now` less it. `None` is "nothing to compact".
pub fn keep_bounds(
    conv: &Conversation,
    first: Keep,
    last: Keep,
    now: Timestamp,
) -> Option<TurnRange> {
    let last_turn = conv.turn_count.checked_sub(1)?;
    let starts: Vec<Option<Timestamp>> = conv
        .turn_starts()
        .into_iter()
        .map(|i| conv.events[i].timestamp)
        .collect();
    // The turn running at `t`: the last to begin at or before it.
    let turn_at = |t: Timestamp| starts.iter().rposition(|s| s.is_some_and(|s| s <= t));
    let from = match first {
        Keep::Turns(n) => n,
        Keep::Duration(d) => {
            let opened = conv.events.iter().find_map(|e| e.timestamp)?;
            turn_at(opened + d).map_or(0, |t| t + 1)
        }
    };
    let to = match last {
        Keep::Turns(n) => last_turn.checked_sub(n)?,
        Keep::Duration(d) => turn_at(now - d)?,
    };
    (from <= to).then_some(TurnRange { from, to })
}

/// One past the highest `to_turn` of `compactions`, or 0.
pub fn after_last(compactions: &[&Compaction]) -> usize {
    compactions
        .iter()
        .map(|c| c.to_turn.saturating_add(1))
        .max()
        .unwrap_or(0)
}

/// Resolves `from`/`to` (defaults: first and last turn) against a stream of
/// `turn_count` turns. `None` is "nothing to compact": a start beyond the
/// last turn, or an end that would keep more trailing turns than exist, is
/// never clamped back onto a real turn.
pub fn resolve(
    turn_count: usize,
    compactions: &[&Compaction],
    from: Option<Bound>,
    to: Option<Bound>,
) -> Option<TurnRange> {
    let last = turn_count.checked_sub(1)?;
    let from = match from {
        None => 0,
        Some(Bound::Absolute(n)) if n > last => return None,
        Some(Bound::Absolute(n)) => n,
        Some(Bound::FromEnd(n)) => last.saturating_sub(n),
        Some(Bound::AfterLastCompaction) => {
            let pos = after_last(compactions);
            if pos > last {
                return None;
            }
            pos
        }
    };
    let to = match to {
        None => last,
        Some(Bound::Absolute(n)) => n.min(last),
        Some(Bound::FromEnd(n)) if n > last => return None,
        Some(Bound::FromEnd(n)) => last - n,
        Some(Bound::AfterLastCompaction) => after_last(compactions).min(last),
    };
    (from <= to).then_some(TurnRange { from, to })
}

/// `keep_first = K` starts at turn K; `keep_last = L` ends at `last - L`.
pub fn keep(turn_count: usize, keep_first: usize, keep_last: usize) -> Option<TurnRange> {
    resolve(
        turn_count,
        &[],
        Some(Bound::Absolute(keep_first)),
        Some(Bound::FromEnd(keep_last)),
    )
}

/// Grows `range` to the union with every existing *summary* compaction it
/// intersects, repeating until stable: a summary cannot be nested inside or
/// overlap another coherently, so summarising such a range refreshes the
/// whole union from the raw events.
pub fn extend_for_summary(range: TurnRange, compactions: &[&Compaction]) -> TurnRange {
    let summaries: Vec<(usize, usize)> = compactions
        .iter()
        .filter(|c| c.summary.is_some())
        .map(|c| (c.from_turn, c.to_turn))
        .collect();
    extend_over(range, &summaries)
}

/// Grows `range` to the union with every range of `others` it intersects,
/// until stable.
pub fn extend_over(range: TurnRange, others: &[(usize, usize)]) -> TurnRange {
    let mut r = range;
    loop {
        let mut changed = false;
        for &(from, to) in others {
            if from <= to && r.intersects(from, to) {
                let grown = TurnRange {
                    from: r.from.min(from),
                    to: r.to.max(to),
                };
                if grown != r {
                    r = grown;
                    changed = true;
                }
            }
        }
        if !changed {
            return r;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::compaction::Source;
    use crate::core::model::timestamp;

    fn summary(from: usize, to: usize) -> Compaction {
        Compaction {
            timestamp: timestamp::parse("2026-01-01 00:00:00").unwrap(),
            from_turn: from,
            to_turn: to,
            summary: Some("s".into()),
            strip_reasoning: false,
            tool_calls: None,
            source: Source::Manual,
            summarizer: None,
            authored: false,
        }
    }

    #[test]
    fn defaults_cover_everything() {
        assert_eq!(
            resolve(5, &[], None, None),
            Some(TurnRange { from: 0, to: 4 })
        );
        assert_eq!(resolve(0, &[], None, None), None);
    }

    #[test]
    fn from_end_and_absolute() {
        let r = resolve(10, &[], Some(Bound::Absolute(2)), Some(Bound::FromEnd(3)));
        assert_eq!(r, Some(TurnRange { from: 2, to: 6 }));
        // An absolute end past the last turn clamps; a from-end start saturates.
        let r = resolve(10, &[], Some(Bound::FromEnd(20)), Some(Bound::Absolute(50)));
        assert_eq!(r, Some(TurnRange { from: 0, to: 9 }));
    }

    #[test]
    fn empty_range_cases_are_nothing_not_clamped() {
        // Start beyond the last turn.
        assert_eq!(resolve(5, &[], Some(Bound::Absolute(5)), None), None);
        // Keeping more trailing turns than exist.
        assert_eq!(resolve(5, &[], None, Some(Bound::FromEnd(5))), None);
        // Start after end.
        assert_eq!(
            resolve(5, &[], Some(Bound::Absolute(4)), Some(Bound::FromEnd(2))),
            None
        );
        assert_eq!(keep(2, 1, 1), None);
        assert_eq!(keep(3, 1, 1), Some(TurnRange { from: 1, to: 1 }));
    }

    #[test]
    fn after_last_compaction() {
        let a = summary(1, 4);
        let r = resolve(10, &[&a], Some(Bound::AfterLastCompaction), None);
        assert_eq!(r, Some(TurnRange { from: 5, to: 9 }));
        let b = summary(0, 9);
        assert_eq!(
            resolve(10, &[&b], Some(Bound::AfterLastCompaction), None),
            None
        );
    }

    #[test]
    fn summary_overlap_grows_transitively() {
        let a = summary(2, 4);
        let b = summary(4, 7);
        let c = summary(9, 9);
        let r = extend_for_summary(TurnRange { from: 1, to: 2 }, &[&b, &a, &c]);
        assert_eq!(r, TurnRange { from: 1, to: 7 });
        // Containment grows to the enclosing summary.
        let r = extend_for_summary(TurnRange { from: 5, to: 5 }, &[&b]);
        assert_eq!(r, TurnRange { from: 4, to: 7 });
        // Mechanical compactions never extend.
        let mut m = summary(0, 9);
        m.summary = None;
        let r = extend_for_summary(TurnRange { from: 5, to: 5 }, &[&m]);
        assert_eq!(r, TurnRange { from: 5, to: 5 });
    }
}
