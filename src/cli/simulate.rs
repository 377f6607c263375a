//! `simulate`: replay conversations under each policy and window.

use super::Context;
use super::args::SimulateArgs;
use super::output::{print_json, print_lines};
use crate::core::fmt::thousands;
use crate::core::model::conversation::Conversation;
use crate::core::ops;
use crate::core::ops::{Run, Strategy};

pub fn run(ctx: &Context, args: SimulateArgs) -> anyhow::Result<()> {
    let named = ctx.named(&args.convs);
    let convs: Vec<Conversation> = if !named.is_empty() || ctx.demo.is_some() {
        let named = if named.is_empty() { vec![None] } else { named };
        named
            .into_iter()
            .map(|c| ctx.load(c))
            .collect::<Result<_, _>>()?
    } else {
        whole_workspace(ctx)?
    };
    if args.svg.is_some() && args.sweep.is_some() {
        anyhow::bail!("--svg draws one simulation; leave out --sweep to draw it");
    }
    let prices = crate::user_file::prices()?;
    let refs: Vec<&Conversation> = convs.iter().collect();
    let sim = ops::simulate(
        &refs,
        &ops::SimulateRequest {
            config_file: args.config.as_deref(),
            as_jp: args.as_jp,
            policies: &args.policies,
            windows: &args.windows,
            summarizer: args.summarizer,
            sweep: args.sweep.as_ref(),
            // A sweep's table has no room for it; its JSON does.
            judge: args.sweep.is_none() || args.json,
            prices: &prices,
        },
    )?;
    if let Some(sweep) = &args.sweep {
        return sweep_result(&args, sweep, &refs, &sim);
    }
    let Some(setting) = sim.settings.first() else {
        return Ok(());
    };
    if let Some(file) = &args.svg {
        let [conv] = convs.as_slice() else {
            anyhow::bail!(
                "--svg draws one conversation, and {} are simulated: name the one to draw",
                convs.len()
            );
        };
        let runs: Vec<&Run> = setting.runs.iter().map(|r| &r.run).collect();
        crate::chart::save(
            file,
            &crate::chart::simulation::chart(conv, &sim.base, &runs),
        )?;
        super::output::say_err(&format!("wrote {}", file.display()));
    }
    if args.json {
        return print_json(&RunsJson {
            setting: None,
            runs: setting
                .runs
                .iter()
                .map(|r| run_json(refs[r.conversation], r, &sim))
                .collect(),
            totals: setting.totals.iter().map(total_json).collect(),
        });
    }
    let mut lines = table(&convs, &setting.runs);
    if convs.len() > 1 {
        lines.extend(totals_table(&setting.totals));
    }
    lines.extend(legend());
    print_lines(lines)
}

