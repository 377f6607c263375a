//! The work done off the UI thread: loads, previews (which may call a slow
//! summarizer), writes, simulations, searches and highlighting. `execute`
//! is a plain function, so tests run jobs inline; the `Worker` runs them on
//! a thread and sends the results back. Every job is a call into the core.

use super::highlight;
use super::inspection::Inspection;
use super::job::{
    ConfigFile, Done, FactsGot, FactsWant, Job, JobResult, Loaded, PreviewRequest, Previewed,
};
use crate::core::error::Error;
use crate::core::model::compaction::Compaction;
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp::Timestamp;
use crate::core::ops;
use crate::core::ops::Budget;
use crate::core::ops::View;
use crate::core::ops::boundary::Attempt;
use crate::core::ops::boundary::Boundary;
use crate::core::ops::{AutoConfig, Strategy};
use crate::core::ops::{SummarizerConfig, SummarizerKind};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;

/// Runs one job.
pub fn execute(job: Job) -> JobResult {
    match job {
        Job::Load {
            dir,
            preview,
            config,
            view,
            since,
        } => JobResult::Loaded(loaded(&dir, &preview, config, view, since.as_deref())),
        Job::Preview {
            conv,
            request,
            budget,
            config,
            now,
            view,
            summarize,
        } => JobResult::Previewed(preview(
            conv, request, &budget, &config, now, view, summarize,
        )),
        Job::PreviewReset {
            conv,
            reset,
            budget,
        } => JobResult::ResetPreviewed {
            reset,
            plan: ops::preview_reset(&conv, reset, &budget),
        },
        Job::Write {
            dir,
            change,
            what,
            view,
            undo,
        } => JobResult::Written(written(&dir, &change, what, view, undo)),
        Job::Boundary {
            dir,
            conv,
            config,
            window,
            now,
        } => at_boundary(&dir, &conv, &config, window, now),
        Job::Check { dir, against } => JobResult::Checked(checked(&dir, &against)),
        Job::History {
            conv,
            config,
            window,
        } => history(&conv, &config, window),
        Job::AsOf { conv, end, view } => JobResult::AsOf {
            end,
            inspection: Box::new(Inspection::build_at(conv, &[], view, Some(end))),
        },
        Job::Simulate {
            conv,
            windows,
            config,
        } => JobResult::Simulated(simulate(&conv, &windows, &config)),
        Job::Tools {
            conv,
            config,
            window,
        } => JobResult::ToolsReported(Box::new(ops::tools::tools(&[(&conv, &config)], window))),
        Job::Report {
            conv,
            config,
            window,
            view,
            path,
        } => JobResult::ReportWritten(write_report(&conv, &config, window, view, &path)),
        Job::WriteHint { file, tool, hint } => {
            JobResult::HintWritten(ops::hint::write(&file, &tool, &hint).map(|block| (file, block)))
        }
        Job::Details { dirs } => JobResult::Details(details(dirs)),
        Job::ListKnows {
            conv,
            preview,
            view,
        } => JobResult::ListKnows(ops::knows::marks(&conv, &preview, view)),
        Job::RangeFacts {
            conv,
            projection,
            position,
            range,
            want,
        } => range_facts(&conv, &projection, position, range, want),
        Job::Judge(j) => judged(&j),
        Job::Search { conv, query } => {
            let hits = ops::Needle::new(&query).events_in(&conv);
            JobResult::Searched { query, hits }
        }
        Job::Highlight {
            title,
            text,
            language,
            color,
        } => highlighted(title, &text, language.as_deref(), color),
    }
}

/// What a compaction's range still tells the model, as `want` asks it.
fn range_facts(
    conv: &Conversation,
    p: &ops::Projection,
    position: usize,
    range: Option<crate::core::model::TurnRange>,
    want: FactsWant,
) -> JobResult {
    let got = match (want, range) {
        (FactsWant::Trail, Some(r)) => FactsGot::Trail(ops::knows::trail(conv, p, r)),
        (FactsWant::Checklist { text }, Some(r)) => {
            let (facts, sent) = ops::knows::checklist(conv, p, r);
            FactsGot::Checklist { text, facts, sent }
        }
        _ => FactsGot::Detail(ops::knows::detail(conv, p, position, range)),
    };
    JobResult::RangeFacts {
        position,
        range,
        got,
    }
}

/// A compaction's facts judged by the judge `j` names: priced only, or
/// asked (the person said yes to the price).
fn judged(j: &crate::tui::job::JudgeJob) -> JobResult {
    use crate::tui::job::JudgeOutcome;
    let mut quote = None;
    let outcome = ops::knows::detail_judged(
        &j.conv,
        &j.projection,
        j.position,
        j.range,
        &j.config,
        j.kind,
        crate::user_file::known_prices(),
        &mut |q| {
            quote = Some(q.clone());
            j.ask
        },
    )
    .map(|detail| {
        if j.ask {
            JudgeOutcome::Judged(detail)
        } else {
            JudgeOutcome::Quote(quote.take())
        }
    })
    .map_err(|e| e.to_string());
    JobResult::Judge {
        position: j.position,
        kind: j.kind,
        outcome,
    }
}

