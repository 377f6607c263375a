//! Whether a compaction pays for itself: it makes every later request
//! smaller, but the next request writes again the cache after its first
//! change.

use super::billing::{Billing, Caching};
use crate::core::fmt::human_tokens;
use crate::core::model::timestamp::Timestamp;
use serde::Serialize;
use std::time::Duration;

/// What a compaction costs and buys, at the session's pace.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Payback {
    /// Tokens fewer in every request from the next on.
    pub saves: u64,
    /// Tokens more in every request from the next on: what stands for its
    /// range is longer than what it hides (0 when it saves).
    pub adds: u64,
    /// Tokens of live cache after the compaction's first change that the
    /// next request writes again (0 when the cache would be cold anyway).
    pub rewrites: u64,
    /// What each later request saves, in the bill's unit.
    pub saves_billed: f64,
    /// What the next request pays more than it would have (less than 0:
    /// it saves at once).
    pub next_extra: f64,
    /// After how many requests it has paid for itself (1: at once); `None`
    /// when it saves nothing.
    pub requests: Option<u64>,
    /// Whether the cache is taken as alive between requests.
    pub warm: bool,
    /// The session's typical gap between requests, when timestamps say.
    #[serde(serialize_with = "seconds")]
    pub pace: Option<Duration>,
}

fn seconds<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_some(&d.as_secs_f64()),
        None => s.serialize_none(),
    }
}

/// The payback of a compaction that leaves the first `kept` tokens of a
/// `before`-token context as they were and takes `saved` tokens out (less
/// than 0: puts them in).
pub fn payback(
    billing: &Billing,
    before: u64,
    kept: u64,
    saved: i64,
    pace: Option<Duration>,
) -> Payback {
    let saves = saved.max(0) as u64;
    let adds = saved.min(0).unsigned_abs();
    let r = billing.rates;
    let ttl = billing.caching.ttl();
    let warm =
        ttl.is_some_and(|ttl| pace.is_none_or(|p| p <= ttl)) && before >= billing.min_cacheable;
    let write = match billing.caching {
        Caching::Written { .. } => r.write,
        _ => r.input,
    };
    let (rewrites, saves_billed, next_extra) = if warm {
        let rewrites = before.saturating_sub(kept).saturating_sub(saves);
        let per = saves as f64 * r.read;
        (rewrites, per, rewrites as f64 * (write - r.read) - per)
    } else {
        let per = saves as f64 * write;
        (0, per, -per)
    };
    let requests = if saves == 0 || saves_billed <= 0.0 {
        None
    } else if next_extra <= 0.0 {
        Some(1)
    } else {
        Some(1 + (next_extra / saves_billed).ceil() as u64)
    };
    Payback {
        saves,
        adds,
        rewrites,
        saves_billed,
        next_extra,
        requests,
        warm,
        pace,
    }
}

impl Payback {
    /// Whether it saves tokens a model bills nothing for (a free local
    /// model): nothing to pay back, rather than never paid back.
    pub fn free(&self) -> bool {
        self.saves > 0 && self.saves_billed <= 0.0
    }

    /// "saves 31.7k a request; the next request writes 48.3k of cache
    /// again; pays for itself after 18 requests (one every 40s, cache 5m)".
    pub fn sentence(&self, billing: &Billing) -> String {
        let mut s = if self.adds > 0 {
            format!(
                "adds {} a request (what stands for its turns is longer than what it hides)",
                human_tokens(self.adds)
            )
        } else {
            format!("saves {} a request", human_tokens(self.saves))
        };
        if self.rewrites > 0 {
            s.push_str(&format!(
                "; the next request writes {} of cache again",
                human_tokens(self.rewrites)
            ));
        }
        s.push_str(&match self.requests {
            None if self.free() => "; the model bills nothing: nothing to pay back".to_string(),
            None => "; never pays for itself".to_string(),
            Some(1) => "; pays for itself at the next request".to_string(),
            Some(n) => format!("; pays for itself after {n} requests"),
        });
        let pace = self.pace.map(|p| {
            format!(
                "one every {}",
                humantime::format_duration(Duration::from_secs(p.as_secs()))
            )
        });
        let cache = match billing.caching.ttl() {
            None => "no cache".to_string(),
            Some(_) if !self.warm => "cache cold between requests".to_string(),
            Some(ttl) => format!("cache {}", humantime::format_duration(ttl)),
        };
        s.push_str(&format!(
            " ({})",
            pace.into_iter()
                .chain([cache])
                .collect::<Vec<_>>()
                .join(", ")
        ));
        s
    }
}

