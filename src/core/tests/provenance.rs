//! jp-inspect remembers which compactions it wrote automatically, and their
//! `over` bound, across a rewrite that does what jp does to a conversation
//! (format.md): fields it doesn't know dropped from compaction events,
//! timestamps re-printed, a legacy file split into base_config.json +
//! events.json, the folder renamed when the title changes. On every real
//! fixture (and the demo, also as a legacy file, without ../shared).

use crate::common;

use jp_inspect::core::compact::projection;
use jp_inspect::core::model::compaction::Source;
use jp_inspect::core::model::compaction::{Compaction, ToolCalls};
use jp_inspect::core::model::timestamp;
use jp_inspect::core::store::edit::Edit;
use jp_inspect::core::store::save;
use jp_inspect::core::store::{load, provenance};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

/// The demo as a legacy file: its base config as the first event.
fn legacy_demo(tmp: &Path) -> PathBuf {
    let dir = tmp.join("17944860431-legacy-demo");
    fs::create_dir_all(&dir).unwrap();
    let base: Value =
        serde_json::from_slice(&fs::read(common::demo().join("base_config.json")).unwrap())
            .unwrap();
    let mut events: Vec<Value> =
        serde_json::from_slice(&fs::read(common::demo().join("events.json")).unwrap()).unwrap();
    events.insert(
        0,
        serde_json::json!({"type": "config_delta", "timestamp": "2026-11-12 12:20:00.0", "delta": base}),
    );
    let text = serde_json::to_string_pretty(&events).unwrap() + "\n";
    fs::write(dir.join("events.json"), text).unwrap();
    fs::copy(
        common::demo().join("metadata.json"),
        dir.join("metadata.json"),
    )
    .unwrap();
    dir
}

/// Does to `dir` what `jp` does when it persists a conversation, and sets
/// its title to `title` (so the folder is renamed); returns the new folder.
fn jp_rewrite(dir: &Path, title: &str) -> PathBuf {
    let mut events: Vec<Value> =
        serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
    if !dir.join("base_config.json").exists() {
        let first = events.remove(0);
        let base = first.get("delta").cloned().unwrap_or_else(|| {
            let mut o = first.as_object().unwrap().clone();
            o.shift_remove("type");
            o.shift_remove("timestamp");
            Value::Object(o)
        });
        fs::write(
            dir.join("base_config.json"),
            serde_json::to_string_pretty(&base).unwrap() + "\n",
        )
        .unwrap();
    }
    for e in &mut events {
        if let Some(t) = e.get("timestamp").and_then(Value::as_str)
            && let Some(parsed) = timestamp::parse(t)
        {
            e["timestamp"] = timestamp::format(&parsed).into();
        }
        if e["type"] == "compaction" {
            let o = e.as_object_mut().unwrap();
            o.shift_remove("source");
            if let Some(tc) = o.get_mut("tool_calls").and_then(Value::as_object_mut) {
                tc.shift_remove("over");
            }
        }
    }
    fs::write(
        dir.join("events.json"),
        serde_json::to_string_pretty(&events).unwrap() + "\n",
    )
    .unwrap();
    let mut meta: Value =
        serde_json::from_slice(&fs::read(dir.join("metadata.json")).unwrap_or(b"{}".to_vec()))
            .unwrap_or_default();
    meta["title"] = title.into();
    fs::write(
        dir.join("metadata.json"),
        serde_json::to_string_pretty(&meta).unwrap() + "\n",
    )
    .unwrap();
    let id = load::id_of_dir(dir).unwrap();
    let slug: String = title
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '-' })
        .collect();
    let to = dir.parent().unwrap().join(format!("{id}-{slug}"));
    fs::rename(dir, &to).unwrap();
    to
}

fn compaction(seconds: u32, source: Source, over: Option<u64>) -> Compaction {
    Compaction {
        timestamp: timestamp::parse(&format!("2030-01-01 00:00:{seconds:02}.5")).unwrap(),
        from_turn: 0,
        to_turn: 0,
        summary: None,
        strip_reasoning: true,
        reasoning_over: None,
        tool_calls: Some(ToolCalls::Strip {
            request: true,
            response: true,
            over,
        }),
        source,
        summarizer: None,
        authored: false,
        tool_overrides: Default::default(),
    }
}

fn sources(dir: &Path) -> Vec<(Source, Option<u64>)> {
    let conv = load::load(dir).unwrap();
    conv.valid_compactions()
        .iter()
        .filter(|c| c.timestamp.format("%Y").to_string() == "2030")
        .map(|c| (c.source, c.tool_calls.and_then(ToolCalls::over)))
        .collect()
}

