//! Reading a conversation again after jp wrote it: what jp appended is
//! parsed alone and the result reads as a whole read of the file would;
//! anything else is read whole and says why.

use crate::common;

use jp_inspect::core::model::conversation::Conversation;
use jp_inspect::core::store::load;
use jp_inspect::core::store::reload::{Reloaded, reload};
use std::path::{Path, PathBuf};

/// The demo as jp writes its files (it rewrites them whole each time).
fn written_by_jp(tmp: &Path) -> PathBuf {
    let dir = common::demo_copy(tmp);
    let events: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("events.json")).unwrap()).unwrap();
    common::jp_writes(&dir, &events);
    dir
}

/// What a person sees of a conversation, compared whole.
fn same(a: &Conversation, b: &Conversation) {
    assert_eq!(format!("{:?}", a.events), format!("{:?}", b.events));
    assert_eq!(a.turn_count, b.turn_count);
    assert_eq!(a.title, b.title);
    assert_eq!(a.base_config, b.base_config);
    assert_eq!(a.metadata, b.metadata);
    assert_eq!(a.warnings.len(), b.warnings.len());
    assert_eq!(a.twin, b.twin);
}

#[test]
fn a_turn_jp_appended_is_parsed_alone_and_reads_as_a_whole_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = written_by_jp(tmp.path());
    let before = load::load(&dir).unwrap();
    common::jp_appends_a_turn(&dir, "one more thing");
    let (after, how) = reload(&dir, &before).unwrap();
    assert_eq!(how, Reloaded::Appended(2));
    assert_eq!(how.to_string(), "2 events added");
    assert_eq!(after.turn_count, before.turn_count + 1);
    same(&after, &load::load(&dir).unwrap());
    // The text read before is shared, not held a second time.
    assert!(std::ptr::eq(before.raw(0), after.raw(0)));
    // Nothing new: nothing parsed, the same conversation.
    let (again, how) = reload(&dir, &after).unwrap();
    assert_eq!(how, Reloaded::Appended(0));
    same(&again, &after);
}

#[test]
fn an_event_inserted_before_the_end_is_a_rewrite_read_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = written_by_jp(tmp.path());
    let before = load::load(&dir).unwrap();
    let mut events: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("events.json")).unwrap()).unwrap();
    events.insert(
        5,
        serde_json::json!({"timestamp": "2026-11-12 12:25:00.0", "type": "chat_request", "content": "inserted"}),
    );
    common::jp_writes(&dir, &events);
    let (after, how) = reload(&dir, &before).unwrap();
    assert_eq!(how, Reloaded::Whole("the file was rewritten"));
    same(&after, &load::load(&dir).unwrap());
}

#[test]
fn a_truncated_file_is_read_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = written_by_jp(tmp.path());
    let before = load::load(&dir).unwrap();
    let mut events: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("events.json")).unwrap()).unwrap();
    events.truncate(events.len() - 4);
    common::jp_writes(&dir, &events);
    let (after, how) = reload(&dir, &before).unwrap();
    assert_eq!(how, Reloaded::Whole("the file is shorter than before"));
    assert_eq!(how.to_string(), "reloaded: the file is shorter than before");
    same(&after, &load::load(&dir).unwrap());
}

#[test]
fn another_base_config_is_read_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = written_by_jp(tmp.path());
    let before = load::load(&dir).unwrap();
    let path = dir.join("base_config.json");
    let mut config: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    config["assistant"]["name"] = serde_json::json!("another");
    std::fs::write(&path, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
    common::jp_appends_a_turn(&dir, "after the config changed");
    let (after, how) = reload(&dir, &before).unwrap();
    assert_eq!(how, Reloaded::Whole("its base config was rewritten"));
    same(&after, &load::load(&dir).unwrap());
}

/// A broken file after an append is the whole read's error, naming it.
#[test]
fn a_broken_file_is_the_whole_reads_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = written_by_jp(tmp.path());
    let before = load::load(&dir).unwrap();
    let text = std::fs::read_to_string(dir.join("events.json")).unwrap();
    let broken = format!("{},\n  {{\"type\": ", text.trim_end().trim_end_matches(']'));
    std::fs::write(dir.join("events.json"), broken).unwrap();
    let e = reload(&dir, &before).unwrap_err().to_string();
    assert!(e.contains("events.json"), "{e}");
}

/// jp's branch `turn-midflight-persistence`: the lock held for the query,
/// the file written after every block and every tool call request. Each
/// write is read as an append, a call waiting for its result among them.
#[test]
fn a_turn_written_block_by_block_is_read_as_appends() {
    use jp_inspect::synth::{Spec, live};
    let tmp = tempfile::tempdir().unwrap();
    let dir = written_by_jp(tmp.path());
    let mut held = load::load(&dir).unwrap();
    let blocks = live::turn_blocks(&Spec::default(), held.turn_count);
    let mut query = live::Query::start(&dir).unwrap();
    let mut pending_seen = false;
    for block in &blocks {
        query.write(block).unwrap();
        let (next, how) = reload(&dir, &held).unwrap();
        assert_eq!(how, Reloaded::Appended(block.len()));
        same(&next, &load::load(&dir).unwrap());
        let last = &next.events[next.events.len() - 1];
        pending_seen |= matches!(
            last.kind,
            jp_inspect::core::model::event::Kind::ToolCallRequest { .. }
        );
        held = next;
    }
    drop(query);
    assert!(
        pending_seen,
        "a tool call request was read before its result"
    );
}

