//! The simulation grid: every conversation under every policy at every
//! window, spread over the machine's cores.

use crate::core::auto::AutoConfig;
use crate::core::auto::run::{Run, Strategy};
use crate::core::auto::simulate;
use crate::core::compact::budget::Budget;
use crate::core::model::conversation::Conversation;
use crate::core::summarize::{SummarizeError, Summarizer};

/// One run of the grid: which conversation (an index), policy and window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimulationJob {
    pub conversation: usize,
    pub policy: Strategy,
    pub window: u64,
}

/// Every conversation × policy × window (in that order), each run on one
/// of the machine's cores; results come back in the same order.
pub fn simulate_grid(
    convs: &[&Conversation],
    policies: &[Strategy],
    windows: &[u64],
    base: &AutoConfig,
    summarizer: &dyn Summarizer,
) -> Result<Vec<(SimulationJob, Run)>, SummarizeError> {
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
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(jobs.len().max(1));
    let chunks: Vec<&[SimulationJob]> = jobs.chunks(jobs.len().div_ceil(threads).max(1)).collect();
    let results = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|&j| {
                            simulate::run_with(
                                convs[j.conversation],
                                &budgets[j.conversation],
                                j.policy,
                                j.window,
                                base,
                                summarizer,
                            )
                            .map(|r| (j, r))
                        })
                        .collect::<Result<Vec<_>, _>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("simulation thread panicked"))
            .collect::<Result<Vec<_>, _>>()
    })?;
    Ok(results.into_iter().flatten().collect())
}