#[test]
fn automatic_compactions_and_their_bounds_survive_jps_rewrite() {
    let tmp = tempfile::tempdir().unwrap();
    let mut corpus = common::fixture_conversations();
    corpus.push(common::demo());
    corpus.push(legacy_demo(tmp.path()));
    for conv in corpus {
        let (ws, dir) = common::workspace_with(&conv);
        // The unbounded one on another turn: turn 1's small calls are then
        // sent only while the recalled bounds hold.
        let mut unbounded = compaction(3, Source::Manual, None);
        (unbounded.from_turn, unbounded.to_turn) = (1, 1);
        let written = vec![
            compaction(1, Source::Auto, Some(1024)),
            compaction(2, Source::Manual, Some(4096)),
            unbounded,
        ];
        save::apply(&dir, &Edit::append(written)).unwrap();
        let records = provenance::path_for(&dir);
        assert!(
            records.starts_with(ws.path().join(".jp/jp-inspect")),
            "{}",
            records.display()
        );
        let expected = vec![
            (Source::Auto, Some(1024)),
            (Source::Manual, Some(4096)),
            (Source::Manual, None),
        ];
        assert_eq!(sources(&dir), expected, "{}", conv.display());
        let projected_before = projection::of(&load::load(&dir).unwrap()).events;

        let moved = jp_rewrite(&dir, "A title jp gave it");
        let events: Vec<Value> =
            serde_json::from_slice(&fs::read(moved.join("events.json")).unwrap()).unwrap();
        for e in events.iter().filter(|e| e["type"] == "compaction") {
            assert!(e.get("source").is_none() && e.pointer("/tool_calls/over").is_none());
        }
        assert_eq!(sources(&moved), expected, "{} after jp", conv.display());

        // The projection honours the recalled bounds: every event is sent,
        // stripped or left out as before the rewrite (turn 1's calls under
        // 1 KiB sent whole, not stripped as jp's unbounded reading would).
        let c = load::load(&moved).unwrap();
        let p = projection::of(&c);
        assert!(
            p.overlays
                .iter()
                .any(|o| o.compaction.source == Source::Auto)
        );
        assert_eq!(p.events, projected_before, "{}", conv.display());

        // `reset --auto` finds the automatic one, and only it.
        let out = common::binary()
            .args(["reset", moved.to_str().unwrap(), "--auto", "--json"])
            .env("JP_USER_DATA_DIR", "/nonexistent")
            .output()
            .unwrap();
        let v = common::json(&out);
        let autos_before = c
            .valid_compactions()
            .iter()
            .filter(|c| c.source == Source::Auto)
            .count();
        assert_eq!(v["removed"], autos_before, "{}", conv.display());
        assert_eq!(
            sources(&moved),
            vec![(Source::Manual, Some(4096)), (Source::Manual, None)]
        );
    }
}

#[test]
fn a_compaction_without_a_record_is_manual_and_a_bad_record_file_is_a_warning() {
    let (ws, dir) = common::workspace_with(&common::demo());
    save::apply(&dir, &Edit::append(vec![compaction(1, Source::Auto, None)])).unwrap();
    let moved = jp_rewrite(&dir, "renamed");
    fs::remove_file(provenance::path_for(&moved)).unwrap();
    assert_eq!(sources(&moved), vec![(Source::Manual, None)]);
    let path = ws.path().join(".jp/jp-inspect/17944860430.json");
    assert_eq!(provenance::path_for(&moved), path);
    fs::write(&path, "{ not json").unwrap();
    let conv = load::load(&moved).unwrap();
    assert!(
        conv.warnings
            .iter()
            .any(|w| w.to_string().contains("records are unreadable")),
        "{:?}",
        conv.warnings
    );
}

/// A workspace with the demo, and jp's silo for it holding the user-local
/// copy (its `storage` link back to `.jp`): (temp, workspace root, data
/// dir, workspace copy, user copy).
fn mirrored_demo() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let data = tmp.path().join("data");
    let silo = data.join("workspace/ws-abc12");
    let name = jp_inspect::demo::DIR_NAME;
    let a = common::copy_dir(&common::demo(), &ws.join(".jp/conversations").join(name));
    let b = common::copy_dir(&common::demo(), &silo.join("conversations").join(name));
    std::os::unix::fs::symlink(ws.join(".jp"), silo.join("storage")).unwrap();
    (tmp, ws, data, a, b)
}

fn run_in(ws: &Path, data: &Path, args: &[&str]) -> std::process::Output {
    common::binary()
        .args(args)
        .current_dir(ws)
        .env("JP_USER_DATA_DIR", data)
        .output()
        .unwrap()
}

/// jp drops the `over` it doesn't know from every compaction of `dir`.
fn drop_over(dir: &Path) {
    common::edit_events(dir, |events| {
        for e in events.iter_mut().filter(|e| e["type"] == "compaction") {
            if let Some(tc) = e.get_mut("tool_calls").and_then(Value::as_object_mut) {
                tc.shift_remove("over");
            }
        }
    });
}

#[test]
fn the_record_answers_for_either_of_jps_two_copies() {
    let (_tmp, ws, data, workspace_copy, user_copy) = mirrored_demo();
    let id = "jp-c17944860430";
    let out = run_in(
        &ws,
        &data,
        &["compact", id, "t=strip,over=64:20..25", "--json"],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(common::json(&out)["written"], true);
    assert_eq!(
        fs::read(workspace_copy.join("events.json")).unwrap(),
        fs::read(user_copy.join("events.json")).unwrap(),
        "both copies written alike"
    );
    let silo = user_copy.parent().unwrap().parent().unwrap();
    assert!(silo.join("jp-inspect/17944860430.json").is_file());
    assert!(!ws.join(".jp/jp-inspect/17944860430.json").exists());
    // jp rewrites both copies without the bound; whichever copy jp then
    // reads, the bound is recalled.
    for newer in [&workspace_copy, &user_copy] {
        drop_over(&user_copy);
        drop_over(&workspace_copy);
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        fs::File::options()
            .write(true)
            .open(newer.join("events.json"))
            .unwrap()
            .set_modified(later)
            .unwrap();
        let stats = run_in(&ws, &data, &["stats", id, "--json"]);
        let v = common::json(&stats);
        assert_eq!(
            v["conversation"]["path"].as_str().unwrap(),
            newer.display().to_string(),
            "the copy jp reads"
        );
        let last = v["compactions"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["policies"], "tools(strip>64B)", "{last}");
    }
}