/// What changed on disk since `against` was read.
fn checked(dir: &Path, against: &Conversation) -> Result<ops::changes::Changes, Error> {
    let read = ops::read::read(ops::read::ReadRequest {
        dir,
        since: None,
        changes: false,
        config: None,
        jp: None,
    })?;
    Ok(ops::changes::between(against, &read.conversation))
}

/// The picker's columns of each conversation in `dirs`, read.
fn details(
    dirs: Vec<std::path::PathBuf>,
) -> Vec<(std::path::PathBuf, Result<ops::catalog::Details, String>)> {
    dirs.into_iter()
        .map(|d| {
            let details = ops::catalog::details(&d).map_err(|e| e.to_string());
            (d, details)
        })
        .collect()
}

/// A write (a plan or an undo), with the screen's model of what it left.
fn written(
    dir: &Path,
    change: &crate::tui::job::Writing,
    what: String,
    view: View,
    undo: crate::tui::job::UndoKind,
) -> crate::core::error::Result<crate::tui::job::Written> {
    write(dir, change).map(|s| {
        let what = if s.written {
            what
        } else {
            "nothing changed on disk".to_string()
        };
        crate::tui::job::Written {
            inspection: Box::new(Inspection::build(Arc::new(s.conversation), &[], view)),
            what,
            written: s.written,
            inverse: s.inverse,
            undo,
        }
    })
}

/// The session's requests with the context each was sent, and its bill.
fn history(conv: &Conversation, config: &AutoConfig, window: Option<u64>) -> JobResult {
    let session = ops::session::session(conv, config, window, crate::user_file::known_prices());
    JobResult::History(session.points, Box::new(session.cost))
}

/// A text highlighted for the detail view: Markdown rendered, code coloured.
fn highlighted(title: String, text: &str, language: Option<&str>, color: bool) -> JobResult {
    JobResult::Highlighted {
        title,
        lines: match language {
            Some("md") => crate::tui::markdown::render(text, color),
            _ => highlight::highlight(text, language),
        },
    }
}

/// The conversation read (again, after jp wrote: only what it appended),
/// with the screen's model of it.
fn loaded(
    dir: &Path,
    preview: &[Compaction],
    config: Option<ConfigFile>,
    view: View,
    since: Option<&Conversation>,
) -> crate::core::error::Result<Box<Loaded>> {
    let r = ops::read::read(ops::read::ReadRequest {
        dir,
        since,
        changes: true,
        config: config.as_ref().map(|f| f.file.as_deref()),
        jp: config.as_ref().and_then(|f| f.jp.as_ref()),
    })?;
    Ok(Box::new(Loaded {
        changes: r.changes,
        read: r.how,
        dir: r.dir,
        inspection: Box::new(Inspection::build(Arc::new(r.conversation), preview, view)),
        config: r.config,
    }))
}

fn preview(
    conv: Arc<Conversation>,
    request: PreviewRequest,
    budget: &Budget,
    config: &AutoConfig,
    now: Timestamp,
    view: View,
    call_summarizer: bool,
) -> Result<Previewed, Error> {
    let rules;
    let of = match &request {
        PreviewRequest::Auto => ops::PreviewOf::Auto,
        PreviewRequest::Rule { spec, rule } => {
            // Parsed as `compact` parses a typed rule; the summary editor's
            // carries its text.
            rules = [(spec.clone(), (**rule).clone())];
            ops::PreviewOf::Rules(&rules)
        }
    };
    let plan = ops::preview(
        &conv,
        &ops::PreviewAsk {
            of,
            config,
            budget,
            now,
            view,
            call_summarizer,
        },
    )?;
    let inspection = Box::new(Inspection::build(conv, &plan.compactions(), view));
    // Judged in the projection the inspection just made with the plan.
    let knows = ops::knows::of_additions_in(&inspection.conv, &plan, &inspection.projection);
    Ok(Previewed {
        request,
        plan,
        inspection,
        knows,
    })
}

/// The simulation view's grid. It replays every boundary of every policy,
/// so it uses the offline digest summarizer whatever is configured: a view
/// opened with one key must not call a paid model hundreds of times.
fn simulate(
    conv: &Conversation,
    windows: &[u64],
    config: &AutoConfig,
) -> Result<Vec<crate::core::ops::Run>, Error> {
    let mut base = config.clone();
    base.summarizer = SummarizerConfig::Digest;
    let grid = ops::Grid {
        policies: &Strategy::ALL,
        windows,
        base: &base,
        summarizer: SummarizerKind::Digest,
        prices: crate::user_file::known_prices(),
    };
    let grid = ops::simulate_grid(&[conv], &grid)?;
    Ok(grid.into_iter().map(|(_, r)| r).collect())
}

