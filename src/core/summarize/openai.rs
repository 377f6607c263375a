//! `openai`: a summary from an OpenAI-compatible `/chat/completions`
//! endpoint (OpenAI, OpenRouter, Ollama, llama.cpp, vLLM).

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
    fn err(&self, message: impl Into<String>) -> SummarizeError {
        SummarizeError {
            summarizer: "openai".into(),
            message: format!("{}: {}", self.endpoint(), message.into()),
        }
    }

    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

impl Summarizer for OpenAi {
    fn name(&self) -> &str {
        "openai"
    }

    fn summarize(&self, request: &Request<'_>) -> Result<Summary, SummarizeError> {
        let key = match &self.api_key_env {
            Some(var) => Some(
                std::env::var(var)
                    .map_err(|_| self.err(format!("the API key variable `{var}` is not set")))?,
            ),
            None => None,
        };
        let range = transcript::render(request.conversation, request.range);
        let body = json!({
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": request.instructions},
                {"role": "user", "content": range},
            ],
        });
        let agent = ureq::AgentBuilder::new().timeout(self.timeout).build();
        let mut call = agent.post(&self.endpoint());
        if let Some(key) = key {
            call = call.set("Authorization", &format!("Bearer {key}"));
        }
        let response = match call.send_json(body) {
            Ok(r) => r,
            Err(ureq::Error::Status(code, r)) => {
                let text = r.into_string().unwrap_or_default();
                let excerpt: String = text.chars().take(300).collect();
                return Err(self.err(format!("HTTP {code}: {}", excerpt.trim())));
            }
            Err(ureq::Error::Transport(t)) => {
                return Err(self.err(format!("request failed: {t}")));
            }
        };
        let v: Value = response
            .into_json()
            .map_err(|e| self.err(format!("the response is not JSON: {e}")))?;
        let text = v
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or_default()
            .to_string();
        if text.is_empty() {
            return Err(self.err("the response holds no summary text"));
        }
        Ok(Summary {
            text,
            input_chars: crate::core::model::event::count_chars(request.instructions)
                + crate::core::model::event::count_chars(&range),
        })
    }
}
