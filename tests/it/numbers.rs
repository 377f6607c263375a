//! Numbers a user acts on: which price billed a model (and never an older
//! generation's), what summaries cost by who wrote them, requests the API
//! would have refused, firings that save nothing, `--keep-first` honoured.

use crate::common;

use common::{demo_copy, json, stderr};
use serde_json::{Value, json};
use std::fs;
use std::path::Path;

const ID: &str = "jp-c17944860430";

/// The binary in `cwd` with no user config, data or cache of the machine's.
fn run(args: &[&str], cwd: &Path) -> std::process::Output {
    common::binary()
        .args(args)
        .current_dir(cwd)
        .env("JP_USER_DATA_DIR", cwd.join(".no-user-data"))
        .env("JP_INSPECT_DATA_DIR", cwd.join(".no-data"))
        .env("XDG_CONFIG_HOME", cwd.join(".no-config"))
        .env_remove("JP_GLOBAL_CONFIG_DIR")
        .env_remove("JP_INSPECT_CONFIG")
        .output()
        .unwrap()
}

/// The demo under `cwd` with its model set to `model` (`provider/name`).
fn demo_as(cwd: &Path, model: &str) -> std::path::PathBuf {
    let conv = demo_copy(cwd);
    let path = conv.join("base_config.json");
    let mut base: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    let (provider, name) = model.split_once('/').unwrap();
    base["assistant"]["model"]["id"] = json!({"provider": provider, "name": name});
    fs::write(&path, serde_json::to_vec_pretty(&base).unwrap()).unwrap();
    conv
}

#[test]
fn opus_4_8_is_priced_as_itself_and_every_bill_names_the_entry() {
    let tmp = tempfile::tempdir().unwrap();
    demo_as(tmp.path(), "anthropic/claude-opus-4-8");
    let stats = json(&run(&["stats", ID, "--json"], tmp.path()));
    assert_eq!(
        stats["price"]["match"], "claude-opus-4-8*",
        "{}",
        stats["price"]
    );
    assert!(stats["price"]["date"].is_string() && stats["price"]["source"].is_string());
    let history = json(&run(&["history", ID, "--json"], tmp.path()));
    assert_eq!(history["price"], stats["price"]);
    // $5 / $25: the billing line says so, never Opus 4's $15 / $75.
    let text = String::from_utf8(run(&["history", ID], tmp.path()).stdout).unwrap();
    assert!(
        text.contains("priced by the table's `claude-opus-4-8*`"),
        "{text}"
    );
    let sim = json(&run(
        &[
            "simulate",
            ID,
            "--windows",
            "200k",
            "--policies",
            "none",
            "--json",
        ],
        tmp.path(),
    ));
    assert_eq!(sim["runs"][0]["price"], stats["price"]);
    // The same sessions at Opus 4.5's price (also $5 / $25) bill the same.
    let tmp45 = tempfile::tempdir().unwrap();
    demo_as(tmp45.path(), "anthropic/claude-opus-4-5");
    let h45 = json(&run(&["history", ID, "--json"], tmp45.path()));
    let (a, b) = (
        history["cost"]["total"].as_f64().unwrap(),
        h45["cost"]["total"].as_f64().unwrap(),
    );
    // Opus 4.8 caches from 1,024 tokens, 4.5 from 4,096: the same or less.
    assert!(a <= b * 1.01, "opus 4.8 ${a:.2}, 4.5 ${b:.2}");
}

#[test]
fn a_model_the_table_has_no_price_for_is_not_priced_as_an_older_one() {
    let tmp = tempfile::tempdir().unwrap();
    demo_as(tmp.path(), "anthropic/claude-opus-4-9");
    let stats = json(&run(&["stats", ID, "--json"], tmp.path()));
    assert_eq!(stats["price"]["match"], Value::Null, "{}", stats["price"]);
    assert!(
        stats["price"]["unpriced"]
            .as_str()
            .unwrap()
            .contains("claude-opus-4*"),
        "{}",
        stats["price"]
    );
    let text = String::from_utf8(run(&["stats", ID], tmp.path()).stdout).unwrap();
    assert!(
        text.contains("tok-eq") || text.contains("input-token equivalents"),
        "{text}"
    );
}

#[test]
fn aliases_jp_users_write_resolve_to_a_priced_model() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = demo_copy(tmp.path());
    let path = conv.join("base_config.json");
    let mut base: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    base["assistant"]["model"]["id"] = json!("google");
    fs::write(&path, serde_json::to_vec_pretty(&base).unwrap()).unwrap();
    let stats = json(&run(&["stats", ID, "--json"], tmp.path()));
    assert_eq!(stats["price"]["match"], "gemini-2.5-pro*", "{stats:#}");
}

