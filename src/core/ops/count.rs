//! How far D50's estimate is off for one conversation: the request jp
//! would send at a point, measured by its provider (or, offline, by
//! OpenAI's tokenizer) beside characters / 4, as a whole and per part.

use crate::core::compact::estimate::{self, Category};
use crate::core::compact::jp_view::View;
use crate::core::compact::projection::{self, Projection};
use crate::core::model::config::{self, ModelId};
use crate::core::model::conversation::Conversation;
use crate::core::model::event::count_chars;
use crate::core::model::overhead;
use crate::core::providers::cache::{Measured, Ratios};
use crate::core::providers::count::Counted;
use crate::core::providers::request::{self, Request};
use crate::core::providers::{self, Endpoint, Provider, ProviderError};
use serde::Serialize;

/// D50's estimate of a request, by part (characters / 4 each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Estimated {
    pub total: u64,
    pub system_prompt: u64,
    pub tools: u64,
    pub events: u64,
}

/// The request at a point and D50's estimate of it.
pub struct Point {
    pub request: Request,
    pub estimated: Estimated,
    pub model: Option<ModelId>,
    /// The raw event the request is sent before (`None`: after the last).
    pub before_event: Option<usize>,
    projection: Projection,
    config: serde_json::Value,
}

impl Point {
    /// The enabled tools whose schema only their MCP server knows: the
    /// estimate counts them by name and description.
    pub fn unknown_tools(&self) -> Vec<String> {
        overhead::tools(&self.config).unknown
    }
}

/// The request sent before turn `turn`'s first answer (0-based), or the
/// next one after the last event.
pub(super) fn point(conv: &Conversation, turn: Option<usize>) -> Point {
    let end = turn.and_then(|t| super::request_of_turn(conv, t));
    let (p, cfg) = match end {
        Some(end) => (
            projection::as_of(conv, end, View::default()),
            config::merged(conv, Some(end)),
        ),
        None => (projection::of(conv), conv.merged_config().clone()),
    };
    let request = request::build(conv, &p, p.events.len(), &cfg);
    let sp = overhead::system_prompt(&cfg).chars();
    let tools = overhead::tools(&cfg).chars;
    let events = estimate::of_projection(&conv.events, &p).total_chars();
    // Each part by its own estimate, as `stats` counts the context: the
    // parts add up to it.
    let estimated = Estimated {
        total: estimate::tokens(sp) + estimate::tokens(tools) + estimate::tokens(events),
        system_prompt: estimate::tokens(sp),
        tools: estimate::tokens(tools),
        events: estimate::tokens(events),
    };
    let model =
        config::model_id(&cfg).map(|m| crate::core::compact::window::resolve_alias(&m, &cfg));
    Point {
        request,
        estimated,
        model,
        before_event: end,
        projection: p,
        config: cfg,
    }
}

/// A provider's count of a point beside the estimate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measurement {
    pub provider: Provider,
    pub model: String,
    pub measured: Counted,
    pub estimated: Estimated,
}

impl Measurement {
    pub fn ratio(&self) -> f64 {
        self.measured.total as f64 / self.estimated.total.max(1) as f64
    }
}

/// Why a conversation can't be counted by its provider.
#[derive(Debug, thiserror::Error)]
pub enum CountError {
    #[error("the conversation names no model, so no provider can count it")]
    NoModel,
    #[error(
        "`{0}` is not a model of a provider jp-inspect can ask (anthropic, openai, google); --offline counts with OpenAI's tokenizer"
    )]
    UnknownProvider(String),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error(transparent)]
    Core(#[from] crate::core::error::Error),
}

/// Asks the point's provider to count it (three calls: whole, without the
/// tools, without the system prompt too), with the endpoint and key of
/// the user's own config.
fn measure(point: &Point, timeout: std::time::Duration) -> Result<Measurement, CountError> {
    let model = point.model.as_ref().ok_or(CountError::NoModel)?;
    let provider =
        Provider::of_model(model).ok_or_else(|| CountError::UnknownProvider(model.to_string()))?;
    let mut ep = Endpoint::of(provider, &providers::user_config()?);
    ep.timeout = timeout;
    let key = ep.key().map_err(|mut e| {
        e.message.push_str(
            "; set it to ask the provider, or count with --offline (OpenAI's tokenizer, no key)",
        );
        e
    })?;
    let measured = providers::count::count(&ep, &key, model.name(), &point.request)?;
    Ok(Measurement {
        provider,
        model: model.to_string(),
        measured,
        estimated: point.estimated,
    })
}

/// Keeps `m` as the conversation's measured ratio (the user's data
/// directory); returns where.
fn remember(
    conv: &Conversation,
    m: &Measurement,
) -> crate::core::error::Result<std::path::PathBuf> {
    let mut ratios = Ratios::read();
    ratios.conversations.insert(
        measurement_key(conv, &m.model),
        Measured {
            measured: m.measured.total,
            estimated: m.estimated.total,
            provider: m.provider.name().to_string(),
            model: m.model.clone(),
            at: crate::core::model::timestamp::rfc3339(&chrono::Utc::now()),
        },
    );
    ratios.write()
}

/// The conversation's last measurement, if `count` made one.
pub fn measured(conv: &Conversation) -> Option<&'static Measured> {
    let model = crate::core::model::config::model_id(conv.merged_config())?.to_string();
    Ratios::cached()
        .conversations
        .get(&measurement_key(conv, &model))
}

