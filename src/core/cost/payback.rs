//! Whether a compaction pays for itself: it makes every later request
//! smaller, but the next request writes again the cache after its first
//! change.

use super::billing::{Billing, Caching};
use crate::core::compact::window::human_tokens;
use crate::core::model::timestamp::Timestamp;
use serde::Serialize;
use std::time::Duration;

/// What a compaction costs and buys, at the session's pace.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Payback {
    /// Tokens fewer in every request from the next on.
    pub saves: u64,
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
/// `before`-token context as they were and takes `saves` tokens out.
pub fn payback(
    billing: &Billing,
    before: u64,
    kept: u64,
    saves: u64,
    pace: Option<Duration>,
) -> Payback {
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
        rewrites,
        saves_billed,
        next_extra,
        requests,
        warm,
        pace,
    }
}

impl Payback {
    /// "saves 31.7k a request; the next request writes 48.3k of cache
    /// again; pays for itself after 18 requests (one every 40s, cache 5m)".
    pub fn sentence(&self, billing: &Billing) -> String {
        let mut s = format!("saves {} a request", human_tokens(self.saves));
        if self.rewrites > 0 {
            s.push_str(&format!(
                "; the next request writes {} of cache again",
                human_tokens(self.rewrites)
            ));
        }
        s.push_str(&match self.requests {
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