/// `--sweep`: the policies the setting changes (or those asked), once per
/// value, totalled over the conversations: a line per setting and window.
fn sweep_result(
    args: &SimulateArgs,
    sweep: &crate::core::ops::Sweep,
    convs: &[&Conversation],
    sim: &ops::Simulation,
) -> anyhow::Result<()> {
    if args.json {
        return print_json(&SweepJson {
            sweep: sweep.knob.name(),
            baseline: sim.baseline.iter().map(total_json).collect(),
            settings: sim
                .settings
                .iter()
                .map(|s| RunsJson {
                    setting: Some(s.label.as_deref()),
                    runs: s
                        .runs
                        .iter()
                        .map(|r| run_json(convs[r.conversation], r, sim))
                        .collect(),
                    totals: s.totals.iter().map(total_json).collect(),
                })
                .collect(),
        });
    }
    let mut lines = vec![
        format!(
            "{} over {} ({} turns in all)",
            sweep.knob.name(),
            crate::core::fmt::count(convs.len() as u64, "conversation"),
            thousands(convs.iter().map(|c| c.turn_count as u64).sum())
        ),
        format!(
            "{:<22} {:<15} {:>7} {:>6} {:>5} {:>5} {:>13} {:>8} {:>5} {:>5} {:>9} {:>14} {:>14} {:>8}",
            "setting",
            "policy",
            "window",
            "peak",
            "over",
            "reqs",
            "input tok",
            "vs none",
            "elid",
            "summ",
            "summ/100t",
            "billed",
            "without cache",
            "vs none"
        ),
    ];
    let turns: u64 = convs.iter().map(|c| c.turn_count as u64).sum();
    let base = |t: &ops::Total| sim.baseline.iter().find(|b| b.window == t.window);
    let baseline = sim.baseline.iter().map(|t| ("(baseline)", t));
    let swept = sim.settings.iter().flat_map(|s| {
        let label = s.label.as_deref().unwrap_or_default();
        s.totals.iter().map(move |t| (label, t))
    });
    for (label, t) in baseline.chain(swept) {
        let billed = |f: fn(&crate::core::ops::Billed) -> f64| t.billed_text(f);
        let (input_vs, billed_vs) = match base(t).filter(|_| t.policy != Strategy::None) {
            Some(b) => (percent(t.input_vs(b)), percent(t.billed_vs(b))),
            None => (String::new(), String::new()),
        };
        lines.push(format!(
            "{:<22} {:<15} {:>7} {:>5.0}% {:>5} {:>5} {:>13} {:>8} {:>5} {:>5} {:>9.1} {:>14} {:>14} {:>8}",
            label,
            t.policy.as_str(),
            crate::core::fmt::human_tokens(t.window),
            t.peak_ratio * 100.0,
            t.overflows,
            t.requests,
            thousands(t.input_tokens),
            input_vs,
            t.elisions,
            t.summaries,
            t.summaries as f64 * 100.0 / turns.max(1) as f64,
            billed(|b| b.total),
            billed(|b| b.without_cache),
            billed_vs,
        ));
    }
    lines.extend(legend());
    lines.push(
        "vs none: against no compaction at the same window (the baseline rows); \
         a bill is compared only where neither run has requests the API would have refused (—)"
            .into(),
    );
    print_lines(lines)
}

/// `-18.3%`, `+2.0%`; `—` where the two do not compare.
fn percent(change: Option<f64>) -> String {
    match change {
        Some(c) => format!("{:+.1}%", c * 100.0).replace('-', "−"),
        None => "—".into(),
    }
}

/// Every conversation of the workspace; one that can't be read is said on
/// stderr and left out.
pub(super) fn whole_workspace(ctx: &Context) -> anyhow::Result<Vec<Conversation>> {
    let ws = ctx.require_workspace()?;
    let mut convs = Vec::new();
    for e in ws.entries() {
        match crate::core::ops::read::whole(&e.dir) {
            Ok(c) => convs.push(c),
            Err(err) => super::output::say_err(&format!("jp-inspect: left out: {err}")),
        }
    }
    if convs.is_empty() {
        anyhow::bail!(
            "no conversation to simulate in the workspace at {}",
            ws.root.display()
        );
    }
    Ok(convs)
}

fn total_json(t: &ops::Total) -> TotalJson<'_> {
    TotalJson {
        policy: t.policy.as_str(),
        window: t.window,
        conversations: t.conversations,
        peak_ratio: t.peak_ratio,
        overflows: t.overflows,
        requests: t.requests,
        input_tokens: t.input_tokens,
        elisions: t.elisions,
        summaries: t.summaries,
        summarizer_input_tokens: t.summarizer_input_tokens,
        summarizer_output_tokens: t.summarizer_output_tokens,
        cost: t.cost,
        backstop_elisions: t.backstop_elisions,
        billed: &t.billed,
        billed_unpriced: &t.billed_unpriced,
        unpriced: t.unpriced,
        refused: t.refused(),
    }
}
/// The totals across conversations, a line per policy and window.
fn totals_table(totals: &[ops::Total]) -> Vec<String> {
    let n = totals.first().map_or(0, |t| t.conversations);
    let mut lines = vec![
        String::new(),
        format!("all {n} conversations, per policy and window:"),
        format!(
            "{:<17} {:<15} {:>11}  {:>5} {:>5} {:>5} {:>13} {:>5} {:>5} {:>13} {:>14}",
            "",
            "policy",
            "window",
            "peak",
            "over",
            "reqs",
            "input tok",
            "elid",
            "summ",
            "cost",
            "billed"
        ),
    ];
    for t in totals {
        lines.push(format!(
            "{:<17} {:<15} {:>11}  {:>4.0}% {:>5} {:>5} {:>13} {:>5} {:>5} {:>13} {:>14}",
            "total",
            t.policy.as_str(),
            crate::core::fmt::human_tokens(t.window),
            t.peak_ratio * 100.0,
            t.overflows,
            t.requests,
            thousands(t.input_tokens),
            t.elisions,
            t.summaries,
            thousands(t.cost),
            t.billed_text(|b| b.total)
        ));
    }
    lines
}

