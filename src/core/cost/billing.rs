//! The prompt cache as each provider applies jp's requests, and the bill of
//! a run of requests.
//!
//! One cache entry is enough to model: every request of a conversation
//! extends the one before it, so the newest entry holds the longest prefix
//! any later request can share, and it was used last. A compaction or a
//! new system prompt cuts what it shares at the first thing they change.

use super::prices::{PriceRef, Prices};
use crate::core::compact::window::resolve_alias;
use crate::core::model::config::{self, ModelId};
use crate::core::model::timestamp::Timestamp;
use serde::Serialize;
use serde_json::Value;
use std::time::Duration;

/// jp's `assistant.request.cache`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CachePolicy {
    Off,
    #[default]
    Short,
    Long,
    Custom(Duration),
}

impl CachePolicy {
    /// The policy a merged config sets (jp's default, short, when none or
    /// one jp would not read).
    pub fn of_config(config: &Value) -> CachePolicy {
        let v = config
            .get("assistant")
            .and_then(|a| a.get("request"))
            .and_then(|r| r.get("cache"));
        match v {
            Some(Value::Bool(false)) => CachePolicy::Off,
            Some(Value::String(s)) => match s.as_str() {
                "false" | "off" => CachePolicy::Off,
                "long" => CachePolicy::Long,
                "true" | "short" => CachePolicy::Short,
                other => humantime::parse_duration(other)
                    .map(CachePolicy::Custom)
                    .unwrap_or_default(),
            },
            _ => CachePolicy::Short,
        }
    }

    pub fn label(self) -> String {
        match self {
            CachePolicy::Off => "off".into(),
            CachePolicy::Short => "short".into(),
            CachePolicy::Long => "long".into(),
            CachePolicy::Custom(d) => humantime::format_duration(d).to_string(),
        }
    }
}

/// How the provider caches what jp sends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Caching {
    /// Every input token at the input price.
    None,
    /// Anthropic: jp's top-level `cache_control` writes the whole request
    /// at `write` × input and reads the shared prefix back.
    Written { ttl: Duration },
    /// OpenAI and Google: shared prefixes are read at the cached price with
    /// no charge to write them, in steps of `step` tokens.
    Automatic { ttl: Duration, step: u64 },
}

impl Caching {
    pub fn ttl(&self) -> Option<Duration> {
        match self {
            Caching::None => None,
            Caching::Written { ttl } | Caching::Automatic { ttl, .. } => Some(*ttl),
        }
    }
}

/// What costs are counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// US dollars, from the model's prices.
    Usd,
    /// Tokens of uncached input: the model's prices are unknown, so the
    /// provider's multipliers are applied to a price of 1.
    InputTokens,
}

impl Unit {
    pub fn format(self, amount: f64) -> String {
        match self {
            // Money reads one way: cents, and below a cent the digits
            // that tell it (two significant ones), never `$0.0000`.
            Unit::Usd if amount == 0.0 || amount.abs() >= 0.01 => format!("${amount:.2}"),
            Unit::Usd => {
                let decimals = (-amount.abs().log10()).ceil() as usize + 1;
                format!("${amount:.*}", decimals.clamp(3, 10))
            }
            Unit::InputTokens => format!(
                "{} tok-eq",
                crate::core::fmt::thousands(amount.round() as u64)
            ),
        }
    }
}

/// Prices per token, in the bill's unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    pub input: f64,
    pub output: f64,
    pub read: f64,
    pub write: f64,
}

/// How one conversation's requests are billed.
#[derive(Debug, Clone, PartialEq)]
pub struct Billing {
    pub model: Option<String>,
    pub provider: Option<String>,
    pub policy: CachePolicy,
    pub caching: Caching,
    /// The shortest prefix the provider caches.
    pub min_cacheable: u64,
    pub rates: Rates,
    pub unit: Unit,
    /// Which price entry was used, or why none was.
    pub price: PriceRef,
}

/// Output priced in input-token equivalents where no price is known
/// (auto.md's cost).
pub const OUTPUT_WEIGHT: u64 = 5;

const FIVE_MINUTES: Duration = Duration::from_secs(300);
const ONE_HOUR: Duration = Duration::from_secs(3600);

