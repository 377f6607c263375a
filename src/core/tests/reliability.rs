//! Nothing lost: hostile input, a concurrent writer playing `jp`, and
//! writers killed mid-save.
//!
//! The soak and crash tests have short variants here and long ones behind
//! `--ignored` (`cargo test --release --test reliability -- --ignored
//! --nocapture`), which print their counts.

use crate::common;

use jp_inspect::core::error::Error;
use jp_inspect::core::model::compaction::{Compaction, Source};
use jp_inspect::core::store::edit::Edit;
use jp_inspect::core::store::edit::Removal;
use jp_inspect::core::store::save;
use jp_inspect::core::{model::timestamp, store::load};
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn compaction() -> Compaction {
    Compaction {
        timestamp: timestamp::parse("2026-11-30 10:00:00").unwrap(),
        from_turn: 1,
        to_turn: 2,
        summary: None,
        strip_reasoning: true,
        reasoning_over: None,
        tool_calls: None,
        source: Source::Manual,
        summarizer: None,
        authored: false,
        tool_overrides: Default::default(),
    }
}

// ---------------------------------------------------------------- bad input

fn expect_of(case: &Path) -> (bool, String) {
    let text = fs::read_to_string(case.join("expect.txt")).unwrap();
    let text = text.trim();
    match text.split_once(": ") {
        Some(("error", want)) => (true, want.to_string()),
        Some(("warning", want)) => (false, want.to_string()),
        _ => panic!("{}: bad expect.txt", case.display()),
    }
}

/// Loads `dir` and checks the outcome; then a write must either fail
/// leaving every file byte-identical (errors) or succeed (warnings).
fn check(dir: &Path, error: bool, want: &str) {
    let name = dir.display().to_string();
    let before = fs::read(dir.join("events.json")).ok();
    match load::load(dir) {
        Err(e) => {
            assert!(error, "{name}: expected a warning, got error: {e}");
            let msg = e.to_string();
            assert!(msg.contains(want), "{name}: `{msg}` does not say `{want}`");
            assert!(
                msg.contains(dir.to_str().unwrap()),
                "{name}: `{msg}` names no file"
            );
            if matches!(e, Error::Syntax { .. } | Error::Event { .. }) {
                // file:line:column
                let after_path = msg.split_once(".json:").map_or("", |x| x.1);
                let mut parts = after_path.split(':');
                let line = parts.next().and_then(|l| l.parse::<usize>().ok());
                let col = parts.next().and_then(|c| c.parse::<usize>().ok());
                assert!(
                    line.is_some() && col.is_some(),
                    "{name}: no line:column in `{msg}`"
                );
            }
            let w = save::apply(dir, &Edit::append(vec![compaction()]));
            assert!(w.is_err(), "{name}: a write to a bad file must fail");
            assert_eq!(
                fs::read(dir.join("events.json")).ok(),
                before,
                "{name}: file changed"
            );
        }
        Ok(conv) => {
            assert!(!error, "{name}: expected an error `{want}`, it loaded");
            let warnings: Vec<String> = conv.warnings.iter().map(ToString::to_string).collect();
            assert!(
                warnings.iter().any(|w| w.contains(want)),
                "{name}: no warning says `{want}`: {warnings:?}"
            );
        }
    }
}

fn in_workspace(case: &Path, tmp: &Path) -> PathBuf {
    let name = format!(
        "1700000000{}-{}",
        0,
        case.file_name().unwrap().to_string_lossy()
    );
    common::copy_dir(case, &tmp.join(".jp/conversations").join(name))
}

#[test]
fn bad_input_corpus() {
    let root = common::data().join("bad");
    let mut cases: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    for case in &cases {
        let tmp = tempfile::tempdir().unwrap();
        let dir = in_workspace(case, tmp.path());
        let (error, want) = expect_of(case);
        check(&dir, error, &want);
        // And the command line never panics on it (101 is Rust's panic).
        let out = common::binary()
            .args(["show", dir.to_str().unwrap()])
            .output()
            .unwrap();
        assert_ne!(out.status.code(), Some(101), "{}", case.display());
        assert_eq!(
            out.status.code(),
            Some(if error { 1 } else { 0 }),
            "{}",
            case.display()
        );
    }
}

