//! Reading the typed view of one event off its raw JSON text, with errors
//! that point at the exact field.

use crate::core::model::compaction::Compaction;
use crate::core::model::encoding;
use crate::core::model::event::{Event, Kind, ResponseKind, Span, count_chars};
use crate::core::model::timestamp;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A problem with one event: where (byte offset in the source) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub offset: usize,
    pub message: String,
    /// The event's text is not well-formed JSON (rather than a well-formed
    /// event of the wrong shape).
    pub syntax: bool,
}

/// The fields the typed view reads; everything else is kept in the raw text.
#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    timestamp: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(borrow)]
    reasoning: Option<&'a RawValue>,
    #[serde(borrow)]
    data: Option<&'a RawValue>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    name: Option<&'a RawValue>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow)]
    is_error: Option<&'a RawValue>,
}

/// Reads the typed view of the event whose JSON text is `raw`, a slice of
/// `source` (so errors can point at the exact field).
pub fn parse<'a>(source: &str, raw: &'a str) -> Result<(Event, Option<String>), FieldError> {
    let start = offset_in(source, raw);
    let span = Span {
        start,
        end: start + raw.len(),
    };
    let first = raw.as_bytes().first().copied();
    if first != Some(b'{') {
        return Err(FieldError {
            offset: start,
            message: format!(
                "expected an event object, found {}",
                json_kind(first.unwrap_or(b' '))
            ),
            syntax: serde_json::from_str::<&RawValue>(raw).is_err(),
        });
    }
    let fields: Fields<'a> = serde_json::from_str(raw).map_err(|e| FieldError {
        offset: start,
        message: strip_position(&e),
        syntax: e.is_syntax() || e.is_eof(),
    })?;
    let at = |r: &RawValue| offset_in(source, r.get());
    let err = |r: &RawValue, message: String| FieldError {
        offset: at(r),
        message,
        syntax: false,
    };

    let tag = match fields.kind {
        Some(r) => string(r).ok_or_else(|| {
            err(
                r,
                format!("field `type`: expected a string, found {}", kind_of(r)),
            )
        })?,
        None => {
            return Err(FieldError {
                offset: start,
                message: "event without a `type` tag".into(),
                syntax: false,
            });
        }
    };

    let mut event = Event {
        span,
        timestamp: None,
        kind: Kind::TurnStart,
        turn: 0,
        chars: 0,
        payload: 0,
    };
    let mut warning = None;

    let known = encoding::is_conversation_event(&tag) || tag == "config_delta";
    // jp's oldest files wrote the base config first, as a config delta
    // with no time at all: allowed here, and only as a legacy file's first
    // element (the store says so of any other).
    if tag == "config_delta" && fields.timestamp.is_none() {
        event.timestamp = None;
    } else if known {
        event.timestamp = Some(match fields.timestamp {
            Some(r) => {
                let s = string(r).ok_or_else(|| {
                    err(
                        r,
                        format!("field `timestamp`: expected a string, found {}", kind_of(r)),
                    )
                })?;
                timestamp::parse(&s)
                    .ok_or_else(|| err(r, format!("field `timestamp`: cannot read `{s}`")))?
            }
            None => {
                return Err(FieldError {
                    offset: start,
                    message: format!("`{tag}` event without a `timestamp`"),
                    syntax: false,
                });
            }
        });
    } else {
        event.timestamp = fields
            .timestamp
            .and_then(string)
            .and_then(|s| timestamp::parse(&s));
    }

    let need_str = |name: &str, r: Option<&'a RawValue>| required_str(source, &tag, start, name, r);

    event.kind = match tag.as_ref() {
        "turn_start" => Kind::TurnStart,
        "chat_request" => {
            let content = need_str("content", fields.content)?;
            event.chars = count_chars(&content);
            Kind::ChatRequest
        }
        "chat_response" => {
            let present = [
                (ResponseKind::Message, fields.message),
                (ResponseKind::Reasoning, fields.reasoning),
                (ResponseKind::Data, fields.data),
            ];
            let mut found = present.iter().filter(|(_, r)| r.is_some());
            let Some(&(which, Some(r))) = found.next() else {
                return Err(FieldError {
                    offset: start,
                    message: "`chat_response` without `message`, `reasoning` or `data`".into(),
                    syntax: false,
                });
            };
            if found.next().is_some() {
                warning = Some(
                    "`chat_response` has more than one of `message`, `reasoning`, `data`; \
                     the first is shown"
                        .to_string(),
                );
            }
            event.chars = match which {
                ResponseKind::Data => count_chars(
                    &compact_json(r)
                        .map_err(|e| err(r, format!("field `data`: {}", strip_position(&e))))?,
                ),
                ResponseKind::Message | ResponseKind::Reasoning => {
                    let name = if which == ResponseKind::Message {
                        "message"
                    } else {
                        "reasoning"
                    };
                    let text = need_str(name, Some(r))?;
                    if which == ResponseKind::Reasoning {
                        event.payload = text.len() as u64;
                    }
                    count_chars(&text)
                }
            };
            Kind::ChatResponse(which)
        }
        "tool_call_request" => {
            let id = need_str("id", fields.id)?;
            let name = need_str("name", fields.name)?;
            let args = match fields.arguments {
                Some(r) if r.get().starts_with('{') => {
                    let mut v: Value = serde_json::from_str(r.get())
                        .map_err(|e| err(r, format!("field `arguments`: {e}")))?;
                    encoding::decode_value(&mut v);
                    serde_json::to_string(&v).unwrap_or_default()
                }
                Some(r) => {
                    return Err(err(
                        r,
                        format!(
                            "field `arguments`: expected an object, found {}",
                            kind_of(r)
                        ),
                    ));
                }
                None => {
                    return Err(FieldError {
                        offset: start,
                        message: "`tool_call_request` event without `arguments`".into(),
                        syntax: false,
                    });
                }
            };
            event.payload = args.len() as u64;
            event.chars = count_chars(&name) + count_chars(&args);
            Kind::ToolCallRequest {
                id: id.into(),
                name: name.into(),
            }
        }
        "tool_call_response" => {
            let id = need_str("id", fields.id)?;
            // Most contents are base64: measure them straight from the raw
            // text, without unescaping or keeping the decoded bytes.
            let measured = fields
                .content
                .map(|r| r.get())
                .filter(|s| s.len() >= 2 && s.starts_with('"'))
                .and_then(|s| encoding::measure_standard(&s[1..s.len() - 1]));
            (event.payload, event.chars) = match measured {
                Some(m) => m,
                None => {
                    let content = need_str("content", fields.content)?;
                    let content = encoding::decode_storage(&content);
                    (content.len() as u64, count_chars(&content))
                }
            };
            let is_error = match fields.is_error {
                Some(r) => match r.get() {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(err(
                            r,
                            format!("field `is_error`: expected a bool, found {}", kind_of(r)),
                        ));
                    }
                },
                None => {
                    return Err(FieldError {
                        offset: start,
                        message: "`tool_call_response` event without `is_error`".into(),
                        syntax: false,
                    });
                }
            };
            Kind::ToolCallResponse {
                id: id.into(),
                is_error,
            }
        }
        "inquiry_request" => Kind::InquiryRequest,
        "inquiry_response" => Kind::InquiryResponse,
        "config_delta" => Kind::ConfigDelta,
        "compaction" => {
            let value: Value = serde_json::from_str(raw).map_err(|e| FieldError {
                offset: start,
                message: e.to_string(),
                syntax: false,
            })?;
            Kind::Compaction(
                Compaction::from_json(&value)
                    .map(Box::new)
                    .map_err(Into::into),
            )
        }
        other => Kind::Unknown(other.into()),
    };
    Ok((event, warning))
}