/// What a measurement is kept under: the conversation's id, where it really
/// lives (its workspace copy where jp keeps two) and the model measured. A
/// cloned workspace reusing an id is another place, so it can neither
/// overwrite nor borrow another conversation's measurement.
fn measurement_key(conv: &Conversation, model: &str) -> String {
    let copies = [Some(&conv.dir), conv.twin.as_ref()];
    let place = copies
        .into_iter()
        .flatten()
        .find(|d| {
            !matches!(
                crate::core::store::copies::root_of(d),
                Some((crate::core::store::copies::Root::User, _))
            )
        })
        .unwrap_or(&conv.dir);
    let place = std::fs::canonicalize(place).unwrap_or_else(|_| place.clone());
    format!("{} {} {model}", conv.display_id(), place.display())
}

/// One kind of content, counted offline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfflineRow {
    pub part: &'static str,
    pub chars: u64,
    /// Characters / 4.
    pub estimated: u64,
    /// OpenAI's o200k_base tokens.
    pub tokens: u64,
}

impl OfflineRow {
    pub fn ratio(&self) -> f64 {
        self.tokens as f64 / self.estimated.max(1) as f64
    }
}

/// The point's content by kind, counted with OpenAI's o200k_base
/// tokenizer beside characters / 4: exact for OpenAI's current models (the
/// text only: the provider adds a few tokens per message), an indication
/// of how the estimate fares on each kind of content for the others.
fn offline(conv: &Conversation, point: &Point) -> Vec<OfflineRow> {
    let bpe = tiktoken_rs::o200k_base_singleton();
    let count = |text: &str| bpe.encode_ordinary(text).len() as u64;
    let mut texts: Vec<(&'static str, String)> = Vec::new();
    let sp = overhead::system_prompt(&point.config);
    let system = std::iter::once(sp.prompt.clone())
        .chain(sp.sections.clone())
        .chain(sp.instructions.clone())
        .collect::<Vec<_>>()
        .concat();
    texts.push(("system prompt", system));
    // As the estimate counts them: a tool whose schema only its MCP
    // server knows by its name and description (its stand-in schema is
    // not what jp sends).
    let tools: String = overhead::tool_definitions(&point.config)
        .iter()
        .map(|t| {
            let schema = if t.unknown_schema {
                String::new()
            } else {
                t.schema.to_string()
            };
            format!("{}{}{schema}", t.name, t.description)
        })
        .collect();
    texts.push(("tools", tools));
    let mut by: std::collections::BTreeMap<usize, String> = Default::default();
    for e in &point.projection.events {
        let cat = match *e {
            crate::core::compact::fate::Projected::Raw { index, .. } => {
                match Category::of(&conv.events[index].kind) {
                    Some(c) => c,
                    None => continue,
                }
            }
            crate::core::compact::fate::Projected::Summary { .. } => Category::Summaries,
        };
        // What is sent: the projected event (a stripped result is its
        // status line, stripped arguments `{}`), not the raw one.
        let v = point.projection.plain(conv, e);
        let field = |k: &str| {
            v.get(k)
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
        };
        let text = match cat {
            Category::ToolRequests => format!(
                "{}{}",
                field("name"),
                v.get("arguments")
                    .map(ToString::to_string)
                    .unwrap_or_default()
            ),
            Category::User | Category::ToolResponses => field("content").to_string(),
            _ => match [field("message"), field("reasoning"), field("content")].concat() {
                t if t.is_empty() => v.get("data").map(ToString::to_string).unwrap_or_default(),
                t => t,
            },
        };
        let slot = Category::ALL.iter().position(|c| *c == cat).unwrap_or(0);
        by.entry(slot).or_default().push_str(&text);
    }
    for (slot, text) in by {
        texts.push((Category::ALL[slot].label(), text));
    }
    // The system prompt and the tools are estimated each alone, the
    // events' parts as shares of their whole: the rows add up to the
    // context `stats` shows.
    let mut events = estimate::Running::default();
    texts
        .into_iter()
        .filter(|(_, t)| !t.is_empty())
        .map(|(part, t)| {
            let chars = count_chars(&t);
            let estimated = if matches!(part, "system prompt" | "tools") {
                estimate::tokens(chars)
            } else {
                events.share(chars)
            };
            OfflineRow {
                part,
                chars,
                estimated,
                tokens: count(&t),
            }
        })
        .collect()
}

/// What a person asks `count` of.
#[derive(Debug, Clone, Copy)]
pub struct CountRequest {
    /// The request of this turn (0-based); `None`: the next one.
    pub turn: Option<usize>,
    /// Count with OpenAI's tokenizer here instead of asking the provider.
    pub offline: bool,
    /// How long to wait for the provider.
    pub timeout: std::time::Duration,
}

/// The request counted, one way or the other.
#[derive(Debug)]
pub enum Count {
    /// Counted here, by kind of content.
    Offline {
        rows: Vec<OfflineRow>,
        /// Tools counted by name and description only (see
        /// [`Point::unknown_tools`]).
        unknown_tools: Vec<String>,
    },
    /// Counted by the provider, and kept as the conversation's ratio.
    Measured {
        measurement: Measurement,
        kept_in: std::path::PathBuf,
    },
}

/// The request `request` names in `conv`, counted: offline, or by its
/// provider with the measurement kept for `stats` and the trigger.
pub fn count(conv: &Conversation, request: CountRequest) -> Result<Count, CountError> {
    let point = point(conv, request.turn);
    if request.offline {
        return Ok(Count::Offline {
            rows: offline(conv, &point),
            unknown_tools: point.unknown_tools(),
        });
    }
    let measurement = measure(&point, request.timeout)?;
    let kept_in = remember(conv, &measurement)?;
    Ok(Count::Measured {
        measurement,
        kept_in,
    })
}
