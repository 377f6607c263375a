//! The providers' models endpoints, asked as jp asks them at every query:
//! Anthropic `GET /v1/models` (`max_input_tokens` is the window,
//! `max_tokens` the output jp sends), paged by `has_more` / `last_id`;
//! Google's model list (`inputTokenLimit` / `outputTokenLimit`), paged by
//! `nextPageToken`; OpenAI `GET /v1/models`, which names the models but
//! gives no window (the table's figures stand for those).

use super::{Endpoint, Provider, ProviderError, http};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most pages read of one listing: a provider that keeps saying there
/// is more is cut off, not followed forever.
const MAX_PAGES: usize = 100;

/// One model as its provider describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub id: String,
    /// The context window (input tokens), when the provider says.
    pub window: Option<u64>,
    /// The maximum output, which jp sends as `max_tokens`.
    pub output: Option<u64>,
}

/// Every model the provider at `ep` lists, with the key `key`.
pub fn list(ep: &Endpoint, key: &str) -> Result<Vec<ModelInfo>, ProviderError> {
    match ep.provider {
        Provider::Anthropic => anthropic(ep, key),
        Provider::Openai => openai(ep, key),
        Provider::Google => google(ep, key),
    }
}

fn anthropic(ep: &Endpoint, key: &str) -> Result<Vec<ModelInfo>, ProviderError> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut url = format!("{}/v1/models?limit=1000", ep.base_url);
        if let Some(a) = &after {
            url.push_str(&format!("&after_id={a}"));
        }
        let v = http::get(
            ep,
            &url,
            &[("x-api-key", key), ("anthropic-version", "2023-06-01")],
        )?;
        for m in data(ep, &url, &v, "data")? {
            out.push(ModelInfo {
                id: string(m, "id"),
                window: m
                    .get("max_input_tokens")
                    .and_then(Value::as_u64)
                    .filter(|&n| n > 0),
                output: m
                    .get("max_tokens")
                    .and_then(Value::as_u64)
                    .filter(|&n| n > 0),
            });
        }
        match (v.get("has_more").and_then(Value::as_bool), v.get("last_id")) {
            (Some(true), Some(Value::String(last))) => after = Some(last.clone()),
            _ => return Ok(out),
        }
    }
    Ok(out)
}

fn openai(ep: &Endpoint, key: &str) -> Result<Vec<ModelInfo>, ProviderError> {
    let url = format!("{}/v1/models", ep.base_url);
    let auth = format!("Bearer {key}");
    let v = http::get(ep, &url, &[("Authorization", &auth)])?;
    Ok(data(ep, &url, &v, "data")?
        .iter()
        .map(|m| ModelInfo {
            id: string(m, "id"),
            window: None,
            output: None,
        })
        .collect())
}

fn google(ep: &Endpoint, key: &str) -> Result<Vec<ModelInfo>, ProviderError> {
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut url = format!("{}/models?pageSize=1000", ep.base_url);
        if let Some(t) = &token {
            url.push_str(&format!("&pageToken={t}"));
        }
        let v = http::get(ep, &url, &[("x-goog-api-key", key)])?;
        for m in data(ep, &url, &v, "models")? {
            let name = string(m, "name");
            out.push(ModelInfo {
                id: name.strip_prefix("models/").unwrap_or(&name).to_string(),
                window: m.get("inputTokenLimit").and_then(Value::as_u64),
                output: m.get("outputTokenLimit").and_then(Value::as_u64),
            });
        }
        match v.get("nextPageToken").and_then(Value::as_str) {
            Some(t) if !t.is_empty() => token = Some(t.to_string()),
            _ => return Ok(out),
        }
    }
    Ok(out)
}

fn data<'a>(
    ep: &Endpoint,
    url: &str,
    v: &'a Value,
    key: &str,
) -> Result<&'a Vec<Value>, ProviderError> {
    v.get(key).and_then(Value::as_array).ok_or_else(|| {
        let shown = url.split('?').next().unwrap_or(url);
        ep.err(shown, format!("the answer has no `{key}` list"))
    })
}

fn string(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}
