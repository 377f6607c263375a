//! `--replay`: a finished conversation written back turn by turn as jp
//! writes it (jp's lock, the whole file replaced), with the inspector
//! following it and `A` on. The compactions it writes are the firings
//! `simulate` reports for the same policy and window, and no event is lost;
//! on the demo and on two real fixtures.

use crate::common;

use common::harness::Harness;
use jp_inspect::core::ops::read;
use jp_inspect::core::ops::replay;
use jp_inspect::tui::msg::{Msg, ReplayPace};
use jp_inspect::tui::state::ReplayState;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// The inspector's options for a replay being written into `dir`.
fn replaying(dir: std::path::PathBuf, state: ReplayState) -> jp_inspect::tui::Options {
    jp_inspect::tui::Options {
        dir,
        picker: None,
        config_file: None,
        jp: None,
        mode: None,
        window: None,
        follow: false,
        notice: None,
        replay: Some(state),
        reach: Default::default(),
    }
}

/// What `simulate` fires on `source` for `policy` at `window`.
fn simulated(source: &Path, window: &str) -> Vec<(u64, u64)> {
    let tmp = tempfile::tempdir().unwrap();
    let out = common::binary()
        .args([
            "simulate",
            source.to_str().unwrap(),
            "--policies",
            "staged",
            "--windows",
            window,
            "--json",
        ])
        .env("XDG_CONFIG_HOME", tmp.path().join("no-config"))
        .env("JP_USER_DATA_DIR", tmp.path().join("no-user-data"))
        .output()
        .unwrap();
    let sim = common::json(&out);
    sim["runs"][0]["firings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["from_turn"].as_u64().unwrap(),
                f["to_turn"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Replays `source` at `window` through the inspector; what it wrote.
fn replayed(source: &Path, window: &str) -> (Vec<(u64, u64)>, Vec<Value>) {
    let conv = read::whole(source).unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut r = replay::prepare(&conv, home.path()).unwrap();
    let state = ReplayState {
        pace: ReplayPace {
            paused: false,
            every: Duration::from_millis(100),
        },
        total: r.total(),
        done: false,
    };
    let dir = r.dir.clone();
    let options = replaying(dir.clone(), state);
    let mut h = Harness::opened(options, (120, 40), ());
    assert!(h.state.settings.auto_run && h.state.settings.follow);
    h.set_window(window);
    while r.step().unwrap() {
        h.act(Msg::FilesChanged);
    }
    assert!(h.state.replay.unwrap().done);
    assert!(h.text().lines().next().unwrap().contains("replay done"));
    let events: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("events.json")).unwrap()).unwrap();
    let written = common::compaction_ranges(&events);
    drop(h);
    drop(home);
    (written, events)
}

fn check(source: &Path, window: &str) -> usize {
    let (written, events) = replayed(source, window);
    let fired = simulated(source, window);
    // Every boundary, the one after the last turn too, in both.
    assert_eq!(
        written,
        fired,
        "{}: the replay wrote {written:?}, simulate fired {fired:?}",
        source.display()
    );
    // No event lost, in order: the source's, its compactions aside.
    let original: Vec<Value> =
        serde_json::from_slice(&std::fs::read(source.join("events.json")).unwrap()).unwrap();
    let keep = |e: &&Value| e["type"] != "compaction";
    let a: Vec<&Value> = original.iter().filter(keep).collect();
    let b: Vec<&Value> = events.iter().filter(keep).collect();
    // A legacy file's leading config event is written as base_config.json.
    let a = if a.len() == b.len() + 1 {
        &a[1..]
    } else {
        &a[..]
    };
    assert_eq!(a, &b[..], "{}: every event, in order", source.display());
    written.len()
}

#[test]
fn the_demo_replayed_at_64k_compacts_as_simulate_says() {
    let n = check(&common::demo(), "64k");
    assert!(n > 0, "the demo fires at 64k");
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn two_real_conversations_replayed_compact_as_simulate_says() {
    let shared = common::shared()
        .expect("../shared is absent: a corpus check runs whole or is ignored, never passed");
    let fixtures = shared.join("fixtures/jp-conversations");
    let bear = fixtures.join("17728322628-bear-mcp-server-design-review");
    assert!(check(&bear, "64k") > 0, "the Bear review fires at 64k");
    check(
        &fixtures.join("17800836875-jp-init-xdg-directory-issue-on-linux"),
        "64k",
    );
}

/// Space pauses and resumes, + and - change the pace, each said and handed
/// to the writer.
#[test]
fn space_pauses_and_plus_minus_change_the_pace() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use jp_inspect::tui::msg::Effect;
    let conv = read::whole(&common::demo()).unwrap();
    let home = tempfile::tempdir().unwrap();
    let r = replay::prepare(&conv, home.path()).unwrap();
    let options = replaying(
        r.dir.clone(),
        ReplayState {
            pace: ReplayPace {
                paused: false,
                every: Duration::from_secs(2),
            },
            total: r.total(),
            done: false,
        },
    );
    let mut h = Harness::opened(options, (120, 40), home);
    let mut press = |c: char| {
        let fx = jp_inspect::tui::update::update(
            &mut h.state,
            Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
        );
        let paces: Vec<ReplayPace> = fx
            .into_iter()
            .filter_map(|e| match e {
                Effect::Replay(p) => Some(p),
                _ => None,
            })
            .collect();
        (paces, h.state.status.message.clone().unwrap().0)
    };
    let (p, said) = press(' ');
    assert_eq!(
        p,
        [ReplayPace {
            paused: true,
            every: Duration::from_secs(2)
        }]
    );
    assert_eq!(said, "replay paused (Space resumes)");
    let (p, _) = press(' ');
    assert!(!p[0].paused);
    let (p, said) = press('+');
    assert_eq!(p[0].every, Duration::from_secs(1));
    assert!(said.contains("every 1s"), "{said}");
    let (p, _) = press('-');
    let (p2, _) = press('-');
    assert_eq!(
        (p[0].every, p2[0].every),
        (Duration::from_secs(2), Duration::from_secs(4))
    );
    // `]`: the next turn now, not the next turn of the panes.
    let cursor = h.state.nav.cursor;
    let fx = jp_inspect::tui::update::update(
        &mut h.state,
        Msg::Key(KeyEvent::new(KeyCode::Char(']'), KeyModifiers::NONE)),
    );
    assert!(fx.iter().any(|e| matches!(e, Effect::ReplayNext)));
    assert_eq!(h.state.nav.cursor, cursor);
}

/// How long a replay test waits for what must come: a liveness bound,
/// never a time judged.
const PATIENCE: Duration = Duration::from_secs(120);

/// Waits until the writer has looked at its pace `n` more times.
fn looked(w: &jp_inspect::tui::replay_writer::Writer, n: usize) {
    let (from, start) = (w.looks(), std::time::Instant::now());
    while w.looks() < from + n {
        assert!(start.elapsed() < PATIENCE, "the writer stopped looking");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits until `turns()` is `n`; fails saying `what` never came.
fn reach(turns: &dyn Fn() -> usize, n: usize, what: &str) {
    let start = std::time::Instant::now();
    while turns() != n {
        assert!(start.elapsed() < PATIENCE, "{what}: {} turns", turns());
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The writer thread on its own: `]` writes a turn at once while paused,
/// and a pause holds the rest back.
#[test]
fn the_writer_writes_a_turn_now_when_asked_and_holds_while_paused() {
    let conv = read::whole(&common::demo()).unwrap();
    let home = tempfile::tempdir().unwrap();
    let r = replay::prepare(&conv, home.path()).unwrap();
    let dir = r.dir.clone();
    let w = jp_inspect::tui::replay_writer::Writer::start(
        r,
        ReplayPace {
            paused: true,
            every: Duration::from_millis(100),
        },
        false,
    );
    let turns = || read::whole(&dir).map(|c| c.turn_count).unwrap_or(0);
    // Several of its looks at the pace pass, each writing nothing.
    looked(&w, 5);
    assert_eq!(turns(), 0, "paused");
    w.next_now();
    reach(&turns, 1, "] wrote one turn");
    looked(&w, 5);
    assert_eq!(turns(), 1, "still paused after it");
    w.set(ReplayPace {
        paused: false,
        every: Duration::from_millis(10),
    });
    reach(&turns, conv.turn_count, "resumed, every turn came");
    assert!(w.take_error().is_none());
}

/// With `A` on, the writer writes a turn only once the inspector has
/// evaluated the boundary before it: a fast pace can't fold two turns into
/// one boundary.
#[test]
fn the_writer_waits_for_each_boundarys_evaluation() {
    let conv = read::whole(&common::demo()).unwrap();
    let home = tempfile::tempdir().unwrap();
    let r = replay::prepare(&conv, home.path()).unwrap();
    let dir = r.dir.clone();
    let w = jp_inspect::tui::replay_writer::Writer::start(
        r,
        ReplayPace {
            paused: false,
            every: Duration::from_millis(10),
        },
        true,
    );
    let turns = || read::whole(&dir).map(|c| c.turn_count).unwrap_or(0);
    reach(&turns, 1, "the first turn needs no boundary");
    looked(&w, 5);
    assert_eq!(turns(), 1, "turn 2 waits for boundary 1");
    w.evaluated(1);
    reach(&turns, 2, "turn 2 once boundary 1 was evaluated");
    looked(&w, 5);
    assert_eq!(turns(), 2);
    // `A` off: no more waiting.
    w.lockstep(false);
    reach(&turns, conv.turn_count, "every turn, lockstep off");
}

/// The real program, its writer on its own thread and the inspector
/// following: at a fast pace and a slow one, every boundary is evaluated,
/// in order, and what it wrote is what `simulate` fires (what the replay
/// wrote is said when it ends).
#[test]
fn a_replay_at_any_pace_fires_what_simulate_fires() {
    let fired: Vec<String> = {
        let out = common::run_anywhere(&[
            "simulate",
            "--demo",
            "--policies",
            "staged",
            "--windows",
            "64k",
            "--json",
        ]);
        common::json(&out)["runs"][0]["firings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                format!(
                    "after turn {}: {} of turns {}..{}",
                    f["after_turn"].as_u64().unwrap() + 1,
                    f["kind"].as_str().unwrap(),
                    f["from_turn"].as_u64().unwrap() + 1,
                    f["to_turn"].as_u64().unwrap() + 1
                )
            })
            .collect()
    };
    assert!(!fired.is_empty());
    for pace in ["100ms", "700ms"] {
        let tmp = tempfile::tempdir().unwrap();
        let mut c = common::binary();
        c.args(["--demo", "--replay", "--window", "64k", "--pace", pace])
            .env("JP_USER_DATA_DIR", tmp.path().join("no-user-data"))
            .env("XDG_CONFIG_HOME", tmp.path().join("no-config"))
            .env("TERM", "xterm-256color");
        let mut pty = common::pty::Pty::spawn(c, 140, 40);
        assert!(
            pty.wait_for("replay done", Duration::from_secs(120))
                .is_some(),
            "{pace}: {}",
            pty.text()
        );
        pty.send(b"q");
        let status = pty.wait_exit(Duration::from_secs(10)).expect("q ends it");
        assert!(status.success());
        assert!(
            pty.wait_for("replay: automatic compaction wrote", Duration::from_secs(5))
                .is_some()
        );
        let text = pty.text();
        let said = &text[text.find("replay: automatic compaction wrote").unwrap()..];
        let written: Vec<String> = said
            .lines()
            .skip(1)
            .map(str::trim)
            .filter(|l| l.starts_with("after turn"))
            .map(str::to_owned)
            .collect();
        // The replay names a summary and an elision by what they are;
        // simulate by the stage that fired them.
        let normal = |l: &str| l.replace("compaction of", "elision of");
        assert_eq!(
            written.iter().map(|l| normal(l)).collect::<Vec<_>>(),
            fired,
            "at {pace}"
        );
    }
}