#[test]
fn hostile_shapes_made_at_run_time() {
    let tmp = tempfile::tempdir().unwrap();
    let conv_root = tmp.path().join(".jp/conversations");
    fs::create_dir_all(&conv_root).unwrap();

    // A huge string loads (it is just big).
    let big = conv_root.join("17000000001-huge");
    fs::create_dir_all(&big).unwrap();
    fs::write(big.join("base_config.json"), "{}").unwrap();
    let content = "x".repeat(20 << 20);
    fs::write(
        big.join("events.json"),
        format!("[\n  {{\"timestamp\": \"2026-01-01 00:00:00.0\", \"type\": \"chat_request\", \"content\": \"{content}\"}}\n]\n"),
    )
    .unwrap();
    let conv = load::load(&big).unwrap();
    assert_eq!(conv.events[0].chars, 20 << 20);

    // A directory without events.
    let empty = conv_root.join("17000000002-empty");
    fs::create_dir_all(&empty).unwrap();
    let e = load::load(&empty).unwrap_err().to_string();
    assert!(e.contains("events.json: missing"), "{e}");

    // A symlink loop where the conversation should be.
    let looped = conv_root.join("17000000003-loop");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    let e = load::load(&looped).unwrap_err().to_string();
    assert!(e.contains("17000000003-loop"), "{e}");
    assert!(!e.is_empty());

    // events.json that is a directory (unreadable).
    let dirfile = conv_root.join("17000000004-dirfile");
    fs::create_dir_all(dirfile.join("events.json")).unwrap();
    let e = load::load(&dirfile).unwrap_err().to_string();
    assert!(e.contains("events.json"), "{e}");

    // A conversation whose events.json cannot be replaced: a read-only
    // directory (effective for non-root users) and an immutable file where
    // the platform allows (root included).
    let ro = common::copy_dir(
        &common::data().join(
            "conformance/c07_summary_middle/conversations/17800000000-refactor-the-config-parser",
        ),
        &conv_root.join("17800000000-ro"),
    );
    let before = fs::read(ro.join("events.json")).unwrap();
    let mut perms = fs::metadata(&ro).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o555);
    fs::set_permissions(&ro, perms).unwrap();
    let result = save::apply(&ro, &Edit::append(vec![compaction()]));
    let mut perms = fs::metadata(&ro).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&ro, perms).unwrap();
    match result {
        Err(e) => {
            assert!(e.to_string().contains("events.json"), "{e}");
            assert_eq!(fs::read(ro.join("events.json")).unwrap(), before);
        }
        // Root writes through a 0555 directory; then the write was whole.
        Ok(_) => assert!(load::load(&ro).unwrap().compactions().count() == 2),
    }
    let immutable = Command::new("chattr").arg("+i").arg(&ro).status();
    if immutable.is_ok_and(|s| s.success()) {
        let before = fs::read(ro.join("events.json")).unwrap();
        let err = save::apply(&ro, &Edit::append(vec![compaction()])).unwrap_err();
        let _ = Command::new("chattr").arg("-i").arg(&ro).status();
        assert!(
            err.to_string().contains("events.json") || err.to_string().contains("jp-c"),
            "{err}"
        );
        assert_eq!(fs::read(ro.join("events.json")).unwrap(), before);
        assert_eq!(fs::read_dir(&ro).unwrap().count(), 3, "no temp file left");
    } else {
        eprintln!("chattr +i is not available here: the immutable-directory case is skipped");
    }
}

// ------------------------------------------------------------------- soak

/// The child side of the soak: plays `jp` for `cycles` turns.
fn fake_jp(dir: &Path, lock: &Path, cycles: usize) {
    for k in 0..cycles {
        let f = common::jp_lock(lock);
        let path = dir.join("events.json");
        let mut events: Vec<Value> = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        events.push(json!({"timestamp": format!("2026-12-01 00:00:00.{k}"), "type": "turn_start"}));
        events.push(
            json!({"timestamp": format!("2026-12-01 00:00:01.{k}"), "type": "chat_request",
                           "content": format!("cycle {k}")}),
        );
        let tmp = dir.join("events.json.tmp");
        fs::write(&tmp, serde_json::to_string_pretty(&events).unwrap() + "\n").unwrap();
        fs::rename(&tmp, &path).unwrap();
        drop(f);
        let _ = fs::remove_file(lock);
        std::thread::sleep(Duration::from_micros(300 + (k as u64 * 7919) % 900));
    }
}

/// The soak's second process, playing jp: run by the soak (with
/// `--ignored`), never on its own, so a plain run lists it as ignored
/// instead of passing a test that did nothing.
#[test]
#[ignore = "the soak's second process: the soak runs it"]
fn soak_child() {
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k}: run by the soak only"));
    let (dir, lock, n) = (var("SOAK_DIR"), var("SOAK_LOCK"), var("SOAK_CYCLES"));
    fake_jp(Path::new(&dir), Path::new(&lock), n.parse().unwrap());
}

