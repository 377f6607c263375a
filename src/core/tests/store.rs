//! The store on real files: lossless round trips, jp's lock held by another
//! process, events appended by jp between load and save.

use crate::common;

use jp_inspect::core::error::Error;
use jp_inspect::core::model::compaction::{Compaction, Source, ToolCalls};
use jp_inspect::core::model::event::Kind;
use jp_inspect::core::store::edit::Edit;
use jp_inspect::core::store::edit::Removal;
use jp_inspect::core::store::save;
use jp_inspect::core::{model::timestamp, store::load, store::workspace};
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

fn compaction(from: usize, to: usize) -> Compaction {
    Compaction {
        timestamp: timestamp::parse("2026-11-30 10:00:00.5").unwrap(),
        from_turn: from,
        to_turn: to,
        summary: None,
        strip_reasoning: true,
        reasoning_over: None,
        tool_calls: Some(ToolCalls::Strip {
            request: true,
            response: true,
            over: None,
        }),
        source: Source::Manual,
        summarizer: None,
        authored: false,
        tool_overrides: Default::default(),
    }
}

fn events_of(dir: &Path) -> Vec<Value> {
    serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap()
}

/// The turn of each event by format.md's rule, written out independently
/// of the core.
fn turns_by_hand(dir: &Path) -> (usize, Vec<usize>) {
    let mut events = events_of(dir);
    if !dir.join("base_config.json").exists()
        && events.first().is_some_and(|e| e["type"] == "config_delta")
    {
        events.remove(0);
    }
    let conv_types = [
        "turn_start",
        "chat_request",
        "chat_response",
        "tool_call_request",
        "tool_call_response",
        "inquiry_request",
        "inquiry_response",
    ];
    let mut turn = 0;
    let mut holds = false;
    let mut out = Vec::new();
    for e in &events {
        let t = e["type"].as_str().unwrap_or("");
        if conv_types.contains(&t) {
            if t == "turn_start" && holds {
                turn += 1;
            }
            holds = true;
        }
        out.push(turn);
    }
    (if holds { turn + 1 } else { 0 }, out)
}

#[test]
fn every_conversation_loads_with_jps_turns() {
    for dir in common::corpus() {
        let conv = load::load(&dir).unwrap_or_else(|e| panic!("{e}"));
        let (count, turns) = turns_by_hand(&dir);
        assert_eq!(conv.turn_count, count, "{}", dir.display());
        let got: Vec<usize> = conv.events.iter().map(|e| e.turn).collect();
        assert_eq!(got, turns, "{}", dir.display());
    }
}

#[cfg_attr(shared_absent, ignore = "needs ../shared (jp's own conversations)")]
#[test]
fn fixture_turn_counts() {
    // Counted by hand from the files (turn_start events, format.md's rule).
    let expected = [
        ("17665556205", 1),
        ("17671120783", 1),
        ("17673969718", 1),
        ("17727484633", 1),
        ("17727496665", 3),
        ("17728322628", 12),
        ("17758406187", 2),
        ("17800836875", 4),
    ];
    let dirs = common::fixture_conversations();
    for (id, turns) in expected {
        let dir = dirs
            .iter()
            .find(|d| d.file_name().unwrap().to_string_lossy().starts_with(id))
            .unwrap();
        assert_eq!(load::load(dir).unwrap().turn_count, turns, "{id}");
    }
}

#[test]
fn add_and_remove_a_compaction_is_byte_identical() {
    for dir in common::corpus() {
        let (_tmp, copy) = common::workspace_with(&dir);
        let original = fs::read(copy.join("events.json")).unwrap();
        let saved = save::apply(&copy, &Edit::append(vec![compaction(0, 0)])).unwrap();
        assert!(saved.written);
        // Every other event is value-identical, in order.
        let before: Vec<Value> = serde_json::from_slice(&original).unwrap();
        let after = events_of(&copy);
        assert_eq!(after.len(), before.len() + 1);
        assert_eq!(&after[..before.len()], &before[..], "{}", dir.display());
        // Remove exactly that one again.
        let conv = load::load(&copy).unwrap();
        let last = conv.compactions().count() - 1;
        let key = jp_inspect::core::store::edit::CompactionKey::of_position(&conv, last).unwrap();
        save::apply(&copy, &Edit::remove(Removal::Exact(vec![key]))).unwrap();
        assert_eq!(
            fs::read(copy.join("events.json")).unwrap(),
            original,
            "{} is not byte-identical after add+remove",
            dir.display()
        );
    }
}

