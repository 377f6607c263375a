//! Arbitrary streams with arbitrary compactions: the projection never
//! panics, keeps raw events as they are, and its turn origins cover every
//! raw turn once, in order.
#![no_main]

use arbitrary::Arbitrary;
use jp_inspect::core::model::compaction::{Compaction, Source, ToolCalls};
use jp_inspect::core::fuzzing::load::{self, Files};
use jp_inspect::core::fuzzing::fate::{Alteration, Projected, TurnOrigin};
use jp_inspect::core::fuzzing::projection;
use jp_inspect::core::fuzzing::estimate;
use jp_inspect::core::model::{encoding, timestamp};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::path::Path;

#[derive(Debug, Arbitrary)]
enum Ev {
    TurnStart,
    Request(String),
    Reasoning(String),
    Message(String),
    Call { id: u8, name: u8, arg: String, output: String, error: bool },
    Response { id: u8, output: String },
    Inquiry,
    Delta,
    Unknown,
    Compaction { from: u8, to: u8, summary: Option<String>, reasoning: bool, tools: Option<(u8, Option<u16>)>, second: u8, auto: bool },
}

fuzz_target!(|events: Vec<Ev>| {
    let mut values = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let ts = format!("2026-01-01 00:{:02}:{:02}.0", (i / 60) % 60, i % 60);
        let mut v = match e {
            Ev::TurnStart => json!({"timestamp": ts, "type": "turn_start"}),
            Ev::Request(c) => json!({"timestamp": ts, "type": "chat_request", "content": c}),
            Ev::Reasoning(r) => json!({"timestamp": ts, "type": "chat_response", "reasoning": r}),
            Ev::Message(m) => json!({"timestamp": ts, "type": "chat_response", "message": m}),
            Ev::Call { id, name, arg, output, error } => {
                let mut req = json!({"timestamp": ts, "type": "tool_call_request", "id": format!("c{id}"),
                    "name": format!("t{name}"), "arguments": {"a": arg}});
                encoding::encode_event(&mut req);
                values.push(req);
                json!({"timestamp": ts, "type": "tool_call_response", "id": format!("c{id}"), "content": output, "is_error": error})
            }
            Ev::Response { id, output } => json!({"timestamp": ts, "type": "tool_call_response", "id": format!("c{id}"), "content": output, "is_error": false}),
            Ev::Inquiry => json!({"timestamp": ts, "type": "inquiry_request", "id": "q", "source": "tool", "question": {"text": "ok?"}}),
            Ev::Delta => json!({"type": "config_delta", "timestamp": ts, "delta": {"assistant": {"model": {"id": "flash"}}}}),
            Ev::Unknown => json!({"type": "from_the_future", "timestamp": ts}),
            Ev::Compaction { from, to, summary, reasoning, tools, second, auto } => {
                let tool_calls = tools.map(|(k, over)| {
                    let over = over.map(u64::from);
                    match k % 4 {
                        0 => ToolCalls::Strip { request: true, response: true, over },
                        1 => ToolCalls::Strip { request: true, response: false, over },
                        2 => ToolCalls::Strip { request: false, response: true, over },
                        _ => ToolCalls::Omit { over },
                    }
                });
                Compaction {
                    timestamp: timestamp::parse(&format!("2026-02-01 00:00:{:02}", second % 60)).unwrap(),
                    from_turn: usize::from(*from),
                    to_turn: usize::from(*to),
                    summary: summary.clone(),
                    strip_reasoning: *reasoning,
                    reasoning_over: None,
                    tool_calls,
                    source: if *auto { Source::Auto } else { Source::Manual },
                    summarizer: None,
                    authored: false,
                    tool_overrides: Default::default(),
                }
                .to_json()
            }
        };
        encoding::encode_event(&mut v);
        values.push(v);
    }
    let text = serde_json::to_string_pretty(&Value::Array(values)).unwrap();
    let conv = load::parse(
        Path::new("/fuzz/17000000000-p"),
        Files { events: text.into_bytes(), base_config: Some(b"{}".to_vec()), metadata: None },
    )
    .expect("generated streams load");
    let p = projection::of(&conv);
    let _ = estimate::estimate(&conv, &p, &estimate::Overhead::of_config(conv.merged_config()));
    for e in &p.events {
        if let Projected::Raw { index, change: Alteration::None } = e {
            assert_eq!(p.plain(&conv, e), conv.plain(*index));
        }
    }
    let mut next = 0;
    for o in &p.turn_origins {
        let (from, to) = match *o {
            TurnOrigin::Kept(t) => (t, t),
            TurnOrigin::Summary { from, to, .. } => (from, to),
        };
        assert_eq!(from, next);
        assert!(to >= from);
        next = to + 1;
    }
    assert_eq!(next, conv.turn_count);
});
