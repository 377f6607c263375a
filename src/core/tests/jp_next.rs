//! jp's next compaction format (its branch `jp-c-compact-events`, PR #994):
//! `over` as a byte count or a size string, a reasoning threshold as an
//! object, each half of a call judged on its own size, `omit` on the pair's
//! total, a reused call id paired by occurrence in its turn. Whatever
//! `oracle-next` (jp's own code on that branch) projects of a conversation
//! with such a compaction, jp-inspect projects too; and what jp-inspect
//! writes, `oracle-next` reads as jp-inspect does.
//!
//! Corpus: the real conversations of `../shared`, the demo, and any more
//! conversation folders under `JP_INSPECT_CORPUS` (one per subfolder).

use crate::common;

use jp_inspect::core::compact::jp_view::View;
use jp_inspect::core::compact::projection;
use jp_inspect::core::store::load;
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};

/// Five forms jp's next release writes, appended after whatever the
/// conversation has. The last lays a thresholded compaction over an
/// unbounded one: the newer takes its turns over entirely.
fn forms(turns: usize) -> Vec<(&'static str, Vec<Value>)> {
    let last = turns.saturating_sub(1);
    let at = |k: u32| format!("2030-01-01 00:00:0{k}.0");
    let c = |k: u32, from: usize, policies: Value| {
        let mut v =
            json!({"type": "compaction", "timestamp": at(k), "from_turn": from, "to_turn": last});
        for (key, value) in policies.as_object().unwrap() {
            v[key] = value.clone();
        }
        v
    };
    vec![
        (
            "strip over \"1KB\"",
            vec![c(
                0,
                0,
                json!({"tool_calls": {"policy": "strip", "request": true, "response": true, "over": "1KB"}}),
            )],
        ),
        (
            "strip-responses over 2048",
            vec![c(
                0,
                1,
                json!({"tool_calls": {"policy": "strip", "request": false, "response": true, "over": 2048}}),
            )],
        ),
        (
            "omit over \"4KB\"",
            vec![c(
                0,
                0,
                json!({"tool_calls": {"policy": "omit", "over": "4KB"}}),
            )],
        ),
        (
            "reasoning over \"512B\"",
            vec![c(
                0,
                0,
                json!({"reasoning": {"policy": "strip", "over": "512B"}}),
            )],
        ),
        (
            "thresholds over an unbounded strip",
            vec![
                c(
                    0,
                    0,
                    json!({"reasoning": "strip", "tool_calls": {"policy": "strip", "request": true, "response": true}}),
                ),
                c(
                    1,
                    1,
                    json!({"reasoning": {"policy": "strip", "over": "2KB"},
                           "tool_calls": {"policy": "strip", "request": true, "response": false, "over": "512B"}}),
                ),
            ],
        ),
    ]
}

fn corpus() -> Vec<PathBuf> {
    let mut dirs = common::corpus();
    if let Ok(extra) = std::env::var("JP_INSPECT_CORPUS") {
        let mut more: Vec<PathBuf> = fs::read_dir(&extra)
            .unwrap_or_else(|e| panic!("JP_INSPECT_CORPUS={extra}: {e}"))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("events.json").is_file())
            .collect();
        more.sort();
        dirs.extend(more);
    }
    dirs
}

/// A copy of `dir` with `compactions` appended to its events.
fn with_appended(tmp: &Path, dir: &Path, compactions: &[Value]) -> PathBuf {
    let copy = common::copy_dir(dir, &tmp.join(dir.file_name().unwrap()));
    let path = copy.join("events.json");
    let mut events: Vec<Value> = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    events.extend(compactions.iter().cloned());
    fs::write(&path, serde_json::to_vec_pretty(&events).unwrap()).unwrap();
    copy
}

fn compactions_in(dir: &Path) -> usize {
    let events: Vec<Value> =
        serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
    events.iter().filter(|e| e["type"] == "compaction").count()
}

fn turns_of(dir: &Path) -> usize {
    load::load(dir).unwrap().turn_count
}

/// Compares jp-inspect's projection of `dir` with `oracle`'s.
fn agrees(oracle: &Path, dir: &Path, view: View) -> Result<(), String> {
    let expected = common::oracle::project(oracle, dir)?;
    let conv = load::load(dir).map_err(|e| e.to_string())?;
    let invalid: Vec<String> = conv
        .compactions()
        .filter_map(|c| c.parsed.as_ref().err().map(|e| e.to_string()))
        .collect();
    if !invalid.is_empty() {
        return Err(format!("jp-inspect refuses: {}", invalid.join("; ")));
    }
    common::oracle::compare(&conv, &projection::of_view(&conv, view), &expected)
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn every_form_of_jps_next_release_projects_as_jp_projects_it() {
    let next = common::oracle::binary("oracle-next")
        .expect("../shared/tools/jp-oracle/oracle-next: a corpus check runs whole or is ignored");
    let dirs = corpus();
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut tally: Vec<(&str, usize)> = Vec::new();
    let mut compared = 0;
    for (k, dir) in dirs.iter().enumerate() {
        // A conversation jp itself cannot load says nothing of either.
        if let Err(e) = common::oracle::project(&next, dir) {
            eprintln!(
                "{}: jp refuses it as it is ({e}); not compared",
                dir.display()
            );
            continue;
        }
        compared += 1;
        for (f, (name, compactions)) in forms(turns_of(dir)).into_iter().enumerate() {
            let case = tmp.path().join(format!("{k}-{f}"));
            let copy = with_appended(&case, dir, &compactions);
            match agrees(&next, &copy, View::Inspect) {
                Ok(()) => match tally.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, n)) => *n += 1,
                    None => tally.push((name, 1)),
                },
                Err(e) => failures.push(format!("{} with {name}: {e}", dir.display())),
            }
        }
    }
    for (name, n) in &tally {
        eprintln!("{name}: {n}/{compared} conversations as oracle-next");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Something was compared, and each form on every conversation compared.
    assert!(compared > 0, "jp's next release loaded none of the corpus");
    assert!(
        tally.iter().all(|&(_, n)| n == compared),
        "{tally:?} of {compared}"
    );
}

