//! `tools` (which tools fill the context, and their hints) and D17's
//! per-tool policies, on real conversations through the real binary.

use crate::common;

use serde_json::Value;
use std::fs;
use std::path::Path;

const DEMO_ID: &str = "17944860430";

use common::run_in;

fn events(conv: &Path) -> Vec<Value> {
    serde_json::from_str(&fs::read_to_string(conv.join("events.json")).unwrap()).unwrap()
}

/// Tool results sent as they are (not a status line), in `show --json`.
fn results_kept(show: &Value) -> usize {
    show["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["event"])
        .filter(|e| e["type"] == "tool_call_response")
        .filter(|e| {
            !e["content"]
                .as_str()
                .unwrap_or("")
                .starts_with("[compacted]")
        })
        .count()
}

#[test]
fn tools_add_up_to_the_tool_figures_of_stats() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    let tools = common::json(&run_in(tmp.path(), &["tools", DEMO_ID, "--json"]));
    let stats = common::json(&run_in(tmp.path(), &["stats", DEMO_ID, "--json"]));
    let rows = tools["tools"].as_array().unwrap();
    let sum = |k: &str| rows.iter().map(|r| r[k].as_u64().unwrap()).sum::<u64>();
    let raw = &stats["raw"]["by_category"];
    assert_eq!(
        sum("request_tokens"),
        raw["tool_requests"].as_u64().unwrap()
    );
    assert_eq!(
        sum("response_tokens"),
        raw["tool_responses"].as_u64().unwrap()
    );
    // Ranked by response tokens, every row with the fields scripts read.
    let by_response: Vec<u64> = rows
        .iter()
        .map(|r| r["response_tokens"].as_u64().unwrap())
        .collect();
    assert!(
        by_response.windows(2).all(|w| w[0] >= w[1]),
        "{by_response:?}"
    );
    for r in rows {
        for k in ["name", "calls", "errors", "refetched", "hint", "saves"] {
            assert!(r.get(k).is_some(), "{k} missing in {r}");
        }
    }
    assert_eq!(rows[0]["name"], "fs_read_file");
    // A tool whose hint saves gets its TOML, for jp's config (D17) and for
    // today's jp.
    common::add_noisy_tool(&conv);
    let tools = common::json(&run_in(tmp.path(), &["tools", DEMO_ID, "--json"]));
    let noisy = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "git_status")
        .unwrap();
    assert_eq!(noisy["hint"], "omit", "{noisy}");
    let toml = noisy["toml"].as_str().unwrap();
    assert!(toml.contains("[conversation.tools.git_status]\ncompaction = \"omit\""));
    assert!(toml.contains("[plugins.command.inspect.options.tools.git_status]"));
}

