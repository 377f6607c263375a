//! `request` against the bodies jp's own provider code builds
//! (`tests/data/requests/`): jp's four-turn test conversation, written as
//! jp stores it, under each of its eight compaction scenarios, for
//! Anthropic, OpenAI and Google.

use crate::common;

use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};

const AT: &str = "2020-01-01 00:00:00.0";

/// jp's `base_stream`: turn 0 a reasoning event, turn 1 a tool call pair,
/// turn 2 a plain exchange, turn 3 a pending request.
fn base_events() -> Vec<Value> {
    let e = |v: Value| {
        let mut v = v;
        v["timestamp"] = json!(AT);
        v
    };
    vec![
        e(json!({"type": "turn_start"})),
        e(json!({"type": "chat_request", "content": "What is the capital of France?"})),
        e(json!({"type": "chat_response", "reasoning": "The user wants a capital city."})),
        e(json!({"type": "chat_response", "message": "Paris."})),
        e(json!({"type": "turn_start"})),
        e(json!({"type": "chat_request", "content": "Read my notes file."})),
        e(
            json!({"type": "tool_call_request", "id": "call_1", "name": "read_file",
                  "arguments": {"path": "notes.md"}}),
        ),
        e(json!({"type": "tool_call_response", "id": "call_1",
                  "content": "- buy milk\n- call dentist", "is_error": false})),
        e(json!({"type": "chat_response", "message": "Your notes mention milk and the dentist."})),
        e(json!({"type": "turn_start"})),
        e(json!({"type": "chat_request", "content": "And the capital of Germany?"})),
        e(json!({"type": "chat_response", "message": "Berlin."})),
        e(json!({"type": "turn_start"})),
        e(json!({"type": "chat_request", "content": "And of Italy?"})),
    ]
}

fn compaction(from: u64, to: u64, at: &str, policies: Value) -> Value {
    let mut c = json!({"type": "compaction", "timestamp": at, "from_turn": from, "to_turn": to});
    for (k, v) in policies.as_object().unwrap() {
        c[k] = v.clone();
    }
    c
}

/// Each scenario of jp's `compaction_request_tests.rs`, as the overlay it
/// appends.
fn scenarios() -> Vec<(&'static str, Vec<Value>)> {
    let later = "2020-01-01 00:00:01.0";
    vec![
        ("baseline", vec![]),
        (
            "reasoning_strip",
            vec![compaction(0, 0, AT, json!({"reasoning": "strip"}))],
        ),
        (
            "summary",
            vec![compaction(
                0,
                2,
                AT,
                json!({"summary": {"summary": "Earlier: the user asked about France's capital and had their notes read."}}),
            )],
        ),
        (
            "tool_strip_request",
            vec![compaction(
                1,
                1,
                AT,
                json!({"tool_calls": {"policy": "strip", "request": true, "response": false}}),
            )],
        ),
        (
            "tool_strip_response",
            vec![compaction(
                1,
                1,
                AT,
                json!({"tool_calls": {"policy": "strip", "request": false, "response": true}}),
            )],
        ),
        (
            "tool_strip_both",
            vec![compaction(
                1,
                1,
                AT,
                json!({"tool_calls": {"policy": "strip", "request": true, "response": true}}),
            )],
        ),
        (
            "tool_omit",
            vec![compaction(
                1,
                1,
                AT,
                json!({"tool_calls": {"policy": "omit"}}),
            )],
        ),
        (
            "summary_overlap",
            vec![
                compaction(
                    0,
                    1,
                    AT,
                    json!({"summary": {"summary": "Summary A: France's capital and the start of the notes lookup."}}),
                ),
                compaction(
                    1,
                    2,
                    later,
                    json!({"summary": {"summary": "Summary B: the notes lookup and Germany's capital."}}),
                ),
            ],
        ),
    ]
}

/// The conversation in a workspace, its model one of `provider`'s with
/// reasoning off, as jp's test config has it.
fn conversation(root: &Path, provider: &str, overlays: &[Value]) -> PathBuf {
    let dir = root.join(".jp/conversations/15778368000-compaction-request");
    fs::create_dir_all(&dir).unwrap();
    let model = match provider {
        "anthropic" => "claude-haiku-4-5",
        "openai" => "gpt-5-mini",
        _ => "gemini-2.5-flash",
    };
    fs::write(
        dir.join("base_config.json"),
        serde_json::to_vec_pretty(&json!({"assistant": {
            "model": {"id": {"provider": provider, "name": model}, "parameters": {"reasoning": "off"}}
        }}))
        .unwrap(),
    )
    .unwrap();
    let mut events = base_events();
    events.extend(overlays.iter().cloned());
    fs::write(
        dir.join("events.json"),
        serde_json::to_vec_pretty(&events).unwrap(),
    )
    .unwrap();
    dir
}

