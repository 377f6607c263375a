//! The command line said one way: every command that can write a summary
//! takes the same configuration flags, usage errors exit 2 and say where,
//! `--demo` works everywhere, turns are numbered one way for people, and
//! "saved" adds up.

use crate::common;

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

#[test]
fn a_backwards_range_is_a_usage_error_with_its_column() {
    let (tmp, dirs) = workspace();
    let before = fs::read(dirs[0].join("events.json")).unwrap();
    for (rule, column) in [("s:5..2", 3), ("r+t:-2..-5", 5)] {
        let out = jp_inspect(&["compact", "csvq", rule], tmp.path());
        assert_eq!(out.status.code(), Some(2), "{rule}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("at column {column}"))
                && stderr(&out).contains("runs backwards"),
            "{rule}: {}",
            stderr(&out)
        );
    }
    assert_eq!(fs::read(dirs[0].join("events.json")).unwrap(), before);
}

/// With --demo the conversation is given: a wrong rule typed first gets
/// the rule's own error, with its column, as it does after a named one.
#[test]
fn a_wrong_rule_after_demo_is_told_as_a_rule() {
    let tmp = tempfile::tempdir().unwrap();
    for (rule, column) in [("x:1..2", 1), ("t=foo:2..", 3), ("s:5..2", 3), ("r:0..", 3)] {
        let out = jp_inspect(&["compact", "--demo", rule], tmp.path());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{rule}: {err}");
        assert!(
            err.contains(&format!("in rule `{rule}` at column {column}"))
                && !err.contains("no conversation matches"),
            "{rule}: {err}"
        );
    }
}

#[test]
fn the_workspace_is_its_root_or_its_jp_folder_and_a_missing_one_is_an_error() {
    let (tmp, _) = workspace();
    let elsewhere = tempfile::tempdir().unwrap();
    let root = tmp.path().display().to_string();
    let storage = tmp.path().join(".jp").display().to_string();
    let listed = |args: &[&str]| {
        let out = jp_inspect(args, elsewhere.path());
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        json(&out)["conversations"].as_array().unwrap().len()
    };
    let n = listed(&["list", "--workspace", &root, "--json"]);
    assert!(n >= 1);
    // Before the command name too, and as the .jp folder itself.
    assert_eq!(listed(&["--workspace", &root, "list", "--json"]), n);
    assert_eq!(listed(&["list", "--workspace", &storage, "--json"]), n);
    let out = jp_inspect(
        &["--workspace", &storage, "stats", "csvq", "--json"],
        elsewhere.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));

    // A workspace that isn't one is an error, not an empty table.
    let missing = elsewhere.path().join("nope").display().to_string();
    let empty = elsewhere.path().display().to_string();
    for (dir, why) in [
        (&missing, "no such directory"),
        (&empty, "it holds no .jp/"),
    ] {
        for args in [vec!["list"], vec!["stats", "csvq"], vec!["watch", "--once"]] {
            let mut with = args.clone();
            with.extend(["--workspace", dir.as_str()]);
            let out = jp_inspect(&with, elsewhere.path());
            assert_eq!(out.status.code(), Some(2), "{with:?}: {}", stderr(&out));
            assert!(
                stderr(&out).contains(&format!("no jp workspace at {dir}: {why}")),
                "{with:?}: {}",
                stderr(&out)
            );
        }
    }
}