#[test]
fn a_change_that_changes_nothing_writes_nothing() {
    let dir = &common::corpus()[common::corpus().len() - 1];
    let (_tmp, copy) = common::workspace_with(dir);
    let path = copy.join("events.json");
    let mtime = fs::metadata(&path).unwrap().modified().unwrap();
    let saved = save::apply(&copy, &Edit::remove(Removal::None)).unwrap();
    assert!(!saved.written);
    assert_eq!(fs::metadata(&path).unwrap().modified().unwrap(), mtime);
}

#[test]
fn written_compaction_has_jps_key_order_and_layout() {
    let dir = &common::corpus()[common::corpus().len() - 1];
    let (_tmp, copy) = common::workspace_with(dir);
    save::apply(&copy, &Edit::append(vec![compaction(1, 3)])).unwrap();
    let text = fs::read_to_string(copy.join("events.json")).unwrap();
    let tail = &text[text.rfind("  {\n    \"type\": \"compaction\"").unwrap()..];
    assert_eq!(
        tail,
        "  {\n    \"type\": \"compaction\",\n    \"timestamp\": \"2026-11-30 10:00:00.5\",\n    \"from_turn\": 1,\n    \"to_turn\": 3,\n    \"reasoning\": \"strip\",\n    \"tool_calls\": {\n      \"policy\": \"strip\",\n      \"request\": true,\n      \"response\": true\n    },\n    \"source\": \"manual\"\n  }\n]\n"
    );
    // The whole file is what serde's pretty printer (jp's) would write.
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(serde_json::to_string_pretty(&v).unwrap() + "\n", text);
}

#[test]
fn another_process_holding_the_lock_refuses_the_write() {
    let dir = &common::corpus()[common::corpus().len() - 1];
    let (_tmp, copy) = common::workspace_with(dir);
    let id = load::id_of_dir(&copy).unwrap();
    let (lock_path, _) = workspace::lock_paths(&copy, id);
    fs::create_dir_all(lock_path.parent().unwrap()).unwrap();
    fs::write(
        &lock_path,
        r#"{"pid":4242,"session":"test","acquired_at":"now"}"#,
    )
    .unwrap();
    // flock(1) holds the lock the way jp does, from another process.
    // --close: only flock itself holds the lock, so killing it frees it.
    let mut holder = Command::new("flock")
        .arg("--exclusive")
        .arg("--close")
        .arg(&lock_path)
        .arg("-c")
        .arg("echo locked; sleep 30")
        .stdout(Stdio::piped())
        .spawn()
        .expect("flock(1) from util-linux");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "locked");
    let before = fs::read(copy.join("events.json")).unwrap();
    let err = save::apply(&copy, &Edit::append(vec![compaction(0, 0)])).unwrap_err();
    holder.kill().unwrap();
    holder.wait().unwrap();
    match &err {
        Error::Locked { pid, .. } => assert_eq!(*pid, Some(4242)),
        other => panic!("expected Locked, got {other}"),
    }
    assert!(err.to_string().contains("pid 4242"), "{err}");
    assert_eq!(fs::read(copy.join("events.json")).unwrap(), before);
    // Released: the write goes through.
    save::apply(&copy, &Edit::append(vec![compaction(0, 0)])).unwrap();
}

#[test]
fn events_jp_appended_meanwhile_survive_the_save() {
    let dir = &common::corpus()[common::corpus().len() - 1];
    let (_tmp, copy) = common::workspace_with(dir);
    let stale = load::load(&copy).unwrap();
    // jp appends a turn after we loaded.
    let mut events = events_of(&copy);
    events.push(serde_json::json!({"timestamp": "2026-11-13 09:00:00.0", "type": "turn_start"}));
    events.push(serde_json::json!({"timestamp": "2026-11-13 09:00:01.0", "type": "chat_request", "content": "one more thing"}));
    fs::write(
        copy.join("events.json"),
        serde_json::to_string_pretty(&events).unwrap() + "\n",
    )
    .unwrap();
    // Our edit was planned on the stale copy.
    let range_end = stale.turn_count - 1;
    let saved = save::apply(&copy, &Edit::append(vec![compaction(1, range_end)])).unwrap();
    let after = events_of(&copy);
    assert_eq!(after.len(), events.len() + 1);
    assert_eq!(&after[..events.len()], &events[..]);
    assert_eq!(saved.conversation.turn_count, stale.turn_count + 1);
    assert!(matches!(
        saved.conversation.events.last().unwrap().kind,
        Kind::Compaction(Ok(_))
    ));
}

