//! What a session cost as the provider billed it, and what its summaries
//! cost: the prompt cache on the session's own timestamps, the prices of
//! its model and of its summarizer's.

use crate::core::auto::AutoConfig;
use crate::core::auto::history::HistoryPoint;
use crate::core::auto::run::Run;
use crate::core::compact::estimate;
use crate::core::cost::billing::CachePolicy;
use crate::core::cost::{Bill, Billed, Billing, Prices, Sent, Total, Unit, bill};
use crate::core::model::config::ModelId;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::count_chars;
use crate::core::summarize::config::SummarizerConfig;
use serde::Serialize;
use std::time::Duration;

/// How summaries are priced: by who wrote them. A person's summary (jp's
/// `authored`) and the offline `digest` cost nothing; a `command` what its
/// config declares (`cost_per_call`), else nothing; an LLM summarizer its
/// model's prices; a summary no record explains (jp's own) an LLM call at
/// the conversation's model.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryPricing {
    /// Calls of an LLM whose model is not known: the conversation's.
    pub conversation: Billing,
    /// The configured LLM summarizer's kind and the billing of its model,
    /// when its price is known in the session's unit.
    pub configured_llm: Option<(String, Billing)>,
    /// The configured summarizer's name (`digest`, `command`, …).
    pub configured: String,
    pub command_per_call: Option<f64>,
    /// What the configured summarizer's price is, in words.
    pub of: String,
}

impl SummaryPricing {
    /// One call of the configured summarizer: `input` tokens read,
    /// `output` written (never cached: each reads a different range once).
    pub fn call(&self, input: u64, output: u64) -> f64 {
        self.call_by(Some(&self.configured), false, input, output)
    }

    /// One summary written by `by` (`None`: no record says), or by a
    /// person (`authored`).
    pub fn call_by(&self, by: Option<&str>, authored: bool, input: u64, output: u64) -> f64 {
        if authored {
            return 0.0;
        }
        match by {
            Some("digest") => 0.0,
            Some("command") => match self.conversation.unit {
                Unit::Usd => self.command_per_call.unwrap_or(0.0),
                // Dollars are no input-token equivalents.
                Unit::InputTokens => 0.0,
            },
            Some(kind) => match &self.configured_llm {
                Some((k, billing)) if k == kind => billing.uncached(input, output),
                _ => self.conversation.uncached(input, output),
            },
            None => self.conversation.uncached(input, output),
        }
    }
}

/// The pricing of summaries in the unit of `session`, `config`'s
/// summarizer for the ones to come.
pub fn summary_pricing(session: &Billing, config: &AutoConfig, prices: &Prices) -> SummaryPricing {
    let named = match &config.summarizer {
        SummarizerConfig::OpenAi { model, .. } => Some(format!("openai/{model}")),
        SummarizerConfig::Anthropic { model, .. } => Some(format!("anthropic/{model}")),
        SummarizerConfig::Digest | SummarizerConfig::Command { .. } => None,
    };
    let command_per_call = match &config.summarizer {
        SummarizerConfig::Command { cost_per_call, .. } => *cost_per_call,
        _ => None,
    };
    let kind = config.summarizer.name().to_string();
    let configured_llm = named.as_ref().and_then(|name| {
        let billing = Billing::of_model(
            Some(&ModelId::Named(name.clone())),
            CachePolicy::Off,
            prices,
        );
        (billing.unit == session.unit).then(|| (kind.clone(), billing))
    });
    let of = match (&config.summarizer, &named, &configured_llm) {
        (SummarizerConfig::Digest, ..) => "digest, offline: no bill".to_string(),
        (SummarizerConfig::Command { .. }, ..) => match command_per_call {
            Some(c) => format!("the command's declared {}", Unit::Usd.format(c)),
            None => "a command that declares no cost (cost_per_call): counted as free".into(),
        },
        (_, Some(name), Some(_)) => format!("the summarizer's model, {name}"),
        (_, Some(name), None) => {
            format!("the conversation's model ({name} has no price in this unit)")
        }
        _ => "the conversation's model".into(),
    };
    SummaryPricing {
        conversation: session.clone(),
        configured_llm,
        configured: kind,
        command_per_call,
        of,
    }
}

/// A session's bill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionCost {
    pub unit: Unit,
    pub total: f64,
    pub without_cache: f64,
    /// Requests over the usable window, which the API would have refused:
    /// billed nothing.
    pub refused: usize,
    pub summaries: f64,
    #[serde(skip)]
    pub billing: Billing,
    #[serde(skip)]
    pub summary_pricing: SummaryPricing,
    #[serde(skip)]
    pub bills: Vec<Bill>,
    #[serde(skip)]
    pub tokens: Total,
    /// Summaries found in the stream.
    #[serde(skip)]
    pub summary_count: usize,
    /// Who wrote them: `authored`, a summarizer's name, `jp's own`.
    pub summary_kinds: std::collections::BTreeMap<String, usize>,
    /// The median gap between requests.
    #[serde(skip)]
    pub pace: Option<Duration>,
}

