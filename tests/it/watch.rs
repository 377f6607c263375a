//! `watch`, automatic compaction running by itself: a second process (this
//! test) plays jp, appending the demo session turn by turn under jp's lock
//! (open, flock, write, rename, close, delete the lock file) and renaming
//! the folder when it sets the title; `jp-inspect watch` runs as a real
//! process beside it. The compactions it writes are the firings `simulate`
//! reports for the same policy and window, and no event is lost.

use crate::common;

use serde_json::Value;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

const ID: u64 = 17_944_860_430;

/// The demo's events without its compactions, split into turns (the events
/// of turn t, by the turn rule).
fn turns() -> Vec<Vec<Value>> {
    let events: Vec<Value> =
        serde_json::from_slice(&fs::read(common::demo().join("events.json")).unwrap()).unwrap();
    let mut out: Vec<Vec<Value>> = Vec::new();
    let mut holds = false;
    for e in events.into_iter().filter(|e| e["type"] != "compaction") {
        let conversation = !matches!(e["type"].as_str(), Some("config_delta"));
        if e["type"] == "turn_start" && holds || out.is_empty() {
            out.push(Vec::new());
            holds = false;
        }
        if conversation {
            holds = true;
        }
        out.last_mut().unwrap().push(e);
    }
    out
}

fn write_events(dir: &Path, events: &[Value]) {
    let tmp = dir.join("events.json.tmp");
    fs::write(&tmp, serde_json::to_string_pretty(events).unwrap() + "\n").unwrap();
    fs::rename(&tmp, dir.join("events.json")).unwrap();
}

