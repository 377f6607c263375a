//! The headless command line, run as a real process on real files.

use crate::common;

use common::{demo, jp_inspect, json, stderr, workspace};

use base64::Engine as _;
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::process::Command;

#[test]
fn show_json_has_the_documented_shape() {
    let (tmp, _) = workspace();
    let v = json(&jp_inspect(
        &["show", "jp-c17944860430", "--json"],
        tmp.path(),
    ));
    let c = &v["conversation"];
    assert_eq!(c["id"], "jp-c17944860430");
    assert_eq!(c["title"], "csvq: first release");
    assert_eq!(c["format"], "current");
    assert!(
        c["path"]
            .as_str()
            .unwrap()
            .ends_with(jp_inspect::demo::DIR_NAME)
    );
    assert_eq!(v["turn_count"], 32);
    let events = v["events"].as_array().unwrap();
    assert_eq!(events.len(), 286);
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["index"], i);
        assert!(e["turn"].as_u64().unwrap() < 32);
        assert!(e["tokens"].is_u64());
        assert!(e["event"]["type"].is_string());
    }
    // Storage encoding removed: tool arguments and contents are plain text.
    let call = events
        .iter()
        .find(|e| e["event"]["type"] == "tool_call_request")
        .unwrap();
    assert_eq!(call["event"]["arguments"]["prefixes"][0], ".");
    let result = events
        .iter()
        .find(|e| e["event"]["type"] == "tool_call_response")
        .unwrap();
    assert!(
        result["event"]["content"]
            .as_str()
            .unwrap()
            .starts_with("Cargo.toml")
    );
}

#[test]
fn show_accepts_every_way_of_naming_a_conversation() {
    let (tmp, dirs) = workspace();
    let by = |q: &str| json(&jp_inspect(&["show", q, "--json"], tmp.path()))["turn_count"].clone();
    let dir = dirs[0].to_str().unwrap().to_string();
    let file = dirs[0].join("events.json").to_str().unwrap().to_string();
    for q in [
        "jp-c17944860430",
        "17944860430",
        "csvq",
        "First Release",
        &dir,
        &file,
    ] {
        assert_eq!(by(q), 32, "{q}");
    }
    // From a subdirectory of the workspace, too.
    let sub = tmp.path().join("src/deep");
    fs::create_dir_all(&sub).unwrap();
    assert_eq!(
        json(&jp_inspect(&["show", "csvq", "--json"], &sub))["turn_count"],
        32
    );
}

#[test]
fn unknown_and_ambiguous_names_list_candidates() {
    let (tmp, _) = workspace();
    let out = jp_inspect(&["show", "no-such-thing"], tmp.path());
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("no conversation matches `no-such-thing`"), "{e}");
    assert!(e.contains("jp-c17944860430  csvq: first release"), "{e}");
    // A second conversation of csvq: the fragment names two.
    second_demo(tmp.path());
    let out = jp_inspect(&["show", "csvq"], tmp.path());
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("matches 2 conversations"), "{e}");
    assert!(e.contains("jp-c17944860431  csvq: later"), "{e}");
}

/// A copy of the demo in the workspace at `root` as a second conversation
/// (`jp-c17944860431`, "csvq: later").
fn second_demo(root: &std::path::Path) -> std::path::PathBuf {
    let dir = common::copy_dir(
        &common::demo(),
        &root.join(".jp/conversations/17944860431-csvq-later"),
    );
    fs::write(
        dir.join("metadata.json"),
        "{\n  \"title\": \"csvq: later\"\n}\n",
    )
    .unwrap();
    dir
}

#[test]
fn exit_codes() {
    let (tmp, _) = workspace();
    assert_eq!(
        jp_inspect(&["show", "csvq"], tmp.path()).status.code(),
        Some(0)
    );
    assert_eq!(jp_inspect(&["show"], tmp.path()).status.code(), Some(2));
    assert_eq!(
        jp_inspect(&["--frobnicate"], tmp.path()).status.code(),
        Some(2)
    );
    // A word that is no command is a conversation to open: not found.
    assert_eq!(
        jp_inspect(&["frobnicate"], tmp.path()).status.code(),
        Some(1)
    );
    let bad_rule = jp_inspect(&["compact", "csvq", "q:1"], tmp.path());
    assert_eq!(bad_rule.status.code(), Some(2));
    assert!(stderr(&bad_rule).contains("unknown policy `q`"));
    assert_eq!(
        jp_inspect(&["show", "/nonexistent/dir"], tmp.path())
            .status
            .code(),
        Some(1)
    );
    assert_eq!(jp_inspect(&["--help"], tmp.path()).status.code(), Some(0));
}

#[test]
fn show_is_a_line_per_event() {
    let (tmp, _) = workspace();
    let out = jp_inspect(&["show", "csvq"], tmp.path());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2 + 286);
    assert!(lines[0].starts_with("jp-c17944860430  csvq: first release"));
    // turn (1-based), event index, kind, tokens, preview.
    assert!(lines[3].starts_with("    1      1  user"), "{}", lines[3]);
    assert!(lines.iter().any(|l| l.contains("[summarised]")));
}