#[test]
fn no_workspace_here_is_said_one_way_by_every_command() {
    let elsewhere = tempfile::tempdir().unwrap();
    let said = "no jp workspace here: no .jp/ in this directory or above; use --workspace DIR";
    for args in [
        vec!["list"],
        vec!["watch", "--once"],
        vec!["stats", "csvq"],
        vec!["show", "--active"],
        vec!["history", "jp-c17944860430"],
        vec!["simulate", "csvq"],
        vec!["compact", "csvq", "r"],
    ] {
        let out = jp_inspect(&args, elsewhere.path());
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(stderr(&out).contains(said), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn inspector_options_before_a_command_are_a_usage_error_not_ignored() {
    let (tmp, _) = workspace();
    for args in [
        vec!["--window", "1m", "stats", "csvq"],
        vec!["csvq", "stats", "csvq"],
        vec!["--follow", "list"],
    ] {
        let out = jp_inspect(&args, tmp.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("belong to the inspector"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn demo_works_for_every_command_on_a_copy_that_vanishes() {
    let elsewhere = tempfile::tempdir().unwrap();
    let asset = common::demo().join("events.json");
    let before = fs::read(&asset).unwrap();
    let out = jp_inspect(&["stats", "--demo", "--json"], elsewhere.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["conversation"]["id"], "jp-c17944860430");
    // Writes go to the copy, which is said and removed at exit.
    let out = jp_inspect(&["--demo", "compact", "r+t:10..12"], elsewhere.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("temporary copy in "), "{err}");
    let copy = err
        .split("temporary copy in ")
        .nth(1)
        .and_then(|r| r.split(';').next())
        .unwrap()
        .to_string();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&copy),
        "the write went to the copy"
    );
    assert!(
        !std::path::Path::new(&copy).exists(),
        "{copy} outlived the run"
    );
    assert_eq!(fs::read(&asset).unwrap(), before);
    // The demo's workspace is the copy's: names resolve there.
    for args in [
        vec!["list", "--demo", "--json"],
        vec!["show", "csvq", "--demo", "--json"],
        vec!["simulate", "--demo", "--windows", "64k", "--json"],
        vec!["history", "--demo", "--json"],
        vec!["auto", "--demo", "--dry-run", "--json"],
        vec!["reset", "--demo", "--all", "--json"],
        vec!["watch", "--demo", "--once"],
        vec!["compact", "--demo", "--active", "r:3..4", "--dry-run"],
    ] {
        let out = jp_inspect(&args, elsewhere.path());
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let out = jp_inspect(&["list", "--demo", "--workspace", "."], elsewhere.path());
    assert_eq!(out.status.code(), Some(2));
    let out = jp_inspect(
        &["compact", "--demo", "--active", "csvq", "r"],
        elsewhere.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn turns_are_raw_and_one_based_for_people_and_zero_based_in_json() {
    let (tmp, _) = workspace();
    // The demo's first compaction summarises raw turns 2..5: in the
    // projected listing those rows say so, and the turn after is 6, not
    // the projected turn 3 it has become.
    let out = jp_inspect(&["show", "csvq", "--compacted"], tmp.path());
    let text = String::from_utf8_lossy(&out.stdout);
    let turn_of = |line: &str| line.split_whitespace().next().unwrap_or("").to_string();
    let rows: Vec<&str> = text.lines().skip(2).collect();
    let summary_rows: Vec<String> = rows
        .iter()
        .filter(|l| l.contains("[injected summary]"))
        .map(|l| turn_of(l))
        .collect();
    assert!(
        !summary_rows.is_empty() && summary_rows.iter().all(|t| t == "2..5"),
        "{summary_rows:?}"
    );
    let after = rows
        .iter()
        .skip_while(|l| !l.contains("[injected summary]"))
        .find(|l| !l.contains("[injected summary]"))
        .unwrap();
    assert_eq!(turn_of(after), "6", "{after}");
    let last = turn_of(rows.last().unwrap());
    assert_eq!(last, "32", "the last turn keeps its raw number");

    // JSON: `turn` is the raw turn, 0-based, in both views; the raw event
    // a projected event came from is in that turn.
    let raw = json(&jp_inspect(&["show", "csvq", "--json"], tmp.path()));
    let projected = json(&jp_inspect(
        &["show", "csvq", "--compacted", "--json"],
        tmp.path(),
    ));
    for e in projected["events"].as_array().unwrap() {
        if let Some(origin) = e["origin"].as_u64() {
            assert_eq!(e["turn"], raw["events"][origin as usize]["turn"]);
        }
        let k = e["projected_turn"].as_u64().unwrap() as usize;
        assert!(k < projected["turn_origins"].as_array().unwrap().len());
    }
    // stats: from_turn/to_turn 0-based in JSON, the table 1-based.
    let stats = json(&jp_inspect(&["stats", "csvq", "--json"], tmp.path()));
    let c = &stats["compactions"][1];
    assert_eq!(
        (c["from_turn"].as_u64(), c["to_turn"].as_u64()),
        (Some(5), Some(7))
    );
    assert!(c.get("range").is_none(), "one base per document");
    let table =
        String::from_utf8_lossy(&jp_inspect(&["stats", "csvq"], tmp.path()).stdout).to_string();
    assert!(
        table
            .lines()
            .any(|l| l.contains(" auto ") && l.contains("6..8")),
        "{table}"
    );
    // The rule a user types from that listing compacts the turns it shows.
    let out = json(&jp_inspect(
        &["compact", "csvq", "r+t:10..12", "--dry-run", "--json"],
        tmp.path(),
    ));
    let c = &out["compactions"][0];
    assert_eq!(
        (c["from_turn"].as_u64(), c["to_turn"].as_u64()),
        (Some(9), Some(11))
    );
}

#[test]
fn saved_adds_up_can_be_negative_and_a_no_op_is_not_written_unless_forced() {
    let (tmp, dirs) = workspace();
    let events = dirs[0].join("events.json");
    let out = jp_inspect(&["compact", "csvq", "r+t:10..12"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let after_first = fs::read(&events).unwrap();
    // The same rule again changes nothing: said, and nothing written.
    let out = jp_inspect(&["compact", "csvq", "r+t:10..12"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("changes nothing") && text.contains("--force"),
        "{text}"
    );
    assert_eq!(fs::read(&events).unwrap(), after_first);
    let out = jp_inspect(&["compact", "csvq", "r+t:10..12", "--force"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_ne!(fs::read(&events).unwrap(), after_first, "--force writes it");

    // A lighter rule over the automatic strip raises the estimate: said.
    let out = jp_inspect(&["compact", "csvq", "t=sreq:6..8"], tmp.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("`t=sreq:6..8` raises the estimate by"),
        "{text}"
    );

    // stats: each row saves given the ones before; the rows add up.
    let v = json(&jp_inspect(&["stats", "csvq", "--json"], tmp.path()));
    let saved: Vec<i64> = v["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["tokens_saved"].as_i64().unwrap())
        .collect();
    assert_eq!(saved.len(), 5);
    assert_eq!(saved[3], 0, "the forced duplicate saves nothing");
    assert!(saved[4] < 0, "{saved:?}");
    let total = v["raw"]["tokens"].as_i64().unwrap() - v["projected"]["tokens"].as_i64().unwrap();
    // The context's rows add up to it too.
    let ctx = &v["context"];
    let parts: Vec<u64> = ["system_prompt", "tools", "events"]
        .iter()
        .map(|k| ctx[k].as_u64().unwrap())
        .collect();
    assert_eq!(
        parts.iter().sum::<u64>(),
        ctx["tokens"].as_u64().unwrap(),
        "{ctx}"
    );
    assert_eq!(saved.iter().sum::<i64>(), total);
    let table =
        String::from_utf8_lossy(&jp_inspect(&["stats", "csvq"], tmp.path()).stdout).to_string();
    assert!(
        table.lines().any(|l| l.contains("6..8")
            && l.trim_end()
                .ends_with(&jp_inspect::core::fmt::signed_thousands(saved[4]))),
        "{table}"
    );
}

/// One figure, one rounding: what `compact` says a rule saves is what
/// `stats` then lists for that compaction, for several rules, and the
/// system prompt's tokens are the same in both places of `stats --json`.
#[test]
fn what_a_compaction_saves_is_one_figure_everywhere() {
    for rule in ["t:10..12", "r+t:13..15", "t=sreq:16..18", "r:20"] {
        let tmp = tempfile::tempdir().unwrap();
        common::demo_copy(tmp.path());
        let planned = json(&jp_inspect(
            &["compact", "csvq", rule, "--json"],
            tmp.path(),
        ));
        let said = planned["compactions"][0]["tokens_saved"].as_i64().unwrap();
        let stats = json(&jp_inspect(&["stats", "csvq", "--json"], tmp.path()));
        let listed = stats["compactions"].as_array().unwrap().last().unwrap()["tokens_saved"]
            .as_i64()
            .unwrap();
        assert_eq!(
            said, listed,
            "{rule}: compact said {said}, stats lists {listed}"
        );
        assert_eq!(
            stats["system_prompt"]["tokens"], stats["context"]["system_prompt"],
            "{rule}"
        );
    }
}

/// A window too small for what every request carries is refused with the
/// reason; a reserve over half the window is capped and said to be.
#[test]
fn a_window_too_small_is_refused_and_a_capped_reserve_is_said() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    for args in [
        &["stats", "csvq", "--window", "10"][..],
        &["auto", "csvq", "--dry-run", "--window", "1k"][..],
        &["history", "csvq", "--window", "10"][..],
    ] {
        let out = jp_inspect(args, tmp.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("leaves no room") && err.contains("system prompt and tools"),
            "{args:?}: {err}"
        );
    }
    let v = json(&jp_inspect(
        &["stats", "csvq", "--window", "24k", "--json"],
        tmp.path(),
    ));
    assert_eq!(v["window"]["reserve"], 12_000);
    assert_eq!(v["window"]["reserve_capped_from"], 16_000);
    assert!(
        v["window"]["reserve_source"]
            .as_str()
            .unwrap()
            .contains("capped at half the window from 16,000")
    );
}

/// A lighter rule over a wider range names the earlier compaction whose
/// work it undoes by that compaction's turns, not by its own.
#[test]
fn raising_the_estimate_names_the_earlier_compactions_turns() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = jp_inspect(
        &["compact", "csvq", "t=sreq:6..10", "--dry-run"],
        tmp.path(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("it lets back in what an earlier compaction of turns 6..8 took out"),
        "{text}"
    );
}

/// docs/headless.md's table of what each `--json` holds is what the binary
/// prints: the documented top-level fields, in order, for every command a
/// demo copy can run.
#[test]
fn the_json_fields_the_docs_list_are_those_printed() {
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/headless.md"),
    )
    .unwrap();
    let documented = |command: &str| -> Vec<String> {
        let row = docs
            .lines()
            .find(|l| l.starts_with(&format!("| `{command}` |")))
            .unwrap_or_else(|| panic!("no row for {command}"));
        let fields = row.split('|').nth(2).unwrap();
        // The top level only: what a parenthesis says is inside a field or
        // another form of the command.
        let mut depth = 0;
        let mut top = String::new();
        for c in fields.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                c if depth == 0 => top.push(c),
                _ => {}
            }
        }
        top.split(',')
            .filter_map(|f| {
                let f = f.trim();
                f.strip_prefix('`')?.split('`').next().map(str::to_string)
            })
            .collect()
    };
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    for args in [
        &["stats", "csvq"][..],
        &["lost", "csvq"],
        &["history", "csvq"],
        &["tools", "csvq"],
        &["list"],
        &["compact", "csvq", "t:10..12", "--dry-run"],
        &["auto", "csvq", "--dry-run"],
        &["reset", "csvq", "--auto", "--dry-run"],
    ] {
        let mut with_json = args.to_vec();
        with_json.push("--json");
        let v = common::json(&common::run_in(tmp.path(), &with_json));
        let printed: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(printed, documented(args[0]), "{args:?}");
    }
}
