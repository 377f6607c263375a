//! `lost`: what each compaction hid, what the model no longer knows of its
//! range, and what the compactions keep of the whole session. One use case
//! for `lost` and the review's page, so the two never count apart.

use crate::core::auto::AutoConfig;
use crate::core::compact::jp_view::View;
use crate::core::cost::Prices;
use crate::core::facts::Survival;
use crate::core::model::conversation::Conversation;

/// What a person asks `lost` of.
#[derive(Debug, Clone, Copy, Default)]
pub struct LostRequest {
    /// The window the figures are measured against, if not the model's.
    pub window: Option<u64>,
    /// Projected as jp-inspect does, or as today's jp (`--as-jp`).
    pub view: View,
    /// Judge again by asking this model or command (`--judge`), with the
    /// settings the user's own config defines for it; `None`: the
    /// offline judge by meaning alone.
    pub judge: Option<SummarizerKind>,
    /// Only compaction N (1-based), its facts listed whole.
    pub only: Option<usize>,
}

/// What asking a judge will send and cost: shown before it is asked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeQuote {
    /// Who is asked (`openai gpt-4o-mini`, `command `…``).
    pub judge: String,
    /// Calls: one a compaction with facts.
    pub calls: usize,
    pub facts: usize,
    /// What the calls send, in tokens (characters / 4).
    pub tokens: u64,
    /// In US dollars, where the model's price is known (or the command
    /// declares its `cost_per_call`).
    pub usd: Option<f64>,
}

impl JudgeQuote {
    pub fn describe(&self) -> String {
        let price = match self.usd {
            Some(usd) => format!("about {}", Unit::Usd.format(usd)),
            None => "price unknown".into(),
        };
        format!(
            "asking {} to judge {} facts in {} call{}: about {} tokens sent, {price}",
            self.judge,
            self.facts,
            self.calls,
            if self.calls == 1 { "" } else { "s" },
            crate::core::fmt::thousands(self.tokens)
        )
    }
}

/// Every compaction with its ledger and its facts judged, and the session.
#[derive(Debug, Clone)]
pub struct Lost {
    /// `stats` with each compaction's ledger (`ledger`) and what the model
    /// still knows of its range (`knows`).
    pub stats: Stats,
    /// What all the compactions keep of all their ranges' facts.
    pub session: Survival,
}

/// What `conv`'s compactions lost under `config`, as `request` asks. With
/// a judge asked for, `before_asking` is shown its quote first, and the
/// judge is asked only when it says yes.
pub fn lost(
    conv: &Conversation,
    config: &AutoConfig,
    request: &LostRequest,
    prices: &Prices,
    before_asking: &mut dyn FnMut(&JudgeQuote) -> bool,
) -> Result<Lost, SummarizeError> {
    let mut stats = super::stats::stats(conv, config, request.window, request.view, true, prices);
    super::stats_compactions::with_knows(&mut stats.compactions, conv, request.view);
    if let Some(only) = request.only {
        stats.compactions.retain(|e| e.position + 1 == only);
    }
    if let Some(kind) = request.judge {
        ask_judge(
            conv,
            config,
            request.view,
            kind,
            &mut stats,
            prices,
            before_asking,
        )?;
        for e in &mut stats.compactions {
            e.survival = e.knows.as_deref().map(crate::core::facts::Survival::of);
        }
    }
    // One compaction asked for is listed whole: its range's facts are
    // bounded by the conversation already.
    if request.only.is_none() {
        let chars = conv.events.iter().map(|e| e.chars).sum();
        super::stats_compactions::bound_listing(
            &mut stats.compactions,
            super::stats_compactions::listing_bound(chars),
        );
    }
    let session = super::stats_compactions::session_knows(&stats.compactions);
    Ok(Lost { stats, session })
}

/// Every compaction's facts judged again by the judge of `kind`, one call
/// a compaction, after `before_asking` saw the price and said yes.
fn ask_judge(
    conv: &Conversation,
    config: &AutoConfig,
    view: View,
    kind: SummarizerKind,
    stats: &mut Stats,
    prices: &Prices,
    before_asking: &mut dyn FnMut(&JudgeQuote) -> bool,
) -> Result<(), SummarizeError> {
    let user = config
        .user_summarizer
        .clone()
        .unwrap_or(crate::core::summarize::config::SummarizerConfig::Digest);
    let judge = ModelJudge::new(kind, &user)?;
    let p = crate::core::compact::projection::of_view(conv, view);
    let asked: Vec<(usize, TurnRange)> = stats
        .compactions
        .iter()
        .enumerate()
        .filter(|(_, e)| e.knows.as_ref().is_some_and(|k| !k.is_empty()))
        .filter_map(|(i, e)| e.facts.as_ref().ok().map(|f| (i, f.range)))
        .collect();
    let questions: Vec<_> = asked
        .iter()
        .map(|&(i, r)| {
            judge::question(
                conv,
                &p,
                r,
                stats.compactions[i].knows.as_deref().unwrap_or_default(),
            )
        })
        .collect();
    let tokens: u64 = questions.iter().map(judge::Question::tokens).sum();
    let facts: usize = asked
        .iter()
        .map(|&(i, _)| stats.compactions[i].knows.as_ref().map_or(0, Vec::len))
        .sum();
    // A verdict and a short quote a fact.
    let answer = facts as u64 * 40;
    let usd = match (judge.model(), judge.per_call()) {
        (Some(model), _) => {
            let b = Billing::of_model(Some(&ModelId::Named(model)), CachePolicy::Off, prices);
            (b.unit == Unit::Usd).then(|| b.uncached(tokens, answer))
        }
        (None, per_call) => per_call.map(|c| c * asked.len() as f64),
    };
    let quote = JudgeQuote {
        judge: judge.who(),
        calls: asked.len(),
        facts,
        tokens,
        usd,
    };
    if asked.is_empty() || !before_asking(&quote) {
        return Ok(());
    }
    for (i, r) in asked {
        if let Some(k) = stats.compactions[i].knows.as_mut() {
            judge.judge(conv, &p, r, k)?;
        }
    }
    Ok(())
}

use super::stats::Stats;
use crate::core::cost::billing::CachePolicy;
use crate::core::cost::{Billing, Unit};
use crate::core::error::SummarizeError;
use crate::core::model::TurnRange;
use crate::core::model::config::ModelId;
use crate::core::summarize::config::SummarizerKind;
use crate::core::summarize::judge::{self, ModelJudge};
use serde::Serialize;
