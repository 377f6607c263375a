//! The LLM providers jp talks to, asked the way jp asks them: their models
//! endpoints for the window jp really gets, their token-counting endpoints
//! for how far D50's estimate is off. Only `models --refresh` and `count`
//! call them; every other command reads what they answered from the cache
//! and never touches the network.
//!
//! Where to call and with which key comes from the user's own jp config
//! (`providers.llm.<provider>.base_url` / `api_key_env`, jp's defaults
//! otherwise), never from a workspace's or a conversation's: a cloned
//! workspace must not be able to send the user's key elsewhere.

pub mod cache;
pub mod count;
pub mod http;
pub mod models;
pub mod request;

use crate::core::model::config::ModelId;
use crate::core::store::jp_config;
use serde_json::Value;
use std::time::Duration;

/// How long one call may take.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// A provider jp-inspect can ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    Anthropic,
    Openai,
    Google,
}

impl Provider {
    pub const ALL: [Provider; 3] = [Provider::Anthropic, Provider::Openai, Provider::Google];

    /// The name jp uses for it (`providers.llm.<name>`, model id prefixes).
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::Openai => "openai",
            Provider::Google => "google",
        }
    }

    pub fn parse(name: &str) -> Option<Provider> {
        Provider::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
    }

    /// The provider of a conversation's model: its prefix, else guessed
    /// from the model family's name.
    pub fn of_model(model: &ModelId) -> Option<Provider> {
        if let Some(p) = model.provider() {
            return Provider::parse(p);
        }
        let name = model.name();
        if name.starts_with("claude") {
            Some(Provider::Anthropic)
        } else if name.starts_with("gemini") || name.starts_with("gemma") {
            Some(Provider::Google)
        } else if ["gpt-", "o1", "o3", "o4", "codex"]
            .iter()
            .any(|p| name.starts_with(p))
        {
            Some(Provider::Openai)
        } else {
            None
        }
    }

    /// jp's own defaults (its `providers.llm.<name>` config types).
    fn defaults(self) -> (&'static str, &'static str) {
        match self {
            Provider::Anthropic => ("https://api.anthropic.com", "ANTHROPIC_API_KEY"),
            Provider::Openai => ("https://api.openai.com", "OPENAI_API_KEY"),
            Provider::Google => (
                "https://generativelanguage.googleapis.com/v1beta",
                "GEMINI_API_KEY",
            ),
        }
    }
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a provider is called and with which key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub provider: Provider,
    pub base_url: String,
    /// The environment variable holding the key.
    pub key_env: String,
    /// How long one call may take.
    pub timeout: Duration,
}

impl Endpoint {
    /// `provider` as the user's own config sets it (`user` is that config,
    /// merged), jp's defaults where it says nothing.
    pub fn of(provider: Provider, user: &Value) -> Endpoint {
        let section = user
            .pointer(&format!("/providers/llm/{}", provider.name()))
            .unwrap_or(&Value::Null);
        let get = |key: &str| {
            section
                .get(key)
                .map(crate::core::model::config::unwrap_value)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let (base, key) = provider.defaults();
        Endpoint {
            provider,
            base_url: get("base_url")
                .unwrap_or_else(|| base.to_string())
                .trim_end_matches('/')
                .to_string(),
            key_env: get("api_key_env").unwrap_or_else(|| key.to_string()),
            timeout: TIMEOUT,
        }
    }

    /// The key from its variable, or an error naming the variable.
    pub fn key(&self) -> Result<String, ProviderError> {
        std::env::var(&self.key_env)
            .ok()
            .filter(|k| !k.is_empty())
            .ok_or_else(|| {
                self.err(
                    &self.base_url,
                    format!("the API key variable `{}` is not set", self.key_env),
                )
            })
    }

    pub fn err(&self, url: &str, message: impl Into<String>) -> ProviderError {
        ProviderError {
            provider: self.provider,
            url: url.to_string(),
            message: message.into(),
        }
    }
}

/// The user's own jp configuration, merged (the user-global files and what
/// they extend): the only place a provider's endpoint is taken from.
pub fn user_config() -> crate::core::error::Result<Value> {
    let mut merged = Value::Object(Default::default());
    for f in jp_config::user_files()? {
        crate::core::model::config::merge(&mut merged, &f.doc);
    }
    crate::core::model::config::resolve(&mut merged);
    Ok(merged)
}

/// A provider call that failed; nothing is written then.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{provider}: {url}: {message}")]
pub struct ProviderError {
    pub provider: Provider,
    pub url: String,
    pub message: String,
}
