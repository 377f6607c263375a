//! What a simulation run is: the strategy it replays, the firings, the
//! requests and the measurements of auto.md's table.

use super::config::{AutoConfig, Mode};
use crate::core::auto::decision::ActionKind;
use crate::core::fmt;
use crate::core::model::TurnRange;
use crate::core::model::compaction::Compaction;

/// An automatic compaction strategy, as the simulation compares them
/// (jp calls how one kind of content is treated a policy; this is not one).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Strategy {
    #[default]
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

impl Strategy {
    pub const ALL: [Strategy; 4] = [
        Strategy::None,
        Strategy::Single,
        Strategy::Staged,
        Strategy::StagedBackstop,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::None => "none",
            Strategy::Single => "single",
            Strategy::Staged => "staged",
            Strategy::StagedBackstop => "staged+backstop",
        }
    }

    /// The configuration a policy runs with: `base` (defaults unless the
    /// caller changed them), enabled, in the policy's mode.
    pub fn config(self, base: &AutoConfig) -> Option<AutoConfig> {
        let mode = match self {
            Strategy::None => return None,
            Strategy::Single => Mode::Single,
            Strategy::Staged | Strategy::StagedBackstop => Mode::Staged,
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
    /// Tokens it took out of the context where it was appended (after the
    /// same boundary's compactions before it): never 0, a firing that
    /// saves nothing is none.
    pub saved: u64,
}

/// One model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestPoint {
    pub turn: usize,
    /// Projected tokens of everything before it plus the system prompt.
    pub context: u64,
    /// When the session made it (the answer's timestamp).
    pub at: Option<crate::core::model::timestamp::Timestamp>,
    /// Tokens at its start sent exactly as in the request before (see
    /// `HistoryPoint::kept`).
    pub kept: u64,
    /// Tokens of the answer, up to the next input.
    pub output: u64,
}

impl RequestPoint {
    /// The request as billed, against `usable` (over it, the API would
    /// have refused it).
    pub fn sent(&self, usable: u64) -> crate::core::cost::Sent {
        crate::core::cost::Sent {
            at: self.at,
            context: self.context,
            kept: self.kept,
            output: self.output,
            refused: self.context > usable,
        }
    }
}

/// A run's measurements (auto.md's table).
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub policy: Strategy,
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
    /// What the provider would have billed (`ops` prices the runs it
    /// makes; `None` for a run not yet priced).
    pub billed: Option<crate::core::cost::Billed>,
}

/// Summary output is priced at this many input tokens (auto.md).
use crate::core::cost::billing::OUTPUT_WEIGHT;

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

/// The metric columns of a simulation run (auto.md's table), as the CLI's
/// table and the inspector's simulation view both print them.
pub const RUN_METRICS_HEADER: &str =
    "  peak  over  reqs     input tok  elid  summ   summ in  summ out          cost         billed";

/// The columns a narrow screen keeps: what the simulation is for (how
/// full, how often refused, what is sent and what it costs).
pub const RUN_METRICS_HEADER_NARROW: &str = "  peak  over     input tok  summ         billed";

impl Run {
    /// This run's row under [`RUN_METRICS_HEADER_NARROW`].
    pub fn metrics_row_narrow(&self) -> String {
        format!(
            "{:>5.0}% {:>5} {:>13} {:>5} {}",
            self.peak_ratio * 100.0,
            self.overflows,
            fmt::thousands(self.input_tokens),
            self.summaries,
            self.billed_cell()
        )
    }

    /// The billed figure in its column, what it leaves out after it. A run
    /// whose requests the API would have refused gets no figure: what it
    /// did pay for is no bill of a session that never got through, and
    /// beside the others it would read as the cheapest.
    fn billed_cell(&self) -> String {
        match self.billed {
            Some(b) if b.refused > 0 => format!("{:>14} ({} refused: not billed)", "—", b.refused),
            Some(b) => format!("{:>14}", b.unit.format(b.total)),
            None => format!("{:>14}", "-"),
        }
    }

    /// This run's row under [`RUN_METRICS_HEADER`].
    pub fn metrics_row(&self) -> String {
        format!(
            "{:>5.0}% {:>5} {:>5} {:>13} {:>5} {:>5} {:>9} {:>9} {:>13} {}",
            self.peak_ratio * 100.0,
            self.overflows,
            self.requests,
            fmt::thousands(self.input_tokens),
            self.elisions,
            self.summaries,
            fmt::thousands(self.summarizer_input_tokens),
            fmt::thousands(self.summarizer_output_tokens),
            fmt::thousands(self.cost()),
            self.billed_cell()
        )
    }
}
