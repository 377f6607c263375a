//! A turn followed as jp writes it: jp's branch `turn-midflight-persistence`
//! writes the whole file after every finished block and every tool call
//! request, holding its lock for the whole query. The inspector shows the
//! open turn as it grows; `watch` waits for the lock's release.

use crate::common;

use common::harness::Harness;
use jp_inspect::synth::{Spec, live};
use jp_inspect::tui::msg::Msg;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

/// Each write read as it lands: the newest event stays selected, the
/// gauge moves with the turn, a call jp is running is marked as waiting
/// until its result is written, the status says what arrived, and the
/// text read at the start is still the one held (shared, never read twice).
/// The screen with the waiting call is `snapshot`'s, when given.
fn follow_a_growing_turn(h: &mut Harness, snapshot: Option<&str>) {
    let first = h.state.inspection.as_ref().unwrap().conv.clone();
    let dir = h.dir().to_path_buf();
    let turns = first.turn_count;
    let blocks = live::turn_blocks(&Spec::default(), turns);
    let mut query = live::Query::start(&dir).unwrap();
    let mut tokens = h.state.inspection.as_ref().unwrap().estimate.tokens();
    let mut waiting_seen = false;
    for block in &blocks {
        query.write(block).unwrap();
        h.act(Msg::FilesChanged);
        let m = h.state.inspection.as_ref().unwrap();
        assert_eq!(m.conv.turn_count, turns + 1);
        assert!(std::ptr::eq(first.raw(0), m.conv.raw(0)));
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
            if let Some(name) = snapshot {
                insta::assert_snapshot!(name, screen);
            }
        }
    }
    drop(query);
    assert!(waiting_seen);
}

#[test]
fn a_growing_turn_shows_each_block_and_its_waiting_call() {
    let mut h = Harness::new(120, 30, false);
    h.char('f');
    follow_a_growing_turn(&mut h, Some("a_call_waiting_for_its_result"));
}

/// The same at 100 MB, opened with `--follow` as a person would.
#[test]
fn a_growing_turn_of_a_hundred_megabytes_is_followed_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = Spec::of_size(100 << 20);
    let dir = jp_inspect::synth::write_conversation(tmp.path(), 17_500_000_000, &spec).unwrap();
    let size = std::fs::metadata(dir.join("events.json")).unwrap().len();
    assert!(size > 100_000_000, "{size} bytes");
    let options = jp_inspect::tui::Options {
        dir,
        picker: None,
        config_file: None,
        jp: None,
        mode: None,
        window: None,
        follow: true,
        notice: None,
        replay: None,
        reach: jp_inspect::tui::state::Reach::of_workspace(tmp.path()),
    };
    let mut h = Harness::opened(options, (120, 30), tmp);
    assert!(h.state.settings.follow);
    follow_a_growing_turn(&mut h, None);
}

/// `watch` beside a query written block by block: nothing is read or
/// fired while jp holds the lock; at its release the conversation is
/// evaluated once, and the next query's read parses only what it added.
#[test]
fn watch_waits_for_the_release_and_then_reads_only_what_was_added() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    // Another conversation of the workspace, which jp doesn't touch.
    common::copy_dir(&dir, &dir.with_file_name("17944860999-another"));
    let reads = watch_beside_two_queries(tmp.path(), &dir);
    for r in reads {
        assert_eq!(
            r["conversation"], "jp-c17944860430",
            "only the one jp wrote is read"
        );
    }
}

/// The same beside a conversation of 100 MB.
#[test]
fn watch_beside_a_hundred_megabytes_waits_and_reads_only_what_was_added() {
    let tmp = tempfile::tempdir().unwrap();
    let convs = tmp.path().join(".jp/conversations");
    let dir =
        jp_inspect::synth::write_conversation(&convs, 17_500_000_000, &Spec::of_size(100 << 20))
            .unwrap();
    watch_beside_two_queries(tmp.path(), &dir);
}

