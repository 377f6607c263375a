//! The simulation grid: every conversation under every policy at every
//! window, spread over the machine's cores.

use crate::core::auto::AutoConfig;
use crate::core::auto::run::{Run, Strategy};
use crate::core::auto::simulate;
use crate::core::auto::sweep::Sweep;
use crate::core::compact::budget::Budget;
use crate::core::cost::{Billed, Prices};
use crate::core::error::Result;
use crate::core::error::SummarizeError;
use crate::core::facts::Survival;
use crate::core::model::compaction::Compaction;
use crate::core::model::conversation::Conversation;
use crate::core::summarize::Summarizer;
use crate::core::summarize::config::SummarizerKind;
use std::path::Path;

/// One run of the grid: which conversation (an index), policy and window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimulationJob {
    pub conversation: usize,
    pub policy: Strategy,
    pub window: u64,
}

/// What a simulation is asked: the policies and windows compared, the
/// configuration they vary, the summarizer by name (with the settings
/// `base` holds for it) and the prices the runs are billed at.
#[derive(Debug, Clone, Copy)]
pub struct Grid<'a> {
    pub policies: &'a [Strategy],
    pub windows: &'a [u64],
    pub base: &'a AutoConfig,
    pub summarizer: SummarizerKind,
    pub prices: &'a Prices,
}

/// Every conversation × policy × window (in that order), each run on one
/// of the machine's cores; results come back in the same order. Each
/// summary is made once for the whole grid.
pub fn simulate_grid(
    convs: &[&Conversation],
    grid: &Grid<'_>,
) -> Result<Vec<(SimulationJob, Run)>, SummarizeError> {
    let Grid {
        policies,
        windows,
        base,
        prices,
        ..
    } = *grid;
    let summarizer = crate::core::summarize::by_name(grid.summarizer, &base.summarizer)?;
    let summarizer = summarizer.as_ref();
    let mut jobs = Vec::new();
    for conversation in 0..convs.len() {
        for &policy in policies {
            for &window in windows {
                jobs.push(SimulationJob {
                    conversation,
                    policy,
                    window,
                });
            }
        }
    }
    let budgets: Vec<Budget> = convs
        .iter()
        .map(|c| super::budget_of(c.merged_config(), None, base))
        .collect();
    let budgets = &budgets;
    let memo = crate::core::summarize::memo::Memo::new(summarizer);
    let summarizer: &dyn Summarizer = &memo;
    let jobs = &jobs;
    crate::core::parallel::each(jobs.len(), |k| {
        let j = jobs[k];
        simulate::run_with(
            convs[j.conversation],
            &budgets[j.conversation],
            j.policy,
            j.window,
            base,
            summarizer,
        )
        .map(|mut r| {
            r.billed = Some(super::cost::bill_run(
                convs[j.conversation],
                &r,
                base,
                prices,
            ));
            (j, r)
        })
    })
    .into_iter()
    .collect()
}

/// What `simulate` is asked.
#[derive(Debug, Clone, Copy)]
pub struct SimulateRequest<'a> {
    /// A file over the default configuration.
    pub config_file: Option<&'a Path>,
    /// Compare as today's jp does (`--as-jp`).
    pub as_jp: bool,
    /// Empty: every policy, or those a sweep changes.
    pub policies: &'a [Strategy],
    /// Empty: [`default_windows`].
    pub windows: &'a [u64],
    pub summarizer: SummarizerKind,
    /// One setting varied over its values.
    pub sweep: Option<&'a Sweep>,
    /// Judge what each run leaves the model knowing.
    pub judge: bool,
    pub prices: &'a Prices,
}

/// What a simulation found.
#[derive(Debug)]
pub struct Simulation {
    /// The configuration the policies are compared under.
    pub base: AutoConfig,
    /// One, unlabelled, without a sweep; one per value with one.
    pub settings: Vec<Setting>,
    /// With a sweep: no compaction at each window, the baseline every
    /// setting is set against (no setting changes it).
    pub baseline: Vec<Total>,
    /// The price each conversation's model is billed at, by conversation.
    pub prices: Vec<crate::core::cost::prices::PriceRef>,
}

/// The runs under one setting, and their totals.
#[derive(Debug)]
pub struct Setting {
    /// The sweep's value (`soft_ratio=0.6`).
    pub label: Option<String>,
    pub runs: Vec<Simulated>,
    pub totals: Vec<Total>,
}