#[test]
fn with_no_conversation_named_every_one_of_the_workspace_counts() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let other = tmp.path().join(".jp/conversations");
    jp_inspect::synth::write_conversation(
        &other,
        17_500_000_000,
        &jp_inspect::synth::Spec {
            turns: 6,
            ..Default::default()
        },
    )
    .unwrap();
    for args in [
        vec!["tools", "--json", "--workspace"],
        vec![
            "tools",
            "--json",
            "--workspace",
            tmp.path().to_str().unwrap(),
        ],
    ] {
        let all = common::json(&run_in(tmp.path(), &args));
        let names: Vec<&str> = all["conversations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "{args:?}: {names:?}");
        assert!(names.contains(&"jp-c17944860430") && names.contains(&"jp-c17500000000"));
        let one = common::json(&run_in(tmp.path(), &["tools", DEMO_ID, "--json"]));
        let calls = |d: &Value, tool: &str| {
            d["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["name"] == tool)
                .map_or(0, |r| r["calls"].as_u64().unwrap())
        };
        // The generated conversation reads files too: the rows add up.
        assert!(calls(&all, "fs_read_file") > calls(&one, "fs_read_file"));
    }
}

/// D17: a hint in the config is stored in the elision the staged policy
/// writes, the projection honours it, and today's jp (which ignores the
/// map) strips those calls with the rest.
fn hint_is_stored_and_honoured(conv_dir: &Path, root: &Path, id: &str, window: &str) {
    let hints = root.join("hints.toml");
    fs::write(
        &hints,
        "[conversation.tools.fs_read_file]\ncompaction = \"keep\"\n",
    )
    .unwrap();
    let before = events(conv_dir).len();
    let out = run_in(
        root,
        &[
            "auto",
            id,
            "--window",
            window,
            "--mode",
            "staged",
            "--config",
            hints.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let written: Vec<Value> = events(conv_dir).split_off(before);
    let elision = written
        .iter()
        .find(|e| e["type"] == "compaction" && e.get("summary").is_none())
        .unwrap_or_else(|| panic!("no elision written: {written:?}"));
    assert_eq!(
        elision["tool_overrides"]["fs_read_file"],
        serde_json::json!({"policy": "strip", "request": false, "response": false}),
        "{elision}"
    );
    let ours = common::json(&run_in(root, &["show", id, "--compacted", "--json"]));
    let jps = common::json(&run_in(root, &["show", id, "--as-jp", "--json"]));
    assert!(
        results_kept(&ours) > results_kept(&jps),
        "kept {} vs today's jp {}",
        results_kept(&ours),
        results_kept(&jps)
    );
    let stats = run_in(root, &["stats", id]);
    assert!(
        String::from_utf8_lossy(&stats.stdout).contains("today's jp ignores the per-tool policies"),
        "{}",
        String::from_utf8_lossy(&stats.stdout)
    );
}

#[test]
fn a_tool_hint_is_stored_in_the_elision_and_projected_per_tool() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    hint_is_stored_and_honoured(&conv, tmp.path(), DEMO_ID, "250k");
}

#[test]
fn a_hint_in_jps_own_config_is_read_and_said_to_break_todays_jp() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    fs::write(
        tmp.path().join(".jp/config.toml"),
        "[conversation.tools.fs_read_file]\ncompaction = \"keep\"\n",
    )
    .unwrap();
    let out = run_in(tmp.path(), &["stats", DEMO_ID, "--json"]);
    let stats = common::json(&out);
    assert!(
        stats["settings"]
            .as_object()
            .unwrap()
            .contains_key("conversation.tools.fs_read_file.compaction"),
        "{}",
        stats["settings"]
    );
    let notices = stats["notices"].to_string();
    assert!(
        notices.contains("today's jp refuses `compaction`"),
        "{notices}"
    );
    // A hint jp-inspect does not know is an error naming the key.
    fs::write(
        tmp.path().join(".jp/config.toml"),
        "[plugins.command.inspect.options.tools.fs_read_file]\ncompaction = \"shred\"\n",
    )
    .unwrap();
    let bad = run_in(tmp.path(), &["stats", DEMO_ID]);
    assert!(!bad.status.success());
    let err = common::stderr(&bad);
    assert!(
        err.contains("tools.fs_read_file.compaction") && err.contains("shred"),
        "{err}"
    );
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn bear_ranks_its_file_reads_for_stripping_and_keeps_them_by_hint() {
    let bear = common::fixture_conversations()
        .into_iter()
        .find(|d| d.ends_with("17728322628-bear-mcp-server-design-review"))
        .expect("Bear in ../shared: a corpus check runs whole or is ignored, never passed");
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::copy_dir(
        &bear,
        &tmp.path()
            .join(".jp/conversations")
            .join(bear.file_name().unwrap()),
    );
    let tools = common::json(&run_in(tmp.path(), &["tools", "17728322628", "--json"]));
    let rows = tools["tools"].as_array().unwrap();
    let fs_read = rows
        .iter()
        .position(|r| r["name"] == "fs_read_file")
        .unwrap();
    // github_read_file brings back more (118k tokens to 47k): both reads
    // lead. The staged policy strips them already, so no hint is
    // suggested for them: one would save nothing.
    assert!(fs_read <= 1, "{rows:?}");
    for r in &rows[..2] {
        assert!(
            r["hint"].is_null() || r["saves"].as_i64().is_some_and(|s| s > 0),
            "{r}"
        );
    }
    hint_is_stored_and_honoured(&conv, tmp.path(), "17728322628", "400k");
}

/// A hint is suggested only where its replay saves something; where none
/// would, one line says so. A tool whose figures an answer restates soon
/// after (the demo's `cargo_run`: "11.4 s" of `real 0m11.402s`) is what
/// the conversation relied on, and gets no hint that drops it.
#[test]
fn hints_are_suggested_only_where_they_save_and_never_for_what_was_quoted() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let v = common::json(&common::run_in(tmp.path(), &["tools", "csvq", "--json"]));
    for t in v["tools"].as_array().unwrap() {
        if t["hint"].is_string() {
            assert!(t["saves"].as_i64().is_some_and(|s| s > 0), "{t}");
        }
    }
    let run = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "cargo_run")
        .unwrap();
    assert!(run["hint"].is_null(), "{run}");
    let out = common::run_in(tmp.path(), &["tools", "csvq"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains(" 0 tok"), "{text}");
    let hinted = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["hint"].is_string())
        .count();
    assert_eq!(
        text.contains("No hint would save anything"),
        hinted == 0,
        "{text}"
    );
}