#[test]
fn list_shows_conversations_and_who_holds_the_lock() {
    let (tmp, dirs) = workspace();
    let v = json(&jp_inspect(&["list", "--json"], tmp.path()));
    let list = v["conversations"].as_array().unwrap();
    assert_eq!(list.len(), dirs.len());
    let demo = list.iter().find(|c| c["id"] == "jp-c17944860430").unwrap();
    assert_eq!(demo["turns"], 32);
    assert_eq!(demo["events"], 286);
    assert_eq!(demo["compactions"], 2);
    assert_eq!((&demo["manual"], &demo["auto"]), (&1.into(), &1.into()));
    // The same context ratio as `stats`.
    let stats = json(&jp_inspect(&["stats", "csvq", "--json"], tmp.path()));
    assert_eq!(demo["context_ratio"], stats["ratio"]);
    assert!(demo["last_activity"].is_string());
    // Most recently active first, as jp counts it (`last_activated_at`):
    // a write (a checkout, a reset) moves nothing, and the first listed is
    // the one `--active` picks.
    let first = list[0]["id"].clone();
    let last = dirs.last().unwrap();
    let events = fs::read(last.join("events.json")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(last.join("events.json"), events).unwrap();
    let v2 = json(&jp_inspect(&["list", "--json"], tmp.path()));
    assert_eq!(v2["conversations"][0]["id"], first);
    let active = json(&jp_inspect(&["stats", "--active", "--json"], tmp.path()));
    assert_eq!(active["conversation"]["id"], first);
    assert_eq!(demo["locked"], false);
    assert!(demo["size"].as_u64().unwrap() > 1_000_000);

    let lock = tmp.path().join(".jp/locks/jp-c17944860430.lock");
    fs::create_dir_all(lock.parent().unwrap()).unwrap();
    let out = Command::new("flock")
        .arg(&lock)
        .arg(common::bin_path())
        .args(["list", "--json"])
        .current_dir(tmp.path())
        .env("JP_USER_DATA_DIR", tmp.path().join(".none"))
        .output()
        .unwrap();
    let v = json(&out);
    let demo = v["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "jp-c17944860430")
        .unwrap()
        .clone();
    assert_eq!(demo["locked"], true);
}

/// `jp`'s base64 rule, written out again for the by-hand count.
fn decode(s: &str) -> String {
    if !s.len().is_multiple_of(4) {
        return s.to_string();
    }
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_else(|| s.to_string())
}

fn decode_all(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(decode(s)),
        Value::Array(a) => Value::Array(a.iter().map(decode_all).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), decode_all(v))).collect())
        }
        other => other.clone(),
    }
}

/// compaction.md's rule, by hand: characters per category of stored
/// events, and each category's tokens as the events' shares rounded
/// cumulatively along the stream (each event gets what the running
/// estimate, characters / 4, gains with it).
fn by_hand(events: &[Value]) -> ([u64; 6], [u64; 6]) {
    let n = |s: &str| s.chars().count() as u64;
    let mut by = [0u64; 6];
    let mut shares = [0u64; 6];
    let mut running = 0u64;
    let mut add = |k: usize, c: u64, by: &mut [u64; 6]| {
        by[k] += c;
        shares[k] += (running + c) / 4 - running / 4;
        running += c;
    };
    // The message right after an injected summary request is the summary.
    let mut in_summary = false;
    for e in events {
        match e["type"].as_str().unwrap_or("") {
            "chat_request" => {
                let content = e["content"].as_str().unwrap();
                in_summary = content == "[Summary of previous conversation]";
                add(if in_summary { 5 } else { 0 }, n(content), &mut by);
                continue;
            }
            "chat_response" => {
                if let Some(m) = e["message"].as_str() {
                    add(if in_summary { 5 } else { 1 }, n(m), &mut by);
                } else if let Some(r) = e["reasoning"].as_str() {
                    add(2, n(r), &mut by);
                } else {
                    add(1, n(&e["data"].to_string()), &mut by);
                }
            }
            "tool_call_request" => add(
                3,
                n(e["name"].as_str().unwrap()) + n(&decode_all(&e["arguments"]).to_string()),
                &mut by,
            ),
            "tool_call_response" => add(4, n(&decode(e["content"].as_str().unwrap())), &mut by),
            _ => {}
        }
        in_summary = false;
    }
    (by, shares)
}

#[test]
fn stats_match_a_count_by_hand() {
    let (tmp, dirs) = workspace();
    if dirs.len() == 1 {
        eprintln!("../shared is absent: counting the bundled demo only");
    }
    for dir in &dirs {
        let v = json(&jp_inspect(
            &["stats", dir.to_str().unwrap(), "--json"],
            tmp.path(),
        ));
        let mut events: Vec<Value> =
            serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
        if !dir.join("base_config.json").exists() {
            events.remove(0);
        }
        let (by, shares) = by_hand(&events);
        let names = [
            "user",
            "assistant",
            "reasoning",
            "tool_requests",
            "tool_responses",
        ];
        // Each category's share of the total: they add up to it.
        for (k, name) in names.iter().enumerate() {
            assert_eq!(
                v["raw"]["by_category"][name],
                shares[k],
                "{} {name}",
                dir.display()
            );
        }
        let listed: u64 = v["raw"]["by_category"]
            .as_object()
            .unwrap()
            .values()
            .map(|t| t.as_u64().unwrap())
            .sum();
        assert_eq!(
            Some(listed),
            v["raw"]["tokens"].as_u64(),
            "{}",
            dir.display()
        );
        assert_eq!(
            v["raw"]["tokens"],
            by.iter().sum::<u64>() / 4,
            "{}",
            dir.display()
        );
        if v["compactions"].as_array().unwrap().is_empty() {
            assert_eq!(v["projected"]["tokens"], v["raw"]["tokens"]);
        } else {
            assert!(v["projected"]["tokens"].as_u64() < v["raw"]["tokens"].as_u64());
        }
    }
}

