//! Asking a model or command to judge facts again (`--judge`): what it
//! will send and cost, shown first, then one call a range. One use case
//! for `lost`, `compact --dry-run` and the review, so the price a person
//! is shown is the one every command computes.

use crate::core::auto::AutoConfig;
use crate::core::compact::projection::Projection;
use crate::core::cost::billing::CachePolicy;
use crate::core::cost::{Billing, Prices, Unit};
use crate::core::error::SummarizeError;
use crate::core::facts::Judged;
use crate::core::model::TurnRange;
use crate::core::model::config::ModelId;
use crate::core::model::conversation::Conversation;
use crate::core::summarize::config::{SummarizerConfig, SummarizerKind};
use crate::core::summarize::judge::{self, ModelJudge};
use serde::Serialize;

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

/// Judges each of `ranges`' facts again by the judge of `kind`, in `p`
/// (the projection that holds what is still sent), one call a range with
/// facts, after `before_asking` saw the price and said yes.
pub fn ask(
    conv: &Conversation,
    config: &AutoConfig,
    p: &Projection,
    ranges: &mut [(TurnRange, &mut Vec<Judged>)],
    kind: SummarizerKind,
    prices: &Prices,
    before_asking: &mut dyn FnMut(&JudgeQuote) -> bool,
) -> Result<(), SummarizeError> {
    // The judge's endpoint comes from the user's own config only: a cloned
    // workspace cannot point it anywhere.
    let user = config
        .user_summarizer
        .clone()
        .unwrap_or(SummarizerConfig::Digest);
    let judge = ModelJudge::new(kind, &user)?;
    let asked: Vec<usize> = (0..ranges.len())
        .filter(|&i| !ranges[i].1.is_empty())
        .collect();
    let tokens: u64 = asked
        .iter()
        .map(|&i| judge::question(conv, p, ranges[i].0, ranges[i].1).tokens())
        .sum();
    let facts: usize = asked.iter().map(|&i| ranges[i].1.len()).sum();
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
    for i in asked {
        let (range, judged) = &mut ranges[i];
        judge.judge(conv, p, *range, judged)?;
    }
    Ok(())
}
