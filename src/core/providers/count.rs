//! The providers' token-counting endpoints: Anthropic `POST
//! /v1/messages/count_tokens`, OpenAI `POST /v1/responses/input_tokens`,
//! Google `POST models/{model}:countTokens`. A request is counted whole,
//! then without its tools, then without its system prompt too, so each
//! part is measured by difference.

use super::request::{Include, Request};
use super::{Endpoint, Provider, ProviderError, http};
use serde_json::Value;

/// What a provider counted of one request, by part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Counted {
    pub total: u64,
    pub system_prompt: u64,
    pub tools: u64,
    pub events: u64,
}

/// Counts `req` for `model` at `ep` with `key`.
pub fn count(
    ep: &Endpoint,
    key: &str,
    model: &str,
    req: &Request,
) -> Result<Counted, ProviderError> {
    let whole = once(ep, key, model, req, Include::ALL)?;
    let no_tools = once(
        ep,
        key,
        model,
        req,
        Include {
            system: true,
            tools: false,
        },
    )?;
    let events = once(
        ep,
        key,
        model,
        req,
        Include {
            system: false,
            tools: false,
        },
    )?;
    Ok(Counted {
        total: whole,
        tools: whole.saturating_sub(no_tools),
        system_prompt: no_tools.saturating_sub(events),
        events,
    })
}

/// Letters, digits, `.`, `-` and `_`, as providers' model ids are (
/// `gemini-2.5-pro`, `gemini-2.0-flash-001`), and not only dots.
pub(crate) fn is_plain_model_name(model: &str) -> bool {
    !model.is_empty()
        && model.len() <= 200
        && model
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
        && !model.bytes().all(|b| b == b'.')
}

fn once(
    ep: &Endpoint,
    key: &str,
    model: &str,
    req: &Request,
    inc: Include,
) -> Result<u64, ProviderError> {
    // Google names the model in the path: a name from a conversation's
    // config (a cloned workspace's) must not change the path or the query
    // sent to the user's own host with the user's key.
    if ep.provider == Provider::Google && !is_plain_model_name(model) {
        return Err(ep.err(
            &format!("{}/models/…:countTokens", ep.base_url),
            format!(
                "the model name {:?} is not one a provider names a model with (letters, digits, \
                 `.`, `-`, `_`); not sent",
                crate::core::visible::visible_line(model)
            ),
        ));
    }
    let (url, body, field) = match ep.provider {
        Provider::Anthropic => (
            format!("{}/v1/messages/count_tokens", ep.base_url),
            req.anthropic(model, inc),
            "input_tokens",
        ),
        Provider::Openai => (
            format!("{}/v1/responses/input_tokens", ep.base_url),
            req.openai(model, inc),
            "input_tokens",
        ),
        Provider::Google => (
            format!("{}/models/{model}:countTokens", ep.base_url),
            serde_json::json!({"generateContentRequest": req.google(model, inc)}),
            "totalTokens",
        ),
    };
    let auth = format!("Bearer {key}");
    let headers: Vec<(&str, &str)> = match ep.provider {
        Provider::Anthropic => vec![("x-api-key", key), ("anthropic-version", "2023-06-01")],
        Provider::Openai => vec![("Authorization", &auth)],
        Provider::Google => vec![("x-goog-api-key", key)],
    };
    let v = http::post(ep, &url, &headers, &body)?;
    v.get(field)
        .and_then(Value::as_u64)
        .ok_or_else(|| ep.err(&url, format!("the answer has no `{field}`")))
}
