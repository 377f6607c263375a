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

#[derive(Debug, Deserialize)]
struct Table {
    price: Vec<Price>,
}

fn bundled() -> &'static [Price] {
    static T: OnceLock<Table> = OnceLock::new();
    &T.get_or_init(|| toml::from_str(TABLE).expect("assets/prices.toml is valid"))
        .price
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

    /// The first entry matching `model`: the user's, then the table's.
    pub fn lookup(&self, model: &ModelId) -> Option<(&Price, PriceOrigin)> {
        let name = model.name().to_ascii_lowercase();
        let provider = model.provider().map(str::to_ascii_lowercase);
        let hit = |p: &&Price| {
            glob(&p.pattern.to_ascii_lowercase(), &name)
                && p.provider
                    .as_deref()
                    .is_none_or(|want| provider.as_deref() == Some(want))
        };
        self.user
            .iter()
            .find(hit)
            .map(|p| (p, PriceOrigin::User))
            .or_else(|| bundled().iter().find(hit).map(|p| (p, PriceOrigin::Table)))
    }

    /// Every bundled entry, in matching order (for `models`, the README).
    pub fn table() -> &'static [Price] {
        bundled()
    }
}

/// The `[[price]]` entries of a user's file (its other keys are the
/// shell's); the message names the entry and what is wrong with it.
pub fn parse_user(text: &str) -> Result<Vec<Price>, String> {
    #[derive(Deserialize)]
    struct File {
        #[serde(default)]
        price: Vec<Price>,
    }
    let file: File = toml::from_str(text).map_err(|e| e.message().to_string())?;
    for (i, p) in file.price.iter().enumerate() {
        let prices = [
            Some(p.input),
            Some(p.output),
            p.cache_read,
            p.cache_write,
            p.cache_write_1h,
        ];
        if prices.iter().flatten().any(|v| !v.is_finite() || *v < 0.0) {
            return Err(format!(
                "price {} (`{}`): prices are dollars per million tokens, 0 or more",
                i + 1,
                p.pattern
            ));
        }
    }
    Ok(file.price)
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
        for p in Prices::table() {
            assert!(
                p.source.as_deref().is_some_and(|s| !s.is_empty()),
                "{}",
                p.pattern
            );
            assert!(p.date.is_some(), "{}", p.pattern);
            assert!(p.input > 0.0 && p.output > 0.0, "{}", p.pattern);
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
        assert!(p.lookup(&id("ollama/qwen3:8b")).is_none());
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
        assert!(parse_user("[[price]]\nmatch = \"x\"\ninput = 1.0\n").is_err());
    }
}
