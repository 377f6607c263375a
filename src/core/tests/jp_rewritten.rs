//! Conversations as jp itself saved them (`../shared/fixtures/jp-rewritten`,
//! made by jp's own persistence code): every command gives the same numbers
//! on a conversation and on jp's save of it, and what jp-inspect recorded of
//! its own compactions comes back after jp dropped it from the file. An
//! extra corpus check: ignored when `../shared` is absent.

use crate::common;

use common::{copy_dir, jp_inspect, json, stderr};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// jp's saves: each check using them is ignored without `../shared`, and
/// fails, never passes, when `../shared` lacks them.
fn rewritten() -> PathBuf {
    let dir = common::shared()
        .expect("../shared: a corpus check runs whole or is ignored, never passed")
        .join("fixtures/jp-rewritten");
    assert!(dir.is_dir(), "{} is absent", dir.display());
    dir
}

/// A workspace holding a copy of `conv` (named as its folder).
fn workspace_of(conv: &Path, name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = copy_dir(conv, &tmp.path().join(".jp/conversations").join(name));
    (tmp, dir)
}

fn id_of(name: &str) -> String {
    format!("jp-c{}", name.split('-').next().unwrap())
}

/// `v` without what names the copy rather than the conversation: its
/// folder, its storage generation (jp converts a legacy file), the time now
/// (stamped on planned compactions), file sizes and mtimes.
fn comparable(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(o) => {
                // Raw event indices too: a legacy file's first event is its
                // base config, which jp's save moves to base_config.json.
                for k in [
                    "path",
                    "format",
                    "timestamp",
                    "time",
                    "workspace",
                    "size",
                    "last_activity",
                    "index",
                    "event",
                    "origin",
                ] {
                    o.shift_remove(k);
                }
                o.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// Where two JSON values first differ, for a readable failure.
fn first_difference(a: &Value, b: &Value, at: String) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) if w == v => {}
                    Some(w) => return first_difference(v, w, format!("{at}/{k}")),
                    None => return format!("{at}/{k}: only in the original"),
                }
            }
            format!("{at}: keys only in jp's save")
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find(|(_, (v, w))| v != w)
            .map(|(i, (v, w))| first_difference(v, w, format!("{at}/{i}")))
            .unwrap_or_default(),
        _ => format!("{at}: {} vs {}", cut(a), cut(b)),
    }
}

fn cut(v: &Value) -> String {
    v.to_string().chars().take(200).collect()
}

const COMMANDS: &[&[&str]] = &[
    &["stats", "--json"],
    &["show", "--json"],
    &["show", "--compacted", "--json"],
    &["auto", "--dry-run", "--json"],
    &["auto", "--dry-run", "--json", "--window", "200k"],
    &["simulate", "--json", "--windows", "64k,200k"],
    &["history", "--json"],
    &["compact", "--dry-run", "--json"],
];

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn every_command_gives_the_same_numbers_on_jps_save() {
    let root = rewritten();
    let originals = common::shared().unwrap().join("fixtures/jp-conversations");
    let mut compared = 0;
    for entry in std::fs::read_dir(root.join("plain")).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let id = id_of(&name);
        let (a, _) = workspace_of(&originals.join(&name), &name);
        let (b, _) = workspace_of(&entry.path(), &name);
        for cmd in COMMANDS {
            let args: Vec<&str> = std::iter::once(cmd[0])
                .chain(std::iter::once(id.as_str()))
                .chain(cmd[1..].iter().copied())
                .collect();
            let original = json(&jp_inspect(&args, a.path()));
            let saved = json(&jp_inspect(&args, b.path()));
            let (mut original, mut saved) = (comparable(original), comparable(saved));
            // jp writes its default rules into the file: the same rule, now
            // configured rather than built in.
            for v in [&mut original, &mut saved] {
                if let Some(c) = v.get_mut("compactions").and_then(Value::as_array_mut) {
                    c.iter_mut().for_each(|c| {
                        c.as_object_mut().map(|o| o.shift_remove("spec"));
                    });
                }
            }
            if original != saved {
                panic!(
                    "{name}: `jp-inspect {}` differs at {}",
                    args.join(" "),
                    first_difference(&original, &saved, String::new())
                );
            }
            compared += 1;
        }
        // `list` and `watch --once` on the whole workspace.
        for args in [
            &["list", "--json"][..],
            &["watch", "--once", "--json", "-v"][..],
        ] {
            let one = jp_inspect(args, a.path());
            let two = jp_inspect(args, b.path());
            assert!(
                one.status.success() && two.status.success(),
                "{}",
                stderr(&two)
            );
            if args[0] == "list" {
                assert_eq!(
                    comparable(json(&one))["conversations"][0]["context_ratio"],
                    comparable(json(&two))["conversations"][0]["context_ratio"]
                );
            }
        }
        // The inspector's load reads the configuration without an error.
        let conv =
            jp_inspect::core::store::load::load(&b.path().join(".jp/conversations").join(&name))
                .unwrap();
        jp_inspect::core::auto::config_for(&conv, None, None)
            .unwrap_or_else(|e| panic!("{name}: the inspector's configuration: {e}"));
    }
    assert!(compared >= 8 * COMMANDS.len(), "compared {compared}");
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn compact_with_no_rule_applies_the_rules_jp_stored() {
    let root = rewritten();
    let name = "17728322628-bear-mcp-server-design-review";
    let (b, _) = workspace_of(&root.join("plain").join(name), name);
    let v = json(&jp_inspect(
        &["compact", &id_of(name), "--dry-run", "--json"],
        b.path(),
    ));
    let c = &v["compactions"][0];
    assert_eq!(c["spec"], "jp's default rule", "{v:#}");
    // Keep the first and the last of its 12 turns: 2..11 are compacted.
    assert_eq!(
        (c["from_turn"].as_u64(), c["to_turn"].as_u64()),
        (Some(1), Some(10))
    );
    let stats = json(&jp_inspect(&["stats", &id_of(name), "--json"], b.path()));
    assert_eq!(
        stats["settings"],
        serde_json::json!({}),
        "jp's default is no setting"
    );
}

