//! Inputs the fuzzers found, kept as regression tests (see fuzz/README.md).

use crate::common;

use jp_inspect::core::model::compaction::{Compaction, Source};
use jp_inspect::core::store::edit::Edit;
use jp_inspect::core::store::edit::Removal;
use jp_inspect::core::store::load::{self, Files};
use jp_inspect::core::store::save;
use jp_inspect::core::{model::conversation::Format, model::timestamp};
use std::path::Path;

/// The fuzz target's framing: a leading 0x01 is a legacy file.
fn legacy(bytes: &[u8]) -> Files {
    assert_eq!(bytes[0], 1);
    Files {
        events: bytes[1..].to_vec(),
        base_config: None,
        metadata: None,
    }
}

/// Found by `load`: a legacy file (base config in its first event) with a
/// compaction written and read back must stay legacy: the leading config
/// delta is the base config, not an event.
#[test]
fn legacy_file_round_trips_with_its_base_config() {
    let bytes = std::fs::read(common::data().join("fuzz/load-legacy-roundtrip.bin")).unwrap();
    let dir = Path::new("/fuzz/17000000000-input");
    let conv = load::parse(dir, legacy(&bytes)).unwrap();
    assert_eq!(conv.format, Format::Legacy);
    let c = Compaction {
        timestamp: timestamp::parse("2026-01-01 00:00:00").unwrap(),
        from_turn: 0,
        to_turn: 0,
        summary: None,
        strip_reasoning: true,
        reasoning_over: None,
        tool_calls: None,
        source: Source::Auto,
        summarizer: None,
        authored: false,
        tool_overrides: Default::default(),
    };
    let (text, _) = save::render(&conv, &Edit::append(vec![c])).unwrap();
    let with = load::parse(
        dir,
        Files {
            events: text.into_bytes(),
            base_config: None,
            metadata: None,
        },
    )
    .unwrap();
    assert_eq!(with.format, Format::Legacy);
    assert_eq!(with.base_config, conv.base_config);
    assert_eq!(with.events.len(), conv.events.len() + 1);
    for i in 0..conv.events.len() {
        assert_eq!(with.raw(i), conv.raw(i));
    }
    let (text, removed) = save::render(&with, &Edit::remove(Removal::All)).unwrap();
    assert_eq!(removed, conv.compactions().count() + 1);
    let back = load::parse(
        dir,
        Files {
            events: text.into_bytes(),
            base_config: None,
            metadata: None,
        },
    )
    .unwrap();
    assert_eq!(back.base_config, conv.base_config);
}

/// Found by `config`: a YAML error message begins with the path of keys it
/// was at, which is the file's own text; the message must not repeat it.
#[test]
fn a_yaml_error_does_not_repeat_its_key_path() {
    let bytes = std::fs::read(common::data().join("fuzz/config-yaml-key-path.bin")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.yaml");
    std::fs::write(&path, &bytes[1..]).unwrap();
    let e = jp_inspect::core::store::config_file::parse_file(&path)
        .unwrap_err()
        .to_string();
    assert!(!e.contains("looyyyyyyyy"), "{e}");
    assert!(e.contains("not valid YAML"), "{e}");
}