/// A thread running jobs in order, reporting each result with the
/// generation it was asked for.
pub struct Worker {
    jobs: Sender<(u64, Job)>,
    /// Finding and judging facts, beside the queue and one at a time: a
    /// long session's facts must not hold back a preview asked for
    /// meanwhile, nor many of them run at once.
    facts: Sender<(u64, Job)>,
    pub results: Receiver<Done>,
}

impl Worker {
    pub fn start() -> Worker {
        let (outbox, results) = channel();
        Worker {
            jobs: serve("jp-inspect-worker", outbox.clone()),
            facts: serve("jp-inspect-facts", outbox),
            results,
        }
    }

    pub fn submit(&self, generation: u64, job: Job) {
        let lane = match job {
            Job::ListKnows { .. } | Job::RangeFacts { .. } => &self.facts,
            _ => &self.jobs,
        };
        let _ = lane.send((generation, job));
    }
}

/// A thread named `name` running the jobs sent to it in order, each
/// result sent to `outbox`.
fn serve(name: &str, outbox: Sender<Done>) -> Sender<(u64, Job)> {
    let (jobs, inbox) = channel::<(u64, Job)>();
    thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            for (generation, job) in inbox {
                let result = execute(job);
                if outbox.send(Done { generation, result }).is_err() {
                    break;
                }
            }
        })
        .expect("starting a worker thread");
    jobs
}

/// `A` at a turn boundary: what automatic compaction appends, retried
/// while the file keeps changing under it.
fn at_boundary(
    dir: &std::path::Path,
    conv: &Conversation,
    config: &crate::core::ops::AutoConfig,
    window: Option<u64>,
    now: crate::core::model::timestamp::Timestamp,
) -> JobResult {
    // What jp left at the boundary: the file as it is now, in the copy jp
    // reads. The conversation shown may have been read between jp's
    // writes (its two copies, a turn written in parts), and judged on it
    // `A` would give other reasons than `watch` at the same boundary.
    let read = ops::read::read(ops::read::ReadRequest {
        dir,
        since: Some(conv),
        changes: false,
        config: None,
        jp: None,
    });
    let conv = match read {
        Ok(r) => r.conversation,
        Err(e) => return JobResult::Boundary(conv.turn_count, Err(e)),
    };
    let turns = conv.turn_count;
    // `A` is the user asking for it here: a configuration that leaves it
    // disabled doesn't stop it (the status says so).
    let at = ops::boundary::AtBoundary {
        window_override: window,
        now,
        force: true,
        dry_run: false,
        summarizer: None,
        summarize: true,
    };
    JobResult::Boundary(
        turns,
        match ops::boundary::step(dir, conv, |_| Ok(config.clone()), &at) {
            Attempt::Fired(_, plan) => Ok(Boundary::Fired(plan)),
            Attempt::WouldFire(_, plan) => Ok(Boundary::WouldFire(plan)),
            Attempt::Skipped(_, why) => Ok(Boundary::Skipped(why)),
            Attempt::KeptChanging => Ok(Boundary::Skipped(
                "the conversation kept changing; trying again at the next turn".into(),
            )),
            Attempt::Unreadable(e) | Attempt::Failed(e) => Err(e),
        },
    )
}

/// The report of `conv` (HTML, redacted, the home shortened) written to
/// `path`, as `jp-inspect report` writes it.
fn write_report(
    conv: &Conversation,
    config: &AutoConfig,
    window: Option<u64>,
    view: crate::core::ops::View,
    path: &std::path::Path,
) -> Result<(std::path::PathBuf, usize), String> {
    let request = ops::review::ReviewRequest {
        window,
        view,
        simulate: None,
        judge: None,
    };
    // No judge is asked for: nothing to price.
    let review = ops::review::review(
        conv,
        config,
        &request,
        crate::user_file::known_prices(),
        &mut |_| false,
    )
    .map_err(|e| e.to_string())?;
    let format = crate::report::Format::of_path(path);
    let stem = crate::report::stem_of(path);
    let r = crate::report::render(conv, &review, format, crate::report::Options::safe(), &stem);
    crate::report::write(path, &r).map_err(|e| e.to_string())?;
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    Ok((path, r.redacted.values().sum()))
}

/// A write job's change, through the one write every shell makes.
fn write(
    dir: &std::path::Path,
    change: &crate::tui::job::Writing,
) -> Result<crate::core::ops::Saved, Error> {
    use crate::tui::job::Writing;
    let change = match change {
        Writing::Plan(plan, now) => ops::Change::Plan {
            plan,
            stamp: Some(*now),
            on: None,
        },
        Writing::Inverse(edit) => ops::Change::Inverse(edit),
    };
    ops::write(dir, change, ops::Guard::Strict)
}