#[test]
fn watch_compacts_at_every_turn_boundary_as_simulate_says() {
    let tmp = tempfile::tempdir().unwrap();
    let convs = tmp.path().join(".jp/conversations");
    let turns = turns();
    // jp starts the conversation untitled: its folder is the bare id.
    let mut dir = convs.join(ID.to_string());
    fs::create_dir_all(&dir).unwrap();
    fs::copy(
        common::demo().join("base_config.json"),
        dir.join("base_config.json"),
    )
    .unwrap();
    fs::write(dir.join("metadata.json"), "{}\n").unwrap();
    write_events(&dir, &turns[0]);
    let lock = tmp.path().join(format!(".jp/locks/jp-c{ID}.lock"));

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
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(watch.stdout.take().unwrap()).lines();
    let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["event"], "watching");
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    let reader = std::thread::spawn(move || {
        for l in lines.map_while(Result::ok) {
            let _ = tx.send(serde_json::from_str::<Value>(&l).unwrap());
        }
    });
    // A liveness bound for a busy machine: what is waited for is watch's
    // own word that it evaluated a boundary, never a time.
    let patience = Duration::from_secs(300);
    let mut log: Vec<Value> = Vec::new();
    // Waits for watch to read the file as it stands (`events` of them) and
    // say what it decided there.
    let evaluated = |events: usize, log: &mut Vec<Value>| {
        let mut read = false;
        loop {
            let line = rx
                .recv_timeout(patience)
                .unwrap_or_else(|_| panic!("watch never evaluated {events} events: {log:#?}"));
            let kind = line["event"].as_str().unwrap_or("").to_string();
            let n = line["events"].as_u64().unwrap_or(0) as usize;
            log.push(line);
            match kind.as_str() {
                "read" if n >= events => read = true,
                "fired" | "skipped" | "error" if read => return,
                _ => {}
            }
        }
    };

    // Play jp: one query per turn, each under jp's lock; after the first
    // turn jp titles the conversation and renames its folder. At each
    // boundary watch has written exactly the compactions it said it fired.
    for (t, turn) in turns.iter().enumerate().skip(1) {
        let f = common::jp_lock(&lock);
        let mut events: Vec<Value> =
            serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
        let in_file = events.iter().filter(|e| e["type"] == "compaction").count();
        let said = log.iter().filter(|l| l["event"] == "fired").count();
        assert_eq!(in_file, said, "before turn {t}: {log:#?}");
        events.extend(turn.iter().cloned());
        write_events(&dir, &events);
        if t == 1 {
            fs::write(dir.join("metadata.json"), "{\"title\": \"csvq release\"}\n").unwrap();
            let renamed = convs.join(format!("{ID}-csvq-release"));
            fs::rename(&dir, &renamed).unwrap();
            dir = renamed;
        }
        drop(f);
        fs::remove_file(&lock).unwrap();
        // The next query starts once watch has acted on this boundary, as
        // a person reading the answer would give it the time.
        evaluated(events.len(), &mut log);
    }
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(watch.id() as i32, libc::SIGTERM) };
    let status = watch.wait().unwrap();
    assert!(status.success(), "watch ended with {status:?}");
    reader.join().unwrap();
    log.extend(rx.try_iter());

    // No event lost, in order: the file is the demo's events plus the
    // compactions watch appended between turns.
    let events: Vec<Value> =
        serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
    let played: Vec<Value> = turns.iter().flatten().cloned().collect();
    let kept: Vec<Value> = events
        .iter()
        .filter(|e| e["type"] != "compaction")
        .cloned()
        .collect();
    assert_eq!(kept, played, "every event jp wrote is there, in order");
    let written: Vec<(u64, u64)> = common::compaction_ranges(&events);
    assert!(!written.is_empty(), "{log:#?}");
    for e in events.iter().filter(|e| e["type"] == "compaction") {
        assert_eq!(e["source"], "auto");
    }

    // The same session through `simulate`, at the same policy and window.
    let sim = common::json(
        &common::binary()
            .args([
                "simulate",
                dir.to_str().unwrap(),
                "--policies",
                "staged",
                "--windows",
                "128k",
                "--json",
            ])
            .env("XDG_CONFIG_HOME", tmp.path().join("no-config"))
            .output()
            .unwrap(),
    );
    let firings: Vec<(u64, u64)> = sim["runs"][0]["firings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["from_turn"].as_u64().unwrap(),
                f["to_turn"].as_u64().unwrap(),
            )
        })
        .collect();
    // simulate evaluates a boundary when the next turn begins; watch also
    // evaluates after the last turn, so it may have one more.
    assert!(
        written.len() == firings.len() || written.len() == firings.len() + 1,
        "watch wrote {written:?}, simulate fired {firings:?}"
    );
    assert_eq!(&written[..firings.len()], &firings[..], "{log:#?}");
    let logged: Vec<(u64, u64)> = log
        .iter()
        .filter(|l| l["event"] == "fired")
        .map(|l| {
            (
                l["from_turn"].as_u64().unwrap(),
                l["to_turn"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(logged, written, "one log line per firing");
}

#[test]
fn once_evaluates_now_and_writes_what_auto_announces_and_a_dry_run_writes_nothing() {
    let (tmp, dir) = common::workspace_with(&common::demo());
    let run = |args: &[&str]| {
        common::binary()
            .args(args)
            .current_dir(tmp.path())
            .env("JP_USER_DATA_DIR", tmp.path().join("no-user-data"))
            .env("XDG_CONFIG_HOME", tmp.path().join("no-config"))
            .output()
            .unwrap()
    };
    let dry = common::json(&run(&[
        "auto",
        "csvq",
        "--dry-run",
        "--window",
        "64k",
        "--json",
    ]));
    let announced = dry["compactions"].as_array().unwrap().len();
    assert!(announced > 0);
    // Disabled in the configuration: watch says why and does nothing.
    let out = run(&["watch", "--once", "--window", "64k", "--json", "--verbose"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("not enabled"), "{text}");
    // A dry run says what it would write, and writes nothing.
    let before = std::fs::read(dir.join("events.json")).unwrap();
    let out = run(&[
        "watch",
        "--once",
        "--enable",
        "--dry-run",
        "--window",
        "64k",
        "--json",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let would = text
        .lines()
        .filter(|l| l.contains("\"would_fire\""))
        .count();
    assert_eq!(would, announced, "{text}");
    assert!(!text.contains("\"fired\""), "{text}");
    assert_eq!(std::fs::read(dir.join("events.json")).unwrap(), before);
    let out = run(&[
        "watch",
        "--once",
        "--enable",
        "--dry-run",
        "--window",
        "64k",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("would fire "), "{text}");
    let out = run(&["watch", "--once", "--enable", "--window", "64k", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fired = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("\"fired\""))
        .count();
    assert_eq!(fired, announced);
    let conv = jp_inspect::core::ops::read::whole(&dir).unwrap();
    assert_eq!(conv.compactions().count(), 2 + announced);
}

#[test]
fn a_failed_evaluation_is_said_without_verbose() {
    let (tmp, dir) = common::workspace_with(&common::demo());
    let before = std::fs::read(dir.join("events.json")).unwrap();
    let config = tmp.path().join("failing.toml");
    std::fs::write(
        &config,
        "[conversation.compaction.auto]\nmode = \"single\"\ntrigger_ratio = 0.05\nmin_turns = 1\n\
         [conversation.compaction.auto.rule]\nsummary = {}\n\
         [conversation.compaction.auto.summarizer]\nkind = \"command\"\ncommand = \"exit 3\"\n",
    )
    .unwrap();
    let config = config.display().to_string();
    let run = |extra: &[&str]| {
        let mut args = vec!["watch", "--once", "--enable", "--config", config.as_str()];
        args.extend(extra);
        common::binary()
            .args(&args)
            .current_dir(tmp.path())
            .env("JP_USER_DATA_DIR", tmp.path().join("no-user-data"))
            .env("XDG_CONFIG_HOME", tmp.path().join("no-config"))
            .output()
            .unwrap()
    };
    let out = run(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("jp-c17944860430: nothing written") && err.contains("exit"),
        "{err}"
    );
    let out = run(&["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let line: Value = serde_json::from_str(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find(|l| l.contains("\"error\""))
            .expect("an error line"),
    )
    .unwrap();
    assert_eq!(line["conversation"], "jp-c17944860430");
    assert_eq!(std::fs::read(dir.join("events.json")).unwrap(), before);
}

/// At boundaries that fire nothing, `watch` keeps what it read: each read
/// after the first parses only what jp appended (`"appended": N`), where
/// it read the whole file again at every turn.
#[test]
fn boundaries_that_fire_nothing_are_read_as_appends() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let mut watch = common::binary()
        // A window no turn of the demo comes near: nothing ever fires.
        .args([
            "watch",
            "--enable",
            "--dry-run",
            "--window",
            "10m",
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
    let mut lines = BufReader::new(watch.stdout.take().unwrap()).lines();
    let mut next = |want: &str| -> Value {
        for line in lines.by_ref() {
            let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
            if v["event"] == want {
                return v;
            }
        }
        panic!("watch ended before a {want} line");
    };
    assert_eq!(next("watching")["conversations"], 1);
    let mut reads = Vec::new();
    for turn in 0..5 {
        common::jp_appends_a_turn(&dir, &format!("turn {turn} of the test"));
        let read = next("read");
        let skipped = next("skipped");
        assert!(
            skipped["reason"]
                .as_str()
                .unwrap_or("")
                .contains("estimate"),
            "{skipped}"
        );
        reads.push(read);
    }
    let _ = watch.kill();
    let _ = watch.wait();
    // The first is a whole read; jp's first write may also re-format the
    // file; after that, every read is an append.
    for r in &reads[2..] {
        assert_eq!(r["appended"], 2, "{reads:#?}");
    }
}

/// A dry run evaluates whatever the configuration's `enabled` says, and
/// says it was not enabled: what it would write is shown, nothing written.
#[test]
fn a_dry_run_evaluates_a_disabled_configuration_and_says_so() {
    let (tmp, dir) = common::workspace_with(&common::demo());
    let before = std::fs::read(dir.join("events.json")).unwrap();
    let out = common::binary()
        .args([
            "watch",
            "--once",
            "--dry-run",
            "--window",
            "64k",
            "--json",
            "-v",
        ])
        .current_dir(tmp.path())
        .env("JP_USER_DATA_DIR", tmp.path().join("no-user-data"))
        .env("XDG_CONFIG_HOME", tmp.path().join("no-config"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "note" && e["note"].as_str().unwrap().contains("not enabled")),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| e["event"] == "would_fire"),
        "{events:?}"
    );
    assert_eq!(std::fs::read(dir.join("events.json")).unwrap(), before);
}
