//! Prices per model: `assets/prices.toml`, with the user's own `[[price]]`
//! entries matched first.

use crate::core::compact::window::glob;
use crate::core::model::config::ModelId;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../../assets/prices.toml");

/// One model's prices, in dollars per million tokens.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    #[serde(rename = "match")]
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    pub input: f64,
    pub output: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// At the 5-minute TTL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_1h: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_cacheable: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// One entry of the bundled table: a price, or a model the table knows
/// with no price it could source (why, instead of prices).
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Priced(Price),
    Unpriced {
        pattern: String,
        provider: Option<String>,
        reason: String,
    },
}

impl Entry {
    pub fn pattern(&self) -> &str {
        match self {
            Entry::Priced(p) => &p.pattern,
            Entry::Unpriced { pattern, .. } => pattern,
        }
    }

    fn provider(&self) -> Option<&str> {
        match self {
            Entry::Priced(p) => p.provider.as_deref(),
            Entry::Unpriced { provider, .. } => provider.as_deref(),
        }
    }
}

fn bundled() -> &'static [Entry] {
    static T: OnceLock<Vec<Entry>> = OnceLock::new();
    T.get_or_init(|| {
        #[derive(Deserialize)]
        struct Table {
            price: Vec<toml::Value>,
        }
        let table: Table = toml::from_str(TABLE).expect("assets/prices.toml is valid");
        table
            .price
            .into_iter()
            .map(|v| match v.get("unpriced").and_then(toml::Value::as_str) {
                Some(reason) => Entry::Unpriced {
                    pattern: v["match"].as_str().unwrap_or_default().to_string(),
                    provider: v
                        .get("provider")
                        .and_then(|p| p.as_str())
                        .map(str::to_owned),
                    reason: reason.to_string(),
                },
                None => Entry::Priced(v.try_into().expect("assets/prices.toml entries are valid")),
            })
            .collect()
    })
}

/// What the table says of a model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lookup<'a> {
    /// Its price, and where it was found.
    Priced(&'a Price, PriceOrigin),
    /// The table knows it and has no price for it: the pattern and why.
    Unpriced(&'a str, &'a str),
    /// Nothing matches.
    Unknown,
}

impl<'a> Lookup<'a> {
    pub fn price(self) -> Option<(&'a Price, PriceOrigin)> {
        match self {
            Lookup::Priced(p, o) => Some((p, o)),
            _ => None,
        }
    }
}

/// Which entry priced a model (or why none did), as every `--json` that
/// bills says it: `{"match", "date", "source", "from"}`, or `{"match":
/// null, "unpriced": why}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PriceRef {
    #[serde(rename = "match")]
    pub pattern: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<PriceOrigin>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unpriced: Option<String>,
}

impl PriceRef {
    pub fn of(lookup: Lookup<'_>) -> PriceRef {
        match lookup {
            Lookup::Priced(p, from) => PriceRef {
                pattern: Some(p.pattern.clone()),
                date: p.date.clone(),
                source: p.source.clone(),
                from: Some(from),
                unpriced: None,
            },
            Lookup::Unpriced(pattern, why) => PriceRef {
                pattern: None,
                date: None,
                source: None,
                from: None,
                unpriced: Some(format!("{why} (`{pattern}`)")),
            },
            Lookup::Unknown => PriceRef {
                pattern: None,
                date: None,
                source: None,
                from: None,
                unpriced: Some("no entry of the price table or your config matches".into()),
            },
        }
    }

    /// `priced as `claude-opus-4-8*` (2026-05-29; SOURCE)`, or why not.
    pub fn describe(&self) -> String {
        match (&self.pattern, &self.unpriced) {
            (Some(p), _) => {
                let whose = match self.from {
                    Some(PriceOrigin::User) => "your entry",
                    _ => "the table's",
                };
                format!(
                    "priced by {whose} `{p}` ({}; {})",
                    self.date.as_deref().unwrap_or("undated"),
                    self.source.as_deref().unwrap_or("no source given")
                )
            }
            (None, Some(why)) => format!("no price: {why}"),
            (None, None) => "no price".into(),
        }
    }
}