fn run_json<'a>(
    conv: &Conversation,
    simulated: &'a ops::Simulated,
    sim: &'a ops::Simulation,
) -> RunJson<'a, impl serde::Serialize + 'a> {
    let (r, known) = (&simulated.run, &simulated.survival);
    RunJson {
        conversation: conv.display_id(),
        policy: r.policy.as_str(),
        window: r.window,
        usable: r.usable,
        peak_ratio: r.peak_ratio,
        overflows: r.overflows,
        requests: r.requests,
        input_tokens: r.input_tokens,
        elisions: r.elisions,
        summaries: r.summaries,
        summarizer_input_tokens: r.summarizer_input_tokens,
        summarizer_output_tokens: r.summarizer_output_tokens,
        cost: r.cost(),
        turns: r.turns,
        backstop_elisions: r.backstop_elisions,
        summaries_per_100_turns: r.per_100_turns(r.summaries),
        compactions_per_100_turns: r.per_100_turns(r.firings.len()),
        firings: r
            .firings
            .iter()
            .map(|f| FiringJson {
                after_turn: f.after_turn,
                kind: f.kind.as_str(),
                from_turn: f.range.from,
                to_turn: f.range.to,
                saved: f.saved,
            })
            .collect(),
        survival: known,
        contexts: r.points.iter().map(|p| p.context).collect(),
        billed: &r.billed,
        price: &sim.prices[simulated.conversation],
    }
}

/// What `simulate --json` prints: every run and the totals (with
/// `--sweep`, one of these per setting, beside the baseline).
#[derive(serde::Serialize)]
struct RunsJson<'a, P> {
    #[serde(skip_serializing_if = "Option::is_none")]
    setting: Option<Option<&'a str>>,
    runs: Vec<RunJson<'a, P>>,
    totals: Vec<TotalJson<'a>>,
}

/// What `simulate --sweep … --json` prints.
#[derive(serde::Serialize)]
struct SweepJson<'a, P> {
    sweep: &'static str,
    baseline: Vec<TotalJson<'a>>,
    settings: Vec<RunsJson<'a, P>>,
}

/// One conversation under one policy at one window.
#[derive(serde::Serialize)]
struct RunJson<'a, P> {
    conversation: String,
    policy: &'static str,
    window: u64,
    usable: u64,
    peak_ratio: f64,
    overflows: usize,
    requests: usize,
    input_tokens: u64,
    elisions: usize,
    summaries: usize,
    summarizer_input_tokens: u64,
    summarizer_output_tokens: u64,
    cost: u64,
    turns: usize,
    backstop_elisions: usize,
    summaries_per_100_turns: f64,
    compactions_per_100_turns: f64,
    firings: Vec<FiringJson>,
    survival: &'a Option<ops::Survival>,
    contexts: Vec<u64>,
    billed: &'a Option<ops::Billed>,
    price: &'a P,
}

/// A compaction a run's policy appended.
#[derive(serde::Serialize)]
struct FiringJson {
    after_turn: usize,
    kind: &'static str,
    from_turn: usize,
    to_turn: usize,
    saved: u64,
}