#[test]
fn projected_figures_match_a_count_by_hand_of_jps_projection() {
    // The conformance cases hold jp's own projected stream: counting it by
    // hand must give our projected estimate.
    let root = common::data().join("conformance");
    for case in fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
    {
        let expected: Value =
            serde_json::from_slice(&fs::read(case.join("expected.json")).unwrap()).unwrap();
        let (by, shares) = by_hand(expected["projected"].as_array().unwrap());
        let conv = fs::read_dir(case.join("conversations"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let v = json(&jp_inspect(
            &["stats", conv.to_str().unwrap(), "--json"],
            &case,
        ));
        assert_eq!(
            v["projected"]["chars"],
            by.iter().sum::<u64>(),
            "{}",
            case.display()
        );
        assert_eq!(
            v["projected"]["by_category"]["summaries"],
            shares[5],
            "{}",
            case.display()
        );
    }
}

#[test]
fn stats_report_window_thresholds_and_compactions() {
    let (tmp, _) = workspace();
    let v = json(&jp_inspect(&["stats", "csvq", "--json"], tmp.path()));
    assert_eq!(v["model"], "anthropic/claude-opus-4-5");
    // Claude Sonnet 4.5: a 200k window, of which the demo's configured
    // max_tokens (16k) is kept for the answer.
    assert_eq!(v["window"]["tokens"], 200_000);
    assert_eq!(v["window"]["reserve"], 16_000);
    assert_eq!(
        v["window"]["reserve_source"],
        "configured max output tokens"
    );
    assert_eq!(v["window"]["usable"], 184_000);
    assert_eq!(v["thresholds"]["soft"]["tokens"], 110_400);
    assert_eq!(v["thresholds"]["hard"]["tokens"], 156_400);
    assert_eq!(v["thresholds"]["trigger"]["tokens"], 138_000);
    let list = v["compactions"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["source"], "manual");
    assert_eq!(
        (&list[0]["from_turn"], &list[0]["to_turn"]),
        (&1.into(), &4.into())
    );
    assert_eq!(list[1]["source"], "auto");
    assert!(list[1]["tokens_saved"].as_u64().unwrap() > 1000);
    // The context is the system prompt, the tools and the projected events,
    // and the ratio is that over the usable window.
    let ctx = &v["context"];
    assert_eq!(ctx["measure"], "context");
    assert_eq!(ctx["events"], v["projected"]["tokens"]);
    assert_eq!(ctx["system_prompt"], v["system_prompt"]["tokens"]);
    assert!(ctx["system_prompt"].as_u64().unwrap() > 0);
    let parts = ctx["system_prompt"].as_u64().unwrap()
        + ctx["tools"].as_u64().unwrap()
        + ctx["events"].as_u64().unwrap();
    let total = ctx["tokens"].as_u64().unwrap();
    assert!(total >= parts && total <= parts + 2, "{total} vs {parts}");
    let ratio = v["ratio"].as_f64().unwrap();
    assert!((ratio - total as f64 / 184_000.0).abs() < 1e-9);
    assert!(
        ctx["tools"].as_u64().unwrap() > 500,
        "the demo's tool definitions"
    );
    // --window overrides the size, the reserve stays; an unknown model says
    // unknown.
    let v = json(&jp_inspect(
        &["stats", "csvq", "--json", "--window", "1m"],
        tmp.path(),
    ));
    assert_eq!(
        v["window"],
        serde_json::json!({"tokens": 1_000_000, "reserve": 16_000,
            "reserve_source": "configured max output tokens", "usable": 984_000,
            "source": "override"})
    );
    // D50's literal estimate on request.
    let cfg = tmp.path().join("events.toml");
    fs::write(
        &cfg,
        "[conversation.compaction.auto]\ncontext = \"events\"\n",
    )
    .unwrap();
    let v = json(&jp_inspect(
        &["stats", "csvq", "--json", "--config", cfg.to_str().unwrap()],
        tmp.path(),
    ));
    assert_eq!(v["context"]["measure"], "events");
    assert_eq!(v["context"]["tokens"], v["projected"]["tokens"]);
    assert_eq!(v["window"]["usable"], 200_000);
}

#[test]
fn compact_then_show_compacted_and_reset() {
    let (tmp, dirs) = workspace();
    let file = dirs[0].join("events.json");
    let before = fs::read(&file).unwrap();
    let dry = jp_inspect(
        &["compact", "csvq", "r+t:10..20", "s:21..-3", "--dry-run"],
        tmp.path(),
    );
    let text = String::from_utf8_lossy(&dry.stdout).into_owned();
    assert!(dry.status.success(), "{}", stderr(&dry));
    assert!(
        text.contains("Would compact turns 10..20 (11 total, reasoning + tools)."),
        "{text}"
    );
    assert!(
        text.contains("Would compact turns 21..29 (9 total, summary)."),
        "{text}"
    );
    assert!(text.contains("Would keep turns 30..32."), "{text}");
    assert!(text.contains("Dry run: nothing written."), "{text}");
    assert_eq!(fs::read(&file).unwrap(), before);

    let v = json(&jp_inspect(
        &["compact", "csvq", "r+t:10..20", "s:21..-3", "--json"],
        tmp.path(),
    ));
    assert_eq!(v["written"], true);
    assert!(v["tokens"]["after"].as_u64() < v["tokens"]["before"].as_u64());
    let added = v["compactions"].as_array().unwrap();
    assert!(
        added[1]["summary"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("Digest of turns 21-29")
    );

    let shown = json(&jp_inspect(
        &["show", "csvq", "--compacted", "--json"],
        tmp.path(),
    ));
    let origins = shown["turn_origins"].as_array().unwrap();
    assert!(origins.contains(&serde_json::json!({"summary": [20, 28]})));
    let injected: Vec<&Value> = shown["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["origin"].is_null())
        .collect();
    assert_eq!(injected.len(), 6, "two summaries, three events each");
    assert_eq!(
        injected[1]["event"]["content"],
        "[Summary of previous conversation]"
    );

    let v = json(&jp_inspect(
        &["reset", "csvq", "--index", "3", "--json"],
        tmp.path(),
    ));
    assert_eq!(v["removed"], 1);
    let v = json(&jp_inspect(
        &["reset", "csvq", "--auto", "--dry-run", "--json"],
        tmp.path(),
    ));
    assert_eq!(v["removed"], 1);
    assert_eq!(v["written"], false);
    json(&jp_inspect(
        &["reset", "csvq", "--all", "--json"],
        tmp.path(),
    ));
    let v = json(&jp_inspect(&["stats", "csvq", "--json"], tmp.path()));
    assert!(v["compactions"].as_array().unwrap().is_empty());
    assert_eq!(v["projected"]["tokens"], v["raw"]["tokens"]);
    // Raw events untouched throughout.
    let now: Vec<Value> = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
    let was: Vec<Value> = serde_json::from_slice(&before).unwrap();
    let strip = |v: Vec<Value>| -> Vec<Value> {
        v.into_iter()
            .filter(|e| e["type"] != "compaction")
            .collect()
    };
    assert_eq!(strip(now), strip(was));
}

#[test]
fn nothing_to_compact_is_said_not_clamped() {
    let (tmp, _) = workspace();
    let out = jp_inspect(&["compact", "csvq", "r:40..", "t:..-40"], tmp.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert_eq!(text.matches("Nothing to compact").count(), 2, "{text}");
}

#[test]
fn reset_of_a_missing_position_is_a_usage_error() {
    let (tmp, _) = workspace();
    let out = jp_inspect(&["reset", "csvq", "--index", "9"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("there is no compaction #9; this conversation has 2"));
}

fn bad(dir: &Path, events: &[u8]) -> String {
    fs::write(dir.join("events.json"), events).unwrap();
    let out = jp_inspect(&["show", dir.to_str().unwrap()], dir);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    stderr(&out)
}

#[test]
fn bad_input_is_a_clear_error_naming_file_and_place() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("17000000000-bad");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("base_config.json"), "{}").unwrap();
    let events = dir.join("events.json");
    let name = events.display().to_string();

    let e = bad(&dir, b"[\n  {\"type\": \"turn_start\",\n  what\n]\n");
    assert!(e.contains(&format!("{name}:3:")), "not JSON: {e}");

    let e = bad(
        &dir,
        b"[\n  {\"timestamp\": \"2026-01-01 00:00:00.0\", \"type\": \"chat_req",
    );
    assert!(
        e.contains(&format!("{name}:2:")) && e.contains("EOF"),
        "truncated: {e}"
    );

    let e = bad(&dir, b"[\n  \"not an object\"\n]\n");
    assert!(
        e.contains(&format!("{name}:2:3: event 0")) && e.contains("a string"),
        "element: {e}"
    );

    let e = bad(
        &dir,
        b"[\n  {\"timestamp\": \"2026-01-01 00:00:00.0\", \"type\": \"tool_call_response\", \"id\": \"a\", \"content\": \"x\", \"is_error\": \"no\"}\n]\n",
    );
    assert!(
        e.contains(&format!("{name}:2:")) && e.contains("`is_error`: expected a bool"),
        "types: {e}"
    );

    let e = bad(&dir, b"{\"events\": []}\n");
    assert!(e.contains("expected a JSON array of events"), "{e}");

    let e = bad(&dir, b"[\xff]\n");
    assert!(e.contains(&format!("{name}:1:2: invalid UTF-8")), "{e}");

    // Unreadable: events.json is a directory.
    fs::remove_file(&events).unwrap();
    fs::create_dir(&events).unwrap();
    let out = jp_inspect(&["show", dir.to_str().unwrap()], tmp.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains(&name), "{}", stderr(&out));
    fs::remove_dir(&events).unwrap();

    // No events.json at all, and a missing directory.
    let out = jp_inspect(&["show", dir.to_str().unwrap()], tmp.path());
    assert!(
        stderr(&out).contains("events.json: missing"),
        "{}",
        stderr(&out)
    );
    let gone = tmp.path().join("17000000001-gone/");
    let out = jp_inspect(&["show", gone.to_str().unwrap()], tmp.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("17000000001-gone"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_malformed_compaction_is_reported_and_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::copy_dir(&demo(), &tmp.path().join(jp_inspect::demo::DIR_NAME));
    let mut events: Vec<Value> =
        serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
    events.push(serde_json::json!({"type": "compaction", "timestamp": "2026-11-30 10:00:00.0", "from_turn": 1, "tool_calls": "strip"}));
    fs::write(
        dir.join("events.json"),
        serde_json::to_string_pretty(&events).unwrap() + "\n",
    )
    .unwrap();
    let out = jp_inspect(&["stats", dir.to_str().unwrap(), "--json"], tmp.path());
    let v = json(&out);
    let err = stderr(&out);
    assert!(
        err.contains("compaction #3 is invalid and left out of the projection: missing `to_turn`"),
        "{err}"
    );
    let list = v["compactions"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    assert_eq!(list[2]["valid"], false);
    // It can be removed like any other.
    let out = jp_inspect(
        &["reset", dir.to_str().unwrap(), "--index", "3"],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&jp_inspect(
        &["stats", dir.to_str().unwrap(), "--json"],
        tmp.path(),
    ));
    assert_eq!(v["compactions"].as_array().unwrap().len(), 2);
}

#[test]
fn unknown_events_and_fields_survive_and_are_shown() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::copy_dir(&demo(), &tmp.path().join(jp_inspect::demo::DIR_NAME));
    let mut events: Vec<Value> =
        serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
    events.insert(3, serde_json::json!({"type": "future_thing", "timestamp": "2026-11-12 12:25:00.0", "payload": {"x": [1, 2]}}));
    events[5]["newer_field"] = serde_json::json!({"kept": true});
    fs::write(
        dir.join("events.json"),
        serde_json::to_string_pretty(&events).unwrap() + "\n",
    )
    .unwrap();
    let v = json(&jp_inspect(
        &["show", dir.to_str().unwrap(), "--json"],
        tmp.path(),
    ));
    assert_eq!(v["events"][3]["event"], events[3]);
    assert_eq!(v["events"][5]["event"]["newer_field"]["kept"], true);
    let text =
        String::from_utf8(jp_inspect(&["show", dir.to_str().unwrap()], tmp.path()).stdout).unwrap();
    assert!(
        text.contains("unknown") && text.contains("\"payload\":{\"x\":[1,2]}"),
        "{text}"
    );
    json(&jp_inspect(
        &["compact", dir.to_str().unwrap(), "r:2..3", "--json"],
        tmp.path(),
    ));
    let after: Vec<Value> =
        serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
    assert_eq!(&after[..events.len()], &events[..]);
}

#[test]
fn legacy_inline_base_config_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("17000000000-inline");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("events.json"),
        r#"[
  {"type": "config_delta", "timestamp": "2025-01-01 00:00:00.0", "assistant": {"model": {"id": "anthropic/claude-opus-4-6"}, "system_prompt": "Be brief."}},
  {"timestamp": "2025-01-01 00:00:01.0", "type": "chat_request", "content": "hello"},
  {"timestamp": "2025-01-01 00:00:02.0", "type": "chat_response", "message": "hi"}
]
"#,
    )
    .unwrap();
    let v = json(&jp_inspect(
        &["stats", dir.to_str().unwrap(), "--json"],
        tmp.path(),
    ));
    assert_eq!(v["conversation"]["format"], "legacy");
    assert_eq!(v["model"], "anthropic/claude-opus-4-6");
    assert_eq!(v["system_prompt"]["chars"], 9);
    assert_eq!(v["turn_count"], 1);
}

/// The demo's automatic elision strips tool calls over 1 KiB in turns 6–8;
/// today's jp strips them all. `--as-jp` projects as jp does, and `stats`
/// says the difference in words with counts taken from the events.
#[test]
fn as_jp_projects_as_todays_jp_and_the_difference_is_said() {
    let (tmp, _) = workspace();
    let ours = json(&jp_inspect(
        &["show", "csvq", "--compacted", "--json"],
        tmp.path(),
    ));
    let jps = json(&jp_inspect(
        &["show", "csvq", "--compacted", "--json", "--as-jp"],
        tmp.path(),
    ));
    let tokens = |v: &serde_json::Value| -> u64 {
        v["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["tokens"].as_u64().unwrap())
            .sum()
    };
    assert!(tokens(&jps) < tokens(&ours), "jp strips more");

    // The counts, by hand from the raw events: tool calls of turns 6..8,
    // and those whose arguments and content are both within 1024 bytes.
    let raw = json(&jp_inspect(&["show", "csvq", "--json"], tmp.path()));
    let mut sizes: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for e in raw["events"].as_array().unwrap() {
        let turn = e["turn"].as_u64().unwrap();
        if !(5..=7).contains(&turn) {
            continue;
        }
        let ev = &e["event"];
        let id = ev["id"].as_str().unwrap_or_default().to_string();
        match ev["type"].as_str() {
            Some("tool_call_request") => {
                sizes.entry(id).or_default().0 = ev["arguments"].to_string().len();
            }
            Some("tool_call_response") => {
                sizes.entry(id).or_default().1 = ev["content"].as_str().unwrap().len();
            }
            _ => {}
        }
    }
    let calls = sizes.len();
    let kept = sizes
        .values()
        .filter(|(a, c)| *a <= 1024 && *c <= 1024)
        .count();
    assert!(calls > kept, "{calls} {kept}");
    let stats = json(&jp_inspect(&["stats", "csvq", "--json"], tmp.path()));
    let auto = &stats["compactions"][1];
    assert_eq!(auto["source"], "auto");
    assert_eq!(
        auto["jp_differs"],
        format!(
            "jp strips all {calls} tool calls in turns 6–8; jp-inspect's rule keeps {kept} under 1 KiB"
        )
    );
    assert!(
        stats["compactions"][0]["jp_differs"].is_null(),
        "a summary differs in nothing"
    );
    let as_jp = json(&jp_inspect(
        &["stats", "csvq", "--json", "--as-jp"],
        tmp.path(),
    ));
    assert_eq!(as_jp["view"], "today's jp");
    assert!(as_jp["projected"]["tokens"].as_u64() < stats["projected"]["tokens"].as_u64());

    // The simulation's elisions, as jp would apply them, strip more.
    let sim = |extra: &[&str]| {
        let mut args = vec![
            "simulate",
            "csvq",
            "--windows",
            "128k",
            "--policies",
            "staged",
            "--json",
        ];
        args.extend_from_slice(extra);
        json(&jp_inspect(&args, tmp.path()))["runs"][0]["input_tokens"]
            .as_u64()
            .unwrap()
    };
    assert!(sim(&["--as-jp"]) < sim(&[]));

    // `auto --as-jp` is a dry run's question only.
    let out = jp_inspect(&["auto", "csvq", "--as-jp"], tmp.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = jp_inspect(
        &["auto", "csvq", "--as-jp", "--dry-run", "--json"],
        tmp.path(),
    );
    assert!(json(&out)["dry_run"] == true);
}

/// Installable and discoverable: --version, completions that bash accepts
/// and loads, a man page that lists every subcommand, and jp's `jp://`
/// references.
#[test]
fn version_completions_man_page_and_jp_uris() {
    let (tmp, _) = workspace();
    let out = jp_inspect(&["--version"], tmp.path());
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(env!("CARGO_PKG_VERSION")));

    let out = jp_inspect(&["completions", "bash"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let script = tmp.path().join("jp-inspect.bash");
    fs::write(&script, &out.stdout).unwrap();
    let syntax = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .status()
        .unwrap();
    assert!(syntax.success(), "bash rejects the completion script");
    let loaded = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source {} && complete -p jp-inspect",
            script.display()
        ))
        .output()
        .unwrap();
    assert!(
        loaded.status.success(),
        "{}",
        String::from_utf8_lossy(&loaded.stderr)
    );
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = jp_inspect(&["completions", shell], tmp.path());
        assert!(out.status.success() && !out.stdout.is_empty(), "{shell}");
    }

    let out = jp_inspect(&["man"], tmp.path());
    assert!(out.status.success());
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.starts_with(".ie") || page.contains(".TH"), "roff");
    use clap::CommandFactory;
    for sub in jp_inspect::cli::Cli::command().get_subcommands() {
        let name = sub.get_name().replace('-', "\\-");
        assert!(
            page.contains(&name),
            "the man page misses `{}`",
            sub.get_name()
        );
    }

    // The URI jp's apps copy names the conversation too.
    let v = json(&jp_inspect(
        &["stats", "jp://jp-c17944860430", "--json"],
        tmp.path(),
    ));
    assert_eq!(v["conversation"]["id"], "jp-c17944860430");
    let v = json(&jp_inspect(
        &["stats", "jp://17944860430", "--json"],
        tmp.path(),
    ));
    assert_eq!(v["conversation"]["id"], "jp-c17944860430");
}

/// `--active` names the most recently activated conversation wherever CONV
/// is taken; with CONV too it is a usage error; without a workspace the
/// error says so.
#[test]
fn active_names_the_most_recently_activated_conversation() {
    let (tmp, dirs) = workspace();
    let demo = &dirs[0];
    let meta = demo.join("metadata.json");
    let mut m: serde_json::Value = serde_json::from_slice(&fs::read(&meta).unwrap()).unwrap();
    m["last_activated_at"] = "2099-01-01 00:00:00.5".into();
    fs::write(&meta, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    for args in [
        &["stats", "--active", "--json"][..],
        &["show", "--active", "--json"][..],
        &["history", "--active", "--json"][..],
    ] {
        let v = json(&jp_inspect(args, tmp.path()));
        assert_eq!(v["conversation"]["id"], "jp-c17944860430", "{args:?}");
    }
    let out = jp_inspect(&["simulate", "--active", "--json"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("jp-c17944860430"));

    // Another conversation activated later takes over.
    let other = second_demo(tmp.path());
    fs::write(
        other.join("metadata.json"),
        "{\"title\": \"later\", \"last_activated_at\": \"2099-06-01 00:00:00.0\"}\n",
    )
    .unwrap();
    let v = json(&jp_inspect(&["stats", "--active", "--json"], tmp.path()));
    assert_eq!(v["conversation"]["id"], "jp-c17944860431");

    let out = jp_inspect(&["stats", "--active", "jp-c17944860430"], tmp.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = jp_inspect(&["stats"], tmp.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    let nowhere = tempfile::tempdir().unwrap();
    let out = jp_inspect(&["stats", "--active"], nowhere.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no jp workspace here"),
        "{}",
        stderr(&out)
    );
}

/// A reader that stops early (`| head`) ends the program quietly: no
/// "Broken pipe" on stderr, exit 0.
#[test]
fn a_closed_stdout_ends_quietly() {
    let (tmp, _) = workspace();
    for args in [
        &["show", "jp-c17944860430", "--json"][..],
        &["history", "jp-c17944860430"][..],
        &["man"][..],
        &["completions", "bash"][..],
    ] {
        let mut child = common::binary()
            .args(args)
            .current_dir(tmp.path())
            .env("JP_USER_DATA_DIR", tmp.path().join(".no-user-data"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // No reader left: the first write fails with EPIPE.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(out.stderr.is_empty(), "{args:?}: {}", stderr(&out));
    }
}

/// With no terminal at all (no controlling terminal, stdin not one), the
/// inspector says it needs one and names the headless commands, instead of
/// an OS error.
#[test]
fn without_a_terminal_the_inspector_says_what_works_instead() {
    let out = std::process::Command::new("setsid")
        .arg(common::bin_path())
        .arg("--demo")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("setsid runs it without a controlling terminal");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the inspector needs a terminal"), "{err}");
    assert!(err.contains("stats") && err.contains("compact"), "{err}");
    assert!(!err.contains("os error"), "{err}");
}

/// `man` has a page for every command, not only the top one it refers to.
#[test]
fn man_has_a_page_per_command() {
    let tmp = tempfile::tempdir().unwrap();
    let out = common::run_anywhere(&["man", "--dir", &tmp.path().display().to_string()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for cmd in [
        "show", "stats", "compact", "reset", "auto", "simulate", "watch", "history", "models",
        "count", "list",
    ] {
        let page = fs::read_to_string(tmp.path().join(format!("jp-inspect-{cmd}.1"))).unwrap();
        assert!(
            page.contains(&format!(".TH jp-inspect-{cmd} 1")),
            "{cmd}: {}",
            &page[..200.min(page.len())]
        );
        // Global options are on every page.
        assert!(page.contains("\\-\\-workspace"), "{cmd}");
    }
    let all = common::run_anywhere(&["man"]);
    let text = String::from_utf8_lossy(&all.stdout);
    assert!(
        text.matches(".TH ").count() >= 12,
        "{}",
        text.matches(".TH ").count()
    );
}

/// `simulate` with no conversation named simulates the whole workspace and
/// sums each policy and window across it; the backstop's line is there
/// only where it did something.
#[test]
fn simulate_without_a_conversation_covers_the_workspace_with_totals() {
    let tmp = tempfile::tempdir().unwrap();
    let demo = common::demo_copy(tmp.path());
    common::copy_dir(
        &demo,
        &tmp.path().join(".jp/conversations/17950000000-second"),
    );
    let args = [
        "simulate",
        "--windows",
        "64k,1m",
        "--policies",
        "staged,staged+backstop",
        "--json",
    ];
    let out = common::jp_inspect(&args, tmp.path());
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v = common::json(&out);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(
        runs.len(),
        2 * 2 * 2,
        "two conversations × two policies × two windows"
    );
    let totals = v["totals"].as_array().unwrap();
    assert_eq!(totals.len(), 4);
    for t in totals {
        let mine: Vec<&serde_json::Value> = runs
            .iter()
            .filter(|r| r["policy"] == t["policy"] && r["window"] == t["window"])
            .collect();
        assert_eq!(t["conversations"], 2);
        for key in ["overflows", "requests", "input_tokens", "summaries", "cost"] {
            let sum: u64 = mine.iter().map(|r| r[key].as_u64().unwrap()).sum();
            assert_eq!(t[key].as_u64(), Some(sum), "{key} of {t}");
        }
    }
    let text = common::jp_inspect(&args[..args.len() - 1], tmp.path());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("all 2 conversations, per policy and window:"),
        "{text}"
    );
    let elided = |window: u64| {
        runs.iter()
            .filter(|r| r["policy"] == "staged+backstop" && r["window"] == window)
            .map(|r| r["backstop_elisions"].as_u64().unwrap())
            .sum::<u64>()
    };
    // At 1m nothing needs the backstop; at 64k it works on the demo.
    assert_eq!(elided(1_000_000), 0);
    assert!(elided(64_000) > 0);
    assert_eq!(text.matches("    backstop: ").count(), 2, "{text}");
}

/// The completion script asks jp-inspect at each Tab: in bash, a CONV
/// completes to the workspace's conversation ids and slugs.
#[test]
fn completion_completes_conversation_ids_and_slugs() {
    let (tmp, _dir) = common::workspace_with(&common::demo());
    let out = jp_inspect(&["completions", "bash"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let script = tmp.path().join("jp-inspect.bash");
    fs::write(&script, &out.stdout).unwrap();
    let bin_dir = std::path::Path::new(common::bin_path()).parent().unwrap();
    let complete = |words: &str, current: &str| -> Vec<String> {
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
                 _clap_complete_jp_inspect jp-inspect '{current}' x; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
                script.display()
            ))
            .current_dir(tmp.path())
            .env("PATH", format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap()))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .filter(|l| !l.is_empty())
            .collect()
    };
    assert_eq!(
        complete("jp-inspect stats jp-c", "jp-c"),
        ["jp-c17944860430"]
    );
    assert_eq!(
        complete("jp-inspect show csv", "csv"),
        ["csvq-first-release"]
    );
    assert!(complete("jp-inspect stats nope", "nope").is_empty());
}

/// Every option and argument of every command says what it does: a blank
/// line in `--help` is a doc comment lost on the way (two options once
/// shared one, the other left blank).
#[test]
fn every_option_of_every_command_has_its_own_help() {
    use clap::CommandFactory;
    let mut cmd = jp_inspect::cli::Cli::command();
    cmd.build();
    let mut blank = Vec::new();
    let mut check = |c: &clap::Command| {
        for a in c.get_arguments() {
            let id = a.get_id().as_str();
            if id == "help" || id == "version" || a.is_hide_set() {
                continue;
            }
            let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
            if help.trim().is_empty() {
                blank.push(format!("{} {id}", c.get_name()));
            }
            // One sentence of another option run into this one.
            if help.contains("Print the result as JSON") && id != "json" {
                blank.push(format!("{} {id}: {help}", c.get_name()));
            }
        }
    };
    check(&cmd);
    for sub in cmd.get_subcommands() {
        check(sub);
    }
    assert!(blank.is_empty(), "{blank:#?}");
}

/// `compact --dry-run --summarize` shows the summary it would write, under
/// its range, in text as in `--json`.
#[test]
fn a_dry_run_shows_the_summary_it_would_write() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let args = [
        "compact",
        "jp-c17944860430",
        "s:10..12",
        "--dry-run",
        "--summarize",
        "--summarizer",
        "digest",
    ];
    let text = common::jp_inspect(&args, tmp.path());
    assert!(text.status.success(), "{}", common::stderr(&text));
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let v = common::json(&common::jp_inspect(&json_args, tmp.path()));
    let summary = v["compactions"][0]["summary"]["summary"].as_str().unwrap();
    assert!(text.contains("the summary it would write"), "{text}");
    for line in summary.lines().filter(|l| !l.trim().is_empty()) {
        assert!(
            text.contains(&format!("    {line}")),
            "{line:?} not in {text}"
        );
    }
    assert!(text.contains("Dry run: nothing written."), "{text}");
}

/// `reset --all` on a conversation with no compaction says so in words.
#[test]
fn reset_all_with_nothing_to_reset_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    common::edit_events(&conv, |ev| ev.retain(|e| e["type"] != "compaction"));
    let out = common::jp_inspect(&["reset", "jp-c17944860430", "--all"], tmp.path());
    assert!(out.status.success(), "{}", common::stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("Nothing to reset: this conversation has no compaction."),
        "{said}"
    );
    assert!(!said.contains("no all"), "{said}");
}

/// A rule with a size threshold picks part of its range: `compact` names
/// each item it reaches, and those are the range's tool results over the
/// size, counted here from the raw events (the demo's results carry text,
/// so a result's bytes are its content's).
#[test]
fn a_threshold_names_each_item_it_reaches() {
    let (tmp, _) = workspace();
    let rule = "t,over=2kb:13..14";
    let v = json(&jp_inspect(
        &["compact", "csvq", rule, "--dry-run", "--json"],
        tmp.path(),
    ));
    let reached: Vec<(u64, String, u64)> = v["compactions"][0]["reached"]
        .as_array()
        .expect("a threshold lists what it reaches")
        .iter()
        .map(|r| {
            (
                r["turn"].as_u64().unwrap(),
                r["item"].as_str().unwrap().to_string(),
                r["bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    let raw = json(&jp_inspect(&["show", "csvq", "--json"], tmp.path()));
    let mut names = std::collections::HashMap::new();
    let mut expected = Vec::new();
    for e in raw["events"].as_array().unwrap() {
        let (turn, ev) = (e["turn"].as_u64().unwrap() + 1, &e["event"]);
        let id = ev["id"].as_str().unwrap_or_default().to_string();
        match ev["type"].as_str() {
            Some("tool_call_request") => {
                names.insert(id, ev["name"].as_str().unwrap().to_string());
            }
            Some("tool_call_response") if (13..=14).contains(&turn) => {
                let bytes = ev["content"].as_str().unwrap().len() as u64;
                if bytes > 2048 {
                    expected.push((turn, format!("{} (response)", names[&id]), bytes));
                }
            }
            _ => {}
        }
    }
    assert!(
        !expected.is_empty(),
        "the demo has results over 2 KiB there"
    );
    assert_eq!(reached, expected);
    // The listing says the same, a line per item.
    let out = jp_inspect(&["compact", "csvq", rule, "--dry-run"], tmp.path());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("  turn ")).collect();
    assert_eq!(lines.len(), expected.len(), "{text}");
    for (line, (turn, item, _)) in lines.iter().zip(&expected) {
        assert!(
            line.starts_with(&format!("  turn {turn}  {item}  ")),
            "{line}"
        );
    }
}
