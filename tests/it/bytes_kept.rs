//! Nothing jp-inspect doesn't own is touched by a write: a conversation
//! with an event type it does not know, fields it does not know at every
//! level, keys in an odd order, escapes serde would write another way
//! (`\u00e9`, `\/`, a surrogate pair) and numbers it would reformat
//! (`1e3`, `0.10`, `-0.0`, an integer past `u64`) keeps every byte outside
//! the compactions written or removed, through `compact`, `reset`, `watch`
//! and the inspector's apply and undo; and jp's own code loads the result.

use crate::common;

use common::harness::Harness;
use crossterm::event::KeyCode;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

/// Events no serializer of jp-inspect's would write this way.
const ODD: &str = r#"  {"type": "x_future_event", "timestamp": "2026-11-12 12:20:00.0", "n": [1.0, 1e3, 0.10, -0.0, 12345678901234567890], "s": "caf\u00e9 \/ \ud83d\ude00\t"},
  {
    "content": "odd \u0041 order",
    "x_level1": {"z": 1, "a": {"deep_unknown": [true, null, 2.50]}},
    "type": "chat_request",
    "timestamp": "2026-11-12 12:20:01.0"
  },
"#;

/// The demo's events without its compactions, with [`ODD`] first: written
/// over `conv`'s `events.json`; its bytes.
fn make_odd(conv: &Path) -> Vec<u8> {
    let path = conv.join("events.json");
    let events: Vec<Value> = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    let kept: Vec<Value> = events
        .into_iter()
        .filter(|e| e["type"] != "compaction")
        .collect();
    let pretty = serde_json::to_string_pretty(&kept).unwrap();
    let inner = pretty
        .strip_prefix("[\n")
        .and_then(|p| p.strip_suffix("\n]"))
        .unwrap();
    let text = format!("[\n{ODD}{inner}\n]\n");
    fs::write(&path, &text).unwrap();
    text.into_bytes()
}

/// The conversation in a workspace of its own, made odd.
fn odd_workspace() -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    let bytes = make_odd(&conv);
    (tmp, conv, bytes)
}

/// `after` is `before` with compactions appended after its last event,
/// nothing else changed; how many were appended.
fn only_appended(before: &[u8], after: &[u8]) -> usize {
    let end = before.iter().rposition(|&b| b == b'}').unwrap() + 1;
    assert_eq!(
        &after[..end],
        &before[..end],
        "a byte before the appended compactions changed"
    );
    let tail: Value = serde_json::from_slice(&[b"[0", &after[end..]].concat())
        .expect("what follows is a list's tail");
    let added = &tail.as_array().unwrap()[1..];
    assert!(
        added.iter().all(|e| e["type"] == "compaction"),
        "{added:#?}"
    );
    added.len()
}

fn run(cwd: &Path, args: &[&str]) -> std::process::Output {
    let out = common::binary()
        .args(args)
        .current_dir(cwd)
        .env("JP_USER_DATA_DIR", cwd.join("no-user-data"))
        .env("XDG_CONFIG_HOME", cwd.join("no-config"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", common::stderr(&out));
    out
}

#[test]
fn compact_then_reset_keep_every_byte_they_do_not_own() {
    let (tmp, conv, original) = odd_workspace();
    let id = "jp-c17944860430";
    run(
        tmp.path(),
        &["compact", id, "s:3..6", "--summary", "Three turns of work."],
    );
    let compacted = fs::read(conv.join("events.json")).unwrap();
    assert_eq!(only_appended(&original, &compacted), 1);
    run(tmp.path(), &["compact", id, "t:8..9"]);
    let twice = fs::read(conv.join("events.json")).unwrap();
    assert_eq!(only_appended(&original, &twice), 2);
    // Reset takes out what it wrote and nothing else: the file as it was.
    run(tmp.path(), &["reset", id, "--all"]);
    assert_eq!(fs::read(conv.join("events.json")).unwrap(), original);
}

#[test]
fn watch_keeps_every_byte_it_does_not_own() {
    let (tmp, conv, original) = odd_workspace();
    run(
        tmp.path(),
        &["watch", "--once", "--enable", "--window", "32k"],
    );
    let after = fs::read(conv.join("events.json")).unwrap();
    assert!(only_appended(&original, &after) >= 1, "watch fired nothing");
}

#[test]
fn the_inspectors_apply_and_undo_keep_every_byte_they_do_not_own() {
    let mut original = Vec::new();
    let mut h = Harness::prepared(120, 36, false, |dir| original = make_odd(dir));
    h.char('p');
    h.typed("t:2..3");
    h.key(KeyCode::Enter);
    h.char('a');
    let applied = fs::read(h.dir().join("events.json")).unwrap();
    assert_eq!(only_appended(&original, &applied), 1, "{}", h.text());
    h.char('u');
    assert_eq!(
        fs::read(h.dir().join("events.json")).unwrap(),
        original,
        "undo: {}",
        h.text()
    );
}

/// jp's own code reads what every writer above leaves.
#[cfg_attr(shared_absent, ignore = "needs ../shared (jp's projection code)")]
#[test]
fn jp_loads_the_odd_conversation_after_each_write() {
    let oracle = common::oracle::binary("oracle")
        .expect("../shared/tools/jp-oracle/oracle: a corpus check runs whole or is ignored");
    let (tmp, conv, _) = odd_workspace();
    let id = "jp-c17944860430";
    common::oracle::project(&oracle, &conv).expect("jp loads it as made");
    run(
        tmp.path(),
        &["compact", id, "s:3..6", "--summary", "Three turns of work."],
    );
    common::oracle::project(&oracle, &conv).expect("jp loads it after compact");
    run(
        tmp.path(),
        &["watch", "--once", "--enable", "--window", "32k"],
    );
    common::oracle::project(&oracle, &conv).expect("jp loads it after watch");
    run(tmp.path(), &["reset", id, "--all"]);
    common::oracle::project(&oracle, &conv).expect("jp loads it after reset");
}
