//! The session's review as one value: what `history`, `stats`, `lost`,
//! `tools` and (asked for) `simulate` say of one conversation, each from
//! the same use case those commands call, for `report` to lay out on one
//! page. Nothing here is computed a second way.

use super::stats::Stats;
use crate::core::auto::AutoConfig;
use crate::core::auto::history::HistoryPoint;
use crate::core::auto::run::{Run, Strategy};
use crate::core::compact::budget::Budget;
use crate::core::compact::jp_view::View;
use crate::core::cost::Prices;
use crate::core::error::SummarizeError;
use crate::core::facts::Survival;
use crate::core::model::conversation::Conversation;
use crate::core::summarize::config::SummarizerKind;

/// What a person asks a review of.
#[derive(Debug, Clone, Default)]
pub struct ReviewRequest {
    /// The window the figures are measured against, if not the model's.
    pub window: Option<u64>,
    /// Projected as jp-inspect does, or as today's jp (`--as-jp`).
    pub view: View,
    /// Compare the policies at these windows (`simulate`'s grid); empty:
    /// its default windows. `None`: no comparison.
    pub simulate: Option<Vec<u64>>,
    /// Judge the facts again by asking this model or command (`lost`'s
    /// `--judge`).
    pub judge: Option<crate::core::summarize::config::SummarizerKind>,
}

/// One compaction's summary as the stream holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryText {
    /// 0-based among the compaction events, as `Stats::compactions`.
    pub position: usize,
    pub text: String,
    /// Who wrote it: `authored`, a summarizer's name, or jp's own.
    pub by: String,
}

/// The policies compared on this session.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub runs: Vec<Run>,
    /// What each run leaves the model knowing, as `simulate` judges it.
    pub known: Vec<Survival>,
    /// The summarizer the runs' summaries were written by.
    pub summarizer: &'static str,
}

/// Everything the report shows.
#[derive(Debug, Clone)]
pub struct Review {
    /// `stats` with what each compaction hid and what the model no longer
    /// knows of its range (`lost`).
    pub stats: Stats,
    /// `lost`'s session line: what the compactions keep of all facts.
    pub session_knows: Survival,
    /// `history`: every request with the context it was sent.
    pub history: Vec<HistoryPoint>,
    /// `history`'s bill.
    pub cost: super::cost::SessionCost,
    /// The same requests with no compaction at all, billed the same way.
    pub uncompacted: super::cost::SessionCost,
    pub uncompacted_peak: Option<f64>,
    /// `tools`: what each tool puts in the context (its hint's saving not
    /// replayed).
    pub tools: super::tools::ToolsReport,
    pub summaries: Vec<SummaryText>,
    pub config: AutoConfig,
    pub budget: Budget,
    pub comparison: Option<Comparison>,
}

/// The review of `conv` under `config`, as `request` asks.
pub fn review(
    conv: &Conversation,
    config: &AutoConfig,
    request: &ReviewRequest,
    prices: &Prices,
    before_asking: &mut dyn FnMut(&super::judge::JudgeQuote) -> bool,
) -> Result<Review, SummarizeError> {
    let window = request.window;
    let super::lost::Lost {
        stats,
        session: session_knows,
    } = super::lost::lost(
        conv,
        config,
        &super::lost::LostRequest {
            window,
            view: request.view,
            judge: request.judge,
            only: None,
        },
        prices,
        before_asking,
    )?;
    let history = super::history(conv, config, window);
    let cost = super::cost::session(conv, config, &history, prices);
    let bare = crate::core::auto::history::without_compactions(conv, |i| {
        super::budget_of(
            &crate::core::model::config::merged(conv, Some(i)),
            window,
            config,
        )
    });
    let uncompacted = super::cost::session_without_summaries(conv, config, &bare, prices);
    let uncompacted_peak = peak(&bare);
    // The weights and hints only: the page shows no replayed saving.
    let tools = super::tools::weighed(&[(conv, config)], window, false);
    let comparison = match &request.simulate {
        None => None,
        Some(windows) => Some(compare(conv, config, windows, prices)?),
    };
    Ok(Review {
        stats,
        session_knows,
        history,
        cost,
        uncompacted,
        uncompacted_peak,
        tools,
        summaries: summaries(conv),
        config: config.clone(),
        budget: super::budget(conv, config, window),
        comparison,
    })
}

/// The highest share of the usable window any request was sent.
pub fn peak(points: &[HistoryPoint]) -> Option<f64> {
    points
        .iter()
        .filter_map(|p| p.usable.map(|u| p.context as f64 / u.max(1) as f64))
        .max_by(f64::total_cmp)
}

fn summaries(conv: &Conversation) -> Vec<SummaryText> {
    conv.compactions()
        .filter_map(|c| {
            let x = c.parsed.ok()?;
            Some(SummaryText {
                position: c.position,
                text: x.summary.clone()?,
                by: match (x.authored, x.summarizer.as_deref()) {
                    (true, _) => "authored".into(),
                    (_, Some(by)) => by.to_string(),
                    (_, None) => "jp's own (an LLM)".into(),
                },
            })
        })
        .collect()
}

/// `simulate`'s grid for this one conversation, every policy, summaries
/// by the offline digest (a report never calls a model on its own).
fn compare(
    conv: &Conversation,
    config: &AutoConfig,
    windows: &[u64],
    prices: &Prices,
) -> Result<Comparison, SummarizeError> {
    let windows = if windows.is_empty() {
        super::default_windows(&[conv], config)
    } else {
        windows.to_vec()
    };
    let grid = super::Grid {
        policies: &Strategy::ALL,
        windows: &windows,
        base: config,
        summarizer: SummarizerKind::Digest,
        prices,
    };
    let runs: Vec<Run> = super::simulate_grid(&[conv], &grid)?
        .into_iter()
        .map(|(_, r)| r)
        .collect();
    let compactions: Vec<&[crate::core::model::compaction::Compaction]> =
        runs.iter().map(|r| r.compactions.as_slice()).collect();
    let known = super::knows::of_runs(conv, &compactions);
    Ok(Comparison {
        runs,
        known,
        summarizer: "digest",
    })
}
