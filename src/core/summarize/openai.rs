//! `openai`: a summary from an OpenAI-compatible `/chat/completions`
//! endpoint (OpenAI, OpenRouter, Ollama, llama.cpp, vLLM).

use super::http::Endpoint;
use super::{Request, SummarizeError, Summarizer, Summary, transcript};
use serde_json::{Value, json};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct OpenAi {
    /// E.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    pub model: String,
    /// The environment variable holding the API key (none for local servers).
    pub api_key_env: Option<String>,
    pub timeout: Duration,
}

impl OpenAi {
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

impl Summarizer for OpenAi {
    fn name(&self) -> &str {
        "openai"
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

impl OpenAi {
    pub(super) fn at(&self) -> Endpoint<'static> {
        Endpoint {
            summarizer: "openai",
            url: self.endpoint(),
        }
    }

    /// The model's answer to `user` under `system`, trimmed.
    pub(super) fn complete(&self, system: &str, user: &str) -> Result<String, SummarizeError> {
        let endpoint = self.at();
        let auth = match &self.api_key_env {
            Some(var) => Some(format!("Bearer {}", endpoint.key(var)?)),
            None => None,
        };
        let body = json!({
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        });
        let headers: Vec<(&str, &str)> = auth
            .as_deref()
            .map(|a| ("Authorization", a))
            .into_iter()
            .collect();
        let v = endpoint.post(&headers, body, self.timeout)?;
        Ok(v.pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or_default()
            .to_string())
    }
}