/// One conversation under one policy at one window.
#[derive(Debug)]
pub struct Simulated {
    /// Its index among the conversations simulated.
    pub conversation: usize,
    pub run: Run,
    /// What it leaves the model knowing, when judged.
    pub survival: Option<Survival>,
}

/// Every conversation under each policy and window (and sweep value),
/// with the configuration and summarizer the request names.
pub fn simulate(convs: &[&Conversation], request: &SimulateRequest<'_>) -> Result<Simulation> {
    let mut base = AutoConfig::default();
    if let Some(f) = request.config_file {
        base.apply_file(f)?;
    }
    if request.as_jp {
        base = base.as_jp();
    }
    let windows = if request.windows.is_empty() {
        default_windows(convs, &base)
    } else {
        request.windows.to_vec()
    };
    let variants = match request.sweep {
        Some(sweep) => sweep
            .variants(&base)
            .into_iter()
            .map(|(label, config)| (Some(label), config))
            .collect(),
        None => vec![(None, base.clone())],
    };
    let policies: &[Strategy] = match (request.policies, request.sweep) {
        ([], Some(sweep)) => sweep.knob.strategies(),
        ([], None) => &Strategy::ALL,
        (asked, _) => asked,
    };
    // A conversation's facts are found once, on every core, before any
    // run: each summary and each judgement reads them, and a run must not
    // wait on them inside the pool (see `parallel`).
    if request.judge || policies.iter().any(|p| *p != Strategy::None) {
        for c in convs {
            crate::core::facts::occurrences(c);
        }
    }
    let mut settings = Vec::new();
    for (label, config) in variants {
        let grid = Grid {
            policies,
            windows: &windows,
            base: &config,
            summarizer: request.summarizer,
            prices: request.prices,
        };
        let runs: Vec<(usize, Run)> = simulate_grid(convs, &grid)?
            .into_iter()
            .map(|(job, run)| (job.conversation, run))
            .collect();
        let totals = totals(runs.iter().map(|(_, r)| r));
        let mut known = if request.judge {
            survivals(convs, &runs).into_iter().map(Some).collect()
        } else {
            vec![None; runs.len()]
        };
        let runs = runs
            .into_iter()
            .zip(known.drain(..))
            .map(|((conversation, run), survival)| Simulated {
                conversation,
                run,
                survival,
            })
            .collect();
        settings.push(Setting {
            label,
            runs,
            totals,
        });
    }
    let baseline = match request.sweep {
        Some(_) => {
            let grid = Grid {
                policies: &[Strategy::None],
                windows: &windows,
                base: &base,
                summarizer: request.summarizer,
                prices: request.prices,
            };
            let runs = simulate_grid(convs, &grid)?;
            totals(runs.iter().map(|(_, r)| r))
        }
        None => Vec::new(),
    };
    Ok(Simulation {
        base,
        settings,
        baseline,
        prices: convs
            .iter()
            .map(|c| super::cost::price_of(c, request.prices))
            .collect(),
    })
}

/// What each of `results` leaves the model knowing, each conversation's
/// facts found once for all its runs.
fn survivals(convs: &[&Conversation], results: &[(usize, Run)]) -> Vec<Survival> {
    let mut out = vec![Survival::default(); results.len()];
    for (ci, conv) in convs.iter().enumerate() {
        let mine: Vec<usize> = (0..results.len()).filter(|&k| results[k].0 == ci).collect();
        let runs: Vec<&[Compaction]> = mine
            .iter()
            .map(|&k| results[k].1.compactions.as_slice())
            .collect();
        for (k, known) in mine.into_iter().zip(super::knows::of_runs(conv, &runs)) {
            out[k] = known;
        }
    }
    out
}

/// The windows a simulation compares when none are asked for.
pub const DEFAULT_WINDOWS: [u64; 4] = [32_000, 64_000, 128_000, 200_000];

/// The default windows and each conversation's own (a 1M-token model is
/// compared at 1M too), in order, each once.
pub fn default_windows(convs: &[&Conversation], config: &AutoConfig) -> Vec<u64> {
    let mut windows: Vec<u64> = DEFAULT_WINDOWS.to_vec();
    for c in convs {
        if let Some(w) = super::budget(c, config, None).window.as_ref() {
            windows.push(w.tokens);
        }
    }
    windows.sort_unstable();
    windows.dedup();
    windows
}