/// A conversation whose tool output was stored with URL-safe base64: a
/// write appends its compaction and leaves every byte before it as it was.
#[cfg_attr(shared_absent, ignore = "needs ../shared (jp's own conversations)")]
#[test]
fn url_safe_contents_are_written_back_untouched() {
    let dir = common::fixture_conversations()
        .into_iter()
        .find(|d| d.to_string_lossy().contains("17671120783"))
        .expect("the URL-safe fixture in ../shared");
    let (_tmp, copy) = common::workspace_with(&dir);
    let before = fs::read(copy.join("events.json")).unwrap();
    let parsed = events_of(&copy);
    save::apply(&copy, &Edit::append(vec![compaction(0, 0)])).unwrap();
    let after = fs::read(copy.join("events.json")).unwrap();
    assert_eq!(events_of(&copy).len(), parsed.len() + 1);
    // The old text up to its closing bracket is kept byte for byte: the
    // compaction goes in before the `]`.
    let end = before.iter().rposition(|&b| b == b'}').unwrap() + 1;
    assert_eq!(&after[..end], &before[..end]);
}

#[test]
fn user_silo_lock_is_used_when_a_silo_exists() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("project");
    let demo = common::corpus().pop().unwrap();
    let conv = common::copy_dir(
        &demo,
        &ws.join(".jp/conversations").join(demo.file_name().unwrap()),
    );
    let data = tmp.path().join("data");
    let silo = data.join("workspace/project-abc");
    fs::create_dir_all(&silo).unwrap();
    std::os::unix::fs::symlink(ws.join(".jp"), silo.join("storage")).unwrap();
    let id = load::id_of_dir(&conv).unwrap();
    let lock = silo.join(format!("locks/jp-c{id}.lock"));
    fs::create_dir_all(lock.parent().unwrap()).unwrap();
    let before = fs::read(conv.join("events.json")).unwrap();
    // jp holds the silo's lock while jp-inspect tries to write.
    let out = Command::new("flock")
        .arg("--exclusive")
        .arg(&lock)
        .arg(common::bin_path())
        .arg("compact")
        .arg(&conv)
        .arg("r:1")
        .env("JP_USER_DATA_DIR", &data)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("jp holds the lock"), "{stderr}");
    assert!(stderr.contains(&lock.display().to_string()), "{stderr}");
    assert_eq!(fs::read(conv.join("events.json")).unwrap(), before);
    // Free: the write goes through, and the lock file is gone afterwards.
    let out = common::binary()
        .arg("compact")
        .arg(&conv)
        .arg("r:1")
        .env("JP_USER_DATA_DIR", &data)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!jp_inspect::core::store::lock::is_held(&lock));
    assert_ne!(fs::read(conv.join("events.json")).unwrap(), before);
}

#[test]
fn large_files_are_read_on_every_core_identically() {
    // Over the size from which events are parsed in parallel.
    let tmp = tempfile::tempdir().unwrap();
    let spec = jp_inspect::synth::Spec::of_size(12 << 20);
    let dir = jp_inspect::synth::write_conversation(tmp.path(), 17_000_000_009, &spec).unwrap();
    let conv = load::load(&dir).unwrap();
    let (count, turns) = turns_by_hand(&dir);
    assert_eq!(conv.turn_count, count);
    assert_eq!(
        conv.events.iter().map(|e| e.turn).collect::<Vec<_>>(),
        turns
    );
    let text = fs::read_to_string(dir.join("events.json")).unwrap();
    let raws: Vec<&serde_json::value::RawValue> = serde_json::from_str(&text).unwrap();
    assert_eq!(raws.len(), conv.events.len());
    for (i, r) in raws.iter().enumerate() {
        assert_eq!(conv.raw(i), r.get(), "event {i}");
    }
}

