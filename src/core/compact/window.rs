//! Context windows: the known models' windows (an asset table), matched from
//! a conversation's model id, or an explicit override. Unknown stays
//! unknown: jp-inspect never guesses silently.

use crate::core::fmt::human_tokens;
use crate::core::model::config::{self, ModelId};
use crate::core::model::overhead;
use serde::Deserialize;
use serde_json::Value;
use std::fmt;
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../../assets/context_windows.toml");

#[derive(Debug, Deserialize)]
struct Table {
    model: Vec<Entry>,
    #[serde(default)]
    aliases: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
struct Entry {
    #[serde(rename = "match")]
    pattern: String,
    window: u64,
    /// The model's default maximum output tokens, reserved out of the
    /// window when the conversation configures none.
    #[serde(default)]
    output: Option<u64>,
    #[serde(default)]
    provider: Option<String>,
    /// Where the figures come from, shown by `models`.
    #[serde(default)]
    source: Option<String>,
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| toml::from_str(TABLE).expect("assets/context_windows.toml is valid"))
}

/// Every model pattern of the table, in its order (for checks that each
/// is priced).
#[cfg(test)]
pub fn patterns() -> Vec<&'static str> {
    table().model.iter().map(|e| e.pattern.as_str()).collect()
}

/// Where a window figure came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WindowSource {
    /// Given with `--window` or set in the TUI.
    Override,
    /// Matched in the table, through this model name.
    Table { model: String },
    /// What the provider's models endpoint said (`models --refresh`).
    Provider {
        model: String,
        provider: String,
        fetched_at: String,
    },
}

/// Where the output reserve comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReserveSource {
    /// `assistant.model.parameters.max_tokens` of the conversation.
    Configured,
    /// The model's default in `assets/context_windows.toml`.
    Table,
    /// The maximum output the provider's models endpoint gives it.
    Provider,
    /// Neither: nothing reserved.
    None,
}

impl ReserveSource {
    pub fn as_str(&self) -> &'static str {
        match self {
            ReserveSource::Configured => "configured max output tokens",
            ReserveSource::Table => "the model's default output",
            ReserveSource::Provider => "the model's maximum output, as its provider lists it",
            ReserveSource::None => "none known",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub tokens: u64,
    pub source: WindowSource,
    /// Tokens kept free for the answer (the output reserve).
    pub reserve: u64,
    pub reserve_source: ReserveSource,
    /// The reserve asked for when it was more than half the window, which
    /// is all that is kept free so that half stays to measure against.
    pub capped_from: Option<u64>,
}

impl Window {
    /// "capped at half the window, from 128k": why the reserve is less than
    /// asked, wherever the window is shown.
    pub fn capped_note(&self) -> Option<String> {
        self.capped_from
            .map(|c| format!("capped at half the window, from {}", human_tokens(c)))
    }

    /// A window of `tokens` with nothing reserved (an override, or a test).
    pub fn of(tokens: u64, source: WindowSource) -> Window {
        Window {
            tokens,
            source,
            reserve: 0,
            reserve_source: ReserveSource::None,
            capped_from: None,
        }
    }

    /// What the request may fill: the window less the output reserve. The
    /// thresholds are fractions of this.
    pub fn usable(&self) -> u64 {
        self.tokens.saturating_sub(self.reserve).max(1)
    }
}

impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", human_tokens(self.tokens))
    }
}

pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let mut rest = text;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(p) => rest = &rest[p + part.len()..],
                None => return false,
            }
        }
    }
    true
}

/// Resolves an alias through the conversation's config, then the built-in
/// aliases.
pub fn resolve_alias(model: &ModelId, config: &Value) -> ModelId {
    let ModelId::Named(name) = model else {
        return model.clone();
    };
    if name.contains('/') {
        return model.clone();
    }
    let from_config = config
        .get("providers")
        .and_then(|p| p.get("llm"))
        .and_then(|l| l.get("aliases"))
        .and_then(|a| a.get(name))
        .and_then(ModelId::from_json);
    if let Some(m) = from_config {
        return m;
    }
    match table().aliases.get(&name.to_ascii_lowercase()) {
        Some(target) => ModelId::Named(target.clone()),
        None => model.clone(),
    }
}

/// `reserve` kept to at most half of a `tokens` window: (the reserve, what
/// it was when capped).
pub fn cap(reserve: u64, tokens: u64) -> (u64, Option<u64>) {
    if reserve > tokens / 2 {
        (tokens / 2, Some(reserve))
    } else {
        (reserve, None)
    }
}

/// One entry of the bundled table, as `models` lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TableRow {
    pub pattern: String,
    pub provider: Option<String>,
    pub window: u64,
    pub output: Option<u64>,
    pub source: Option<String>,
}

/// Every entry of the bundled table, in matching order.
pub fn table_rows() -> Vec<TableRow> {
    table()
        .model
        .iter()
        .map(|e| TableRow {
            pattern: e.pattern.clone(),
            provider: e.provider.clone(),
            window: e.window,
            output: e.output,
            source: e.source.clone(),
        })
        .collect()
}

