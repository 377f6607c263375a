//! What a preview or a write changes: compactions to add or remove, why,
//! and the estimate before and after.

use crate::core::auto::{ActionKind, Note};
use crate::core::compact::reset::Reset;
use crate::core::compact::rule::Rule;
use crate::core::model::TurnRange;
use crate::core::model::compaction::Compaction;
use crate::core::store::edit::Edit;
use crate::core::store::edit::Removal;

/// Which use case made the plan.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanKind {
    /// Manual compactions from inline rules.
    Rules,
    /// What automatic compaction appends now.
    Auto,
    /// Removing compactions.
    Reset(Reset),
}

/// Why a compaction is added.
#[derive(Debug, Clone, PartialEq)]
pub enum Why {
    /// An inline rule, as typed.
    Rule { spec: String, rule: Rule },
    /// A stage of the automatic policy.
    Auto(ActionKind),
}

/// A compaction the plan appends.
#[derive(Debug, Clone, PartialEq)]
pub struct Addition {
    pub compaction: Compaction,
    /// The range asked for, before a summary grew it over older summaries.
    pub requested: TurnRange,
    pub why: Why,
    /// Characters a summarizer read to write it (0 when none ran).
    pub summarizer_input_chars: u64,
    /// What it saves given the stored compactions and the additions before
    /// it; the savings add up to the plan's.
    pub effect: super::impact::Impact,
    /// The turns of the latest earlier compaction it overlaps, whose work
    /// it undoes where it raises the estimate.
    pub overlaps: Option<TurnRange>,
}

impl Addition {
    pub fn range(&self) -> TurnRange {
        self.compaction.range()
    }

    pub fn extended(&self) -> bool {
        self.range() != self.requested
    }

    /// What it does to the estimate, in words, when it raises it: a rule
    /// lighter than an earlier compaction over the same turns wins there.
    /// Only a compaction that overlaps an earlier one can let anything
    /// back in; a summary longer than the turns it replaces simply adds.
    pub fn raises(&self) -> Option<String> {
        if self.effect.saved >= 0 {
            return None;
        }
        let tokens = crate::core::fmt::count(self.effect.saved.unsigned_abs(), "token");
        Some(match self.overlaps {
            Some(earlier) => format!(
                "raises the estimate by {tokens}: it lets back in what an earlier compaction \
                 of turns {} took out",
                earlier.human()
            ),
            None => {
                let range = self.range();
                let turns = match range.turns() {
                    1 => format!("turn {}", range.from + 1),
                    _ => format!("turns {}", range.human()),
                };
                let what = if self.compaction.summary.is_some() {
                    "the summary is"
                } else {
                    "it is"
                };
                format!("{what} longer than the {turns} it replaces: adds {tokens} a request")
            }
        })
    }

    /// The rule as typed, or the automatic stage.
    pub fn label(&self) -> &str {
        match &self.why {
            Why::Rule { spec, .. } => spec,
            Why::Auto(kind) => kind.as_str(),
        }
    }

    /// Its label as a sentence names it: a rule as typed in backticks
    /// (`s:30..30`), a name as words ("jp's default rule").
    pub fn named(&self) -> String {
        match &self.why {
            Why::Rule { spec, .. } if crate::core::compact::rule::parse(spec).is_ok() => {
                format!("`{spec}`")
            }
            _ => self.label().to_string(),
        }
    }
}

/// A rule that selected no turns, so nothing is written for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub spec: String,
    pub reason: String,
    /// It was planned and changes nothing the model is sent: written only
    /// when the person insists (the CLI's `--force`).
    pub no_op: bool,
}

/// Estimated tokens of the projected events before and after the plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tokens {
    pub before: u64,
    pub after: u64,
}

/// One plan type for every use case.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub kind: PlanKind,
    pub additions: Vec<Addition>,
    pub skipped: Vec<Skipped>,
    /// What a reset removes (`Removal::None` otherwise).
    pub removal: Removal,
    /// How many stored compactions the removal takes away.
    pub removes: usize,
    /// Why: the trigger's notes, or the rules' timeline, and where
    /// today's jp would do more.
    pub notes: Vec<PlanNote>,
    pub tokens: Tokens,
    /// The summaries a preview did not make, so as not to send the
    /// conversation anywhere unasked: such a plan is never written.
    pub withheld: Option<WithheldSummaries>,
}

/// One line of a plan's reasons.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanNote {
    /// A step the automatic policy took.
    Trigger(Note),
    /// A line of jp's timeline after compacting: turns kept, or compacted.
    Timeline { compacted: bool, line: String },
    /// Where today's jp would do more than jp-inspect (an `over` bound).
    JpDiffers(String),
}

impl PlanNote {
    /// How much it decides that nothing is written: a compaction tried and
    /// not written, then a policy that did not run at all, then the rest.
    fn weight(&self) -> u8 {
        use crate::core::auto::decision::Note;
        match self {
            PlanNote::Trigger(Note::SavesNothing { .. } | Note::Superseded { .. }) => 3,
            PlanNote::Trigger(Note::Disabled | Note::WindowUnknown | Note::TooFewTurns { .. }) => 2,
            PlanNote::Trigger(Note::RangeEmpty { .. } | Note::AboveSoftAtFloor { .. }) => 1,
            _ => 0,
        }
    }