/// The benchmarks measure against jp on generated conversations, so jp
/// must accept them: it refuses a configuration that leaves a tool's `run`
/// unset.
#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn generated_conversations_are_ones_jp_loads() {
    let shared = common::shared()
        .expect("../shared is absent: a corpus check runs whole or is ignored, never passed");
    let tmp = tempfile::tempdir().unwrap();
    let spec = jp_inspect::synth::Spec::of_size(256 << 10);
    let dir = jp_inspect::synth::write_conversation(tmp.path(), 17_000_000_010, &spec).unwrap();
    let jp = std::process::Command::new(shared.join("tools/jp-oracle/oracle"))
        .arg("project")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        jp.status.success(),
        "{}",
        String::from_utf8_lossy(&jp.stderr)
    );
    let jp: serde_json::Value = serde_json::from_slice(&jp.stdout).unwrap();
    let conv = load::load(&dir).unwrap();
    assert_eq!(jp["turn_count"], conv.turn_count);
    assert_eq!(
        jp["projected"].as_array().map(Vec::len),
        Some(conv.events.len())
    );
}

/// The benchmarks' stand-in for jp's own workspace configuration: every
/// file it writes is one the walk reaches and reads.
#[test]
fn a_generated_config_tree_is_read_whole() {
    use jp_inspect::core::store::jp_config::files_for_with;
    use jp_inspect::core::store::parse_cache::ParseCache;
    let tmp = tempfile::tempdir().unwrap();
    let storage = tmp.path().join(".jp");
    jp_inspect::synth::write_config_tree(&storage, 20).unwrap();
    let conv = storage.join("conversations/17000000011-x");
    fs::create_dir_all(&conv).unwrap();
    let files = files_for_with(&conv, &ParseCache::at(None), None).unwrap();
    let workspace: Vec<_> = files
        .iter()
        .filter(|f| f.path.starts_with(&storage))
        .collect();
    assert_eq!(workspace.len(), 22, "config.toml, the persona and 20 tools");
    let main = workspace.last().unwrap();
    assert!(main.path.ends_with(".jp/config.toml"));
    assert_eq!(
        main.doc
            .pointer("/plugins/command/inspect/options/auto/soft_ratio"),
        Some(&Value::from(0.55))
    );
}

#[test]
fn a_write_keeps_the_files_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = &common::corpus()[common::corpus().len() - 1];
    for mode in [0o444, 0o640, 0o600] {
        let (_tmp, copy) = common::workspace_with(dir);
        let path = copy.join("events.json");
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
        let edit = Edit::append(vec![compaction(1, 2)]);
        // A read-only file is written only when forced, and stays read-only.
        let guard = if mode & 0o222 == 0 {
            let refused = save::apply(&copy, &edit).unwrap_err().to_string();
            assert!(refused.contains("read-only"), "{refused}");
            jp_inspect::core::ops::Guard::Forced
        } else {
            jp_inspect::core::ops::Guard::Strict
        };
        let saved = save::apply_guarded(&copy, &edit, guard).unwrap();
        assert!(saved.written);
        let after = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(after, mode, "mode {mode:o} became {after:o}");
    }
}

/// Undo is the inverse edit a write returns: applied, the file is byte for
/// byte what it was, summaries included, on every conversation; applied
/// again (redo) it is what the write made.
#[test]
fn every_write_can_be_undone_and_redone_byte_for_byte() {
    for dir in common::corpus() {
        let (_tmp, copy) = common::workspace_with(&dir);
        let file = copy.join("events.json");
        let original = fs::read(&file).unwrap();
        let conv = load::load(&copy).unwrap();
        let mut edits = vec![
            Edit::append(vec![compaction(0, conv.turn_count.saturating_sub(1))]),
            Edit::remove(Removal::All),
            Edit::remove(Removal::Auto),
        ];
        if conv.compactions().count() > 0 {
            let key = jp_inspect::core::store::edit::CompactionKey::of_position(&conv, 0).unwrap();
            edits.push(Edit::remove(Removal::Exact(vec![key])));
        }
        for edit in edits {
            let done = save::apply(&copy, &edit).unwrap();
            if !done.written {
                continue;
            }
            let made = fs::read(&file).unwrap();
            let undone = save::apply(&copy, &done.inverse).unwrap();
            assert!(undone.written, "{}: {edit:?}", dir.display());
            assert_eq!(
                fs::read(&file).unwrap(),
                original,
                "{}: undo of {edit:?}",
                dir.display()
            );
            let redone = save::apply(&copy, &undone.inverse).unwrap();
            assert!(redone.written);
            assert_eq!(fs::read(&file).unwrap(), made, "{}: redo", dir.display());
            save::apply(&copy, &redone.inverse).unwrap();
            assert_eq!(fs::read(&file).unwrap(), original);
        }
    }
}

