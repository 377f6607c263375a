//! `anthropic`: a summary from Anthropic's Messages API, the provider most
//! jp conversations run on.

use super::http::Endpoint;
use super::{Request, SummarizeError, Summarizer, Summary, transcript};
use serde_json::{Value, json};
use std::time::Duration;

/// The API version this client speaks; Anthropic requires the header.
pub const API_VERSION: &str = "2023-06-01";
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const DEFAULT_MODEL: &str = "claude-haiku-4-5";
pub const DEFAULT_KEY_ENV: &str = "ANTHROPIC_API_KEY";
/// A summary is meant to be short; this bounds its cost.
pub const DEFAULT_MAX_TOKENS: u32 = 2048;

#[derive(Debug, Clone)]
pub struct Anthropic {
    /// `https://api.anthropic.com`, or a proxy speaking the same API.
    pub base_url: String,
    pub model: String,
    /// The environment variable holding the API key.
    pub api_key_env: String,
    pub max_tokens: u32,
    pub timeout: Duration,
}

impl Anthropic {
    pub fn endpoint(&self) -> String {
        format!("{}/v1/messages", self.base_url.trim_end_matches('/'))
    }
}

impl Summarizer for Anthropic {
    fn name(&self) -> &str {
        "anthropic"
    }

    fn destination(&self) -> Option<String> {
        Some(format!("{} ({})", self.endpoint(), self.model))
    }

    fn summarize(&self, request: &Request<'_>) -> Result<Summary, SummarizeError> {
        let range = transcript::render(request.conversation, request.range);
        let text = self.complete(&super::instructions_with_checklist(request), &range)?;
        super::summary(&self.at(), &text, request.instructions, &range)
    }
}

impl Anthropic {
    pub(super) fn at(&self) -> Endpoint<'static> {
        Endpoint {
            summarizer: "anthropic",
            url: self.endpoint(),
        }
    }

    /// The model's answer to `user` under `system`, trimmed; an error when
    /// it was cut off at `max_tokens`.
    pub(super) fn complete(&self, system: &str, user: &str) -> Result<String, SummarizeError> {
        let endpoint = self.at();
        let key = endpoint.key(&self.api_key_env)?;
        let body = json!({
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": 0,
            "system": system,
            "messages": [{"role": "user", "content": user}],
        });
        let headers = [
            ("x-api-key", key.as_str()),
            ("anthropic-version", API_VERSION),
        ];
        let v = endpoint.post(&headers, body, self.timeout)?;
        // The answer is a list of content blocks; only text blocks count.
        let text: String = v
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
        if v.get("stop_reason").and_then(Value::as_str) == Some("max_tokens") {
            return Err(endpoint.err(format!(
                "the answer was cut off at max_tokens = {}; raise `max_tokens`",
                self.max_tokens
            )));
        }
        Ok(text.trim().to_string())
    }
}
