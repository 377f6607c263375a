//! Unit tests of `event`.

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
    let e =
        one(r#"{"timestamp":"2026-01-01 00:00:00.0","type":"chat_request","content":"héllo\n"}"#)
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
    let e =
        one(r#"{"type":"compaction","timestamp":"2026-01-01 00:00:00.0","from_turn":1}"#).unwrap();
    assert!(matches!(e.kind, Kind::Compaction(Err(_))));
}

#[test]
fn non_object_is_an_error() {
    assert!(one("[1]").unwrap_err().message.contains("an array"));
}