/// The session's typical gap between requests: the median of the gaps
/// between consecutive timed requests.
pub fn pace(times: impl IntoIterator<Item = Option<Timestamp>>) -> Option<Duration> {
    let times: Vec<Timestamp> = times.into_iter().flatten().collect();
    let mut gaps: Vec<Duration> = times
        .windows(2)
        .filter_map(|w| (w[1] - w[0]).to_std().ok())
        .collect();
    if gaps.is_empty() {
        return None;
    }
    gaps.sort_unstable();
    Some(gaps[gaps.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cost::billing::CachePolicy;
    use crate::core::cost::prices::Prices;
    use crate::core::model::config::ModelId;

    fn billing(model: &str, policy: CachePolicy) -> Billing {
        Billing::of_model(
            Some(&ModelId::Named(model.into())),
            policy,
            &Prices::default(),
        )
    }

    #[test]
    fn a_warm_cache_makes_a_compaction_pay_back_slowly() {
        // 100k cached, the compaction keeps the first 20k and takes 30k out:
        // the next request writes 50k again (50k x (3.75 - 0.30) = $0.1725
        // more, less 30k x 0.30 saved), then saves 30k x $0.30 per M each.
        let b = billing("anthropic/claude-sonnet-4-5", CachePolicy::Short);
        let p = payback(&b, 100_000, 20_000, 30_000, Some(Duration::from_secs(40)));
        assert!(p.warm);
        assert_eq!(p.rewrites, 50_000);
        assert!((p.saves_billed - 0.009).abs() < 1e-12);
        assert!((p.next_extra - (0.1725 - 0.009)).abs() < 1e-12);
        assert_eq!(p.requests, Some(1 + (0.1635_f64 / 0.009).ceil() as u64));
        let s = p.sentence(&b);
        assert!(s.starts_with("saves 30k a request; the next request writes 50k of cache again; pays for itself after 20 requests"), "{s}");
        assert!(s.ends_with("(one every 40s, cache 5m)"), "{s}");
    }

    #[test]
    fn past_the_ttl_or_without_a_cache_it_pays_at_once() {
        let b = billing("anthropic/claude-sonnet-4-5", CachePolicy::Short);
        let slow = payback(&b, 100_000, 20_000, 30_000, Some(Duration::from_secs(600)));
        assert!(!slow.warm);
        assert_eq!((slow.rewrites, slow.requests), (0, Some(1)));
        let long = billing("anthropic/claude-sonnet-4-5", CachePolicy::Long);
        assert!(
            payback(
                &long,
                100_000,
                20_000,
                30_000,
                Some(Duration::from_secs(600))
            )
            .warm
        );
        let off = billing("anthropic/claude-sonnet-4-5", CachePolicy::Off);
        assert_eq!(
            payback(&off, 100_000, 20_000, 30_000, None).requests,
            Some(1)
        );
        assert_eq!(payback(&b, 100_000, 20_000, 0, None).requests, None);
    }

    #[test]
    fn a_compaction_that_adds_tokens_says_so_and_never_pays() {
        let b = billing("anthropic/claude-sonnet-4-5", CachePolicy::Short);
        let p = payback(&b, 100_000, 90_000, -69, Some(Duration::from_secs(40)));
        assert_eq!((p.saves, p.adds, p.requests), (0, 69, None));
        let s = p.sentence(&b);
        assert!(s.starts_with("adds 69 a request ("), "{s}");
        assert!(s.contains("never pays for itself"), "{s}");
        assert!(!s.contains("saves"), "{s}");
    }

    #[test]
    fn the_pace_is_the_median_gap() {
        use chrono::TimeZone;
        let t = |s: i64| Some(chrono::Utc.timestamp_opt(1_700_000_000 + s, 0).unwrap());
        assert_eq!(
            pace([t(0), t(10), None, t(20), t(1000)]),
            Some(Duration::from_secs(10))
        );
        assert_eq!(pace([t(0)]), None);
    }
}