fn soak(cycles: usize) {
    let tmp = tempfile::tempdir().unwrap();
    let src = common::data().join(
        "conformance/c07_summary_middle/conversations/17800000000-refactor-the-config-parser",
    );
    let dir = common::copy_dir(&src, &tmp.path().join(".jp/conversations/17800000000-soak"));
    let original: Vec<Value> =
        serde_json::from_slice::<Vec<Value>>(&fs::read(dir.join("events.json")).unwrap())
            .unwrap()
            .into_iter()
            .filter(|e| e["type"] != "compaction")
            .collect();
    let (lock, _) = jp_inspect::core::store::workspace::lock_paths(&dir, 17_800_000_000);
    fs::create_dir_all(lock.parent().unwrap()).unwrap();

    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "core::tests::reliability::soak_child",
            "--ignored",
            "--nocapture",
        ])
        .env("SOAK_DIR", &dir)
        .env("SOAK_LOCK", &lock)
        .env("SOAK_CYCLES", cycles.to_string())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();

    // A reader that parses every state of the file it sees.
    let done = Arc::new(AtomicBool::new(false));
    let states = Arc::new(AtomicUsize::new(0));
    let reader = {
        let (done, states, path) = (done.clone(), states.clone(), dir.join("events.json"));
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                let bytes = fs::read(&path).unwrap();
                serde_json::from_slice::<Vec<Value>>(&bytes)
                    .unwrap_or_else(|e| panic!("a state of the file does not parse: {e}"));
                states.fetch_add(1, Ordering::Relaxed);
            }
        })
    };

    let (mut applied, mut reset, mut refused) = (0usize, 0usize, 0usize);
    let mut round = 0usize;
    while child.try_wait().unwrap().is_none() {
        let edit = if round.is_multiple_of(2) {
            Edit::append(vec![compaction()])
        } else {
            Edit::remove(Removal::All)
        };
        match save::apply(&dir, &edit) {
            Ok(s) if s.appended > 0 => applied += 1,
            Ok(_) => reset += 1,
            Err(Error::Locked { .. }) => {
                refused += 1;
                continue;
            }
            Err(e) => panic!("a write failed: {e}"),
        }
        round += 1;
    }
    assert!(child.wait().unwrap().success());
    done.store(true, Ordering::Relaxed);
    reader.join().unwrap();

    // Every event jp appended is there, in order, value-identical.
    let now: Vec<Value> =
        serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
    let kept: Vec<&Value> = now.iter().filter(|e| e["type"] != "compaction").collect();
    assert_eq!(kept.len(), original.len() + 2 * cycles);
    for (a, b) in kept.iter().zip(&original) {
        assert_eq!(*a, b);
    }
    for k in 0..cycles {
        let start = kept[original.len() + 2 * k];
        let request = kept[original.len() + 2 * k + 1];
        assert_eq!(start["type"], "turn_start");
        assert_eq!(request["content"], format!("cycle {k}"));
    }
    eprintln!(
        "soak: {cycles} jp cycles ({} events appended), {applied} compactions applied, \
         {reset} resets, {refused} writes refused while jp held the lock, \
         {} file states parsed",
        2 * cycles,
        states.load(Ordering::Relaxed)
    );
    assert!(applied + reset > 0);
}

#[test]
fn soak_short() {
    soak(150);
}

#[test]
#[ignore = "long: run with --ignored"]
fn soak_long() {
    soak(5_000);
}

// ------------------------------------------------------------------ crash

