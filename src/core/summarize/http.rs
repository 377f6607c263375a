//! What the HTTP summarizers share: one JSON POST with a timeout, the API
//! key read from a named variable, and a provider's error told in its own
//! words rather than as a raw body.

use super::SummarizeError;
use serde_json::Value;
use std::time::Duration;

/// A model endpoint, for error messages that say which one failed.
pub(super) struct Endpoint<'a> {
    pub summarizer: &'a str,
    pub url: String,
}

impl Endpoint<'_> {
    pub fn err(&self, message: impl Into<String>) -> SummarizeError {
        SummarizeError {
            summarizer: self.summarizer.into(),
            message: format!("{}: {}", self.url, message.into()),
        }
    }

    /// The key in `var`, or an error naming the variable.
    pub fn key(&self, var: &str) -> Result<String, SummarizeError> {
        std::env::var(var).map_err(|_| self.err(format!("the API key variable `{var}` is not set")))
    }

    /// POSTs `body` with `headers`; the parsed JSON answer of a 2xx.
    pub fn post(
        &self,
        headers: &[(&str, &str)],
        body: Value,
        timeout: Duration,
    ) -> Result<Value, SummarizeError> {
        let agent = ureq::AgentBuilder::new().timeout(timeout).build();
        let mut call = agent.post(&self.url);
        for (name, value) in headers {
            call = call.set(name, value);
        }
        let response = match call.send_json(body) {
            Ok(r) => r,
            Err(ureq::Error::Status(code, r)) => {
                let text = r.into_string().unwrap_or_default();
                return Err(self.err(format!("HTTP {code}: {}", provider_message(&text))));
            }
            Err(ureq::Error::Transport(t)) => {
                return Err(self.err(format!("request failed: {t}")));
            }
        };
        response
            .into_json()
            .map_err(|e| self.err(format!("the response is not JSON: {e}")))
    }
}

/// OpenAI, Anthropic and Google all answer errors as `{"error":
/// {"message": …}}` (Anthropic adds the error's `type`, Google its
/// `status`); anything else is shown as an excerpt.
pub fn provider_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<Value>(body)
        && let Some(message) = v.pointer("/error/message").and_then(Value::as_str)
    {
        // Anthropic names the error's `type`, Google its `status`.
        let kind = v
            .pointer("/error/type")
            .or_else(|| v.pointer("/error/status"))
            .and_then(Value::as_str);
        return match kind {
            Some(kind) => format!("{message} ({kind})"),
            None => message.to_string(),
        };
    }
    let excerpt: String = body.chars().take(300).collect();
    excerpt.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::provider_message;

    #[test]
    fn provider_errors_are_told_in_their_own_words() {
        assert_eq!(
            provider_message(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            "Overloaded (overloaded_error)"
        );
        assert_eq!(
            provider_message(r#"{"error":{"message":"Incorrect API key provided"}}"#),
            "Incorrect API key provided"
        );
        assert_eq!(
            provider_message("  upstream exploded\n"),
            "upstream exploded"
        );
    }
}
