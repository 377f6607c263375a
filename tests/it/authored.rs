//! Authored summaries (jp's `compact --summary TEXT`, its branch
//! `compact-summary-value`): a person's text, written verbatim with no
//! model call, read as such even after a jp that drops the mark has saved
//! the conversation, and never grown over or into by any range.

use crate::common;

use serde_json::Value;
use std::fs;
use std::path::Path;

fn events(dir: &Path) -> Vec<Value> {
    serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap()
}

fn compactions(dir: &Path) -> Vec<Value> {
    events(dir)
        .into_iter()
        .filter(|e| e["type"] == "compaction")
        .collect()
}

/// The Bear conversation (12 turns) in a workspace, or without `../shared`
/// the demo with its compactions taken out (its own authored summary of
/// turns 2..5 would stand where these tests write theirs).
fn conversation() -> (tempfile::TempDir, std::path::PathBuf) {
    match common::fixture_conversations()
        .into_iter()
        .find(|d| d.ends_with("17728322628-bear-mcp-server-design-review"))
    {
        Some(dir) => common::workspace_with(&dir),
        None => {
            let (ws, conv) = common::workspace_with(&common::demo());
            common::edit_events(&conv, |ev| ev.retain(|e| e["type"] != "compaction"));
            (ws, conv)
        }
    }
}

const TEXT: &str = "We agreed the MCP server stays read-only; tags come from the note.";