impl Billing {
    /// The billing of a merged config's model under its cache policy.
    pub fn of_config(config: &Value, prices: &Prices) -> Billing {
        let model = config::model_id(config).map(|m| resolve_alias(&m, config));
        Billing::of_model(model.as_ref(), CachePolicy::of_config(config), prices)
    }

    pub fn of_model(model: Option<&ModelId>, policy: CachePolicy, prices: &Prices) -> Billing {
        let provider = model
            .and_then(|m| m.provider())
            .map(str::to_ascii_lowercase);
        // jp asks Anthropic for one of its two TTLs: 30 minutes or more
        // is the hour.
        let anthropic_ttl = match policy {
            CachePolicy::Long => ONE_HOUR,
            CachePolicy::Custom(d) if d >= Duration::from_secs(1800) => ONE_HOUR,
            _ => FIVE_MINUTES,
        };
        let caching = match (provider.as_deref(), policy) {
            (Some("anthropic"), CachePolicy::Off) => Caching::None,
            (Some("anthropic"), _) => Caching::Written { ttl: anthropic_ttl },
            // OpenAI caches prefixes of 1,024 tokens and more in steps of
            // 128 whatever jp asks (it can opt out only for models with
            // explicit caching); entries live 5 to 10 minutes idle.
            (Some("openai"), _) => Caching::Automatic {
                ttl: FIVE_MINUTES,
                step: 128,
            },
            // Gemini's implicit caching; Google names no lifetime, so the
            // short one is assumed.
            (Some("google"), _) => Caching::Automatic {
                ttl: FIVE_MINUTES,
                step: 1,
            },
            _ => Caching::None,
        };
        let hour = anthropic_ttl == ONE_HOUR;
        let lookup = model.map_or(super::prices::Lookup::Unknown, |m| prices.find(m));
        let found = lookup.price();
        let (rates, unit, min) = match found {
            Some((p, _)) => {
                let m = 1e-6;
                let write = match caching {
                    Caching::Written { .. } if hour => p.cache_write_1h.unwrap_or(p.input * 2.0),
                    Caching::Written { .. } => p.cache_write.unwrap_or(p.input * 1.25),
                    _ => p.input,
                };
                (
                    Rates {
                        input: p.input * m,
                        output: p.output * m,
                        read: p.cache_read.unwrap_or(p.input) * m,
                        write: write * m,
                    },
                    Unit::Usd,
                    p.min_cacheable,
                )
            }
            None => (
                Rates {
                    input: 1.0,
                    output: OUTPUT_WEIGHT as f64,
                    // Every provider here reads its cache at a tenth of
                    // the input price for current models.
                    read: 0.1,
                    write: match caching {
                        Caching::Written { .. } if hour => 2.0,
                        Caching::Written { .. } => 1.25,
                        _ => 1.0,
                    },
                },
                Unit::InputTokens,
                None,
            ),
        };
        Billing {
            model: model.map(ToString::to_string),
            provider,
            policy,
            caching,
            min_cacheable: min.unwrap_or(1024),
            rates,
            unit,
            price: PriceRef::of(lookup),
        }
    }

    /// One line saying how requests are billed.
    pub fn describe(&self) -> String {
        let model = self.model.as_deref().unwrap_or("an unknown model");
        let cache = match self.caching {
            Caching::None if self.policy == CachePolicy::Off => {
                "no prompt cache (cache = off)".to_string()
            }
            Caching::None => "no prompt cache for this provider".to_string(),
            Caching::Written { ttl } => format!(
                "prompt cache written at {:.2}× input, read at {:.2}×, TTL {} (cache = {})",
                self.rates.write / self.rates.input,
                self.rates.read / self.rates.input,
                humantime::format_duration(ttl),
                self.policy.label()
            ),
            Caching::Automatic { ttl, .. } => format!(
                "automatic prompt cache read at {:.2}× input, no write charge, TTL {} assumed",
                self.rates.read / self.rates.input,
                humantime::format_duration(ttl)
            ),
        };
        let unit = match self.unit {
            Unit::Usd => format!("in US dollars, {}", self.price.describe()),
            Unit::InputTokens => format!(
                "in input-token equivalents (output ×5): {}",
                self.price.describe()
            ),
        };
        // A minimum means something only where a prefix can be cached.
        match self.caching {
            Caching::None => format!("{model}: {cache}; {unit}"),
            _ => format!(
                "{model}: {cache}; minimum {} tokens; {unit}",
                self.min_cacheable
            ),
        }
    }