#[test]
fn a_workspace_with_an_unpriced_model_still_totals_the_priced_ones() {
    let tmp = tempfile::tempdir().unwrap();
    demo_copy(tmp.path());
    // A second conversation, of a model with no price.
    let other = tmp.path().join(".jp/conversations/17944860431-unpriced");
    common::copy_dir(&common::demo(), &other);
    let path = other.join("base_config.json");
    let mut base: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    base["assistant"]["model"]["id"] = json!({"provider": "openrouter", "name": "some-model"});
    fs::write(&path, serde_json::to_vec_pretty(&base).unwrap()).unwrap();
    let out = run(&["simulate", "--windows", "200k", "--json"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    for t in v["totals"].as_array().unwrap() {
        assert_eq!(t["billed"]["unit"], "usd", "{t}");
        assert_eq!(t["billed_unpriced"]["unit"], "input_tokens", "{t}");
        assert_eq!(t["unpriced"], 1, "{t}");
    }
    let text =
        String::from_utf8(run(&["simulate", "--windows", "200k"], tmp.path()).stdout).unwrap();
    assert!(!text.contains("mixed units"), "{text}");
    assert!(text.contains("+ 1 unpriced ("), "{text}");
}

#[test]
fn summaries_cost_what_who_wrote_them_costs() {
    let tmp = tempfile::tempdir().unwrap();
    demo_copy(tmp.path());
    // The demo's summary was written by a person: no model call.
    let history = json(&run(&["history", ID, "--json"], tmp.path()));
    assert_eq!(history["cost"]["summaries"], 0.0, "{}", history["cost"]);
    assert_eq!(history["cost"]["summary_kinds"], json!({"authored": 1}));
    // A digest summary made now costs nothing either; one no record
    // explains (jp's own) is an LLM call at the conversation's model.
    let out = run(
        &["compact", ID, "s:10..12", "--summarizer", "digest"],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let history = json(&run(&["history", ID, "--json"], tmp.path()));
    assert_eq!(history["cost"]["summaries"], 0.0);
    assert_eq!(
        history["cost"]["summary_kinds"],
        json!({"authored": 1, "digest": 1})
    );
    let conv = tmp
        .path()
        .join(".jp/conversations")
        .join(jp_inspect::demo::DIR_NAME);
    let record = tmp.path().join(".jp/jp-inspect/17944860430.json");
    fs::remove_file(&record).unwrap();
    common::edit_events(&conv, |events| {
        for e in events.iter_mut().filter(|e| e["type"] == "compaction") {
            e.as_object_mut().unwrap().shift_remove("summarizer");
        }
    });
    let history = json(&run(&["history", ID, "--json"], tmp.path()));
    assert!(history["cost"]["summaries"].as_f64().unwrap() > 0.0);
    assert_eq!(
        history["cost"]["summary_kinds"],
        json!({"authored": 1, "jp's own (an LLM)": 1})
    );
}

#[test]
fn requests_over_the_window_are_refused_not_billed() {
    let tmp = tempfile::tempdir().unwrap();
    demo_copy(tmp.path());
    let history = json(&run(
        &["history", ID, "--window", "32k", "--json"],
        tmp.path(),
    ));
    let requests = history["requests"].as_array().unwrap();
    let over: Vec<&Value> = requests.iter().filter(|r| r["overflow"] == true).collect();
    assert!(!over.is_empty());
    for r in &over {
        assert_eq!(r["refused"], true, "{r}");
        assert_eq!(r["cost"], 0.0, "{r}");
    }
    assert_eq!(history["cost"]["refused"], over.len());
    let text =
        String::from_utf8(run(&["history", ID, "--window", "32k"], tmp.path()).stdout).unwrap();
    assert!(
        text.contains(&format!(
            "{} requests over the usable window would have been refused",
            over.len()
        )),
        "{text}"
    );
}

/// Every firing of every policy at every window, on the demo and the real
/// conversations, takes something out.
#[test]
fn no_firing_saves_nothing() {
    for dir in common::corpus() {
        let out = common::run_anywhere(&[
            "simulate",
            dir.to_str().unwrap(),
            "--windows",
            "32k,64k,200k",
            "--json",
        ]);
        assert!(out.status.success(), "{}: {}", dir.display(), stderr(&out));
        for r in json(&out)["runs"].as_array().unwrap() {
            for f in r["firings"].as_array().unwrap() {
                assert!(
                    f["saved"].as_u64().is_some_and(|s| s > 0),
                    "{}: {} at {}: {f}",
                    dir.display(),
                    r["policy"],
                    r["window"]
                );
            }
        }
    }
    // Nor does `auto` write one: with no tool output to strip, the staged
    // policy writes no elision, says why, and summarises instead.
    let tmp = tempfile::tempdir().unwrap();
    let conv = demo_copy(tmp.path());
    common::edit_events(&conv, |events| {
        events.retain(|e| {
            !matches!(
                e["type"].as_str(),
                Some("tool_call_request" | "tool_call_response" | "compaction")
            )
        });
    });
    let out = run(
        &["auto", ID, "--window", "4k", "--mode", "staged", "--json"],
        tmp.path(),
    );
    let v = json(&out);
    let written = v["compactions"]
        .as_array()
        .expect("auto --json lists what it wrote");
    assert!(!written.is_empty(), "{v:#}");
    assert!(
        written
            .iter()
            .all(|c| c["summary"].is_object() && c["tool_calls"].is_null()),
        "an elision written: {v:#}"
    );
    let reasons: Vec<&str> = v["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("elision of turns") && r.contains("not written")),
        "{reasons:#?}"
    );
}

#[test]
fn keep_first_is_honoured_without_a_rule() {
    let tmp = tempfile::tempdir().unwrap();
    demo_copy(tmp.path());
    let out = run(
        &["compact", ID, "--keep-first", "3", "--dry-run", "--json"],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let c = &v["compactions"][0];
    assert_eq!(c["from_turn"], 3, "turns 1..3 kept: {c}");
    let text = String::from_utf8(
        run(
            &["compact", ID, "--keep-first", "3", "--dry-run"],
            tmp.path(),
        )
        .stdout,
    )
    .unwrap();
    assert!(text.contains("turns 1..3"), "{text}");
}