#[test]
fn an_authored_summary_is_the_text_verbatim_and_costs_nothing() {
    let (ws, conv) = conversation();
    let before = compactions(&conv).len();
    let out = common::jp_inspect(
        &[
            "compact",
            conv.to_str().unwrap(),
            "s:3..5",
            "--summary",
            TEXT,
        ],
        ws.path(),
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let written = compactions(&conv);
    assert_eq!(written.len(), before + 1);
    let c = written.last().unwrap();
    assert_eq!(c["summary"]["summary"], TEXT);
    assert_eq!(c["summary"]["source"], "authored");
    assert_eq!(
        (c["from_turn"].as_u64(), c["to_turn"].as_u64()),
        (Some(2), Some(4))
    );
    assert!(c.get("summarizer").is_none(), "no summarizer wrote it: {c}");
    // Billed as no call at all.
    let history = common::json(&common::jp_inspect(
        &["history", conv.to_str().unwrap(), "--json"],
        ws.path(),
    ));
    let cost = &history["cost"];
    assert_eq!(cost["summaries"].as_f64(), Some(0.0), "{cost}");
    assert!(
        cost["summary_kinds"]["authored"].as_u64() >= Some(1),
        "{cost}"
    );
    // With no rule, the text stands for the turns the keeps leave.
    let out = common::jp_inspect(
        &[
            "compact",
            conv.to_str().unwrap(),
            "--summary",
            TEXT,
            "--keep-first",
            "6",
            "--dry-run",
            "--json",
        ],
        ws.path(),
    );
    let plan = common::json(&out);
    assert_eq!(plan["compactions"][0]["from_turn"], 6);
    assert_eq!(plan["compactions"][0]["summary"]["source"], "authored");
}

#[test]
fn no_range_grows_over_a_persons_text_nor_it_over_others() {
    let (ws, conv) = conversation();
    let c = conv.to_str().unwrap();
    let ok = common::jp_inspect(&["compact", c, "s:3..5", "--summary", TEXT], ws.path());
    assert!(ok.status.success(), "{}", common::stderr(&ok));
    let before = fs::read(conv.join("events.json")).unwrap();
    for (args, says) in [
        // A generated summary touching it would have to swallow it.
        (vec!["s:2..4"], "would have to grow to turns 2..5"),
        (vec!["s:5..8"], "would have to grow to turns 3..8"),
        // A person's text inside another summary would have to stand for
        // turns it was not written for.
        (
            vec!["s:4..9", "--summary", "mine"],
            "stand in for turns 3..9",
        ),
    ] {
        let mut full = vec!["compact", c];
        full.extend(args.iter().copied());
        let out = common::jp_inspect(&full, ws.path());
        let said = common::stderr(&out);
        assert!(!out.status.success(), "{args:?} was written");
        assert!(said.contains(says), "{args:?}: {said}");
        assert!(said.contains("The range that fits is"), "{said}");
        assert_eq!(
            fs::read(conv.join("events.json")).unwrap(),
            before,
            "{args:?}"
        );
    }
    // A range that already covers it is what was asked for: jp allows it.
    let out = common::jp_inspect(&["compact", c, "s:2..6", "--dry-run"], ws.path());
    assert!(out.status.success(), "{}", common::stderr(&out));
    // Misuse is said before anything runs.
    for (args, says) in [
        (vec!["r:2..3", "--summary", "x"], "no rule summarises"),
        (
            vec!["s:2..3", "s:6..7", "--summary", "x"],
            "more than one rule",
        ),
        (vec!["s:6..7", "--summary", " "], "empty"),
    ] {
        let mut full = vec!["compact", c];
        full.extend(args.iter().copied());
        let out = common::jp_inspect(&full, ws.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            common::stderr(&out).contains(says),
            "{}",
            common::stderr(&out)
        );
    }
}

/// jp before #932 saves a conversation through types without the mark
/// (`oracle resave` is its persist path): the record beside the
/// conversation keeps it, so the text is still a person's.
#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn the_mark_survives_a_jp_that_drops_it() {
    let oracle = common::oracle::binary("oracle").expect("../shared/tools/jp-oracle/oracle is absent: a corpus check runs whole or is ignored, never passed");
    let (ws, conv) = conversation();
    let c = conv.to_str().unwrap();
    let ok = common::jp_inspect(&["compact", c, "s:3..5", "--summary", TEXT], ws.path());
    assert!(ok.status.success(), "{}", common::stderr(&ok));
    let id = conv.file_name().unwrap().to_str().unwrap();
    let lock = ws.path().join(format!(
        ".jp/locks/jp-c{}.lock",
        id.split('-').next().unwrap()
    ));
    let held = common::jp_lock(&lock);
    let resaved = std::process::Command::new(&oracle)
        .arg("resave")
        .arg(&conv)
        .output()
        .unwrap();
    drop(held);
    let _ = fs::remove_file(&lock);
    assert!(
        resaved.status.success(),
        "{}",
        String::from_utf8_lossy(&resaved.stderr)
    );
    let last = compactions(&conv).pop().unwrap();
    assert!(
        last["summary"].get("source").is_none(),
        "jp kept it: {last}"
    );
    let stats = common::json(&common::jp_inspect(&["stats", c, "--json"], ws.path()));
    let listed = stats["compactions"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(listed["policies"], "authored summary", "{listed}");
    let out = common::jp_inspect(&["compact", c, "s:2..4"], ws.path());
    assert!(!out.status.success());
    assert!(
        common::stderr(&out).contains("written by hand"),
        "{}",
        common::stderr(&out)
    );
}

/// Automatic compaction starts after every summary, so it never grows
/// over the demo's authored one: the event stays byte for byte.
#[test]
fn automatic_compaction_leaves_authored_text_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    let authored: Vec<Value> = compactions(&conv)
        .into_iter()
        .filter(|c| c["summary"]["source"] == "authored")
        .collect();
    assert_eq!(authored.len(), 1, "the demo has one authored summary");
    let (from, to) = (
        authored[0]["from_turn"].as_u64().unwrap(),
        authored[0]["to_turn"].as_u64().unwrap(),
    );
    let config = tmp.path().join("auto.toml");
    fs::write(
        &config,
        "[conversation.compaction.auto]\nsoft_ratio = 0.1\nhard_ratio = 0.2\nmin_turns = 1\n",
    )
    .unwrap();
    for mode in ["staged", "single"] {
        let out = common::jp_inspect(
            &[
                "auto",
                conv.to_str().unwrap(),
                "--mode",
                mode,
                "--window",
                "64k",
                "--config",
                config.to_str().unwrap(),
            ],
            tmp.path(),
        );
        assert!(out.status.success(), "{}", common::stderr(&out));
    }
    let after = compactions(&conv);
    assert!(after.len() > 1 + authored.len() - 1, "auto wrote nothing");
    assert!(after.contains(&authored[0]), "the authored summary changed");
    for c in after
        .iter()
        .filter(|c| c.get("summary").is_some() && **c != authored[0])
    {
        let (f, t) = (
            c["from_turn"].as_u64().unwrap(),
            c["to_turn"].as_u64().unwrap(),
        );
        assert!(t < from || f > to, "{c} touches turns {from}..{to}");
    }
}
