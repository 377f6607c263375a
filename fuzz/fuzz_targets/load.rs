//! Arbitrary bytes as a conversation's files: loading never panics, and a
//! conversation that loads survives a compaction written and read back.
#![no_main]

use jp_inspect::core::model::compaction::{Compaction, Source};
use jp_inspect::core::fuzzing::load::{self, Files};
use jp_inspect::core::fuzzing::edit::{Edit, Removal};
use jp_inspect::core::fuzzing::save;
use jp_inspect::core::fuzzing::{estimate, projection};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

/// The bytes as files: by default all of them are `events.json` (current
/// format, so seed files are plain event logs); a leading 0x01 makes it a
/// legacy file (no base config); a leading 0x02 splits the rest at the
/// first NUL into `base_config.json` and `events.json`.
fn files(data: &[u8]) -> Files {
    match data.first() {
        Some(1) => Files {
            events: data[1..].to_vec(),
            base_config: None,
            metadata: None,
        },
        Some(2) => {
            let rest = &data[1..];
            let cut = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
            Files {
                events: rest.get(cut + 1..).unwrap_or_default().to_vec(),
                base_config: Some(rest[..cut].to_vec()),
                metadata: Some(rest[..cut].to_vec()),
            }
        }
        _ => Files {
            events: data.to_vec(),
            base_config: Some(b"{}".to_vec()),
            metadata: None,
        },
    }
}

fuzz_target!(|data: &[u8]| {
    let dir = Path::new("/fuzz/17000000000-input");
    let Ok(conv) = load::parse(dir, files(data)) else {
        return;
    };
    let p = projection::of(&conv);
    let _ = estimate::estimate(&conv, &p, &estimate::Overhead::of_config(conv.merged_config()));
    for i in 0..conv.events.len().min(64) {
        let _ = conv.excerpt(i, 80);
    }
    for e in p.events.iter().take(64) {
        let _ = p.plain(&conv, e);
        let _ = p.excerpt(&conv, e, 80);
    }
    // Write a compaction and remove it again: both texts load, and every
    // other event keeps its exact text.
    let c = Compaction {
        timestamp: jp_inspect::core::model::timestamp::parse("2026-01-01 00:00:00").unwrap(),
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
    // Read back in the same generation: a legacy file keeps its leading
    // config delta, a current one its base_config.json.
    let base = match conv.format {
        jp_inspect::core::model::conversation::Format::Legacy => None,
        jp_inspect::core::model::conversation::Format::Current => Some(serde_json::to_vec(&conv.base_config).unwrap()),
    };
    let (text, _) = save::render(&conv, &Edit::append(vec![c])).unwrap();
    let with = load::parse(
        dir,
        Files {
            events: text.into_bytes(),
            base_config: base.clone(),
            metadata: None,
        },
    )
    .expect("a rendered file loads");
    assert_eq!(with.events.len(), conv.events.len() + 1);
    assert_eq!(with.base_config, conv.base_config);
    for i in 0..conv.events.len() {
        assert_eq!(with.raw(i), conv.raw(i));
    }
    let (text, _) = save::render(&with, &Edit::remove(Removal::All)).unwrap();
    let back = load::parse(
        dir,
        Files {
            events: text.into_bytes(),
            base_config: base,
            metadata: None,
        },
    )
    .expect("a reset file loads");
    let compactions = conv.compactions().count();
    assert_eq!(back.events.len(), conv.events.len() - compactions);
});