/// A string field the event type requires.
fn required_str<'a>(
    source: &str,
    tag: &str,
    start: usize,
    name: &str,
    r: Option<&'a RawValue>,
) -> Result<Cow<'a, str>, FieldError> {
    match r {
        Some(r) => string(r).ok_or_else(|| FieldError {
            offset: offset_in(source, r.get()),
            message: format!("field `{name}`: expected a string, found {}", kind_of(r)),
            syntax: false,
        }),
        None => Err(FieldError {
            offset: start,
            message: format!("`{tag}` event without `{name}`"),
            syntax: false,
        }),
    }
}

/// Byte offset of `inner` (a subslice) within `outer`.
fn offset_in(outer: &str, inner: &str) -> usize {
    let o = outer.as_ptr() as usize;
    let i = inner.as_ptr() as usize;
    if i >= o && i <= o + outer.len() {
        i - o
    } else {
        0
    }
}

/// The string a raw JSON value holds, borrowed when it has no escapes.
fn string(r: &RawValue) -> Option<Cow<'_, str>> {
    let s = r.get();
    if !s.starts_with('"') || s.len() < 2 {
        return None;
    }
    // The raw value is a valid JSON string already: without a backslash its
    // text is exactly what is between the quotes. (Base64 contents, the bulk
    // of a conversation, never have one.)
    let inner = &s[1..s.len() - 1];
    if !inner.as_bytes().contains(&b'\\') {
        return Some(Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(s).ok().map(Cow::Owned)
}

fn compact_json(r: &RawValue) -> Result<String, serde_json::Error> {
    serde_json::from_str::<Value>(r.get()).map(|v| v.to_string())
}

fn kind_of(r: &RawValue) -> &'static str {
    json_kind(r.get().as_bytes().first().copied().unwrap_or(b' '))
}