/// jp appends turns between a reset and its undo: the compactions go back
/// where they were, the new turns stay after them.
#[test]
fn an_undo_puts_compactions_back_in_place_around_what_jp_appended() {
    let demo = jp_inspect::demo::materialize().unwrap();
    let dir = &demo.conversation_dir;
    let before = events_of(dir);
    let summaries = before
        .iter()
        .filter(|e| e["type"] == "compaction" && e.get("summary").is_some())
        .count();
    assert!(summaries > 0, "the demo holds a summary");
    let reset = save::apply(dir, &Edit::remove(Removal::All)).unwrap();
    let mut events = events_of(dir);
    events.push(serde_json::json!({"timestamp": "2026-11-13 09:00:00.0", "type": "turn_start"}));
    events.push(serde_json::json!({"timestamp": "2026-11-13 09:00:01.0", "type": "chat_request", "content": "one more thing"}));
    fs::write(
        dir.join("events.json"),
        serde_json::to_string_pretty(&events).unwrap() + "\n",
    )
    .unwrap();
    save::apply(dir, &reset.inverse).unwrap();
    let after = events_of(dir);
    assert_eq!(&after[..before.len()], &before[..]);
    assert_eq!(after.len(), before.len() + 2);
    // Once the compactions changed, the undo is refused, not misapplied.
    let again = save::apply(dir, &reset.inverse);
    assert!(
        matches!(again, Err(Error::Changed { .. })),
        "{:?}",
        again.map(|s| s.written)
    );
}

/// jp's oldest files kept the base config as the first element of
/// `events.json`, a config delta in three shapes: under `delta`, inline,
/// and inline with no `timestamp` at all (the oldest serializer wrote
/// none). Each loads as its base config; a delta without a time anywhere
/// else is refused, naming its place; and a compaction written into the
/// oldest shape keeps its first element byte for byte.
#[test]
fn the_three_legacy_base_config_shapes_load() {
    let rest = r#",
  {
    "timestamp": "2023-11-14 22:13:20.0",
    "type": "chat_request",
    "content": "hello, the first turn"
  },
  {
    "timestamp": "2023-11-14 22:13:21.0",
    "type": "chat_response",
    "message": "hi there, a reply"
  }
]
"#;
    let model = r#""assistant": {"model": {"id": "anthropic/claude-sonnet-4-5"}}"#;
    let shapes = [
        format!(
            "[\n  {{\"timestamp\": \"2023-11-14 22:13:19.0\", \"type\": \"config_delta\", \"delta\": {{{model}}}}}"
        ),
        format!(
            "[\n  {{\"timestamp\": \"2023-11-14 22:13:19.0\", \"type\": \"config_delta\", {model}}}"
        ),
        format!("[\n  {{\"type\": \"config_delta\", {model}}}"),
    ];
    for first in &shapes {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(".jp/conversations/17000000000");
        fs::create_dir_all(&dir).unwrap();
        let text = format!("{first}{rest}");
        fs::write(dir.join("events.json"), &text).unwrap();
        let conv = load::load(&dir).unwrap_or_else(|e| panic!("{first}: {e}"));
        assert_eq!(
            conv.base_config["assistant"]["model"]["id"], "anthropic/claude-sonnet-4-5",
            "{first}"
        );
        assert_eq!(conv.events.len(), 2, "{first}");
        // Written back: the first element as it was.
        save::apply(&dir, &Edit::append(vec![compaction(0, 0)])).unwrap();
        let after = fs::read_to_string(dir.join("events.json")).unwrap();
        assert!(after.starts_with(first.as_str()), "{after}");
        assert_eq!(load::load(&dir).unwrap().events.len(), 3);
    }
    // Without a time past the first element: refused, by place.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".jp/conversations/17000000000");
    fs::create_dir_all(&dir).unwrap();
    let text = format!(
        "{}{}",
        shapes[0],
        rest.replacen(
            ",\n",
            &format!(",\n  {{\"type\": \"config_delta\", {model}}},\n"),
            1
        )
    );
    fs::write(dir.join("events.json"), &text).unwrap();
    let e = load::load(&dir).unwrap_err().to_string();
    assert!(
        e.contains("event 1")
            && e.contains("without a `timestamp`")
            && e.contains("events.json:3:"),
        "{e}"
    );
}
