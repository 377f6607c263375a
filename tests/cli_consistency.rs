//! The command line said one way: every command that can write a summary
//! takes the same configuration flags, usage errors exit 2 and say where,
//! `--demo` works everywhere, turns are numbered one way for people, and
//! "saved" adds up.

mod common;

use common::{jp_inspect, json, stderr, workspace};
use std::fs;

/// A `--config` file whose summarizer is a command printing `text`.
fn command_config(dir: &std::path::Path, text: &str) -> String {
    let path = dir.join("summarize.toml");
    fs::write(
        &path,
        format!(
            "[conversation.compaction.auto]\nmode = \"staged\"\nsoft_ratio = 0.1\nhard_ratio = 0.2\n\
             [conversation.compaction.auto.summarizer]\nkind = \"command\"\n\
             command = \"cat > /dev/null; echo {text}\"\n"
        ),
    )
    .unwrap();
    path.display().to_string()
}

fn summaries(tmp: &std::path::Path) -> Vec<String> {
    let v = json(&jp_inspect(&["show", "csvq", "--json"], tmp));
    v["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| {
            e["event"]["summary"]["summary"]
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

#[test]
fn every_command_that_can_summarise_takes_config_and_summarizer_alike() {
    let (tmp, _) = workspace();
    let config = command_config(tmp.path(), "BY THE CONFIGURED COMMAND");
    // compact: the configured summarizer writes a summary rule's text.
    let out = jp_inspect(
        &["compact", "csvq", "s:12..13", "--config", &config, "--json"],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        summaries(tmp.path()).contains(&"BY THE CONFIGURED COMMAND".to_string()),
        "{:?}",
        summaries(tmp.path())
    );
    // --summarizer picks digest over the configured command.
    let out = jp_inspect(
        &[
            "compact",
            "csvq",
            "s:15..16",
            "--config",
            &config,
            "--summarizer",
            "digest",
            "--json",
        ],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        summaries(tmp.path())
            .iter()
            .any(|s| s.starts_with("Digest of turns 15-16")),
        "{:?}",
        summaries(tmp.path())
    );
    // auto and watch: the same flags, the same effect.
    for args in [
        vec!["auto", "csvq", "--dry-run", "--json"],
        vec!["watch", "csvq", "--once", "--enable", "--json"],
    ] {
        let mut with = args.clone();
        with.extend(["--config", &config, "--summarizer", "command"]);
        let out = jp_inspect(&with, tmp.path());
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    // Each reads the file it is given: a broken one is named, by all four.
    let broken = tmp.path().join("broken.toml");
    fs::write(&broken, "[conversation.compaction.auto]\nsoft_ratio = 7\n").unwrap();
    let broken = broken.display().to_string();
    for args in [
        vec!["compact", "csvq", "s:2..3"],
        vec!["auto", "csvq"],
        vec!["watch", "csvq", "--once"],
        vec!["reset", "csvq", "--all"],
    ] {
        let mut with = args.clone();
        with.extend(["--config", &broken]);
        let out = jp_inspect(&with, tmp.path());
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&broken) && stderr(&out).contains("soft_ratio"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // A reset writes no summary: it has no --summarizer to mislead.
    let out = jp_inspect(
        &["reset", "csvq", "--all", "--summarizer", "digest"],
        tmp.path(),
    );
    assert_eq!(out.status.code(), Some(2));
}