/// What `conv`'s requests (`points`, from `ops::history`) were billed, and
/// its summaries' calls.
pub fn session(
    conv: &Conversation,
    config: &AutoConfig,
    points: &[HistoryPoint],
    prices: &Prices,
) -> SessionCost {
    let billing = Billing::of_config(conv.merged_config(), prices);
    let sent: Vec<Sent> = points.iter().map(HistoryPoint::sent).collect();
    let bills = bill(&billing, &sent);
    let tokens = Total::of(&billing, &sent, &bills);
    let summary_pricing = summary_pricing(&billing, config, prices);
    let mut summaries = 0.0;
    let mut summary_count = 0;
    let mut summary_kinds: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut raw_turn_chars = vec![0u64; conv.turn_count];
    for e in conv.events.iter().filter(|e| e.kind.is_model_visible()) {
        if let Some(t) = raw_turn_chars.get_mut(e.turn) {
            *t += e.chars;
        }
    }
    for c in conv.compactions() {
        let Ok(c) = c.parsed else { continue };
        let Some(text) = c.summary.as_deref() else {
            continue;
        };
        let end = c.to_turn.saturating_add(1).min(raw_turn_chars.len());
        let input: u64 = raw_turn_chars[c.from_turn.min(end)..end].iter().sum();
        summaries += summary_pricing.call_by(
            c.summarizer.as_deref(),
            c.authored,
            estimate::tokens(input),
            estimate::tokens(count_chars(text)),
        );
        *summary_kinds
            .entry(match (c.authored, c.summarizer.as_deref()) {
                (true, _) => "authored",
                (_, Some(by)) => by,
                (_, None) => "jp's own (an LLM)",
            })
            .or_insert(0) += 1;
        summary_count += 1;
    }
    SessionCost {
        unit: billing.unit,
        total: tokens.cost + summaries,
        without_cache: tokens.without_cache + summaries,
        refused: tokens.refused,
        summaries,
        pace: crate::core::cost::payback::pace(points.iter().map(|p| p.timestamp)),
        billing,
        summary_pricing,
        bills,
        tokens,
        summary_count,
        summary_kinds: summary_kinds
            .into_iter()
            .map(|(k, n)| (k.to_string(), n))
            .collect(),
    }
}

/// The bill of `points` with no summary to pay for: the session as if it
/// had never been compacted (`points` from `auto::history::without_compactions`).
pub fn session_without_summaries(
    conv: &Conversation,
    config: &AutoConfig,
    points: &[HistoryPoint],
    prices: &Prices,
) -> SessionCost {
    let mut cost = session(conv, config, points, prices);
    cost.total = cost.tokens.cost;
    cost.without_cache = cost.tokens.without_cache;
    cost.summaries = 0.0;
    cost.summary_count = 0;
    cost.summary_kinds.clear();
    cost
}

/// What the provider would have billed for a simulated `run` of `conv`:
/// its requests through the prompt cache, its summaries' calls.
pub fn bill_run(conv: &Conversation, run: &Run, config: &AutoConfig, prices: &Prices) -> Billed {
    let billing = Billing::of_config(conv.merged_config(), prices);
    let summaries = summary_pricing(&billing, config, prices);
    let sent: Vec<Sent> = run.points.iter().map(|p| p.sent(run.usable)).collect();
    Billed::of(
        &billing,
        &sent,
        summaries.call(run.summarizer_input_tokens, run.summarizer_output_tokens),
    )
}

/// The session's pace: the median gap between its requests (an answer
/// that follows a user or tool event), read off the events alone.
pub fn pace(conv: &Conversation) -> Option<Duration> {
    use crate::core::model::event::Kind;
    let mut times = Vec::new();
    let mut after_input = false;
    for e in &conv.events {
        match e.kind {
            Kind::ChatRequest | Kind::ToolCallResponse { .. } => after_input = true,
            Kind::ChatResponse(_) | Kind::ToolCallRequest { .. } => {
                if after_input {
                    times.push(e.timestamp);
                }
                after_input = false;
            }
            _ => {}
        }
    }
    crate::core::cost::payback::pace(times)
}

/// The price of the model `conv` is configured with, as `simulate --json`
/// names it beside each run.
pub fn price_of(conv: &Conversation, prices: &Prices) -> crate::core::cost::prices::PriceRef {
    Billing::of_config(conv.merged_config(), prices).price
}
