//! User-facing range bounds, resolved against the stream to absolute turns
//! once, when a compaction is created (never at projection time).

use crate::core::error::SummaryOverlap;
use crate::core::model::TurnRange;
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

/// Where a rule's range ends at one side, in jp's config forms
/// (`keep_first`/`keep_last`): a count of turns kept, an absolute turn, a
/// count from the end, a duration, or "after the last compaction".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// `3`: that many turns kept at this end.
    Turns(usize),
    /// `"@4"`: 1-based turn 4 is the first (`keep_first`) or the last
    /// (`keep_last`) one compacted.
    Absolute(usize),
    /// `"-4"`: four turns before the last; at the end, the same as `4`.
    FromEnd(usize),
    /// `keep_first`: the opening window after the conversation's start;
    /// `keep_last`: the trailing window before now.
    Duration(chrono::Duration),
    /// `"last-compaction"` (`"last"`, as jp still reads it): start after
    /// the newest compaction's range; at the end, no bound.
    AfterLastCompaction,
}

impl Keep {
    /// `3`, `@4`, `-4`, `last-compaction` (or `last`), or a duration
    /// humantime understands (`5h`, `2days`, `90m`).
    pub fn parse(s: &str) -> Option<Keep> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("last-compaction") || s.eq_ignore_ascii_case("last") {
            return Some(Keep::AfterLastCompaction);
        }
        if let Some(n) = s.strip_prefix('@') {
            return n
                .parse::<usize>()
                .ok()
                .filter(|&n| n >= 1)
                .map(Keep::Absolute);
        }
        if let Some(n) = s.strip_prefix('-') {
            return n.parse::<usize>().ok().map(Keep::FromEnd);
        }
        if let Ok(n) = s.parse::<usize>() {
            return Some(Keep::Turns(n));
        }
        let d = humantime::parse_duration(s).ok()?;
        chrono::Duration::from_std(d)
            .ok()
            .filter(|d| *d <= Keep::LONGEST)
            .map(Keep::Duration)
    }

    /// The longest duration a keep window can be: longer ones reach past
    /// the dates a timestamp can hold, and no conversation is that old.
    pub const LONGEST: chrono::Duration = chrono::Duration::days(1000 * 366);

    /// Why `s` is no keep window, when it reads as a duration too long to
    /// be one.
    pub fn too_long(s: &str) -> Option<String> {
        let d = humantime::parse_duration(s.trim()).ok()?;
        let long = chrono::Duration::from_std(d).map_or(true, |d| d > Keep::LONGEST);
        long.then(|| {
            format!(
                "`{}` is longer than a keep window can be (1000 years at most)",
                s.trim()
            )
        })
    }
}

