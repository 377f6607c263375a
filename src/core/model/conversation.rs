//! A loaded conversation: its files, its raw event texts and their typed view.

use crate::core::error::Warning;
use crate::core::model::compaction::Compaction;
use crate::core::model::encoding;
use crate::core::model::event::{Event, Kind, Span};
use crate::core::model::id::ConversationId;
use serde_json::Value;
use std::path::PathBuf;

pub const EVENTS_FILE: &str = "events.json";
pub const BASE_CONFIG_FILE: &str = "base_config.json";
pub const METADATA_FILE: &str = "metadata.json";

/// The two on-disk generations (format.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// `events.json` only; its first element is the base config delta.
    Legacy,
    /// `base_config.json` + `events.json`.
    Current,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Legacy => "legacy",
            Format::Current => "current",
        }
    }
}

/// What a compaction event is, with where it sits.
#[derive(Debug, Clone, Copy)]
pub struct CompactionRef<'a> {
    /// 0-based position among the stream's compaction events (valid or not);
    /// people see it 1-based.
    pub position: usize,
    /// Index of the event in the stream.
    pub event: usize,
    /// The compaction, or why it is invalid.
    pub parsed: Result<&'a Compaction, &'a str>,
}

#[derive(Debug, Clone)]
pub struct Conversation {
    pub dir: PathBuf,
    /// The numeric id (deciseconds since the epoch), when the directory is
    /// named the way `jp` names it.
    pub id: Option<u64>,
    pub title: Option<String>,
    pub format: Format,
    pub base_config: Value,
    /// `metadata.json` as read, kept whole because it may hold fields we do
    /// not know.
    pub metadata: Option<Value>,
    /// The text of `events.json`; every event's raw JSON is a slice of it.
    pub(crate) source: crate::core::model::text::Text,
    /// A legacy file's leading config delta: not an event of the stream, but
    /// written back first.
    pub(crate) prelude: Option<Span>,
    pub events: Vec<Event>,
    pub turn_count: usize,
    pub warnings: Vec<Warning>,
    /// jp's other copy of this conversation (its user-local one, or the
    /// workspace's), kept equal to this one on every write; `dir` is the
    /// copy jp reads.
    pub twin: Option<PathBuf>,
    /// The merged config (base, then every config delta), made once on
    /// first use: it can be large, and the model, the window, the system
    /// prompt and the tools are all read from it.
    pub(crate) merged: std::sync::OnceLock<Value>,
    /// Every fact's occurrence in the events, found once on first use by
    /// the facts layer (which alone knows its type: the model knows nothing
    /// of facts). A summary of any range, and every simulated run, select
    /// from it instead of reading the events again.
    pub(crate) facts_memo: std::sync::OnceLock<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
}

impl Conversation {
    pub fn events_path(&self) -> PathBuf {
        self.dir.join(EVENTS_FILE)
    }

    /// `jp-c<ID>` as people type it, or the directory name.
    pub fn display_id(&self) -> String {
        match self.id {
            Some(id) => ConversationId(id).to_string(),
            None => self
                .dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }

    /// The event's JSON exactly as it was read.
    pub fn raw(&self, index: usize) -> &str {
        self.source.slice(self.events[index].span)
    }

    pub(crate) fn raw_span(&self, span: Span) -> &str {
        self.source.slice(span)
    }

    pub fn prelude_raw(&self) -> Option<&str> {
        self.prelude.map(|s| self.raw_span(s))
    }

    /// The event as a JSON value with the storage encoding removed.
    pub fn plain(&self, index: usize) -> Value {
        let mut v: Value = serde_json::from_str(self.raw(index)).unwrap_or(Value::Null);
        encoding::decode_event(&mut v);
        v
    }

    /// The model-visible text of an event, decoded: a request's content, a
    /// response's message/reasoning/data, a tool call's arguments (compact
    /// JSON), a tool result's content. Empty for other events.
    pub fn text(&self, index: usize) -> String {
        let v = self.plain(index);
        let field = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        match &self.events[index].kind {
            Kind::ChatRequest | Kind::ToolCallResponse { .. } => field("content"),
            Kind::ChatResponse(crate::core::model::event::ResponseKind::Message) => {
                field("message")
            }
            Kind::ChatResponse(crate::core::model::event::ResponseKind::Reasoning) => {
                field("reasoning")
            }
            Kind::ChatResponse(crate::core::model::event::ResponseKind::Data) => {
                v.get("data").map(Value::to_string).unwrap_or_default()
            }
            Kind::ToolCallRequest { .. } => {
                v.get("arguments").map(Value::to_string).unwrap_or_default()
            }
            _ => String::new(),
        }
    }

    /// Events of turns `from..=to`, as indices.
    pub fn events_of_turns(&self, from: usize, to: usize) -> std::ops::Range<usize> {
        // Turns are non-decreasing along the stream.
        let start = self.events.partition_point(|e| e.turn < from);
        let end = self.events.partition_point(|e| e.turn <= to);
        start..end
    }

    /// Every compaction event, valid or not, in stream order.
    pub fn compactions(&self) -> impl Iterator<Item = CompactionRef<'_>> + '_ {
        self.events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match &e.kind {
                Kind::Compaction(parsed) => Some((i, parsed)),
                _ => None,
            })
            .enumerate()
            .map(|(position, (event, parsed))| CompactionRef {
                position,
                event,
                parsed: parsed.as_ref().map(|c| &**c).map_err(|e| &**e),
            })
    }

    /// The valid compactions, in stream order.
    pub fn valid_compactions(&self) -> Vec<Compaction> {
        self.events
            .iter()
            .filter_map(|e| e.compaction().cloned())
            .collect()
    }

    /// Index of the first event of each turn.
    pub fn turn_starts(&self) -> Vec<usize> {
        crate::core::model::turns::first_events(&self.events, self.turn_count)
    }
}