    /// Whether it says what is appended (a firing, a compacted range).
    pub fn is_action(&self) -> bool {
        matches!(
            self,
            PlanNote::Trigger(Note::Fired { .. })
                | PlanNote::Timeline {
                    compacted: true,
                    ..
                }
        )
    }
}

impl std::fmt::Display for PlanNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanNote::Trigger(n) => n.fmt(f),
            PlanNote::Timeline { line, .. } | PlanNote::JpDiffers(line) => f.write_str(line),
        }
    }
}

impl serde::Serialize for PlanNote {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// What making a preview's summaries would send, and to whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WithheldSummaries {
    pub summarizer: String,
    /// Where the summarizer sends the ranges, in words.
    pub destination: String,
    /// The turns each summary covers.
    pub ranges: Vec<TurnRange>,
    /// Characters that would be sent: the instructions and the rendered
    /// raw events of every range.
    pub input_chars: u64,
}

impl WithheldSummaries {
    /// "the summary of turns 2..9 was not made: it sends 48,210 characters
    /// to https://… (model)".
    pub fn describe(&self) -> String {
        let ranges: Vec<String> = self.ranges.iter().map(TurnRange::human).collect();
        format!(
            "the {} of turns {} {} not made: making {} sends {} to {} (the `{}` summarizer)",
            if self.ranges.len() == 1 {
                "summary"
            } else {
                "summaries"
            },
            ranges.join(", "),
            if self.ranges.len() == 1 {
                "was"
            } else {
                "were"
            },
            if self.ranges.len() == 1 { "it" } else { "them" },
            crate::core::fmt::count(self.input_chars, "character"),
            self.destination,
            self.summarizer
        )
    }
}

impl Plan {
    /// The notes with the one that decided nothing was written first (a
    /// compaction tried and not written before "below the hard
    /// threshold"), the others in their order after it.
    pub fn notes_deciding_first(&self) -> Vec<&PlanNote> {
        let mut notes: Vec<&PlanNote> = self.notes.iter().collect();
        let deciding = notes
            .iter()
            .enumerate()
            .max_by_key(|(i, n)| (n.weight(), *i))
            .map(|(i, _)| i);
        if let Some(i) = deciding {
            let n = notes.remove(i);
            notes.insert(0, n);
        }
        notes
    }

    /// Why nothing is written, the deciding reason first.
    pub fn why_nothing(&self) -> String {
        self.notes_deciding_first()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// The compactions the plan appends.
    pub fn compactions(&self) -> Vec<Compaction> {
        self.additions
            .iter()
            .map(|a| a.compaction.clone())
            .collect()
    }

    /// Whether writing the plan would change nothing.
    pub fn is_empty(&self) -> bool {
        self.additions.is_empty() && self.removes == 0
    }

    /// The edit that carries the plan out.
    pub fn edit(&self) -> Edit {
        Edit {
            remove: self.removal.clone(),
            restore: Vec::new(),
            append: self.compactions(),
            basis: None,
        }
    }

    /// The staged policy's summary this plan did not buy, if any.
    pub fn withheld_summary(&self) -> Option<&crate::core::auto::decision::Note> {
        self.notes.iter().find_map(|n| match n {
            PlanNote::Trigger(note @ crate::core::auto::decision::Note::SummaryWithheld { .. }) => {
                Some(note)
            }
            _ => None,
        })
    }

    /// Drops the `k`-th addition (a previewed compaction the person
    /// deleted before writing).
    pub fn drop_addition(&mut self, k: usize) {
        if k < self.additions.len() {
            self.additions.remove(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::auto::decision::{ActionKind, Note, Threshold};

    fn plan(notes: Vec<PlanNote>) -> Plan {
        Plan {
            kind: PlanKind::Auto,
            additions: Vec::new(),
            skipped: Vec::new(),
            removal: Removal::None,
            removes: 0,
            notes,
            tokens: Tokens::default(),
            withheld: None,
        }
    }

    /// Why nothing fired starts with the reason that decided it: the
    /// elision tried and not written, not the last step's "below the hard
    /// threshold".
    #[test]
    fn the_deciding_reason_comes_first() {
        let above = Note::AboveThreshold {
            which: Threshold::Soft,
            estimate: 120,
            threshold: 110,
        };
        let nothing = Note::SavesNothing {
            kind: ActionKind::Elision,
            range: TurnRange { from: 1, to: 3 },
            saved: 0,
        };
        let below = Note::BelowThreshold {
            which: Threshold::Hard,
            estimate: 120,
            threshold: 156,
        };
        let p = plan(vec![
            PlanNote::Trigger(above.clone()),
            PlanNote::Trigger(nothing.clone()),
            PlanNote::Trigger(below.clone()),
        ]);
        let why = p.why_nothing();
        assert!(why.starts_with(&nothing.to_string()), "{why}");
        assert!(why.contains(&below.to_string()), "{why}");
        // With nothing tried, the order is the policy's.
        let p = plan(vec![PlanNote::Trigger(below.clone())]);
        assert_eq!(p.why_nothing(), below.to_string());
    }
}
