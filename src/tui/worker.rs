//! The work done off the UI thread: loads, previews (which may call a slow
//! summarizer), writes, simulations, searches and highlighting. `execute`
//! is a plain function, so tests run jobs inline; the `Worker` runs them on
//! a thread and sends the results back.

use super::action::{Done, Job, JobResult, Planned, PreviewRequest};
use super::highlight;
use super::model::Model;
use crate::core::auto::{self, simulate};
use crate::core::compact::plan::{self, Keeps};
use crate::core::compact::projection;
use crate::core::model::compaction::Source;
use crate::core::{
    Conversation, compact::estimate, compact::reset, compact::rule, store::load, store::save,
    summarize,
};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;

/// Runs one job.
pub fn execute(job: Job) -> JobResult {
    match job {
        Job::Load { dir, preview } => JobResult::Loaded(
            load::load(&dir)
                .map(|c| Box::new(Model::build(Arc::new(c), &preview)))
                .map_err(|e| e.to_string()),
        ),
        Job::Plan {
            conv,
            request,
            window,
            config,
            now,
        } => JobResult::Planned(plan_preview(conv, request, window, &config, now)),
        Job::Save { dir, edit, what } => JobResult::Saved(
            save::apply(&dir, &edit)
                .map(|s| {
                    let what = if s.written {
                        what
                    } else {
                        "nothing changed on disk".to_string()
                    };
                    (Box::new(Model::build(Arc::new(s.conversation), &[])), what)
                })
                .map_err(|e| e.to_string()),
        ),
        Job::ResetEstimate { conv, reset } => {
            let p = projection::project(
                &conv.events,
                conv.turn_count,
                reset::remaining(&conv, reset),
            );
            JobResult::ResetEstimated {
                reset,
                tokens: estimate::of_projection(&conv.events, &p).total_tokens(),
            }
        }
        Job::Simulate {
            conv,
            windows,
            config,
        } => JobResult::Simulated(simulate_all(&conv, &windows, &config)),
        Job::Search { conv, query } => {
            let hits = search(&conv, &query);
            JobResult::Searched { query, hits }
        }
        Job::Highlight {
            title,
            text,
            language,
        } => JobResult::Highlighted {
            title,
            lines: highlight::highlight(&text, language.as_deref()),
        },
    }
}

fn plan_preview(
    conv: Arc<Conversation>,
    request: PreviewRequest,
    window: Option<u64>,
    config: &auto::AutoConfig,
    now: crate::core::model::timestamp::Timestamp,
) -> Result<Planned, String> {
    let summarizer = summarize::from_config(&config.summarizer);
    let (compactions, notes) = match &request {
        PreviewRequest::Auto => {
            let mut c = config.clone();
            c.enabled = true;
            let d = auto::evaluate_now(
                &conv,
                projection::overlays(&conv),
                window,
                &c,
                summarizer.as_ref(),
                now,
            )
            .map_err(|e| e.to_string())?;
            let notes = d.notes.iter().map(ToString::to_string).collect();
            (d.actions.into_iter().map(|a| a.compaction).collect(), notes)
        }
        PreviewRequest::Rule(spec) => {
            let r = rule::parse(spec).map_err(|e| e.to_string())?;
            let steps = plan::plan(
                &conv,
                &[(spec.clone(), r)],
                &plan::Options {
                    keeps: Keeps::default(),
                    source: Source::Manual,
                    now,
                    summarizer: summarizer.as_ref(),
                    instructions: config.instructions(),
                },
            )
            .map_err(|e| e.to_string())?;
            let mut compactions = Vec::new();
            let mut notes = Vec::new();
            let planned: Vec<&plan::Planned> = steps
                .iter()
                .filter_map(|s| match s {
                    plan::Step::Planned(p) => Some(p),
                    plan::Step::Nothing { .. } => None,
                })
                .collect();
            notes.extend(plan::timeline(conv.turn_count, &planned));
            for s in &steps {
                match s {
                    plan::Step::Planned(p) => compactions.push(p.compaction.clone()),
                    plan::Step::Nothing { reason, .. } => notes.push(reason.clone()),
                }
            }
            (compactions, notes)
        }
    };
    let model = Box::new(Model::build(conv, &compactions));
    Ok(Planned {
        request,
        compactions,
        notes,
        model,
    })
}

fn simulate_all(
    conv: &Conversation,
    windows: &[u64],
    config: &auto::AutoConfig,
) -> Result<Vec<simulate::Run>, String> {
    let summarizer = summarize::digest::Digest::default();
    let mut base = config.clone();
    base.summarizer = crate::core::summarize::config::SummarizerConfig::Digest;
    let mut runs = Vec::new();
    for &w in windows {
        for p in simulate::Policy::ALL {
            runs.push(simulate::run(conv, p, w, &base, &summarizer).map_err(|e| e.to_string())?);
        }
    }
    Ok(runs)
}

/// Raw events whose text (or raw JSON for events without text) contains
/// `query`, case-insensitively.
pub fn search(conv: &Conversation, query: &str) -> Vec<usize> {
    let needle = query.to_lowercase();
    (0..conv.events.len())
        .filter(|&i| {
            let text = conv.text(i);
            let hay = if text.is_empty() {
                conv.raw(i).to_string()
            } else {
                text
            };
            hay.to_lowercase().contains(&needle)
        })
        .collect()
}

/// A thread running jobs in order, reporting each result with the
/// generation it was asked for.
pub struct Worker {
    jobs: Sender<(u64, Job)>,
    pub results: Receiver<Done>,
}

impl Worker {
    pub fn start() -> Worker {
        let (jobs, inbox) = channel::<(u64, Job)>();
        let (outbox, results) = channel();
        thread::Builder::new()
            .name("jp-inspect-worker".into())
            .spawn(move || {
                for (generation, job) in inbox {
                    let result = execute(job);
                    if outbox.send(Done { generation, result }).is_err() {
                        break;
                    }
                }
            })
            .expect("starting the worker thread");
        Worker { jobs, results }
    }

    pub fn submit(&self, generation: u64, job: Job) {
        let _ = self.jobs.send((generation, job));
    }
}