/// Where a price was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceOrigin {
    User,
    Table,
}

/// The table and the user's entries over it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prices {
    pub user: Vec<Price>,
}

impl Prices {
    pub fn with_user(user: Vec<Price>) -> Prices {
        Prices { user }
    }

    /// The table with the `[[price]]` entries of a user's file over it;
    /// the message names the entry and what is wrong with it.
    pub fn with_user_file(text: &str) -> Result<Prices, String> {
        parse_user(text).map(Prices::with_user)
    }

    /// The first entry matching `model`: the user's, then the table's (a
    /// price, or a reason there is none).
    pub fn find(&self, model: &ModelId) -> Lookup<'_> {
        let name = model.name().to_ascii_lowercase();
        let provider = model.provider().map(str::to_ascii_lowercase);
        let hit = |pattern: &str, wants: Option<&str>| {
            glob(&pattern.to_ascii_lowercase(), &name)
                && wants.is_none_or(|want| provider.as_deref() == Some(want))
        };
        if let Some(p) = self
            .user
            .iter()
            .find(|p| hit(&p.pattern, p.provider.as_deref()))
        {
            return Lookup::Priced(p, PriceOrigin::User);
        }
        match bundled().iter().find(|e| hit(e.pattern(), e.provider())) {
            Some(Entry::Priced(p)) => Lookup::Priced(p, PriceOrigin::Table),
            Some(Entry::Unpriced {
                pattern, reason, ..
            }) => Lookup::Unpriced(pattern, reason),
            None => Lookup::Unknown,
        }
    }

    /// The price of `model`, when one is known.
    pub fn lookup(&self, model: &ModelId) -> Option<(&Price, PriceOrigin)> {
        self.find(model).price()
    }

    /// Every bundled entry, in matching order (for `models`, the README).
    pub fn table() -> &'static [Entry] {
        bundled()
    }
}