fn part_of(provider: &str) -> &'static str {
    match provider {
        "anthropic" => "messages",
        "openai" => "input",
        _ => "contents",
    }
}

#[test]
fn the_conversation_part_is_what_jps_provider_code_builds() {
    let mut failures = Vec::new();
    let mut compared = 0;
    for provider in ["anthropic", "openai", "google"] {
        for (name, overlays) in scenarios() {
            let tmp = tempfile::tempdir().unwrap();
            let dir = conversation(tmp.path(), provider, &overlays);
            let out = common::jp_inspect(
                &[
                    "request",
                    dir.to_str().unwrap(),
                    "--provider",
                    provider,
                    "--json",
                ],
                tmp.path(),
            );
            let got = common::json(&out);
            let want: Value = serde_json::from_slice(
                &fs::read(
                    common::data()
                        .join("requests")
                        .join(provider)
                        .join(format!("{name}.json")),
                )
                .unwrap(),
            )
            .unwrap();
            let part = part_of(provider);
            compared += 1;
            if got["body"][part] != want[part] {
                failures.push(format!(
                    "{provider} {name}:\n want {}\n  got {}",
                    want[part], got["body"][part]
                ));
            }
        }
    }
    assert_eq!(compared, 24);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Text mode: the body alone on stdout (for `| jq`), what it is on stderr.
#[test]
fn the_body_alone_goes_to_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = conversation(tmp.path(), "anthropic", &[]);
    let out = common::jp_inspect(&["request", dir.to_str().unwrap(), "--at", "2"], tmp.path());
    assert!(out.status.success(), "{}", common::stderr(&out));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Before turn 2's first answer: turns 1 and 2's request, no further.
    let texts: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().unwrap())
        .filter_map(|b| b["text"].as_str())
        .collect();
    assert_eq!(texts.last(), Some(&"Read my notes file."), "{texts:?}");
    assert!(common::stderr(&out).contains("the request of turn 2"));
    let bad = common::jp_inspect(&["request", dir.to_str().unwrap(), "--at", "9"], tmp.path());
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        common::stderr(&bad).contains("has 4 turns"),
        "{}",
        common::stderr(&bad)
    );
}

/// Signed reasoning goes back to Anthropic natively, except in the last
/// assistant message; a model without prefill gets jp's continue message.
#[test]
fn signatures_and_the_continue_message_as_jp_sends_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = conversation(tmp.path(), "anthropic", &[]);
    let mut events: Vec<Value> =
        serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
    // jp stores metadata strings base64-encoded.
    events[2]["metadata"] = json!({"anthropic_thinking_signature": "c2lnLTE="});
    events.push(
        json!({"type": "chat_response", "timestamp": AT, "reasoning": "Rome, clearly.",
                       "metadata": {"anthropic_thinking_signature": "c2lnLTI="}}),
    );
    events.push(json!({"type": "chat_response", "timestamp": AT, "message": "Rome."}));
    fs::write(
        dir.join("events.json"),
        serde_json::to_vec(&events).unwrap(),
    )
    .unwrap();
    let cfg = json!({"assistant": {"model": {"id": {"provider": "anthropic", "name": "claude-opus-4-6"}}}});
    fs::write(dir.join("base_config.json"), cfg.to_string()).unwrap();
    let got = common::json(&common::jp_inspect(
        &["request", dir.to_str().unwrap(), "--json"],
        tmp.path(),
    ));
    let messages = got["body"]["messages"].as_array().unwrap();
    assert_eq!(
        messages[1]["content"][0],
        json!({"type": "thinking", "thinking": "The user wants a capital city.", "signature": "sig-1"})
    );
    let last_assistant = &messages[messages.len() - 2];
    assert_eq!(
        last_assistant["content"][0]["text"],
        "<think>\nRome, clearly.\n</think>\n\n"
    );
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    assert!(
        last["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Continue your response exactly"),
        "{last}"
    );
    let notes = got["notes"].to_string();
    assert!(notes.contains("takes no prefill"), "{notes}");
}