/// What a reload must come to.
enum Then {
    /// Read whole, for this reason, the same as a whole read.
    ReadWhole(&'static str),
    /// The whole read's error, which says this.
    Fails(&'static str),
}

/// `what` done to the demo as jp wrote it, then reloaded: as `then` says.
fn read_whole_after(what: impl Fn(&Path), then: Then) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = written_by_jp(tmp.path());
    let before = load::load(&dir).unwrap();
    what(&dir);
    let whole = load::load(&dir);
    match (reload(&dir, &before), then) {
        (Ok((after, how)), Then::ReadWhole(why)) => {
            assert_eq!(how, Reloaded::Whole(leak(why)), "{why}");
            same(&after, &whole.unwrap());
        }
        (Err(e), Then::Fails(says)) => {
            assert_eq!(e.to_string(), whole.unwrap_err().to_string());
            assert!(e.to_string().contains(says), "{e}");
        }
        (Ok((_, how)), Then::Fails(says)) => panic!("read ({how:?}) where {says:?} was due"),
        (Err(e), Then::ReadWhole(why)) => panic!("{e} where a whole read for {why:?} was due"),
    }
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

/// The demo's events with `more` appended, written jp's way.
fn appended(dir: &Path, more: serde_json::Value) {
    let mut events: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("events.json")).unwrap()).unwrap();
    events.push(more);
    common::jp_writes(dir, &events);
}

#[test]
fn a_new_event_with_a_warning_is_read_whole_to_say_it() {
    read_whole_after(
        |dir| {
            appended(
                dir,
                serde_json::json!({"timestamp": "2026-11-13 09:00:00.0",
                "type": "tool_call_response", "id": "nobody_asked", "content": "x", "is_error": false}),
            )
        },
        Then::ReadWhole("a new event has something to say"),
    );
}

#[test]
fn unreadable_metadata_is_read_whole() {
    read_whole_after(
        |dir| {
            std::fs::write(dir.join("metadata.json"), "{ not json").unwrap();
            common::jp_appends_a_turn(dir, "after");
        },
        Then::ReadWhole("its metadata is unreadable"),
    );
}

#[test]
fn bytes_that_are_not_text_are_the_whole_reads_error() {
    read_whole_after(
        |dir| {
            let mut bytes = std::fs::read(dir.join("events.json")).unwrap();
            let close = bytes.iter().rposition(|&b| b == b']').unwrap();
            bytes.splice(
                close..close,
                b",\n  {\"type\": \"turn_start\", \"x\": \"\xff\"}\n"
                    .iter()
                    .copied(),
            );
            std::fs::write(dir.join("events.json"), bytes).unwrap();
        },
        Then::Fails("UTF-8"),
    );
}

#[test]
fn a_file_that_had_warnings_is_read_whole_again() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = written_by_jp(tmp.path());
    appended(
        &dir,
        serde_json::json!({"timestamp": "2026-11-13 09:00:00.0",
        "type": "tool_call_response", "id": "nobody_asked", "content": "x", "is_error": false}),
    );
    let before = load::load(&dir).unwrap();
    assert!(!before.warnings.is_empty());
    common::jp_appends_a_turn(&dir, "more");
    let (after, how) = reload(&dir, &before).unwrap();
    assert_eq!(how, Reloaded::Whole("the file had warnings"));
    same(&after, &load::load(&dir).unwrap());
}

#[test]
fn jps_older_format_and_an_empty_stream_are_read_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let legacy = common::copy_dir(
        Path::new(
            "tests/data/conformance/c28_legacy_with_turns/conversations/17800000000-refactor-the-config-parser",
        ),
        &tmp.path()
            .join("legacy/17800000000-refactor-the-config-parser"),
    );
    let before = load::load(&legacy).unwrap();
    let (_, how) = reload(&legacy, &before).unwrap();
    assert_eq!(
        how,
        Reloaded::Whole("a file of jp's older format is read whole")
    );

    let dir = written_by_jp(tmp.path());
    common::jp_writes(&dir, &[]);
    let before = load::load(&dir).unwrap();
    common::jp_appends_a_turn(&dir, "first");
    let (after, how) = reload(&dir, &before).unwrap();
    assert_eq!(how, Reloaded::Whole("the file held no events"));
    same(&after, &load::load(&dir).unwrap());
}

/// Another process (`jp-inspect compact`, a real process under jp's lock)
/// appends a compaction: read as an append, and what it changes is the
/// same as a whole read sees (the compaction valid, the turns the same).
#[test]
fn a_compaction_another_process_wrote_is_read_as_an_append() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = written_by_jp(tmp.path());
    let before = load::load(&dir).unwrap();
    let out = common::run_in(
        tmp.path(),
        &["compact", dir.to_str().unwrap(), "t:12..20", "--force"],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let (after, how) = reload(&dir, &before).unwrap();
    assert_eq!(how, Reloaded::Appended(1));
    assert_eq!(
        after.valid_compactions().len(),
        before.valid_compactions().len() + 1
    );
    same(&after, &load::load(&dir).unwrap());
}

/// A file beside `events.json` that can't be read (a folder where
/// `metadata.json` was) is the whole read's error, as it would be at open.
#[test]
fn an_unreadable_file_beside_it_is_the_whole_reads_error() {
    read_whole_after(
        |dir| {
            std::fs::remove_file(dir.join("metadata.json")).unwrap();
            std::fs::create_dir(dir.join("metadata.json")).unwrap();
            common::jp_appends_a_turn(dir, "after");
        },
        Then::Fails("metadata.json"),
    );
}