/// What `compact` writes from the new rule syntax, jp's next release reads
/// and projects as jp-inspect does; today's jp still reads every form but a
/// reasoning threshold (which it refuses whole, as jp-inspect says).
#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn what_compact_writes_jps_next_release_reads_the_same() {
    let (next, today) = (
        common::oracle::binary("oracle-next").expect("../shared/tools/jp-oracle/oracle-next"),
        common::oracle::binary("oracle").expect("../shared/tools/jp-oracle/oracle"),
    );
    let rules = [
        "t,over=1kb:..-1",
        "t=sres,over=2048:2..",
        "t=o,over=4KB",
        "r,over=512b:..",
        "r,over=16kb+t=sreq,over=512:..-1",
    ];
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut written = 0;
    for (k, dir) in common::corpus().iter().enumerate() {
        for (r, rule) in rules.iter().enumerate() {
            let (_ws, copy) = common::workspace_with(dir);
            let out = common::jp_inspect(&["compact", copy.to_str().unwrap(), rule], tmp.path());
            let said = common::stderr(&out) + &String::from_utf8_lossy(&out.stdout);
            if compactions_in(&copy) == compactions_in(dir) {
                // Nothing in range, or nothing over the threshold: a no-op
                // is refused, and said.
                assert!(
                    said.contains("changes nothing") || said.contains("Nothing to compact"),
                    "{} {rule}: {said}",
                    dir.display()
                );
                continue;
            }
            assert!(out.status.success(), "{said}");
            written += 1;
            if let Err(e) = agrees(&next, &copy, View::Inspect) {
                failures.push(format!(
                    "{} {rule} ({k}/{r}), oracle-next: {e}",
                    dir.display()
                ));
            }
            let reasoning_bound = rule.starts_with("r,");
            match (reasoning_bound, agrees(&today, &copy, View::Jp)) {
                (false, Err(e)) => {
                    failures.push(format!("{} {rule}, today's jp: {e}", dir.display()))
                }
                (true, Ok(())) => failures.push(format!(
                    "{} {rule}: today's jp read a reasoning threshold",
                    dir.display()
                )),
                _ => {}
            }
        }
    }
    eprintln!("{written} compactions written and read back by jp's code");
    assert!(written > 0, "no rule wrote anything");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// What the staged policy writes (elisions bounded by `over`, summaries),
/// jp's next release projects as jp-inspect does, and today's jp reads.
#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn what_the_staged_policy_writes_jp_projects_the_same() {
    let (next, today) = (
        common::oracle::binary("oracle-next").expect("../shared/tools/jp-oracle/oracle-next"),
        common::oracle::binary("oracle").expect("../shared/tools/jp-oracle/oracle"),
    );
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut written = 0;
    // Low thresholds, so that the policy elides (and, with the second,
    // summarises) everywhere.
    for (k, thresholds) in [
        "soft_ratio = 0.1\nhard_ratio = 0.99",
        "soft_ratio = 0.1\nhard_ratio = 0.2",
    ]
    .into_iter()
    .enumerate()
    {
        let config = tmp.path().join(format!("auto-{k}.toml"));
        fs::write(
            &config,
            format!("[conversation.compaction.auto]\n{thresholds}\nmin_turns = 1\n"),
        )
        .unwrap();
        for dir in common::corpus() {
            let (_ws, copy) = common::workspace_with(&dir);
            let before = compactions_in(&copy);
            let auto = |window: &str| {
                common::jp_inspect(
                    &[
                        "auto",
                        copy.to_str().unwrap(),
                        "--mode",
                        "staged",
                        "--window",
                        window,
                        "--config",
                        config.to_str().unwrap(),
                    ],
                    tmp.path(),
                )
            };
            // The smallest window that holds the conversation's overhead.
            let Some(window) = ["16k", "64k", "128k", "200k"].into_iter().find(|w| {
                let out = auto(w);
                let said = common::stderr(&out);
                assert!(
                    out.status.success() || said.contains("leaves no room"),
                    "{said}"
                );
                out.status.success()
            }) else {
                continue;
            };
            // Again while it still fires: each evaluation may stage more.
            for _ in 0..4 {
                let n = compactions_in(&copy);
                assert!(auto(window).status.success());
                if compactions_in(&copy) == n {
                    break;
                }
            }
            if compactions_in(&copy) == before {
                continue;
            }
            written += compactions_in(&copy) - before;
            if let Err(e) = agrees(&next, &copy, View::Inspect) {
                failures.push(format!("{}, oracle-next: {e}", dir.display()));
            }
            if let Err(e) = agrees(&today, &copy, View::Jp) {
                failures.push(format!("{}, today's jp: {e}", dir.display()));
            }
        }
    }
    eprintln!("{written} automatic compactions written and read back by jp's code");
    assert!(written > 0, "the staged policy wrote nothing");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