    /// The cost of `tokens` of input at the full price and `output` tokens.
    pub fn uncached(&self, tokens: u64, output: u64) -> f64 {
        tokens as f64 * self.rates.input + output as f64 * self.rates.output
    }
}

/// One request as the cache sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sent {
    pub at: Option<Timestamp>,
    /// Tokens sent: the system prompt, tools and the projected events.
    pub context: u64,
    /// Tokens at its start identical to the request before it (its whole
    /// context when nothing changed between them; 0 for the first).
    pub kept: u64,
    /// Tokens the model produced in answer.
    pub output: u64,
    /// It is larger than the usable window: the API would have refused it,
    /// so it is billed nothing (and answered nothing).
    pub refused: bool,
}

/// Why a request read less than it might have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Break {
    /// The entry outlived its TTL since its last use.
    Expired,
    /// Something before the end of the entry changed (a compaction, the
    /// system prompt or tools, the model).
    Changed,
}

/// What one request is billed.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Bill {
    pub read: u64,
    pub written: u64,
    pub uncached: u64,
    pub output: u64,
    pub cost: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broke: Option<Break>,
    /// Over the window: never sent, never billed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
}

/// A run's bills added up.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Total {
    pub read: u64,
    pub written: u64,
    pub uncached: u64,
    pub output: u64,
    pub cost: f64,
    /// The same requests with every input token at the input price.
    pub without_cache: f64,
    /// Requests over the window, which the API would have refused: not in
    /// the figures above.
    pub refused: usize,
}

impl Total {
    pub fn of(billing: &Billing, sent: &[Sent], bills: &[Bill]) -> Total {
        let mut t = Total::default();
        for (s, b) in sent.iter().zip(bills) {
            if b.refused {
                t.refused += 1;
                continue;
            }
            t.read += b.read;
            t.written += b.written;
            t.uncached += b.uncached;
            t.output += b.output;
            t.cost += b.cost;
            t.without_cache += billing.uncached(s.context, s.output);
        }
        t
    }
}

/// A run's bill as `simulate` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Billed {
    pub unit: Unit,
    pub total: f64,
    pub cache_read: u64,
    pub cache_written: u64,
    pub uncached: u64,
    /// What the summarizer's calls cost (in `total`).
    pub summarizer: f64,
    /// The same run with every input token at the input price.
    pub without_cache: f64,
    /// Requests over the window the API would have refused (not billed).
    pub refused: usize,
}

impl Billed {
    /// Adds `other`, billed in the same unit.
    pub fn add(&mut self, other: &Billed) {
        self.refused += other.refused;
        self.total += other.total;
        self.cache_read += other.cache_read;
        self.cache_written += other.cache_written;
        self.uncached += other.uncached;
        self.summarizer += other.summarizer;
        self.without_cache += other.without_cache;
    }

    /// `sent` billed, plus `summarizer` for the summaries' calls.
    pub fn of(billing: &Billing, sent: &[Sent], summarizer: f64) -> Billed {
        let bills = bill(billing, sent);
        let t = Total::of(billing, sent, &bills);
        Billed {
            unit: billing.unit,
            total: t.cost + summarizer,
            cache_read: t.read,
            cache_written: t.written,
            uncached: t.uncached,
            summarizer,
            without_cache: t.without_cache + summarizer,
            refused: t.refused,
        }
    }
}

