//! `request`: the body jp sends at a point, in a provider's own form, with
//! what a reader of it should know. The provider is the conversation's
//! own unless one is asked for; Anthropic's body carries the output bound
//! jp asks for.

use super::count;
use crate::core::error::Error;
use crate::core::model::conversation::Conversation;
use crate::core::providers::Provider;
use crate::core::providers::request::Include;
use serde_json::{Value, json};

/// What a person asks the body of.
#[derive(Debug, Clone, Default)]
pub struct BodyRequest {
    /// The request of this turn (0-based); `None`: the next one.
    pub turn: Option<usize>,
    /// The provider whose form to build; `None`: the conversation's own.
    pub provider: Option<Provider>,
    /// What jp handed over, under `jp inspect`: read in place of its files.
    pub jp: Option<crate::core::model::config::JpResolved>,
}

/// The body and what to know about it.
#[derive(Debug, Clone)]
pub struct Body {
    pub provider: Provider,
    /// The model's name as the body sends it.
    pub model: String,
    /// The raw event the request is sent before (`None`: after the last).
    pub before_event: Option<usize>,
    pub body: Value,
    pub notes: Vec<String>,
}

/// Why no body could be built.
#[derive(Debug)]
pub enum BodyError {
    /// The conversation's model is no provider's this knows, and none was
    /// asked for.
    NoProvider { model: Option<String> },
    /// Its configuration could not be read.
    Config(Error),
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyError::NoProvider { model } => write!(
                f,
                "model ({}) is not one of anthropic, openai or google",
                model.as_deref().unwrap_or("none")
            ),
            BodyError::Config(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BodyError {}

/// The body of the request `request` names in `conv`.
pub fn body(conv: &Conversation, request: BodyRequest) -> Result<Body, BodyError> {
    let point = count::point(conv, request.turn);
    let own = point.model.as_ref().and_then(Provider::of_model);
    let provider = request
        .provider
        .or(own)
        .ok_or_else(|| BodyError::NoProvider {
            model: point.model.as_ref().map(ToString::to_string),
        })?;
    let model = point
        .model
        .as_ref()
        .map_or("unknown".to_string(), |m| m.name().to_string());
    let mut body = match provider {
        Provider::Anthropic => point.request.anthropic(&model, Include::ALL),
        Provider::Openai => point.request.openai(&model, Include::ALL),
        Provider::Google => point.request.google(&model, Include::ALL),
    };
    let mut notes = point.request.notes(provider);
    // Anthropic's Messages API requires the output bound jp asks for (its
    // count endpoint refuses it, so only this body has it).
    if provider == Provider::Anthropic {
        let config = crate::core::auto::config_for(conv, None, request.jp.as_ref())
            .map_err(BodyError::Config)?;
        let reserve = super::budget(conv, &config, None).reserve();
        if reserve > 0 {
            body["max_tokens"] = json!(reserve);
        } else {
            notes.push(
                "max_tokens is left out: neither the configuration nor the table of models \
                 says the model's output bound"
                    .into(),
            );
        }
    }
    if own.is_some_and(|p| p != provider) {
        notes.push(format!(
            "the conversation's model is {}'s: the body names it as {} would be sent it",
            own.map_or("", Provider::name),
            provider.name()
        ));
    }
    Ok(Body {
        provider,
        model,
        before_event: point.before_event,
        body,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::store::load;

    fn conv(model: Option<(&str, &str)>) -> Conversation {
        let events = json!([
            {"type": "turn_start", "timestamp": "2026-01-01 00:00:00"},
            {"type": "chat_request", "timestamp": "2026-01-01 00:00:00", "content": "hi"}
        ]);
        let base = model.map(|(provider, name)| {
            json!({"assistant": {"model": {"id": {"provider": provider, "name": name}}}})
                .to_string()
                .into_bytes()
        });
        let files = load::Files {
            events: events.to_string().into_bytes(),
            base_config: base,
            metadata: None,
        };
        load::parse(std::path::Path::new("17000000000-x"), files).unwrap()
    }

    #[test]
    fn a_model_of_no_known_provider_needs_one_asked_for() {
        let c = conv(Some(("ollama", "llama3")));
        match body(&c, BodyRequest::default()) {
            Err(e @ BodyError::NoProvider { .. }) => {
                assert_eq!(
                    e.to_string(),
                    "model (ollama/llama3) is not one of anthropic, openai or google"
                )
            }
            other => panic!("{other:?}"),
        }
        let b = body(
            &c,
            BodyRequest {
                turn: None,
                provider: Some(Provider::Openai),
                jp: None,
            },
        )
        .unwrap();
        assert_eq!((b.provider, b.model.as_str()), (Provider::Openai, "llama3"));
        assert!(b.body["input"].is_array(), "{}", b.body);
    }

    #[test]
    fn another_providers_form_is_said_in_a_note() {
        let c = conv(Some(("anthropic", "claude-opus-4-5")));
        let own = body(&c, BodyRequest::default()).unwrap();
        assert_eq!(own.provider, Provider::Anthropic);
        assert!(own.notes.iter().all(|n| !n.contains("would be sent it")));
        let other = body(
            &c,
            BodyRequest {
                turn: None,
                provider: Some(Provider::Google),
                jp: None,
            },
        )
        .unwrap();
        assert!(
            other
                .notes
                .iter()
                .any(|n| n == "the conversation's model is anthropic's: the body names it as google would be sent it"),
            "{:?}",
            other.notes
        );
    }
}