/// What jp-inspect records of its compactions brings back what jp dropped:
/// after jp saved the folder, `source` and `over` come from the record.
#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn sources_and_bounds_come_back_from_the_record_after_jps_save() {
    let root = rewritten();
    for entry in std::fs::read_dir(root.join("after-jp-inspect"))
        .unwrap()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let id = id_of(&name);
        let (before, before_dir) = workspace_of(&entry.path().join("before"), &name);
        let (after, _) = workspace_of(&entry.path().join("after"), &name);
        let record_path = |ws: &Path| {
            ws.join(".jp/jp-inspect")
                .join(format!("{}.json", name.split('-').next().unwrap()))
        };
        // The record jp-inspect kept (the demo's is derived from its file, as
        // `--demo` writes it).
        let kept = entry.path().join("before/jp-inspect-record.json");
        std::fs::create_dir_all(before.path().join(".jp/jp-inspect")).unwrap();
        if kept.exists() {
            std::fs::copy(&kept, record_path(before.path())).unwrap();
            let _ = std::fs::remove_file(before_dir.join("jp-inspect-record.json"));
        } else {
            let conv = jp_inspect::core::store::load::load(&before_dir).unwrap();
            jp_inspect::core::store::provenance::write(
                &before_dir,
                &jp_inspect::core::store::provenance::records_of(&conv),
            )
            .unwrap();
        }
        std::fs::create_dir_all(after.path().join(".jp/jp-inspect")).unwrap();
        std::fs::copy(record_path(before.path()), record_path(after.path())).unwrap();

        let rows = |ws: &Path| -> Vec<Value> {
            let v = json(&jp_inspect(&["stats", &id, "--json"], ws));
            v["compactions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    serde_json::json!([
                        c["source"],
                        c["from_turn"],
                        c["to_turn"],
                        c["policies"],
                        c["tokens_saved"]
                    ])
                })
                .collect()
        };
        let (b, a) = (rows(before.path()), rows(after.path()));
        assert!(!b.is_empty(), "{name}");
        assert_eq!(
            b, a,
            "{name}: the compactions read differently after jp's save"
        );
        assert!(
            b.iter().any(|r| r[0] == "auto"),
            "{name}: no automatic compaction"
        );
        let removed = |ws: &Path| {
            json(&jp_inspect(
                &["reset", &id, "--auto", "--dry-run", "--json"],
                ws,
            ))["removed"]
                .clone()
        };
        assert_eq!(removed(before.path()), removed(after.path()), "{name}");
    }
}
