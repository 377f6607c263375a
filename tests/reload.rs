//! Reading a conversation again after jp wrote it: what jp appended is
//! parsed alone and the result reads as a whole read of the file would;
//! anything else is read whole and says why.

mod common;

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
