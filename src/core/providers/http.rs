//! One JSON call to a provider with a timeout, its error told in the
//! provider's own words (`{"error": {"message", "type"|"status"}}`).

use super::{Endpoint, ProviderError};
use serde_json::Value;

/// GETs `url` with `headers`; the JSON of a 2xx answer.
pub fn get(ep: &Endpoint, url: &str, headers: &[(&str, &str)]) -> Result<Value, ProviderError> {
    let agent = ureq::AgentBuilder::new().timeout(ep.timeout).build();
    let mut call = agent.get(url);
    for (k, v) in headers {
        call = call.set(k, v);
    }
    answer(ep, url, call.call())
}

/// POSTs `body` to `url` with `headers`; the JSON of a 2xx answer.
pub fn post(
    ep: &Endpoint,
    url: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> Result<Value, ProviderError> {
    let agent = ureq::AgentBuilder::new().timeout(ep.timeout).build();
    let mut call = agent.post(url);
    for (k, v) in headers {
        call = call.set(k, v);
    }
    answer(ep, url, call.send_json(body))
}

fn answer(
    ep: &Endpoint,
    url: &str,
    result: Result<ureq::Response, ureq::Error>,
) -> Result<Value, ProviderError> {
    // Never the URL's query: Google's key may travel there.
    let shown = url.split('?').next().unwrap_or(url);
    match result {
        Ok(r) => r
            .into_json()
            .map_err(|e| ep.err(shown, format!("the answer is not JSON: {e}"))),
        Err(ureq::Error::Status(code, r)) => {
            let text = r.into_string().unwrap_or_default();
            Err(ep.err(
                shown,
                format!(
                    "HTTP {code}: {}",
                    crate::core::summarize::provider_message(&text)
                ),
            ))
        }
        Err(ureq::Error::Transport(t)) => Err(ep.err(shown, format!("request failed: {t}"))),
    }
}