/// The `[[price]]` entries of a user's file (its other keys are the
/// shell's); the message names the entry and what is wrong with it.
pub fn parse_user(text: &str) -> Result<Vec<Price>, String> {
    #[derive(Deserialize)]
    struct File {
        #[serde(default)]
        price: Vec<toml::Value>,
    }
    let file: File = toml::from_str(text).map_err(|e| e.message().to_string())?;
    let mut out = Vec::with_capacity(file.price.len());
    for (i, v) in file.price.into_iter().enumerate() {
        let name = v
            .get("match")
            .and_then(toml::Value::as_str)
            .map_or_else(String::new, |m| format!(" (`{m}`)"));
        let p: Price = v
            .try_into()
            .map_err(|e: toml::de::Error| format!("price {}{name}: {}", i + 1, e.message()))?;
        let prices = [
            Some(p.input),
            Some(p.output),
            p.cache_read,
            p.cache_write,
            p.cache_write_1h,
        ];
        if prices.iter().flatten().any(|v| !v.is_finite() || *v < 0.0) {
            return Err(format!(
                "price {}{name}: prices are dollars per million tokens, 0 or more",
                i + 1
            ));
        }
        out.push(p);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> ModelId {
        ModelId::Named(s.into())
    }

    #[test]
    fn the_table_parses_and_every_entry_names_its_source_and_date() {
        assert!(!Prices::table().is_empty());
        for e in Prices::table() {
            let Entry::Priced(p) = e else {
                continue;
            };
            assert!(
                p.source.as_deref().is_some_and(|s| !s.is_empty()),
                "{}",
                p.pattern
            );
            assert!(p.date.is_some(), "{}", p.pattern);
            let local = p.provider.is_some();
            assert!(local || (p.input > 0.0 && p.output > 0.0), "{}", p.pattern);
        }
    }

    #[test]
    fn matches_ids_with_and_without_provider_and_the_user_wins() {
        let p = Prices::default();
        let (sonnet, origin) = p
            .lookup(&id("anthropic/claude-sonnet-4-5-20250929"))
            .unwrap();
        assert_eq!(
            (sonnet.input, sonnet.cache_write_1h, origin),
            (3.0, Some(6.0), PriceOrigin::Table)
        );
        assert_eq!(
            p.lookup(&id("openai/gpt-5.2")).unwrap().0.cache_read,
            Some(0.175)
        );
        assert_eq!(p.lookup(&id("gpt-5")).unwrap().0.input, 1.25);
        assert_eq!(p.lookup(&id("ollama/qwen3:8b")).unwrap().0.input, 0.0);
        assert!(matches!(
            p.find(&id("openrouter/qwen3:8b")),
            Lookup::Unpriced(..)
        ));
        let user = parse_user(
            "theme = \"dark\"\n[[price]]\nmatch = \"claude-sonnet-4*\"\ninput = 1.0\noutput = 2.0\n",
        )
        .unwrap();
        let p = Prices::with_user(user);
        let (mine, origin) = p.lookup(&id("anthropic/claude-sonnet-4-5")).unwrap();
        assert_eq!((mine.input, origin), (1.0, PriceOrigin::User));
    }

    #[test]
    fn a_bad_user_price_is_an_error_naming_it() {
        let e = parse_user("[[price]]\nmatch = \"x\"\ninput = -1.0\noutput = 2.0\n").unwrap_err();
        assert!(e.contains("price 1 (`x`)"), "{e}");
        let e = parse_user("[[price]]\nmatch = \"a\"\ninput = 1.0\noutput = 1.0\n\n[[price]]\nmatch = \"x\"\ninput = 1.0\n")
            .unwrap_err();
        assert!(e.contains("price 2 (`x`)") && e.contains("output"), "{e}");
    }

    #[test]
    fn no_older_generations_wildcard_prices_a_newer_model() {
        let p = Prices::default();
        let usd = |m: &str| {
            p.lookup(&id(m))
                .map(|(p, _)| (p.input, p.output, p.pattern.clone()))
        };
        // The XDG conversation's model: Opus 4.8 at its own price.
        assert_eq!(
            usd("anthropic/claude-opus-4-8"),
            Some((5.0, 25.0, "claude-opus-4-8*".into()))
        );
        assert_eq!(
            usd("anthropic/claude-opus-4-20250514").map(|u| u.0),
            Some(15.0)
        );
        // Versions the table does not know are not priced as older ones.
        for newer in [
            "anthropic/claude-opus-4-9",
            "anthropic/claude-sonnet-4-7",
            "anthropic/claude-opus-5",
            "openai/gpt-5.7",
            "google/gemini-4-pro",
            "xai/grok-4-0709",
        ] {
            assert!(
                matches!(p.find(&id(newer)), Lookup::Unpriced(..)),
                "{newer} priced as {:?}",
                usd(newer)
            );
        }
        assert_eq!(usd("google/gemini-2.5-pro").map(|u| u.0), Some(1.25));
    }

    /// Every model of the window table is priced, or listed as known
    /// without a price (with the reason): none falls through unseen.
    #[test]
    fn every_model_the_window_table_knows_has_an_entry_of_its_own() {
        let p = Prices::default();
        for pattern in crate::core::compact::window::patterns() {
            let name = pattern.replace('*', "");
            let name = if name.ends_with('-') {
                format!("{name}x")
            } else {
                name
            };
            let found = p.find(&id(&name));
            let own = match found {
                Lookup::Priced(price, _) => price.pattern == pattern || glob(&price.pattern, &name),
                Lookup::Unpriced(..) => true,
                Lookup::Unknown => false,
            };
            assert!(own, "{pattern}: {found:?}");
        }
    }
}
