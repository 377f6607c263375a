//! No text of a conversation, at any position, makes a command panic:
//! ordinary model text that ends in a multi-byte character, a tool result
//! whose figure follows one. Each runs the real binary on a copy of the
//! demo with the text put where a cut once fell inside a character.

use crate::common;

use base64::Engine;
use serde_json::{Value, json};
use std::path::Path;

const ID: &str = "jp-c17944860430";

/// What the model and the tools write, ending in or led by characters of
/// more than one byte: accents, an ellipsis, emoji, CJK, combining marks.
const TEXTS: [&str; 7] = [
    "Shall I fix it now…",
    "Should I apply the fix? 🙂",
    "修正を適用しましょうか",
    "Should I go on with the café fix? é",
    "Do you want me to run it? e\u{301}",
    "Should I? 👩‍💻",
    "Would you like the 日本 version?",
];

/// Results a tool gives, each with a figure right after such a character.
const RESULTS: [&str; 4] = [
    "é8/9 patterns applied.",
    "日本8/9 patterns applied.",
    "🙂3/4 patterns applied.\nRan 2 of which 1 failed",
    "error: é\u{301}failed at 日本:3",
];

/// The demo with the last assistant message of turn 1 set to `message` and
/// the first tool result of turn 1 to `result` (base64, as jp stores it).
fn demo_with(root: &Path, message: &str, result: &str) {
    let conv = common::demo_copy(root);
    common::edit_events(&conv, |ev| {
        let end = ev
            .iter()
            .enumerate()
            .filter(|(_, e)| e["type"] == "turn_start")
            .nth(1)
            .map_or(ev.len(), |(k, _)| k);
        let last = (0..end)
            .rev()
            .find(|&k| ev[k]["type"] == "chat_response" && ev[k].get("message").is_some())
            .unwrap();
        ev[last]["message"] = json!(message);
        let tool = (0..end)
            .find(|&k| ev[k]["type"] == "tool_call_response")
            .unwrap();
        ev[tool]["content"] =
            Value::String(base64::engine::general_purpose::STANDARD.encode(result));
    });
}

fn no_panic(out: &std::process::Output, what: &str) {
    let err = common::stderr(out);
    assert_ne!(out.status.code(), Some(101), "{what}: {err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
}

#[test]
fn text_that_ends_in_a_multi_byte_character_makes_no_command_panic() {
    for (k, message) in TEXTS.iter().enumerate() {
        let result = RESULTS[k % RESULTS.len()];
        let tmp = tempfile::tempdir().unwrap();
        demo_with(tmp.path(), message, result);
        for args in [
            vec!["compact", ID, "s:1..1", "--dry-run", "--json"],
            vec!["compact", ID, "s:1..2", "--dry-run", "--summarize"],
            vec!["lost", ID, "--json"],
            vec!["report", ID, "-o", "-"],
            vec!["auto", ID, "--dry-run"],
            vec!["watch", "--once", "--dry-run", "--enable"],
        ] {
            let out = common::isolated(&args, tmp.path()).output().unwrap();
            no_panic(&out, &format!("{message:?} / {result:?}: {args:?}"));
        }
        // The digest's open question is the message's own last sentence.
        let out = common::isolated(
            &["compact", ID, "s:1..1", "--dry-run", "--json"],
            tmp.path(),
        )
        .output()
        .unwrap();
        assert!(out.status.success(), "{}", common::stderr(&out));
    }
}
