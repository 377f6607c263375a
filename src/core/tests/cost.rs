//! What a session cost as the provider bills it, and whether compactions
//! and summaries paid for themselves: `history`, `simulate` (and its
//! sweep) and `stats` through real processes on the demo and the real
//! fixtures, the staged policy's summary rule through the simulation.

use crate::common;

use common::{json, stderr};
use jp_inspect::core::auto::{self, AutoConfig, run::Strategy};
use jp_inspect::core::store::load;
use jp_inspect::core::summarize::digest::Digest;
use serde_json::Value;

/// The binary with a user file of `prices` (none: an empty one), so the
/// machine's own file never decides a figure.
fn run(args: &[&str], prices: &str) -> std::process::Output {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("config.toml");
    std::fs::write(&file, prices).unwrap();
    common::binary()
        .args(args)
        .env("JP_USER_DATA_DIR", tmp.path().join("no-user-data"))
        .env("JP_INSPECT_CONFIG", &file)
        .output()
        .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Every request's cache figures add up to its context, the requests'
/// costs and the summaries' to the total.
fn check_history(v: &Value, what: &str) {
    let requests = v["requests"].as_array().unwrap();
    let mut sum = 0.0;
    for (k, r) in requests.iter().enumerate() {
        let c = &r["cache"];
        let parts = c["read"].as_u64().unwrap()
            + c["written"].as_u64().unwrap()
            + c["uncached"].as_u64().unwrap();
        assert_eq!(
            parts,
            r["context"].as_u64().unwrap(),
            "{what}: request {}",
            k + 1
        );
        sum += r["cost"].as_f64().unwrap();
    }
    let cost = &v["cost"];
    let total = cost["total"].as_f64().unwrap();
    assert!(
        close(sum + cost["summaries"].as_f64().unwrap(), total),
        "{what}: {sum} + summaries != {total}"
    );
    // Writing the cache costs more than plain input (1.25x, 2x for the
    // hour): a session that never reads it back pays more with it.
    assert!(
        total <= cost["without_cache"].as_f64().unwrap() * 2.0 + 1e-9,
        "{what}: {cost}"
    );
    assert!(
        matches!(cost["unit"].as_str(), Some("usd" | "input_tokens")),
        "{what}: {cost}"
    );
}

#[test]
fn history_bills_the_demo_with_its_cache_breaks_where_the_compactions_are() {
    let out = run(&["history", "--demo", "--json"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    check_history(&v, "demo");
    assert_eq!(v["cost"]["unit"], "usd", "the demo's model has a price");
    let requests = v["requests"].as_array().unwrap();
    let mut compactions = 0;
    for (k, r) in requests.iter().enumerate().skip(1) {
        if r["compactions_since"].as_array().unwrap().is_empty() {
            continue;
        }
        compactions += 1;
        let before = requests[k - 1]["context"].as_u64().unwrap();
        let read = r["cache"]["read"].as_u64().unwrap();
        // The demo's compactions change turns well before the end: what
        // comes after their first change is written again.
        assert_eq!(r["cache_broke"], "changed", "request {}", k + 1);
        assert!(
            read > 0 && read < before,
            "request {}: read {read} of {before}",
            k + 1
        );
    }
    assert_eq!(compactions, 2, "the demo holds two compactions");
    // A gap of more than five minutes between requests expires the cache.
    let expired = requests
        .iter()
        .filter(|r| r["cache_broke"] == "expired")
        .count();
    assert!(expired > 0);
    // The text says the same.
    let text = String::from_utf8(run(&["history", "--demo"], "").stdout).unwrap();
    assert!(
        text.contains("cache broken") && text.contains("without the cache"),
        "{text}"
    );
    assert!(
        text.contains("prompt cache written at 1.25× input, read at 0.10×, TTL 5m"),
        "{text}"
    );
}

#[test]
fn the_users_prices_win_and_a_bad_one_is_an_error_naming_the_file() {
    let base = json(&run(&["history", "--demo", "--json"], ""));
    // Ten times the table's Opus 4.5 prices: ten times the bill.
    let mine = "[[price]]\nmatch = \"claude-opus-4-5*\"\ninput = 50.0\noutput = 250.0\n\
                cache_read = 5.0\ncache_write = 62.5\ncache_write_1h = 100.0\nmin_cacheable = 4096\n";
    let v = json(&run(&["history", "--demo", "--json"], mine));
    let (a, b) = (
        base["cost"]["total"].as_f64().unwrap(),
        v["cost"]["total"].as_f64().unwrap(),
    );
    assert!(close(a * 10.0, b), "{a} x 10 != {b}");
    let out = run(
        &["history", "--demo"],
        "[[price]]\nmatch = \"x\"\ninput = -1.0\noutput = 1.0\n",
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("config.toml") && err.contains("price 1 (`x`)"),
        "{err}"
    );
}

#[test]
fn every_real_conversation_is_billed_and_adds_up() {
    let mut dirs = common::corpus();
    if let Some(shared) = common::shared() {
        let plain = shared.join("fixtures/jp-rewritten/plain");
        dirs.extend(
            std::fs::read_dir(plain)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path()),
        );
    }
    for dir in &dirs {
        let out = run(&["history", dir.to_str().unwrap(), "--json"], "");
        assert!(out.status.success(), "{}: {}", dir.display(), stderr(&out));
        check_history(&json(&out), &dir.display().to_string());
    }
}

#[test]
fn simulate_bills_every_run_and_the_cache_makes_compaction_save_less_than_tokens_say() {
    // A window no request of `none` overflows (one over it would be refused,
    // billed nothing, and the comparison no longer like with like), D50
    // firing early enough to compact there.
    let tmp = tempfile::tempdir().unwrap();
    let early = tmp.path().join("early.toml");
    std::fs::write(
        &early,
        "[conversation.compaction.auto]\ntrigger_ratio = 0.3\n",
    )
    .unwrap();
    let early = early.to_str().unwrap();
    let out = run(
        &[
            "simulate",
            "--demo",
            "--json",
            "--windows",
            "400k",
            "--config",
            early,
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let runs = v["runs"].as_array().unwrap();
    let by = |p: &str| runs.iter().find(|r| r["policy"] == p).unwrap();
    for r in runs {
        let b = &r["billed"];
        for key in [
            "unit",
            "total",
            "cache_read",
            "cache_written",
            "uncached",
            "summarizer",
        ] {
            assert!(!b[key].is_null(), "{key} missing: {b}");
        }
    }
    let (none, single) = (by("none"), by("single"));
    assert_eq!(none["overflows"], 0, "{none}");
    let tokens =
        1.0 - single["input_tokens"].as_f64().unwrap() / none["input_tokens"].as_f64().unwrap();
    let billed = 1.0
        - single["billed"]["total"].as_f64().unwrap() / none["billed"]["total"].as_f64().unwrap();
    assert!(
        billed > 0.0 && billed < tokens,
        "billed saves {billed:.3}, tokens {tokens:.3}"
    );
    // The digest is offline: its summaries cost nothing.
    let at_64k = json(&run(
        &[
            "simulate",
            "--demo",
            "--json",
            "--windows",
            "64k",
            "--policies",
            "staged",
        ],
        "",
    ));
    let staged = &at_64k["runs"][0];
    assert!(staged["summaries"].as_u64().unwrap() > 0, "{staged}");
    assert_eq!(staged["billed"]["summarizer"], 0.0, "{staged}");
    // Requests over the window are refused, not billed.
    assert_eq!(staged["billed"]["refused"], staged["overflows"], "{staged}");
    let text =
        String::from_utf8(run(&["simulate", "--demo", "--windows", "64k"], "").stdout).unwrap();
    assert!(text.lines().next().unwrap().ends_with("billed"), "{text}");
}

#[test]
fn a_sweep_runs_the_policy_its_setting_changes_once_per_value() {
    let out = run(
        &[
            "simulate",
            "--demo",
            "--json",
            "--windows",
            "128k",
            "--sweep",
            "trigger_ratio=0.5,0.9",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let settings = v["settings"].as_array().unwrap();
    assert_eq!(settings.len(), 2);
    assert_eq!(settings[0]["setting"], "trigger_ratio=0.5");
    for s in settings {
        let runs = s["runs"].as_array().unwrap();
        assert!(runs.iter().all(|r| r["policy"] == "single"), "{runs:?}");
    }
    // A lower trigger compacts earlier: less input over the session.
    let input = |k: usize| settings[k]["totals"][0]["input_tokens"].as_u64().unwrap();
    assert!(input(0) < input(1), "{} !< {}", input(0), input(1));
    let pairs = json(&run(
        &[
            "simulate",
            "--demo",
            "--json",
            "--windows",
            "64k",
            "--sweep",
            "soft/hard=0.5/0.8,0.6/0.9",
        ],
        "",
    ));
    assert!(pairs["settings"][1]["runs"][0]["policy"] == "staged");
    let bad = run(&["simulate", "--demo", "--sweep", "soft/hard=0.9/0.6"], "");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("the soft threshold is below the hard one"),
        "{}",
        stderr(&bad)
    );
}

fn demo_run(config: &AutoConfig) -> auto::run::Run {
    let conv = load::load(&common::demo()).unwrap();
    auto::simulate::run(&conv, Strategy::Staged, 64_000, config, &Digest::default()).unwrap()
}

#[test]
fn the_staged_policy_buys_no_summary_that_cannot_pay_for_its_call() {
    // T4 as written: the two protected turns alone are above the hard
    // threshold at 64k, so a summary of almost nothing at nearly every turn.
    let always = demo_run(&AutoConfig {
        summary_min_gain: 0.0,
        ..AutoConfig::default()
    });
    let rule = demo_run(&AutoConfig::default());
    assert!(always.summaries >= 10, "{} summaries", always.summaries);
    assert!(
        rule.summaries * 4 <= always.summaries,
        "{} vs {}",
        rule.summaries,
        always.summaries
    );
    // What it did not summarise it elided.
    assert!(rule.elisions > always.elisions);
    // And the trigger says why, in the words `auto` prints.
    let conv = load::load(&common::demo()).unwrap();
    let mut seen = false;
    for turn in 6..conv.turn_count {
        let note = withheld_note(&conv, turn);
        seen |= note.is_some_and(|n| n.contains("not worth its call"));
    }
    assert!(seen, "no boundary of the demo withheld a summary");
}

/// The trigger's withheld-summary note after turn `turn` (0-based) of
/// `conv` cut there, at 64k, as `auto --dry-run` would give it.
fn withheld_note(
    conv: &jp_inspect::core::model::conversation::Conversation,
    turn: usize,
) -> Option<String> {
    let tmp = tempfile::tempdir().unwrap();
    let end = conv.events.partition_point(|e| e.turn <= turn);
    let dir = tmp.path().join(".jp/conversations/17000000001-cut");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("base_config.json"), conv.base_config.to_string()).unwrap();
    let raws: Vec<std::borrow::Cow<'_, str>> = (0..end)
        .filter(|&i| {
            !matches!(
                conv.events[i].kind,
                jp_inspect::core::model::event::Kind::Compaction(_)
            )
        })
        .map(|i| std::borrow::Cow::Borrowed(conv.raw(i)))
        .collect();
    std::fs::write(
        dir.join("events.json"),
        jp_inspect::core::store::save::join_array(&raws),
    )
    .unwrap();
    let out = run(
        &[
            "auto",
            dir.to_str().unwrap(),
            "--dry-run",
            "--json",
            "--window",
            "64k",
            "--mode",
            "staged",
        ],
        "",
    );
    let v = json(&out);
    v["reasons"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .find(|r| r.contains("not worth"))
        .map(String::from)
}

#[test]
fn stats_says_what_each_compaction_costs_and_buys_at_the_sessions_pace() {
    let v = json(&run(&["stats", "--demo", "--json"], ""));
    let history = json(&run(&["history", "--demo", "--json"], ""));
    let requests = history["requests"].as_array().unwrap();
    for c in v["compactions"].as_array().unwrap() {
        let p = &c["payback"];
        let text = c["payback_text"].as_str().unwrap();
        assert!(text.starts_with("saves "), "{text}");
        assert_eq!(
            p["saves"].as_i64().unwrap(),
            c["tokens_saved"].as_i64().unwrap().max(0)
        );
        assert!(p["requests"].as_u64().unwrap() >= 1, "{p}");
        assert_eq!(p["warm"], true, "the demo's pace keeps the cache warm: {p}");
        // The cache it breaks is the one the request after it wrote again.
        let position = c["position"].as_u64().unwrap() as usize;
        let k = requests
            .iter()
            .position(|r| {
                r["compactions_since"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|x| x.as_u64() == Some(position as u64))
            })
            .unwrap();
        let before = requests[k - 1]["context"].as_u64().unwrap();
        let read = requests[k]["cache"]["read"].as_u64().unwrap();
        assert_eq!(
            p["rewrites"].as_u64().unwrap(),
            before - read - p["saves"].as_u64().unwrap()
        );
    }
    let text = String::from_utf8(run(&["stats", "--demo"], "").stdout).unwrap();
    assert!(text.contains("pays for itself after"), "{text}");
}

#[test]
fn another_model_mid_session_shares_no_cache_even_with_the_window_given() {
    let args = |dir: &str| {
        vec![
            "history".to_string(),
            dir.into(),
            "--json".into(),
            "--window".into(),
            "200k".into(),
        ]
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let untouched = json(&run(
        &args(dir.to_str().unwrap())
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        "",
    ));
    // A request that reads the cache, and the event it answers with.
    let (k, at) = untouched["requests"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .find(|(k, r)| *k > 0 && r["cache"]["read"].as_u64().unwrap() > 0)
        .map(|(k, r)| (k, r["raw_index"].as_u64().unwrap() as usize))
        .unwrap();
    // The model changes just before it (the window stays the one given).
    common::edit_events(&dir, |ev| {
        let ts = ev[at - 1]["timestamp"].clone();
        ev.insert(
            at,
            serde_json::json!({"type": "config_delta", "timestamp": ts,
                "delta": {"assistant": {"model": {"id": "anthropic/claude-sonnet-4-5"}}}}),
        );
    });
    let v = json(&run(
        &args(dir.to_str().unwrap())
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        "",
    ));
    let r = &v["requests"][k];
    assert_eq!(r["raw_index"].as_u64().unwrap() as usize, at + 1, "{r}");
    assert_eq!(r["cache_broke"], "changed", "{r}");
    assert_eq!(r["cache"]["read"], 0, "{r}");
}
