//! Shared by the benchmarks: generated conversations, made once and kept in
//! `target/bench-data` (never committed; deterministic, so regenerating
//! gives the same files).

#![allow(dead_code)]

use jp_inspect::synth::{self, Spec};
use std::path::{Path, PathBuf};

pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data")
}

/// A generated conversation named `name`, written on first use.
pub fn generated(name: &str, spec: &Spec) -> PathBuf {
    let parent = data_dir().join(name);
    let dir = parent.join("17500000000-synthetic");
    if !dir.join("events.json").exists() {
        std::fs::create_dir_all(&parent).unwrap();
        synth::write_conversation(&parent, 17_500_000_000, spec).unwrap();
    } else {
        // Data from an older generator keeps its events, not its config.
        synth::write_side_files(&dir, spec).unwrap();
    }
    dir
}

/// About 100 MB of agentic session.
pub fn hundred_mb() -> PathBuf {
    generated("100mb", &Spec::of_size(100 << 20))
}

/// A million tiny events.
pub fn million_events() -> PathBuf {
    let spec = Spec {
        turns: 166_667,
        request_chars: 24,
        reasoning_chars: 16,
        message_chars: 24,
        tool_calls_per_turn: 1,
        tool_output_chars: 32,
        ..Spec::default()
    };
    generated("1m-events", &spec)
}

/// The tests' helpers: the demo and the fixtures are found one way.
#[path = "../tests/common/mod.rs"]
pub mod tests_common;

/// The largest real conversation there is: the shared fixture if present,
/// else the bundled demo.
pub fn largest_real() -> PathBuf {
    tests_common::fixture_conversations()
        .into_iter()
        .find(|d| d.ends_with("17728322628-bear-mcp-server-design-review"))
        .unwrap_or_else(tests_common::demo)
}

/// The shared fixtures (empty without ../shared).
pub fn fixtures() -> Vec<PathBuf> {
    tests_common::fixture_conversations()
}

/// A workspace of `n` small conversations (20 turns each), for the picker.
pub fn workspace_of(n: usize) -> PathBuf {
    let root = data_dir().join(format!("{n}-conversations"));
    let conversations = root.join(".jp/conversations");
    let done = conversations.join(".complete");
    if !done.exists() {
        std::fs::create_dir_all(&conversations).unwrap();
        let spec = Spec {
            turns: 20,
            ..Spec::default()
        };
        for k in 0..n {
            let id = 17_600_000_000 + k as u64;
            let written = synth::write_conversation(&conversations, id, &spec).unwrap();
            std::fs::rename(
                &written,
                conversations.join(format!("{id}-conversation-{k}")),
            )
            .unwrap();
        }
        std::fs::write(&done, "").unwrap();
    }
    root
}

/// The largest real conversation and jp's own save of it
/// (`../shared/fixtures/jp-rewritten/plain`), when both are there.
pub fn largest_and_jp_saved() -> Option<(PathBuf, PathBuf)> {
    let name = "17728322628-bear-mcp-server-design-review";
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures");
    let original = shared.join("jp-conversations").join(name);
    let saved = shared.join("jp-rewritten/plain").join(name);
    (original.is_dir() && saved.is_dir()).then_some((original, saved))
}

/// jp's own kind of workspace: the largest real conversation in a `.jp`
/// whose config extends a persona and 64 tool definitions (about 130 KB of
/// TOML, as jp's repository has).
pub fn configured_workspace() -> (PathBuf, String) {
    let root = data_dir().join("configured-workspace");
    let source = largest_real();
    let name = source.file_name().unwrap().to_string_lossy().into_owned();
    let conv = root.join(".jp/conversations").join(&name);
    if !conv.join("events.json").exists() {
        tests_common::copy_dir(&source, &conv);
    }
    synth::write_config_tree(&root.join(".jp"), 64).unwrap();
    let id = name.split('-').next().unwrap_or_default().to_string();
    (root, id)
}

/// jp's own code as a binary (`../shared/tools/jp-oracle/oracle`), when
/// `../shared` is there.
pub fn jp_oracle() -> Option<PathBuf> {
    let oracle = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/jp-oracle/oracle");
    if !oracle.is_file() {
        eprintln!("../shared is absent: no comparison with jp's own code");
    }
    oracle.is_file().then_some(oracle)
}

/// 500 turns with `n` overlapping automatic compactions between them.
pub fn compacted(n: usize) -> PathBuf {
    generated(
        &format!("500-turns-{n}-compactions"),
        &Spec {
            turns: 500,
            tool_output_chars: 2_000,
            compactions: n,
            ..Spec::default()
        },
    )
}

/// `n` turns of 2 000-character tool results.
pub fn turns(n: usize) -> PathBuf {
    generated(
        &format!("{n}-turns"),
        &Spec {
            turns: n,
            tool_output_chars: 2_000,
            ..Spec::default()
        },
    )
}

/// A workspace holding the demo whose config extends `n` files of 512 KiB
/// of compaction rules each (the config read grows with them).
pub fn config_heavy(n: usize) -> PathBuf {
    let root = data_dir().join(format!("config-{n}-files"));
    let big = root.join(".jp/big");
    if !big.join(format!("rules-{:02}.toml", n - 1)).exists() {
        let conv = root
            .join(".jp/conversations")
            .join(jp_inspect::demo::DIR_NAME);
        tests_common::copy_dir(&tests_common::demo(), &conv);
        std::fs::create_dir_all(&big).unwrap();
        let rule = "[[conversation.compaction.rules]]\nkeep_first = 1\nkeep_last = 2\nreasoning = \"strip\"\n\n";
        let file = rule.repeat((512 << 10) / rule.len());
        for i in 0..n {
            std::fs::write(big.join(format!("rules-{i:02}.toml")), &file).unwrap();
        }
        std::fs::write(root.join(".jp/config.toml"), "extends = [\"big/*.toml\"]\n").unwrap();
    }
    root
}
