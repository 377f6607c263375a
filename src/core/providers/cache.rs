//! What the providers answered, kept with its date in the user's data
//! directory (`$JP_INSPECT_DATA_DIR`, else `$XDG_DATA_HOME/jp-inspect`,
//! else `~/.local/share/jp-inspect`): the models each listed, and the
//! measured-to-estimated ratio of each conversation `count` measured. Read
//! by every command (never a network call), written only by `models
//! --refresh` and `count`, atomically, and never on a failure.

use super::Provider;
use super::models::ModelInfo;
use crate::core::compact::window::Listed;
use crate::core::error::{Error, Result};
use crate::core::model::config::ModelId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

const MODELS_FILE: &str = "models.json";
const RATIOS_FILE: &str = "measured.json";

/// The user's data directory for jp-inspect.
pub fn dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = var("JP_INSPECT_DATA_DIR") {
        return Some(d);
    }
    if let Some(x) = var("XDG_DATA_HOME").filter(|x| x.is_absolute()) {
        return Some(x.join("jp-inspect"));
    }
    var("HOME").map(|h| h.join(".local/share/jp-inspect"))
}

/// One provider's listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listing {
    /// When it was fetched (RFC 3339).
    pub fetched_at: String,
    pub base_url: String,
    pub models: Vec<ModelInfo>,
}

/// Every provider's last listing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Models {
    #[serde(default)]
    pub providers: BTreeMap<String, Listing>,
}

/// A model found in the cache: what its provider said, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    pub provider: Provider,
    pub model: ModelInfo,
    pub fetched_at: String,
}

impl Models {
    /// The cached models, or none (a missing or unreadable cache is no
    /// cache: the table stands in).
    pub fn read() -> Models {
        read_json(MODELS_FILE)
    }

    /// The cache as this process first read it.
    pub fn cached() -> &'static Models {
        static M: OnceLock<Models> = OnceLock::new();
        M.get_or_init(Models::read)
    }

    /// What a provider said of `model`: its exact id, else the dated
    /// release it names (`claude-opus-4-5` is `claude-opus-4-5-20251101`).
    pub fn find(&self, model: &ModelId) -> Option<Known> {
        let name = model.name().to_ascii_lowercase();
        let wanted = Provider::of_model(model);
        self.providers
            .iter()
            .filter_map(|(p, l)| Some((Provider::parse(p)?, l)))
            .filter(|(p, _)| wanted.is_none_or(|w| w == *p))
            .find_map(|(p, l)| {
                let exact = l.models.iter().find(|m| m.id.eq_ignore_ascii_case(&name));
                let dated = || {
                    l.models.iter().find(|m| {
                        m.id.to_ascii_lowercase()
                            .strip_prefix(&name)
                            .and_then(|r| r.strip_prefix('-'))
                            .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit()))
                    })
                };
                let m = exact.or_else(dated)?;
                m.window?;
                Some(Known {
                    provider: p,
                    model: m.clone(),
                    fetched_at: l.fetched_at.clone(),
                })
            })
    }

    /// [`Models::find`] as the window takes it.
    pub fn listed(&self, model: &ModelId) -> Option<Listed> {
        self.find(model).map(|k| Listed {
            window: k.model.window,
            output: k.model.output,
            provider: k.provider.name().to_string(),
            fetched_at: k.fetched_at,
        })
    }

    pub fn write(&self) -> Result<PathBuf> {
        write_json(MODELS_FILE, self)
    }
}

/// `count`'s measurement of one conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Tokens the provider counted for the request.
    pub measured: u64,
    /// D50's estimate (characters / 4) of the same request.
    pub estimated: u64,
    pub provider: String,
    pub model: String,
    /// When it was measured (RFC 3339).
    pub at: String,
}

impl Measured {
    /// Measured tokens per estimated one.
    pub fn ratio(&self) -> f64 {
        self.measured as f64 / self.estimated.max(1) as f64
    }
}

/// Every conversation's last measurement, by `jp-c<ID>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ratios {
    #[serde(default)]
    pub conversations: BTreeMap<String, Measured>,
}

impl Ratios {
    pub fn read() -> Ratios {
        read_json(RATIOS_FILE)
    }

    /// The measurements as this process first read them.
    pub fn cached() -> &'static Ratios {
        static R: OnceLock<Ratios> = OnceLock::new();
        R.get_or_init(Ratios::read)
    }

    pub fn write(&self) -> Result<PathBuf> {
        write_json(RATIOS_FILE, self)
    }
}

/// The most of a cache file read: the models of every provider are a few
/// hundred kilobytes.
const LIMIT: u64 = 16 << 20;

/// A file of the data directory, or its default when missing or unreadable
/// (no cache: the table and D50's estimate stand in).
fn read_json<T: serde::de::DeserializeOwned + Default>(name: &str) -> T {
    dir()
        .and_then(|d| crate::core::store::bounded::read_regular(&d.join(name), LIMIT, true).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn write_json<T: Serialize>(name: &str, value: &T) -> Result<PathBuf> {
    let dir = dir().ok_or_else(|| {
        Error::invalid(
            "$XDG_DATA_HOME",
            "no data directory: set HOME, XDG_DATA_HOME or JP_INSPECT_DATA_DIR",
        )
    })?;
    crate::core::store::safe_fs::real_dir(&dir)?;
    let path = dir.join(name);
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    let temp = crate::core::store::safe_fs::write_temp(&path, text.as_bytes(), None)?;
    crate::core::store::safe_fs::commit(&temp, &path)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::compact::window;
    use serde_json::json;

    #[test]
    fn a_providers_answer_wins_over_the_table() {
        let mut known = Models::default();
        known.providers.insert(
            "anthropic".into(),
            Listing {
                fetched_at: "2026-12-01T08:00:00Z".into(),
                base_url: "http://127.0.0.1".into(),
                models: vec![ModelInfo {
                    id: "claude-opus-4-5-20251101".into(),
                    window: Some(123_456),
                    output: Some(4_000),
                }],
            },
        );
        let cfg = json!({"assistant": {"model": {"id": "anthropic/claude-opus-4-5"}}});
        let w = window::for_config_with(&cfg, None, &|m| known.listed(m)).unwrap();
        assert_eq!((w.tokens, w.reserve), (123_456, 4_000));
        assert!(matches!(w.source, window::WindowSource::Provider { .. }));
        assert_eq!(w.reserve_source, window::ReserveSource::Provider);
        // Not listed: the table.
        let other = json!({"assistant": {"model": {"id": "anthropic/claude-opus-4-1"}}});
        let w = window::for_config_with(&other, None, &|m| known.listed(m)).unwrap();
        assert!(matches!(w.source, window::WindowSource::Table { .. }));
    }
}
