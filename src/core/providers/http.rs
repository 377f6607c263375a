//! One JSON call to an LLM provider with a timeout, its error told in the
//! provider's own words (`{"error": {"message", "type"|"status"}}`). The
//! summarizers and the models and counting endpoints all call through here.

use super::{Endpoint, ProviderError};
use serde_json::Value;
use std::time::Duration;

/// GETs `url` with `headers`; the JSON of a 2xx answer.
pub fn get(ep: &Endpoint, url: &str, headers: &[(&str, &str)]) -> Result<Value, ProviderError> {
    call(url, headers, None, ep.timeout).map_err(|m| ep.err(shown(url), m))
}

/// POSTs `body` to `url` with `headers`; the JSON of a 2xx answer.
pub fn post(
    ep: &Endpoint,
    url: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> Result<Value, ProviderError> {
    call(url, headers, Some(body), ep.timeout).map_err(|m| ep.err(shown(url), m))
}

/// Never the URL's query: Google's key may travel there.
fn shown(url: &str) -> &str {
    url.split('?').next().unwrap_or(url)
}

/// One call: a POST of `body`, else a GET; the JSON of a 2xx answer, or
/// what went wrong in words (`HTTP 429: … (rate_limit_error)`).
pub fn call(
    url: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
    timeout: Duration,
) -> Result<Value, String> {
    let agent = ureq::AgentBuilder::new().timeout(timeout).build();
    let mut request = match body {
        Some(_) => agent.post(url),
        None => agent.get(url),
    };
    for (k, v) in headers {
        request = request.set(k, v);
    }
    let result = match body {
        Some(b) => request.send_json(b),
        None => request.call(),
    };
    match result {
        Ok(r) => r
            .into_json()
            .map_err(|e| format!("the answer is not JSON: {e}")),
        Err(ureq::Error::Status(code, r)) => {
            let text = r.into_string().unwrap_or_default();
            Err(format!("HTTP {code}: {}", provider_message(&text)))
        }
        Err(ureq::Error::Transport(t)) => Err(format!("request failed: {t}")),
    }
}

/// OpenAI, Anthropic and Google all answer errors as `{"error":
/// {"message": …}}` (Anthropic adds the error's `type`, Google its
/// `status`); anything else is shown as an excerpt.
pub fn provider_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<Value>(body)
        && let Some(message) = v.pointer("/error/message").and_then(Value::as_str)
    {
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
            provider_message(
                r#"{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}}"#
            ),
            "Quota exceeded (RESOURCE_EXHAUSTED)"
        );
        assert_eq!(
            provider_message("  upstream exploded\n"),
            "upstream exploded"
        );
    }
}