/// jp-inspect processes writing a big conversation, SIGKILLed at random
/// moments: the file is always the old or the new version.
fn crash(kills: usize, turns: usize) {
    let tmp = tempfile::tempdir().unwrap();
    let conv_root = tmp.path().join(".jp/conversations");
    fs::create_dir_all(&conv_root).unwrap();
    let spec = jp_inspect::synth::Spec {
        turns,
        ..jp_inspect::synth::Spec::default()
    };
    let dir = jp_inspect::synth::write_conversation(&conv_root, 17_600_000_000, &spec).unwrap();
    let original: Vec<Value> =
        serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
    let mut compactions = 0usize;
    let (mut killed, mut finished) = (0usize, 0usize);
    // How long one whole write takes here, so the kills spread over all of
    // it (start-up, load, render, write, rename) and some writes finish.
    let t = Instant::now();
    for args in [
        ["compact", dir.to_str().unwrap(), "r:2..5"],
        ["reset", dir.to_str().unwrap(), "--all"],
    ] {
        let out = common::binary().args(args).output().unwrap();
        assert!(out.status.success());
    }
    let span = (t.elapsed().as_micros() as u64).max(1_000);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let started = Instant::now();
    for _ in 0..kills {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_micros(seed % span);
        let mut child = common::binary()
            .args(["compact", dir.to_str().unwrap(), "r:2..5"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let status = child.wait().unwrap();
        if status.success() {
            finished += 1;
        } else {
            killed += 1;
        }
        let bytes = fs::read(dir.join("events.json")).unwrap();
        let now: Vec<Value> = serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("a partial file after a kill: {e}"));
        let others: Vec<&Value> = now.iter().filter(|e| e["type"] != "compaction").collect();
        assert_eq!(others.len(), original.len());
        assert!(others.iter().zip(&original).all(|(a, b)| *a == b));
        let n = now.len() - others.len();
        assert!(
            n == compactions || n == compactions + 1,
            "{n} vs {compactions}"
        );
        compactions = n;
    }
    // Kills that land inside the write itself, shown to: each writer is
    // killed the moment its temp file appears, and a kill that left the
    // temp file behind came before the rename.
    // A conversation large enough that its write takes a while to land.
    let big = jp_inspect::synth::write_conversation(
        &conv_root,
        17_600_000_001,
        &jp_inspect::synth::Spec {
            turns: 1_500,
            ..jp_inspect::synth::Spec::default()
        },
    )
    .unwrap();
    let big_original = fs::read(big.join("events.json")).unwrap();
    let mut mid_write = 0usize;
    let temps = || -> Vec<PathBuf> {
        fs::read_dir(&big)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".tmp"))
            .collect()
    };
    for _ in 0..200 {
        // What an earlier kill left, cleared as the next write would, and
        // the conversation as it was, so each writer has a write to make.
        for t in temps() {
            let _ = fs::remove_file(t);
        }
        fs::write(big.join("events.json"), &big_original).unwrap();
        let mut child = common::binary()
            .args(["compact", big.to_str().unwrap(), "r:2..5"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        while temps().is_empty() && child.try_wait().unwrap().is_none() {
            std::hint::spin_loop();
        }
        let _ = child.kill();
        child.wait().unwrap();
        // Its temp file still there: it died before the rename.
        if !temps().is_empty() {
            mid_write += 1;
        }
        let now = fs::read(big.join("events.json")).unwrap();
        if now != big_original {
            let parsed: Vec<Value> = serde_json::from_slice(&now)
                .unwrap_or_else(|e| panic!("a partial file after a kill mid-write: {e}"));
            assert_eq!(
                parsed.iter().filter(|e| e["type"] == "compaction").count(),
                1 + serde_json::from_slice::<Vec<Value>>(&big_original)
                    .unwrap()
                    .iter()
                    .filter(|e| e["type"] == "compaction")
                    .count()
            );
        }
        if mid_write >= 3 {
            break;
        }
    }
    assert!(
        mid_write > 0,
        "no kill landed between the temp file's creation and its rename in 200 tries"
    );
    // Leftover temp files of killed writers are cleaned by the next write.
    let out = common::binary()
        .args(["reset", dir.to_str().unwrap(), "--all"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    // The stale lock a killed writer left is no obstacle either.
    let (lock, _) = jp_inspect::core::store::workspace::lock_paths(&dir, 17_600_000_000);
    assert!(
        !jp_inspect::core::store::lock::is_held(&lock),
        "a killed writer's lock is free"
    );
    eprintln!(
        "crash: {kills} writers started, {killed} killed mid-way, {finished} finished, \
         {mid_write} killed between their temp file and its rename, every state old or new \
         (none torn), {} compactions landed, {:.1?}",
        compactions,
        started.elapsed()
    );
}

#[test]
fn crash_short() {
    crash(25, 80);
}

#[test]
#[ignore = "long: run with --ignored"]
fn crash_long() {
    crash(2_000, 300);
}

/// A write the file system refuses (an immutable `events.json`, which even
/// `--force` and root can't replace) says what was attempted, that nothing
/// was written, and what to do; the file is as it was.
#[cfg(target_os = "linux")]
#[test]
fn a_file_the_system_refuses_to_replace_is_said_with_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    let events = conv.join("events.json");
    let before = fs::read(&events).unwrap();
    let marked = Command::new("chattr")
        .arg("+i")
        .arg(&events)
        .status()
        .is_ok_and(|s| s.success());
    if !marked {
        // chattr needs root and a file system that keeps the flag.
        eprintln!("chattr +i is refused here: the immutable file can't be made");
        return;
    }
    let out = common::binary()
        .args([
            "compact",
            conv.to_str().unwrap(),
            "s:10..12",
            "--summary",
            "x y z",
            "--force",
        ])
        .env("JP_USER_DATA_DIR", tmp.path().join("no-user-data"))
        .output()
        .unwrap();
    let _ = Command::new("chattr").arg("-i").arg(&events).status();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write the conversation")
            && err.contains("nothing was written")
            && err.contains("immutable"),
        "{err}"
    );
    assert_eq!(fs::read(&events).unwrap(), before);
}