/// The bill of every request of `sent`, in order, in one pass.
pub fn bill(billing: &Billing, sent: &[Sent]) -> Vec<Bill> {
    let r = billing.rates;
    let min = billing.min_cacheable;
    // The live entry: its length, in the previous request's terms, and
    // when it was last used.
    let mut cached: u64 = 0;
    let mut used: Option<Timestamp> = None;
    sent.iter()
        .map(|s| {
            // Refused before anything is read or written: the cache stays
            // as the request before left it.
            if s.refused {
                return Bill {
                    refused: true,
                    ..Bill::default()
                };
            }
            let mut broke = None;
            if s.kept < cached {
                broke = Some(Break::Changed);
                cached = s.kept;
            }
            let ttl = billing.caching.ttl();
            let expired = match (used, s.at, ttl) {
                (Some(u), Some(t), Some(ttl)) => (t - u).to_std().is_ok_and(|gap| gap > ttl),
                _ => false,
            };
            if expired && cached > 0 {
                broke = Some(Break::Expired);
                cached = 0;
            }
            let hit = if cached >= min {
                cached.min(s.context)
            } else {
                0
            };
            let (read, written, uncached) = match billing.caching {
                Caching::None => (0, 0, s.context),
                _ if s.context < min => (0, 0, s.context),
                Caching::Written { .. } => (hit, s.context - hit, 0),
                Caching::Automatic { step, .. } => {
                    let read = hit / step.max(1) * step.max(1);
                    (read, 0, s.context - read)
                }
            };
            if !matches!(billing.caching, Caching::None) && s.context >= min {
                cached = s.context;
                used = s.at.or(used);
            }
            Bill {
                read,
                written,
                uncached,
                output: s.output,
                cost: read as f64 * r.read
                    + written as f64 * r.write
                    + uncached as f64 * r.input
                    + s.output as f64 * r.output,
                broke,
                refused: false,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn money_reads_in_cents_and_below_a_cent_by_what_tells_it() {
        let f = |v| Unit::Usd.format(v);
        assert_eq!(f(164.234), "$164.23");
        assert_eq!(f(12.5), "$12.50");
        assert_eq!(f(0.0), "$0.00");
        assert_eq!(f(0.01), "$0.01");
        assert_eq!(f(0.0042), "$0.0042");
        assert_eq!(f(0.00004), "$0.000040");
        assert_eq!(f(-3.0), "$-3.00");
    }

    use super::*;
    use chrono::TimeZone;

    fn at(secs: i64) -> Option<Timestamp> {
        Some(chrono::Utc.timestamp_opt(1_700_000_000 + secs, 0).unwrap())
    }

    fn sonnet(policy: CachePolicy) -> Billing {
        let id = ModelId::Named("anthropic/claude-sonnet-4-5".into());
        Billing::of_model(Some(&id), policy, &Prices::default())
    }

    fn sent(secs: i64, context: u64, kept: u64) -> Sent {
        Sent {
            at: at(secs),
            context,
            kept,
            refused: false,
            output: 0,
        }
    }

    #[test]
    fn the_shared_prefix_is_read_and_the_rest_written_at_the_ttl_price() {
        let b = sonnet(CachePolicy::Short);
        assert_eq!(b.caching, Caching::Written { ttl: FIVE_MINUTES });
        let s = [sent(0, 10_000, 0), sent(60, 12_000, 10_000)];
        let bills = bill(&b, &s);
        assert_eq!(
            (bills[0].read, bills[0].written, bills[0].uncached),
            (0, 10_000, 0)
        );
        assert_eq!((bills[1].read, bills[1].written), (10_000, 2_000));
        let want = 10_000.0 * 0.30e-6 + 2_000.0 * 3.75e-6;
        assert!((bills[1].cost - want).abs() < 1e-12, "{}", bills[1].cost);
        let t = Total::of(&b, &s, &bills);
        assert!((t.without_cache - 22_000.0 * 3e-6).abs() < 1e-12);
    }

    #[test]
    fn a_gap_past_the_ttl_writes_everything_again_and_long_keeps_it() {
        let s = [
            sent(0, 10_000, 0),
            sent(301, 12_000, 10_000),
            sent(400, 13_000, 12_000),
        ];
        let short = bill(&sonnet(CachePolicy::Short), &s);
        assert_eq!(
            (short[1].read, short[1].written, short[1].broke),
            (0, 12_000, Some(Break::Expired))
        );
        assert_eq!(short[2].read, 12_000, "the rewritten entry is used again");
        let long = sonnet(CachePolicy::Long);
        assert!((long.rates.write - 6e-6).abs() < 1e-15, "1 h writes at 2x");
        assert_eq!(bill(&long, &s)[1].read, 10_000);
        let custom = sonnet(CachePolicy::Custom(Duration::from_secs(1800)));
        assert_eq!(custom.caching, Caching::Written { ttl: ONE_HOUR });
        let ten = sonnet(CachePolicy::Custom(Duration::from_secs(600)));
        assert_eq!(ten.caching, Caching::Written { ttl: FIVE_MINUTES });
    }

    #[test]
    fn a_compaction_between_two_requests_breaks_the_cache_where_it_changes() {
        // The compaction left the first 4,000 tokens as they were and took
        // 5,000 out after them.
        let s = [
            sent(0, 20_000, 0),
            sent(30, 16_000, 4_000),
            sent(60, 17_000, 16_000),
        ];
        let bills = bill(&sonnet(CachePolicy::Short), &s);
        assert_eq!(
            (bills[1].read, bills[1].written, bills[1].broke),
            (4_000, 12_000, Some(Break::Changed))
        );
        assert_eq!(
            (bills[2].read, bills[2].written, bills[2].broke),
            (16_000, 1_000, None)
        );
    }

    #[test]
    fn a_prefix_below_the_minimum_is_not_cached() {
        let b = sonnet(CachePolicy::Short);
        assert_eq!(b.min_cacheable, 1024);
        let s = [
            sent(0, 900, 0),
            sent(10, 1_000, 900),
            sent(20, 3_000, 1_000),
            sent(30, 3_500, 500),
        ];
        let bills = bill(&b, &s);
        assert_eq!((bills[0].uncached, bills[0].written), (900, 0));
        assert_eq!((bills[1].uncached, bills[1].read), (1_000, 0));
        assert_eq!((bills[2].read, bills[2].written), (0, 3_000));
        // Cut to 500 shared tokens, under the minimum: nothing is read.
        assert_eq!((bills[3].read, bills[3].written), (0, 3_500));
    }

    #[test]
    fn cache_off_pays_full_input_and_automatic_caching_has_no_write_charge() {
        let s = [sent(0, 10_000, 0), sent(60, 12_000, 10_000)];
        let off = sonnet(CachePolicy::Off);
        let bills = bill(&off, &s);
        assert_eq!((bills[1].read, bills[1].uncached), (0, 12_000));
        let gpt = Billing::of_model(
            Some(&ModelId::Named("openai/gpt-5.2".into())),
            CachePolicy::Short,
            &Prices::default(),
        );
        let bills = bill(&gpt, &s);
        // Read in steps of 128 tokens.
        assert_eq!(
            (bills[1].read, bills[1].written, bills[1].uncached),
            (9_984, 0, 2_016)
        );
        assert_eq!(gpt.unit, Unit::Usd);
    }

    #[test]
    fn an_unpriced_model_is_billed_in_input_token_equivalents() {
        let b = Billing::of_model(
            Some(&ModelId::Named("anthropic/claude-unknown-9".into())),
            CachePolicy::Short,
            &Prices::default(),
        );
        assert_eq!(b.unit, Unit::InputTokens);
        let s = [sent(0, 10_000, 0), sent(60, 12_000, 10_000)];
        let bills = bill(&b, &s);
        assert!((bills[0].cost - 12_500.0).abs() < 1e-9);
        assert!((bills[1].cost - (1_000.0 + 2_500.0)).abs() < 1e-9);
        assert!(
            b.describe().contains("input-token equivalents"),
            "{}",
            b.describe()
        );
        let local = Billing::of_model(
            Some(&ModelId::Named("ollama/qwen3".into())),
            CachePolicy::Short,
            &Prices::default(),
        );
        assert_eq!(bill(&local, &s)[1].uncached, 12_000);
    }

    #[test]
    fn reads_jps_cache_setting_in_every_form_it_saves() {
        use serde_json::json;
        let of =
            |v: Value| CachePolicy::of_config(&json!({"assistant": {"request": {"cache": v}}}));
        assert_eq!(of(json!(true)), CachePolicy::Short);
        assert_eq!(of(json!(false)), CachePolicy::Off);
        assert_eq!(of(json!("long")), CachePolicy::Long);
        assert_eq!(of(json!("off")), CachePolicy::Off);
        assert_eq!(
            of(json!("10m")),
            CachePolicy::Custom(Duration::from_secs(600))
        );
        assert_eq!(CachePolicy::of_config(&json!({})), CachePolicy::Short);
    }
}
