//! The text of the detail view: what an event is and its full content,
//! decoded for reading.

use super::model::Model;
use crate::core::compact::projection::{Change, Fate, Projected, SummaryPart};
use crate::core::model::encoding::{self, StoredAs};
use crate::core::model::event::{Kind, ResponseKind};
use crate::core::{compact::estimate, model::timestamp};
use serde_json::Value;

pub struct DetailText {
    pub title: String,
    pub header: Vec<String>,
    pub body: String,
    /// A syntect language token for the body (`json`, `md`, `rs`, …).
    pub language: Option<String>,
}

fn fate_line(m: &Model, fate: Fate, by: Option<usize>) -> String {
    let by = by.map(|i| {
        let o = m.overlay(i);
        format!(
            " by #{} ({}{}: {}, turns {}..{})",
            o.position + 1,
            o.compaction.source.as_str(),
            if o.preview { ", preview" } else { "" },
            o.compaction.policy_label(),
            o.compaction.from_turn + 1,
            o.compaction.to_turn + 1
        )
    });
    let what = match fate {
        Fate::Kept => "sent to the model as is",
        Fate::Stripped => "stripped",
        Fate::Omitted => "omitted",
        Fate::Summarized => "replaced by a summary",
        Fate::Overlay => "an overlay (consumed by the projection)",
    };
    format!("fate: {what}{}", by.unwrap_or_default())
}

/// The language of a fenced block at the start of `text` (```rs).
fn fence_language(text: &str) -> Option<String> {
    let first = text.lines().next()?.trim();
    let lang = first.strip_prefix("```")?.trim();
    (!lang.is_empty()).then(|| lang.to_string())
}

/// The detail of raw event `i`.
pub fn raw_event(m: &Model, i: usize) -> DetailText {
    let conv = &m.conv;
    let e = &conv.events[i];
    let plain = conv.plain(i);
    let mut header = vec![format!(
        "type: {}   time: {}   turn {}   event {i}",
        e.kind.tag(),
        e.timestamp
            .map(|t| timestamp::format(&t))
            .unwrap_or_else(|| "?".into()),
        e.turn + 1
    )];
    let fate = m.projection.fates[i];
    if e.kind.is_conversation_event() {
        header.push(fate_line(m, fate.fate, fate.by));
    }
    if e.kind.is_model_visible() {
        header.push(format!(
            "size: {} characters, about {} tokens",
            crate::fmt::thousands(e.chars),
            crate::fmt::thousands(estimate::tokens(e.chars))
        ));
    }
    let (body, language) = match &e.kind {
        Kind::ChatRequest => (conv.text(i), Some("md".to_string())),
        Kind::ChatResponse(ResponseKind::Message | ResponseKind::Reasoning) => {
            (conv.text(i), Some("md".to_string()))
        }
        Kind::ChatResponse(ResponseKind::Data) => (
            serde_json::to_string_pretty(plain.get("data").unwrap_or(&Value::Null))
                .unwrap_or_default(),
            Some("json".to_string()),
        ),
        Kind::ToolCallRequest { id, name } => {
            header.push(format!("tool: {name}   call id: {id}"));
            (
                serde_json::to_string_pretty(plain.get("arguments").unwrap_or(&Value::Null))
                    .unwrap_or_default(),
                Some("json".to_string()),
            )
        }
        Kind::ToolCallResponse { id, is_error } => {
            let stored: Value = serde_json::from_str(conv.raw(i)).unwrap_or(Value::Null);
            let content = stored.get("content").and_then(Value::as_str).unwrap_or("");
            let (text, how) = encoding::decode_for_display(content);
            header.push(format!(
                "call id: {id}   tool: {}   {}",
                m.projection.tool_name(id),
                if *is_error { "ERROR" } else { "success" }
            ));
            header.push(
                match how {
                    StoredAs::Base64 => "stored as base64 (decoded here)",
                    StoredAs::Plain => "stored as plain text",
                    StoredAs::UrlSafeBase64 => {
                        "stored as URL-safe base64, which jp cannot decode: the model is sent \
                         the encoded text; decoded here for reading"
                    }
                }
                .to_string(),
            );
            let language = fence_language(&text);
            (text.into_owned(), language)
        }
        _ => (
            serde_json::to_string_pretty(&plain).unwrap_or_default(),
            Some("json".to_string()),
        ),
    };
    DetailText {
        title: format!("{} · turn {}", e.kind.label(), e.turn + 1),
        header,
        body,
        language,
    }
}

/// The detail of projected event `p`: what the model is sent.
pub fn projected_event(m: &Model, p: &Projected) -> DetailText {
    match *p {
        Projected::Raw { index, change } => {
            let mut d = raw_event(m, index);
            d.title = format!("{} (projected)", d.title);
            match change {
                Change::None => {}
                Change::EmptyArguments => {
                    d.body = "{}".into();
                    d.header.push("the model is sent empty arguments".into());
                }
                Change::StatusLine => {
                    if let Kind::ToolCallResponse { id, is_error } = &m.conv.events[index].kind {
                        d.body = m.projection.status_line(id, *is_error);
                        d.language = None;
                        d.header.push(
                            "the model is sent this status line instead of the content".into(),
                        );
                    }
                }
            }
            d
        }
        Projected::Summary {
            overlay,
            part,
            turn,
            ..
        } => {
            let o = m.overlay(overlay);
            let c = &o.compaction;
            let header = vec![
                format!(
                    "injected by summary #{} ({}{}) of turns {}..{}",
                    o.position + 1,
                    c.source.as_str(),
                    if o.preview { ", preview" } else { "" },
                    c.from_turn + 1,
                    c.to_turn + 1
                ),
                format!("shown at turn {}", turn + 1),
            ];
            let body = match part {
                SummaryPart::TurnStart => "(turn start)".to_string(),
                SummaryPart::Request => {
                    crate::core::compact::projection::SUMMARY_REQUEST.to_string()
                }
                SummaryPart::Response => c.summary.clone().unwrap_or_default(),
            };
            DetailText {
                title: "summary".into(),
                header,
                body,
                language: Some("md".into()),
            }
        }
    }
}