fn json_kind(first: u8) -> &'static str {
    match first {
        b'"' => "a string",
        b'{' => "an object",
        b'[' => "an array",
        b't' | b'f' => "a bool",
        b'n' => "null",
        _ => "a number",
    }
}

/// serde_json appends " at line L column C" relative to the event's own text;
/// the caller reports the place in the file instead.
fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(raw: &str) -> Result<Event, FieldError> {
        parse(raw, raw).map(|(e, _)| e)
    }

    #[test]
    fn counts_decoded_tool_content() {
        let e = one(r#"{"timestamp":"2026-01-01 00:00:00.0","type":"tool_call_response","id":"a","content":"aGVsbG8=","is_error":false}"#).unwrap();
        assert_eq!(e.chars, 5);
        assert_eq!(e.payload, 5);
        assert_eq!(
            e.kind,
            Kind::ToolCallResponse {
                id: "a".into(),
                is_error: false
            }
        );
    }

    #[test]
    fn request_counts_name_and_compact_decoded_arguments() {
        let e = one(r#"{"timestamp":"2026-01-01 00:00:00.0","type":"tool_call_request","id":"a","name":"ls","arguments":{"path": "Lg=="}}"#).unwrap();
        // ls + {"path":"."}
        assert_eq!(e.chars, 2 + r#"{"path":"."}"#.len() as u64);
        assert_eq!(e.payload, r#"{"path":"."}"#.len() as u64);
    }

    #[test]
    fn chars_are_unicode_scalars() {
        let e = one(
            r#"{"timestamp":"2026-01-01 00:00:00.0","type":"chat_request","content":"héllo\n"}"#,
        )
        .unwrap();
        assert_eq!(e.chars, 6);
    }

    #[test]
    fn wrong_field_type_points_at_the_field() {
        let raw = r#"{"timestamp":"2026-01-01 00:00:00.0","type":"chat_request","content":5}"#;
        let e = one(raw).unwrap_err();
        assert_eq!(e.offset, raw.find(":5").unwrap() + 1);
        assert!(e.message.contains("`content`"), "{}", e.message);
        assert!(e.message.contains("a number"), "{}", e.message);
    }

    #[test]
    fn unknown_types_are_kept_without_requirements() {
        let e = one(r#"{"type":"future_thing","payload":{"x":1}}"#).unwrap();
        assert_eq!(e.kind, Kind::Unknown("future_thing".into()));
        assert!(!e.kind.is_conversation_event());
    }

    #[test]
    fn invalid_compaction_is_an_event_not_an_error() {
        let e = one(r#"{"type":"compaction","timestamp":"2026-01-01 00:00:00.0","from_turn":1}"#)
            .unwrap();
        assert!(matches!(e.kind, Kind::Compaction(Err(_))));
    }

    #[test]
    fn non_object_is_an_error() {
        assert!(one("[1]").unwrap_err().message.contains("an array"));
    }
}