/// One policy at one window, summed over every conversation simulated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Total {
    pub policy: Strategy,
    pub window: u64,
    pub conversations: usize,
    /// The highest context ratio any conversation reached.
    pub peak_ratio: f64,
    pub overflows: usize,
    pub requests: usize,
    pub input_tokens: u64,
    pub elisions: usize,
    pub summaries: usize,
    pub summarizer_input_tokens: u64,
    pub summarizer_output_tokens: u64,
    pub cost: u64,
    pub backstop_elisions: usize,
    /// The bills of the runs priced in dollars, added up.
    pub billed: Option<Billed>,
    /// The bills of the runs of models without a price, in input-token
    /// equivalents, added up apart (a sum of dollars and tokens means
    /// nothing).
    pub billed_unpriced: Option<Billed>,
    /// How many runs are in `billed_unpriced`.
    pub unpriced: usize,
}

impl Total {
    /// `$12.34`, `$12.34 + 1 unpriced (45,678 tok-eq)`, `45,678 tok-eq`,
    /// of what `f` takes from each sum. A total with requests the API
    /// would have refused gets no figure, as a run's row does: what the
    /// rest paid is no bill of sessions that never got through, and beside
    /// the other totals it would read as the cheapest.
    pub fn billed_text(&self, f: fn(&Billed) -> f64) -> String {
        match self.refused() {
            0 => self.billed_figure(f),
            n => format!("— ({n} refused)"),
        }
    }

    fn billed_figure(&self, f: fn(&Billed) -> f64) -> String {
        match (&self.billed, &self.billed_unpriced) {
            (Some(usd), None) => usd.unit.format(f(usd)),
            (Some(usd), Some(tok)) => format!(
                "{} + {} unpriced ({})",
                usd.unit.format(f(usd)),
                self.unpriced,
                tok.unit.format(f(tok))
            ),
            (None, Some(tok)) => tok.unit.format(f(tok)),
            (None, None) => "-".into(),
        }
    }

    /// The change of input tokens from `base` (the same window without
    /// compaction): `-0.183` for 18.3 % fewer.
    pub fn input_vs(&self, base: &Total) -> Option<f64> {
        (base.input_tokens > 0).then(|| self.input_tokens as f64 / base.input_tokens as f64 - 1.0)
    }

    /// The change of the bill from `base`; `None` where they do not
    /// compare: either has requests the API would have refused (what was
    /// not billed is no saving), or a part billed in another unit.
    pub fn billed_vs(&self, base: &Total) -> Option<f64> {
        if self.refused() > 0 || base.refused() > 0 {
            return None;
        }
        match (
            &self.billed,
            &base.billed,
            &self.billed_unpriced,
            &base.billed_unpriced,
        ) {
            (Some(a), Some(b), None, None) if b.total > 0.0 => Some(a.total / b.total - 1.0),
            (None, None, Some(a), Some(b)) if b.total > 0.0 => Some(a.total / b.total - 1.0),
            _ => None,
        }
    }

    /// Requests over the window, which the API would have refused.
    pub fn refused(&self) -> usize {
        self.billed.map_or(0, |b| b.refused) + self.billed_unpriced.map_or(0, |b| b.refused)
    }
}

/// The runs summed per policy and window, in the order they first appear.
pub fn totals<'a>(runs: impl IntoIterator<Item = &'a Run>) -> Vec<Total> {
    let mut out: Vec<Total> = Vec::new();
    for r in runs {
        let i = match out
            .iter()
            .position(|t| t.policy == r.policy && t.window == r.window)
        {
            Some(i) => i,
            None => {
                out.push(Total {
                    policy: r.policy,
                    window: r.window,
                    ..Total::default()
                });
                out.len() - 1
            }
        };
        let t = &mut out[i];
        t.conversations += 1;
        t.peak_ratio = t.peak_ratio.max(r.peak_ratio);
        t.overflows += r.overflows;
        t.requests += r.requests;
        t.input_tokens += r.input_tokens;
        t.elisions += r.elisions;
        t.summaries += r.summaries;
        t.summarizer_input_tokens += r.summarizer_input_tokens;
        t.summarizer_output_tokens += r.summarizer_output_tokens;
        t.cost += r.cost();
        t.backstop_elisions += r.backstop_elisions;
        if let Some(b) = r.billed {
            let (sum, unpriced) = match b.unit {
                crate::core::cost::Unit::Usd => (&mut t.billed, false),
                crate::core::cost::Unit::InputTokens => (&mut t.billed_unpriced, true),
            };
            match sum {
                Some(s) => s.add(&b),
                None => *sum = Some(b),
            }
            t.unpriced += usize::from(unpriced);
        }
    }
    out
}
