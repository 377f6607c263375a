//! A turn followed as jp writes it: jp's branch `turn-midflight-persistence`
//! writes the whole file after every finished block and every tool call
//! request, holding its lock for the whole query. The inspector shows the
//! open turn as it grows; `watch` waits for the lock's release.

mod common;

use common::harness::Harness;
use jp_inspect::synth::{Spec, live};
use jp_inspect::tui::msg::Msg;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Each write read as it lands: the newest event stays selected, the
/// gauge moves with the turn, a call jp is running is marked as waiting
/// until its result is written, and the status says what arrived.
#[test]
fn a_growing_turn_shows_each_block_and_its_waiting_call() {
    let mut h = Harness::new(120, 30, false);
    h.char('f');
    let dir = h.dir().to_path_buf();
    let turns = h.state.inspection.as_ref().unwrap().conv.turn_count;
    let blocks = live::turn_blocks(&Spec::default(), turns);
    let mut query = live::Query::start(&dir).unwrap();
    let mut tokens = h.state.inspection.as_ref().unwrap().estimate.tokens();
    let mut waiting_seen = false;
    for block in &blocks {
        query.write(block).unwrap();
        h.act(Msg::FilesChanged);
        let m = h.state.inspection.as_ref().unwrap();
        assert_eq!(m.conv.turn_count, turns + 1);
        // Following: the newest event stays selected, write after write.
        assert_eq!(h.state.nav.cursor + 1, m.layout.rows());
        assert!(
            m.estimate.tokens() > tokens,
            "the gauge moves within the turn"
        );
        tokens = m.estimate.tokens();
        let screen = h.text();
        let added = format!(
            "{} added",
            jp_inspect::core::fmt::count(block.len() as u64, "event")
        );
        assert!(screen.contains(&added), "{added}\n{screen}");
        let waits = block[0]["type"] == "tool_call_request";
        assert_eq!(m.waiting.len(), usize::from(waits), "{block:?}");
        assert_eq!(screen.contains("waiting for its result"), waits, "{screen}");
        if waits && !waiting_seen {
            waiting_seen = true;
            insta::assert_snapshot!("a_call_waiting_for_its_result", screen);
        }
    }
    drop(query);
    assert!(waiting_seen);
}

/// `watch` beside a query written block by block: nothing is read or
/// fired while jp holds the lock; at its release the conversation is
/// evaluated once, and the next query's read parses only what it added.
#[test]
fn watch_waits_for_the_release_and_then_reads_only_what_was_added() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let mut watch = common::binary()
        .args([
            "watch",
            "--enable",
            "--mode",
            "staged",
            "--window",
            "128k",
            "--json",
            "--verbose",
        ])
        .current_dir(tmp.path())
        .env("JP_USER_DATA_DIR", tmp.path().join("no-user-data"))
        .env("XDG_CONFIG_HOME", tmp.path().join("no-config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, lines) = std::sync::mpsc::channel::<Value>();
    let out = watch.stdout.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(serde_json::from_str(&l).unwrap());
        }
    });
    let first = lines.recv_timeout(Duration::from_secs(60)).unwrap();
    assert_eq!(first["event"], "watching");
    // What watch says within `quiet` of its last line.
    let said = |quiet: Duration| -> Vec<Value> {
        let mut got = Vec::new();
        while let Ok(v) = lines.recv_timeout(quiet) {
            got.push(v);
        }
        got
    };
    let spec = Spec::default();
    let mut reads = Vec::new();
    for turn in 0..2 {
        let n = jp_inspect::core::store::load::load(&dir)
            .unwrap()
            .turn_count;
        let blocks = live::turn_blocks(&spec, n);
        let mut query = live::Query::start(&dir).unwrap();
        for block in &blocks {
            query.write(block).unwrap();
            // Long enough for watch to see each write on its own.
            let during = said(Duration::from_millis(150));
            assert!(during.is_empty(), "turn {turn}, mid-query: {during:#?}");
        }
        drop(query);
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut after = Vec::new();
        while !after
            .iter()
            .any(|v: &Value| v["event"] == "fired" || v["event"] == "skipped")
            && Instant::now() < deadline
        {
            after.extend(said(Duration::from_millis(500)));
        }
        after.extend(said(Duration::from_millis(500)));
        // One evaluation: its firings share the context they were planned
        // on, or it is skipped once. (A read of watch's own write follows.)
        let mut planned_on: Vec<&Value> = after
            .iter()
            .filter(|v| v["event"] == "fired")
            .map(|v| &v["tokens_before"])
            .collect();
        planned_on.dedup();
        let skipped = after.iter().filter(|v| v["event"] == "skipped").count();
        assert_eq!(planned_on.len() + skipped, 1, "turn {turn}: {after:#?}");
        let read = after.iter().find(|v| v["event"] == "read").unwrap();
        reads.push(read.clone());
    }
    unsafe { libc::kill(watch.id() as i32, libc::SIGTERM) };
    assert!(watch.wait().unwrap().success());
    assert_eq!(reads[0]["appended"], Value::Null, "{reads:#?}");
    // The second query's events parsed alone: the conversation was held
    // since watch read its own write after the first.
    let blocks = live::turn_blocks(&spec, 0).concat().len();
    assert_eq!(reads[1]["appended"], blocks, "{reads:#?}");
}
