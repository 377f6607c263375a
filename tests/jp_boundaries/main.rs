//! `A` and `watch` beside the real jp: at five boundaries of a session
//! run with `jp query` (the stub model answering), the inspector's
//! boundary step, given the conversation as it was shown before jp's
//! write, reaches what `watch --once --dry-run -v` says of the file jp
//! left: the same compaction with the same estimates, or the same reason
//! for none.

#[path = "../common/mod.rs"]
mod common;

use common::jp::Jp;
use jp_inspect::core::ops::boundary::Boundary;
use jp_inspect::tui::job::{Job, JobResult};
use serde_json::Value;

/// A compaction appended at a boundary: `(kind, from, to, before, after)`.
type Appended = (String, u64, u64, u64, u64);

/// What `watch` says of the boundary: each compaction it would append, or
/// its reason for none.
fn watch_says(jp: &Jp, id: &str) -> Result<Vec<Appended>, String> {
    let out = jp
        .jp_inspect(&[
            "watch",
            id,
            "--once",
            "--dry-run",
            "--enable",
            "-v",
            "--json",
            "--window",
            "150",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    if let Some(s) = events.iter().find(|e| e["event"] == "skipped") {
        return Err(s["reason"].as_str().unwrap().to_string());
    }
    Ok(events
        .iter()
        .filter(|e| e["event"] == "would_fire")
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["from_turn"].as_u64().unwrap(),
                e["to_turn"].as_u64().unwrap(),
                e["tokens_before"].as_u64().unwrap(),
                e["tokens_after"].as_u64().unwrap(),
            )
        })
        .collect())
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn a_reaches_what_watch_says_at_five_boundaries_beside_the_real_jp() {
    let Some(jp) = Jp::new(
        "a_reaches_what_watch_says_at_five_boundaries_beside_the_real_jp",
        0,
        "",
    ) else {
        return;
    };
    // The boundary step reads jp's user-local copy where jp does.
    // SAFETY: the only test of this binary that runs beside jp (its own
    // binary for that: it sets the process's environment); no other thread
    // reads the environment meanwhile.
    unsafe { std::env::set_var("JP_USER_DATA_DIR", &jp.data) };
    let id = jp.new_conversation("first question about the parser");
    let dir = jp
        .copy_in(&jp.ws.join(".jp"), &id)
        .expect("the workspace copy");
    let mut compared = 0;
    for k in 0..5 {
        // What the inspector shows: read before jp's next write.
        let shown = jp_inspect::core::ops::read::whole(&dir).unwrap();
        jp.query(
            &id,
            &format!("question {k}: and then what about the tests?"),
        );
        let watch = watch_says(&jp, &id);
        let config = jp_inspect::core::ops::configured(&shown, None, None, None).unwrap();
        let JobResult::Boundary(_, a) = jp_inspect::tui::worker::execute(Job::Boundary {
            dir: dir.clone(),
            conv: std::sync::Arc::new(shown),
            config,
            window: Some(150),
            now: chrono::Utc::now(),
        }) else {
            panic!("a boundary's result");
        };
        let a = match a.expect("the boundary step") {
            Boundary::Fired(plan) | Boundary::WouldFire(plan) => Ok(plan
                .additions
                .iter()
                .map(|x| {
                    (
                        match x.why {
                            jp_inspect::core::ops::Why::Auto(kind) => kind.as_str().to_string(),
                            jp_inspect::core::ops::Why::Rule { .. } => "rule".to_string(),
                        },
                        x.compaction.from_turn as u64,
                        x.compaction.to_turn as u64,
                        plan.tokens.before,
                        plan.tokens.after,
                    )
                })
                .collect::<Vec<Appended>>()),
            Boundary::Skipped(why) => Err(why),
        };
        eprintln!("boundary {k}: {watch:?}");
        assert_eq!(a, watch, "boundary {k}: A and watch disagree");
        compared += 1;
    }
    assert_eq!(compared, 5);
    the_copy_jp_reads_changing_between_its_writes_is_no_news(&dir);
}

/// jp writes its two copies with the same text a moment apart and reads
/// the newer: a reload between two such writes reads the other copy as an
/// append of the text held, and says nothing about copies; only a copy
/// that doesn't begin with what was held is read whole, saying why.
fn the_copy_jp_reads_changing_between_its_writes_is_no_news(dir: &std::path::Path) {
    use jp_inspect::core::ops::Reloaded;
    use jp_inspect::core::ops::read::{ReadRequest, read};
    use std::time::{Duration, SystemTime};
    let before = jp_inspect::core::ops::read::whole(dir).unwrap();
    let other = jp_inspect::core::ops::jp_files::other_copy(dir).expect("jp's user-local copy");
    let reload = |dir: &std::path::Path, held| {
        read(ReadRequest {
            dir,
            since: Some(held),
            changes: false,
            config: None,
            jp: None,
        })
        .map(|r| (r.conversation, r.how.expect("a read of what was held")))
    };
    let events = |d: &std::path::Path| d.join("events.json");
    let touch = |p: std::path::PathBuf, at: SystemTime| {
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(at)
            .unwrap();
    };
    touch(events(&other), SystemTime::now() + Duration::from_secs(5));
    let (now, how) = reload(dir, &before).unwrap();
    assert_eq!(how, Reloaded::Appended(0));
    assert_eq!(now.dir, other);
    // A copy that isn't the text held is read whole, and says so.
    let mut text = std::fs::read_to_string(events(&other)).unwrap();
    text = text.replacen("question 0", "question X", 1);
    std::fs::write(events(&other), text).unwrap();
    touch(events(&other), SystemTime::now() + Duration::from_secs(10));
    let (_, how) = reload(dir, &before).unwrap();
    assert_eq!(
        how,
        Reloaded::Whole(
            "jp switched to its other copy of the file (it keeps two and reads the newer)"
        )
    );
}
