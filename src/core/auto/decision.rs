//! What the trigger decides at a boundary: the compactions to append
//! ([`Append`]s) and every reason, fired or not ([`Note`]s).

use super::config::Mode;
use crate::core::model::TurnRange;
use crate::core::model::compaction::Compaction;
use std::fmt;

/// What kind of automatic compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionKind {
    /// D50's single rolling rule.
    Rule,
    /// The staged policy's soft-threshold elision.
    Elision,
    /// The staged policy's hard-threshold summary.
    Summary,
}

impl ActionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::Rule => "rule",
            ActionKind::Elision => "elision",
            ActionKind::Summary => "summary",
        }
    }
}

/// A compaction the trigger appends.
#[derive(Debug, Clone, PartialEq)]
pub struct Append {
    pub kind: ActionKind,
    /// The rolling range before any summary overlap extension.
    pub requested: TurnRange,
    /// The compaction (a summary's text is empty until [`settle`]).
    pub compaction: Compaction,
}

impl Append {
    pub fn needs_summary(&self) -> bool {
        self.compaction.summary.is_some()
    }

    pub fn range(&self) -> TurnRange {
        TurnRange {
            from: self.compaction.from_turn,
            to: self.compaction.to_turn,
        }
    }
}

/// Which of the configured thresholds a note is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threshold {
    /// D50's single trigger.
    Trigger,
    /// The staged policy's elision threshold.
    Soft,
    /// The staged policy's summary threshold.
    Hard,
}

impl Threshold {
    pub fn as_str(self) -> &'static str {
        match self {
            Threshold::Trigger => "trigger",
            Threshold::Soft => "soft",
            Threshold::Hard => "hard",
        }
    }
}

