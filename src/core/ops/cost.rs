//! What a session cost as the provider billed it, and what its summaries
//! cost: the prompt cache on the session's own timestamps, the prices of
//! its model and of its summarizer's.

use crate::core::auto::AutoConfig;
use crate::core::auto::history::HistoryPoint;
use crate::core::auto::run::{RequestPoint, Run};
use crate::core::compact::estimate;
use crate::core::cost::billing::CachePolicy;
use crate::core::cost::{Bill, Billed, Billing, Prices, Sent, Total, Unit, bill};
use crate::core::model::config::ModelId;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::count_chars;
use crate::core::summarize::config::SummarizerConfig;
use serde::Serialize;
use std::time::Duration;

/// How summaries are priced.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryPricing {
    pub billing: Billing,
    /// What the price is of: the summarizer's model, or the conversation's
    /// where the summarizer names none (the digest, a command).
    pub of: String,
}

impl SummaryPricing {
    /// One summarizer call of `input` tokens read and `output` written
    /// (never cached: each reads a different range once).
    pub fn call(&self, input: u64, output: u64) -> f64 {
        self.billing.uncached(input, output)
    }
}

/// The pricing of `config`'s summarizer, in the unit of `session`.
pub fn summary_pricing(session: &Billing, config: &AutoConfig, prices: &Prices) -> SummaryPricing {
    let named = match &config.summarizer {
        SummarizerConfig::OpenAi { model, .. } => Some(format!("openai/{model}")),
        SummarizerConfig::Anthropic { model, .. } => Some(format!("anthropic/{model}")),
        SummarizerConfig::Digest | SummarizerConfig::Command { .. } => None,
    };
    if let Some(name) = named {
        let billing = Billing::of_model(
            Some(&ModelId::Named(name.clone())),
            CachePolicy::Off,
            prices,
        );
        if billing.unit == session.unit {
            return SummaryPricing {
                billing,
                of: format!("the summarizer's model, {name}"),
            };
        }
    }
    SummaryPricing {
        billing: session.clone(),
        of: format!(
            "the conversation's model ({} names no model)",
            config.summarizer.name()
        ),
    }
}

/// A session's bill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionCost {
    pub unit: Unit,
    pub total: f64,
    pub without_cache: f64,
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
        summaries +=
            summary_pricing.call(estimate::tokens(input), estimate::tokens(count_chars(text)));
        summary_count += 1;
    }
    SessionCost {
        unit: billing.unit,
        total: tokens.cost + summaries,
        without_cache: tokens.without_cache + summaries,
        summaries,
        pace: crate::core::cost::payback::pace(points.iter().map(|p| p.timestamp)),
        billing,
        summary_pricing,
        bills,
        tokens,
        summary_count,
    }
}

/// What the provider would have billed for a simulated `run` of `conv`:
/// its requests through the prompt cache, its summaries' calls.
pub fn bill_run(conv: &Conversation, run: &Run, config: &AutoConfig, prices: &Prices) -> Billed {
    let billing = Billing::of_config(conv.merged_config(), prices);
    let summaries = summary_pricing(&billing, config, prices);
    let sent: Vec<Sent> = run.points.iter().map(RequestPoint::sent).collect();
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