fn entry(model: &ModelId) -> Option<&'static Entry> {
    let name = model.name().to_ascii_lowercase();
    let provider = model.provider().map(str::to_ascii_lowercase);
    table().model.iter().find(|e| {
        glob(&e.pattern, &name)
            && e.provider
                .as_deref()
                .is_none_or(|p| provider.as_deref() == Some(p))
    })
}

/// What a provider's models endpoint said of one model, as the window
/// needs it (the providers' cache answers with this; the window doesn't
/// know where it came from).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub window: Option<u64>,
    pub output: Option<u64>,
    pub provider: String,
    pub fetched_at: String,
}

/// The window for a conversation's merged `config` from the table alone:
/// the override if given, else the table's entry for its (alias-resolved)
/// model, else unknown. The output reserve is the configured max output
/// tokens, else the table's default for the model, else 0. `ops::budget`
/// adds what the providers said.
#[cfg(test)]
pub fn for_config(config: &Value, override_tokens: Option<u64>) -> Option<Window> {
    for_config_with(config, override_tokens, &|_| None)
}

/// [`for_config`] with the providers' answers (`listed`, asked with the
/// alias-resolved model): what a provider said wins over the table.
pub fn for_config_with(
    config: &Value,
    override_tokens: Option<u64>,
    listed: &dyn Fn(&ModelId) -> Option<Listed>,
) -> Option<Window> {
    let model = config::model_id(config).map(|m| resolve_alias(&m, config));
    let entry = model.as_ref().and_then(entry);
    let listed = model.as_ref().and_then(listed);
    let (reserve, reserve_source) = match (overhead::max_output_tokens(config), &listed, entry) {
        (Some(n), _, _) => (n, ReserveSource::Configured),
        (None, Some(k), _) if k.output.is_some() => {
            (k.output.unwrap_or(0), ReserveSource::Provider)
        }
        (
            None,
            _,
            Some(Entry {
                output: Some(n), ..
            }),
        ) => (*n, ReserveSource::Table),
        _ => (0, ReserveSource::None),
    };
    let (tokens, source) = match (override_tokens, &listed, entry, &model) {
        (Some(tokens), _, _, _) => (tokens, WindowSource::Override),
        (None, Some(k), _, Some(m)) => (
            k.window.unwrap_or(0),
            WindowSource::Provider {
                model: m.to_string(),
                provider: k.provider.clone(),
                fetched_at: k.fetched_at.clone(),
            },
        ),
        (None, None, Some(e), Some(m)) => (
            e.window,
            WindowSource::Table {
                model: m.to_string(),
            },
        ),
        _ => return None,
    };
    // A reserve as large as the window would leave nothing to measure
    // against; keep at least half of it usable, and say so.
    let (reserve, capped_from) = cap(reserve, tokens);
    Some(Window {
        tokens,
        source,
        reserve,
        reserve_source,
        capped_from,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matches_ids_in_every_form() {
        let cfg = |id: Value| json!({"assistant": {"model": {"id": id}}});
        let w = |id: Value| for_config(&cfg(id), None).map(|w| w.tokens);
        assert_eq!(w(json!("anthropic/claude-opus-4-6")), Some(1_000_000));
        assert_eq!(
            w(json!("anthropic/claude-opus-4-5-20251101")),
            Some(200_000)
        );
        assert_eq!(
            w(json!("anthropic/claude-sonnet-4-5-20250929")),
            Some(1_000_000)
        );
        assert_eq!(
            w(json!("anthropic/claude-opus-4-1-20250805")),
            Some(200_000)
        );
        assert_eq!(
            w(json!({"provider": "google", "name": "gemini-3-flash-preview"})),
            Some(1_048_576)
        );
        assert_eq!(w(json!("openai/gpt-4o-mini")), Some(128_000));
        assert_eq!(w(json!("flash")), Some(1_048_576));
        assert_eq!(w(json!("ollama/llama3.1:8b")), Some(131_072));
        assert_eq!(w(json!("acme/unheard-of-model")), None);
        assert_eq!(w(Value::Null), None);
    }

    #[test]
    fn config_aliases_win_over_built_in_ones() {
        let cfg = json!({
            "assistant": {"model": {"id": "flash"}},
            "providers": {"llm": {"aliases": {"flash": {"provider": "openai", "name": "gpt-4o"}}}}
        });
        let w = for_config(&cfg, None).unwrap();
        assert_eq!(w.tokens, 128_000);
        assert_eq!(
            w.source,
            WindowSource::Table {
                model: "openai/gpt-4o".into()
            }
        );
    }

    #[test]
    fn override_wins() {
        let w = for_config(&json!({}), Some(32_000)).unwrap();
        assert_eq!(w.source, WindowSource::Override);
    }

    #[test]
    fn human_figures() {
        assert_eq!(human_tokens(200_000), "200k");
        assert_eq!(human_tokens(1_048_576), "1.05m");
        assert_eq!(human_tokens(1_000_000), "1m");
        assert_eq!(human_tokens(1_234), "1.2k");
        assert_eq!(human_tokens(999), "999");
        assert_eq!(human_tokens(1_000), "1k");
        assert_eq!(human_tokens(4_000), "4k");
    }
}