impl fmt::Display for Threshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the trigger did or did not act: each step it took, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    Disabled,
    WindowUnknown,
    TooFewTurns {
        turns: usize,
        min_turns: usize,
    },
    BelowThreshold {
        which: Threshold,
        estimate: u64,
        threshold: u64,
    },
    AboveThreshold {
        which: Threshold,
        estimate: u64,
        threshold: u64,
    },
    RangeEmpty {
        kind: ActionKind,
        from: usize,
        to: Option<usize>,
        /// The turn an existing compaction reaches past the last one, when
        /// that is why: it covers every future turn as well.
        covered_to: Option<usize>,
    },
    RecentWindow {
        from: usize,
        turns: usize,
        /// Of `turns`, those no summary stands for.
        verbatim: usize,
        tokens: u64,
        budget: u64,
        floored: bool,
    },
    Fired {
        kind: ActionKind,
        range: TurnRange,
        /// The range asked for, when the written one is larger.
        extended_from: Option<TurnRange>,
        /// It grew (also) to land below the soft threshold, not only over
        /// existing summaries.
        hysteresis: bool,
    },
    /// A compaction that would take nothing out of the context (a rule with
    /// nothing to strip in its range, a summary no shorter than the turns
    /// it replaces): not written. `saved` may be negative.
    SavesNothing {
        kind: ActionKind,
        range: TurnRange,
        saved: i64,
    },
    OverBudgetAfter {
        which: Threshold,
        estimate: u64,
        threshold: u64,
    },
    /// An elision the same boundary's summary covers entirely: not written.
    Superseded {
        range: TurnRange,
    },
    /// Hysteresis: the summary reached into the recent window to land below
    /// the soft threshold.
    Hysteresis {
        to: usize,
        estimate: u64,
        threshold: u64,
    },
    /// Hysteresis could not land below the soft threshold: the floor of
    /// verbatim turns alone keeps the estimate above it.
    AboveSoftAtFloor {
        estimate: u64,
        threshold: u64,
        floor: usize,
    },
    /// The staged hard stage's summary was not bought: even an empty one
    /// leaves the context above the hard threshold, and it would take
    /// out less than `min_gain` beyond the boundary's elision.
    SummaryWithheld {
        range: TurnRange,
        estimate: u64,
        threshold: u64,
        gain: u64,
        min_gain: u64,
    },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = |n: &u64| crate::core::fmt::human_tokens(*n);
        match self {
            Note::Disabled => write!(f, "automatic compaction is disabled"),
            Note::WindowUnknown => write!(
                f,
                "window unknown: the model's context window is not known, so automatic \
                 compaction is skipped (set one with --window)"
            ),
            Note::TooFewTurns { turns, min_turns } => {
                write!(f, "too few turns: {turns} (it needs more than {min_turns})")
            }
            Note::BelowThreshold {
                which,
                estimate,
                threshold,
            } => write!(
                f,
                "below threshold: estimate {} <= {which} threshold {}",
                t(estimate),
                t(threshold)
            ),
            Note::AboveThreshold {
                which,
                estimate,
                threshold,
            } => write!(
                f,
                "above the {which} threshold: estimate {} > {}",
                t(estimate),
                t(threshold)
            ),
            Note::RangeEmpty {
                kind,
                covered_to: Some(end),
                ..
            } => write!(
                f,
                "range empty: a compaction reaches turn {}, past the last turn, so it covers \
                 every future turn as well and leaves nothing for the {} (reset it to let \
                 automatic compaction work again)",
                crate::core::fmt::thousands(end.saturating_add(1) as u64),
                kind.as_str()
            ),
            Note::RangeEmpty { kind, from, to, .. } => match to {
                // What the reversed range means: the turns before `from`
                // are done with, the turns after `to` are kept.
                Some(to) => write!(
                    f,
                    "range empty: nothing left for the {}: turns 1..{} are kept first or \
                     compacted already, and turns {}.. are the recent ones kept",
                    kind.as_str(),
                    from,
                    to + 2
                ),
                None => write!(
                    f,
                    "range empty: nothing left for the {} between the kept turns",
                    kind.as_str()
                ),
            },
            Note::RecentWindow {
                from,
                turns,
                verbatim,
                tokens,
                budget,
                floored,
            } => {
                let floor = if *floored {
                    ", floored at the minimum turns"
                } else {
                    ""
                };
                if verbatim == turns {
                    write!(
                        f,
                        "recent window: turns {}.. kept verbatim ({turns} turns, {} of the {} \
                         budget{floor})",
                        from + 1,
                        t(tokens),
                        t(budget),
                    )
                } else {
                    // Turns a summary already stands for are in the window,
                    // not verbatim.
                    write!(
                        f,
                        "recent window: turns {}.. ({turns} turns, {} of the {} budget{floor}): \
                         {verbatim} kept verbatim, the others in a summary already",
                        from + 1,
                        t(tokens),
                        t(budget),
                    )
                }
            }
            Note::Fired {
                kind,
                range,
                extended_from,
                hysteresis,
            } => {
                write!(f, "{}: turns {}", kind.as_str(), range.human())?;
                match (extended_from, hysteresis) {
                    (Some(r), false) => {
                        write!(f, " (grown from {} over existing summaries)", r.human())
                    }
                    (Some(r), true) => write!(
                        f,
                        " (grown from {} to land below the soft threshold)",
                        r.human()
                    ),
                    (None, _) => Ok(()),
                }
            }
            Note::SavesNothing { kind, range, saved } => {
                if *saved < 0 {
                    write!(
                        f,
                        "{} of turns {} not written: it would add {} tokens to the context, \
                         not take any out",
                        kind.as_str(),
                        range.human(),
                        saved.unsigned_abs()
                    )
                } else {
                    write!(
                        f,
                        "{} of turns {} not written: it would save nothing (nothing to \
                         strip there)",
                        kind.as_str(),
                        range.human()
                    )
                }
            }
            Note::OverBudgetAfter {
                which,
                estimate,
                threshold,
            } => write!(
                f,
                "still over budget after compaction: estimate {} > {which} threshold {}; \
                 nothing more is done at this boundary",
                t(estimate),
                t(threshold)
            ),
            Note::Superseded { range } => write!(
                f,
                "elision of turns {} not written: the summary at this boundary covers it",
                range.human()
            ),
            Note::Hysteresis {
                to,
                estimate,
                threshold,
            } => write!(
                f,
                "hysteresis: the summary reaches into the recent window up to turn {} to land \
                 below the soft threshold (estimate {} <= {})",
                to + 1,
                t(estimate),
                t(threshold)
            ),
            Note::AboveSoftAtFloor {
                estimate,
                threshold,
                floor,
            } => write!(
                f,
                "hysteresis: the summary cannot land below the soft threshold (estimate {} > {}): \
                 the last {floor} turn(s) stay verbatim whatever they weigh",
                t(estimate),
                t(threshold)
            ),
            Note::SummaryWithheld {
                range,
                estimate,
                threshold,
                gain,
                min_gain,
            } => write!(
                f,
                "summary of turns {} not worth its call: even an empty one leaves {} (> hard {}), \
                 and it takes out {} beyond the elision (< {}): the protected tail and the system \
                 prompt are what is over",
                range.human(),
                t(estimate),
                t(threshold),
                t(gain),
                t(min_gain)
            ),
        }
    }
}

/// The trigger's answer at one boundary.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub mode: Mode,
    pub window: Option<u64>,
    /// Projected tokens before anything is appended.
    pub estimate: u64,
    /// Projected tokens after the actions (summaries counted once settled).
    pub estimate_after: u64,
    pub actions: Vec<Append>,
    pub notes: Vec<Note>,
}

impl Decision {
    pub fn fired(&self) -> bool {
        !self.actions.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reversed_range_is_said_as_what_it_means() {
        let n = Note::RangeEmpty {
            kind: ActionKind::Summary,
            from: 8,
            to: Some(0),
            covered_to: None,
        };
        assert_eq!(
            n.to_string(),
            "range empty: nothing left for the summary: turns 1..8 are kept first or \
             compacted already, and turns 2.. are the recent ones kept"
        );
    }

    #[test]
    fn kept_verbatim_counts_only_the_turns_no_summary_stands_for() {
        let window = |verbatim| Note::RecentWindow {
            from: 1,
            turns: 30,
            verbatim,
            tokens: 4_800,
            budget: 14_000,
            floored: false,
        };
        assert!(
            window(30)
                .to_string()
                .starts_with("recent window: turns 2.. kept verbatim (30 turns"),
            "{}",
            window(30)
        );
        let part = window(10).to_string();
        assert!(
            part.ends_with(": 10 kept verbatim, the others in a summary already"),
            "{part}"
        );
        assert!(!part.contains("turns 2.. kept verbatim"), "{part}");
    }
}