/// A real `watch` in the workspace `root`, two queries written block by
/// block on the conversation in `dir`; every read it said.
fn watch_beside_two_queries(root: &std::path::Path, dir: &std::path::Path) -> Vec<Value> {
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
        .current_dir(root)
        .env("JP_USER_DATA_DIR", root.join("no-user-data"))
        .env("XDG_CONFIG_HOME", root.join("no-config"))
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
    // Liveness only: a busy machine may take its time.
    let patience = Duration::from_secs(600);
    let first = lines.recv_timeout(patience).unwrap();
    assert_eq!(first["event"], "watching");
    let spec = Spec::default();
    let (mut first_reads, mut reads) = (Vec::new(), Vec::new());
    for turn in 0..2 {
        let n = jp_inspect::core::ops::read::whole(dir).unwrap().turn_count;
        let blocks = live::turn_blocks(&spec, n);
        let mut query = live::Query::start(dir).unwrap();
        for block in &blocks {
            query.write(block).unwrap();
            // Nothing said while jp holds its lock. What proves no read
            // happened meanwhile is the read at the release, which parses
            // every block the query wrote (checked below): a read between
            // would have taken some of them first.
            let during: Vec<Value> = lines.try_iter().collect();
            assert!(during.is_empty(), "turn {turn}, mid-query: {during:#?}");
        }
        drop(query);
        // Until the evaluation at the release is said, and (when it fired)
        // watch has read its own write back, so the next query starts on
        // a quiet watch.
        let settled = |after: &[Value]| {
            let count = |e: &str| after.iter().filter(|v| v["event"] == e).count();
            let read_back: u64 = after
                .iter()
                .filter(|v| v["event"] == "read")
                .skip(1)
                .filter_map(|v| v["appended"].as_u64())
                .sum();
            count("skipped") > 0 || count("fired") > 0 && read_back >= count("fired") as u64
        };
        let mut after = Vec::new();
        while !settled(&after) {
            after.push(
                lines
                    .recv_timeout(patience)
                    .expect("watch said what it did"),
            );
        }
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
        first_reads.push(read.clone());
        reads.extend(after.iter().filter(|v| v["event"] == "read").cloned());
    }
    unsafe { libc::kill(watch.id() as i32, libc::SIGTERM) };
    assert!(watch.wait().unwrap().success());
    assert_eq!(first_reads[0]["appended"], Value::Null, "{first_reads:#?}");
    // The second query's events parsed alone: the conversation was held
    // since watch read its own write after the first.
    let blocks = live::turn_blocks(&spec, 0).concat().len();
    assert_eq!(first_reads[1]["appended"], blocks, "{first_reads:#?}");
    reads
}

/// A reload says what arrived, and when it had to read the file whole,
/// why: jp's history rewritten is not an append.
#[test]
fn a_reload_says_when_and_why_it_read_the_file_whole() {
    let mut h = Harness::new(160, 30, false);
    h.char('f');
    let dir = h.dir().to_path_buf();
    let mut events: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("events.json")).unwrap()).unwrap();
    events.insert(
        5,
        serde_json::json!({"timestamp": "2026-11-12 12:25:00.0", "type": "chat_request", "content": "inserted"}),
    );
    common::jp_writes(&dir, &events);
    h.act(Msg::FilesChanged);
    let screen = h.text();
    assert!(
        screen.contains("reloaded whole (the file was rewritten): "),
        "{screen}"
    );
    common::jp_appends_a_turn(&dir, "one more thing");
    h.act(Msg::FilesChanged);
    let screen = h.text();
    assert!(
        screen.contains("reloaded: 2 events added (1 new turn)"),
        "{screen}"
    );
}

/// The help's legend names the mark a waiting call carries.
#[test]
fn the_help_names_the_waiting_mark() {
    let mut h = Harness::new(120, 60, false);
    h.char('?');
    h.key(crossterm::event::KeyCode::End);
    let screen = h.text();
    assert!(
        screen.contains("… a tool call jp is running: its result is not written yet"),
        "{screen}"
    );
}