impl std::fmt::Display for Keep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Keep::Turns(n) => f.write_str(&crate::core::fmt::count(*n as u64, "turn")),
            Keep::Absolute(n) => write!(f, "up to turn {n}"),
            Keep::FromEnd(n) => write!(
                f,
                "all but the last {}",
                crate::core::fmt::count(*n as u64, "turn")
            ),
            Keep::Duration(d) => match d.to_std() {
                Ok(d) => write!(f, "{}", humantime::format_duration(d)),
                Err(_) => write!(f, "{d}"),
            },
            Keep::AfterLastCompaction => f.write_str("up to the last compaction"),
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
/// after `now` less it; the other forms resolve as range bounds do.
/// `None` is "nothing to compact".
pub fn keep_bounds(
    conv: &Conversation,
    compactions: &[&Compaction],
    first: Keep,
    last: Keep,
    now: Timestamp,
) -> Option<TurnRange> {
    let starts: Vec<Option<Timestamp>> = conv
        .turn_starts()
        .into_iter()
        .map(|i| conv.events[i].timestamp)
        .collect();
    // The turn running at `t`: the last to begin at or before it.
    let turn_at = |t: Timestamp| starts.iter().rposition(|s| s.is_some_and(|s| s <= t));
    let from = match first {
        Keep::Turns(n) => Some(Bound::Absolute(n)),
        Keep::Absolute(n) => Some(Bound::Absolute(n.saturating_sub(1))),
        Keep::FromEnd(n) => Some(Bound::FromEnd(n)),
        Keep::AfterLastCompaction => Some(Bound::AfterLastCompaction),
        Keep::Duration(d) => {
            let opened = conv.events.iter().find_map(|e| e.timestamp)?;
            // Past the last date a timestamp holds, every turn began in it.
            let end = opened.checked_add_signed(d);
            Some(Bound::Absolute(
                end.map_or(Some(conv.turn_count), |end| {
                    Some(turn_at(end).map_or(0, |t| t + 1))
                })?,
            ))
        }
    };
    let to = match last {
        Keep::Turns(n) | Keep::FromEnd(n) => Some(Bound::FromEnd(n)),
        Keep::Absolute(n) => Some(Bound::Absolute(n.saturating_sub(1))),
        Keep::AfterLastCompaction => None,
        // Before the first date a timestamp holds, no turn is left.
        Keep::Duration(d) => Some(Bound::Absolute(turn_at(now.checked_sub_signed(d)?)?)),
    };
    resolve(conv.turn_count, compactions, from, to)
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
#[cfg(test)]
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
#[cfg(test)]
pub fn extend_for_summary(range: TurnRange, compactions: &[&Compaction]) -> TurnRange {
    let summaries: Vec<(usize, usize)> = compactions
        .iter()
        .filter(|c| c.summary.is_some())
        .map(|c| (c.from_turn, c.to_turn))
        .collect();
    extend_over(range, &summaries)
}

/// `extend_for_summary`, as long as no text a person wrote is involved: a
/// range that must grow while it or a summary it touches is authored is
/// refused, naming the range that would fit. Growth not needed (a range
/// already covering every summary it touches) is never refused.
pub fn fit_summary(
    requested: TurnRange,
    compactions: &[&Compaction],
    authored: bool,
) -> Result<TurnRange, SummaryOverlap> {
    let summaries: Vec<&Compaction> = compactions
        .iter()
        .copied()
        .filter(|c| c.summary.is_some() && c.from_turn <= c.to_turn)
        .collect();
    let spans: Vec<(usize, usize)> = summaries.iter().map(|c| (c.from_turn, c.to_turn)).collect();
    let required = extend_over(requested, &spans);
    if required == requested {
        return Ok(requested);
    }
    let touches_authored = summaries
        .iter()
        .any(|c| c.authored && required.intersects(c.from_turn, c.to_turn));
    if authored || touches_authored {
        return Err(SummaryOverlap {
            requested: (requested.from, requested.to),
            required: (required.from, required.to),
            new_is_authored: authored,
        });
    }
    Ok(required)
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
            reasoning_over: None,
            tool_calls: None,
            source: Source::Manual,
            summarizer: None,
            authored: false,
            tool_overrides: Default::default(),
        }
    }

    #[test]
    fn keeps_read_every_form_jp_writes() {
        assert_eq!(Keep::parse("3"), Some(Keep::Turns(3)));
        assert_eq!(Keep::parse("@4"), Some(Keep::Absolute(4)));
        assert_eq!(Keep::parse("@0"), None, "turns are 1-based");
        assert_eq!(Keep::parse("-4"), Some(Keep::FromEnd(4)));
        assert_eq!(
            Keep::parse("last-compaction"),
            Some(Keep::AfterLastCompaction)
        );
        assert_eq!(Keep::parse("LAST"), Some(Keep::AfterLastCompaction));
        assert_eq!(
            Keep::parse("5h"),
            Some(Keep::Duration(chrono::Duration::hours(5)))
        );
        assert_eq!(Keep::parse("-x"), None);
        assert_eq!(Keep::parse("soon"), None);
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