/// One policy at one window, summed over the conversations.
#[derive(serde::Serialize)]
struct TotalJson<'a> {
    policy: &'static str,
    window: u64,
    conversations: usize,
    peak_ratio: f64,
    overflows: usize,
    requests: usize,
    input_tokens: u64,
    elisions: usize,
    summaries: usize,
    summarizer_input_tokens: u64,
    summarizer_output_tokens: u64,
    cost: u64,
    backstop_elisions: usize,
    billed: &'a Option<ops::Billed>,
    billed_unpriced: &'a Option<ops::Billed>,
    unpriced: usize,
    refused: usize,
}
fn table(convs: &[Conversation], results: &[ops::Simulated]) -> Vec<String> {
    // A space after the window: a peak of 10000 % or more fills its column.
    let mut lines = vec![format!(
        "{:<17} {:<15} {:>11} {}",
        "conversation",
        "policy",
        "window/use",
        crate::core::ops::RUN_METRICS_HEADER
    )];
    for simulated in results {
        let (ci, r) = (&simulated.conversation, &simulated.run);
        lines.push(format!(
            "{:<17} {:<15} {:>11} {}",
            convs[*ci].display_id(),
            r.policy.as_str(),
            format!(
                "{}/{}",
                crate::core::fmt::human_tokens(r.window),
                crate::core::fmt::human_tokens(r.usable)
            ),
            r.metrics_row()
        ));
        if r.policy == Strategy::StagedBackstop && r.backstop_elisions > 0 {
            lines.push(format!(
                "    backstop: {} tool result(s) over the bound elided inside turns (a proposal jp cannot store yet)",
                r.backstop_elisions
            ));
        }
        if !r.firings.is_empty() {
            // A long session fires thousands of times: the first and the
            // last say how it goes; `--json` has every one.
            const HEAD: usize = 12;
            const TAIL: usize = 4;
            let n = r.firings.len();
            let shown: Vec<_> = if n > HEAD + TAIL + 1 {
                r.firings[..HEAD]
                    .iter()
                    .map(Some)
                    .chain([None])
                    .chain(r.firings[n - TAIL..].iter().map(Some))
                    .collect()
            } else {
                r.firings.iter().map(Some).collect()
            };
            let fired: Vec<String> = shown
                .into_iter()
                .map(|f| {
                    let Some(f) = f else {
                        return format!("… {} more (--json lists them) …", n - HEAD - TAIL);
                    };
                    format!(
                        "after {} {} {} (saves {})",
                        f.after_turn + 1,
                        f.kind.as_str(),
                        f.range.human(),
                        crate::core::fmt::human_tokens(f.saved)
                    )
                })
                .collect();
            lines.push(format!(
                "    fired ({:.1} compactions, {:.1} summaries per 100 turns): {}",
                r.per_100_turns(r.firings.len()),
                r.per_100_turns(r.summaries),
                fired.join("; ")
            ));
            // What each policy leaves the model knowing, not only tokens.
            if let Some(known) = &simulated.survival {
                lines.push(format!("    keeps {}", known.describe()));
            }
        }
    }
    lines
}

/// What the table's columns mean.
fn legend() -> Vec<String> {
    let mut lines = vec![String::new()];
    lines.push(
        "window/use: the window and what is usable of it once the output reserve is kept free \
         (the model's maximum output, at most half the window: a 32k window keeps 16k free for \
         a model that may answer with 32k or more); \
         context: system prompt + tool definitions + projected events; peak: highest context / \
         usable window over all requests; over: requests whose context exceeds the usable window; \
         input: sum of every request's context; cost = input + summarizer input + 5 x summarizer \
         output (in tokens); billed: what the provider bills with jp's prompt cache on the \
         session's timestamps, answers and summarizer calls included ($ where the model's price \
         is known, else tok-eq: input-token equivalents); a request over the usable window (over) \
         would have been refused by the API and is billed nothing. Turns are 1-based."
            .into(),
    );
    lines
}
