//! What the model still knows after a compaction: facts planted in known
//! turns of a conversation, judged through the real binary (`compact
//! --dry-run`, `lost`) and in the inspector's preview.

use crate::common;

use base64::Engine as _;
use common::harness::Harness;
use crossterm::event::KeyCode;
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

fn ts(turn: usize, k: usize) -> String {
    format!("2026-11-20 10:{turn:02}:{k:02}.000000")
}

/// Five turns; in turn 2 a file read, a failing `cargo test`, the user's
/// instruction buried mid-message, a link and a decision; in turn 4 an
/// instruction outside any range compacted here.
fn planted(root: &Path) -> PathBuf {
    let dir = root.join(".jp/conversations/17950000000-planted");
    fs::create_dir_all(&dir).unwrap();
    let mut ev: Vec<Value> = Vec::new();
    let user = |ev: &mut Vec<Value>, turn: usize, text: &str| {
        ev.push(json!({"timestamp": ts(turn, 0), "type": "turn_start"}));
        ev.push(json!({"timestamp": ts(turn, 1), "type": "chat_request", "content": text}));
    };
    let say = |ev: &mut Vec<Value>, turn: usize, text: &str| {
        ev.push(json!({"timestamp": ts(turn, 9), "type": "chat_response", "message": text}));
    };
    let call = |ev: &mut Vec<Value>,
                turn: usize,
                id: &str,
                name: &str,
                args: Value,
                out: &str,
                err: bool| {
        let args: serde_json::Map<String, Value> = args
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    match v {
                        Value::String(s) => json!(b64(s)),
                        other => other.clone(),
                    },
                )
            })
            .collect();
        ev.push(json!({"timestamp": ts(turn, 3), "type": "tool_call_request", "id": id, "name": name, "arguments": args}));
        ev.push(json!({"timestamp": ts(turn, 4), "type": "tool_call_response", "id": id, "content": b64(out), "is_error": err}));
    };
    user(
        &mut ev,
        0,
        "Set up the csvq project for a first release please.",
    );
    say(&mut ev, 0, "The project builds and its layout is ready.");
    user(
        &mut ev,
        1,
        "The parser gets precedence wrong. Have a look at it, and always run cargo fmt \
         before you commit anything. The grammar is at https://example.org/csvq/grammar for \
         reference.",
    );
    call(
        &mut ev,
        1,
        "c1",
        "fs_read_file",
        json!({"path": "src/parser.rs"}),
        &"fn parse() {}\n".repeat(400),
        false,
    );
    call(
        &mut ev,
        1,
        "c2",
        "cargo_test",
        json!({}),
        "running 4 tests\ntest parser::precedence ... FAILED\nerror: test failed, to rerun pass `--lib`",
        true,
    );
    say(
        &mut ev,
        1,
        "The tests show it: OR binds tighter than AND here. I'll store precedence as a table \
         instead of nested ifs.",
    );
    user(&mut ev, 2, "Sounds good, go on with the table.");
    say(&mut ev, 2, "Working on the table now.");
    user(&mut ev, 3, "Never push to main without a review from Mara.");
    say(&mut ev, 3, "Understood, nothing goes to main unreviewed.");
    user(&mut ev, 4, "Thanks, that is all for today.");
    say(&mut ev, 4, "Good night.");
    fs::write(
        dir.join("events.json"),
        serde_json::to_string_pretty(&ev).unwrap(),
    )
    .unwrap();
    fs::write(
        dir.join("base_config.json"),
        r#"{"assistant": {"model": {"id": {"provider": "anthropic", "name": "claude-sonnet-4-5"}}}}"#,
    )
    .unwrap();
    dir
}

fn facts_of(out: &std::process::Output) -> Vec<Value> {
    let v = common::json(out);
    v["compactions"][0]["facts"].as_array().unwrap().clone()
}

fn find<'a>(facts: &'a [Value], kind: &str, text: &str) -> &'a Value {
    facts
        .iter()
        .find(|f| f["kind"] == kind && f["text"].as_str().unwrap().contains(text))
        .unwrap_or_else(|| panic!("no {kind} fact with {text:?}: {facts:#?}"))
}

/// A bare "yes" asks for what the model offered: the offer it ended on is
/// the instruction, and a summary that tells the offer keeps it.
#[test]
fn a_bare_yes_is_the_offer_it_accepts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".jp/conversations/17950000001-yes");
    fs::create_dir_all(&dir).unwrap();
    let turn = |k: usize, asked: &str, said: &str| {
        [
            json!({"timestamp": ts(k, 0), "type": "turn_start"}),
            json!({"timestamp": ts(k, 1), "type": "chat_request", "content": asked}),
            json!({"timestamp": ts(k, 9), "type": "chat_response", "message": said}),
        ]
    };
    let mut ev: Vec<Value> = Vec::new();
    ev.extend(turn(
        0,
        "The loader fails on a missing config folder.",
        "The guard rejects a folder that does not exist yet.\n\nWant me to write the fix with a failing test first?",
    ));
    ev.extend(turn(
        1,
        "yes",
        "Done: the test fails before the fix and passes after.",
    ));
    fs::write(
        dir.join("events.json"),
        serde_json::to_string_pretty(&ev).unwrap() + "\n",
    )
    .unwrap();
    let c = dir.to_str().unwrap();
    let facts_with = |summary: &str| {
        let args = [
            "compact",
            c,
            "s:1..2",
            "--summary",
            summary,
            "--dry-run",
            "--json",
        ];
        facts_of(&common::run_in(tmp.path(), &args))
    };
    let facts = facts_with("We looked at the loader.");
    let yes = find(&facts, "instruction", "yes (to: Want me to write the fix");
    assert_eq!(yes["kept"], false, "{yes}");
    let facts = facts_with("The user asked for the fix, written with a failing test first.");
    let yes = find(&facts, "instruction", "yes (to: Want me to write the fix");
    assert_eq!(yes["kept"], true, "{yes}");
}

#[test]
fn a_summary_keeps_what_it_names_and_loses_what_it_omits() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = planted(tmp.path());
    let c = conv.to_str().unwrap();
    let out = common::run_in(
        tmp.path(),
        &[
            "compact",
            c,
            "s:2..3",
            "--summary",
            "We looked at src/parser.rs and chose a precedence table.",
            "--dry-run",
            "--json",
        ],
    );
    let facts = facts_of(&out);
    let file = find(&facts, "file", "src/parser.rs");
    assert_eq!(
        (file["kept"].clone(), file["where"].clone()),
        (json!(true), json!("summary"))
    );
    assert_eq!(file["turn"], 2);
    for (kind, text) in [
        ("command", "cargo_test"),
        ("error", "precedence ... FAILED"),
        ("instruction", "always run cargo fmt"),
        ("url", "https://example.org/csvq/grammar"),
    ] {
        let f = find(&facts, kind, text);
        assert_eq!(f["kept"], false, "{f}");
        // "looked at" shares a word with "Have a look": at most partly.
        assert!(f["where"].is_null() || f["where"] == "partly", "{f}");
    }
    // Outside the range: not one of its facts.
    assert!(
        !facts
            .iter()
            .any(|f| f["text"].as_str().unwrap().contains("Never push")),
        "{facts:#?}"
    );
    let survival = &common::json(&out)["compactions"][0]["survival"];
    assert_eq!(survival["file"], json!({"total": 1, "kept": 1}));
    // What the user asked in turns 2 and 3: to look and always run cargo
    // fmt, and to go on with the table; the bug report and the link to the
    // grammar are context. "chose a precedence table" tells the second.
    assert_eq!(survival["instruction"], json!({"total": 2, "kept": 1}));

    // The text says it, the most important first.
    let text = common::run_in(
        tmp.path(),
        &[
            "compact",
            c,
            "s:2..3",
            "--summary",
            "We looked at src/parser.rs.",
            "--dry-run",
        ],
    );
    let said = String::from_utf8_lossy(&text.stdout);
    let lose = said
        .split("would lose:")
        .nth(1)
        .unwrap_or_else(|| panic!("{said}"));
    let instruction = lose.find("instruction").unwrap();
    let error = lose.find("error").unwrap();
    let command = lose.find("command").unwrap();
    assert!(instruction < error && error < command, "{said}");
    assert!(said.contains("1 of 1 files"), "{said}");
    assert!(said.contains("0 of 2 instructions"), "{said}");
}

#[test]
fn a_strip_keeps_the_messages_and_loses_the_stripped_error() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = planted(tmp.path());
    let c = conv.to_str().unwrap();
    let out = common::run_in(tmp.path(), &["compact", c, "t:2..3", "--dry-run", "--json"]);
    let facts = facts_of(&out);
    for (kind, text) in [
        ("instruction", "always run cargo fmt"),
        ("url", "https://example.org/csvq/grammar"),
        ("decision", "I'll store precedence as a table"),
    ] {
        let f = find(&facts, kind, text);
        assert_eq!(f["kept"], true, "{f}");
        assert_eq!(f["where"], "kept_event", "{f}");
    }
    assert_eq!(
        find(&facts, "error", "precedence ... FAILED")["kept"],
        false
    );
    assert_eq!(find(&facts, "file", "src/parser.rs")["kept"], false);

    // Written, `lost` judges it the same way, and counts the session.
    let out = common::run_in(tmp.path(), &["compact", c, "t:2..3"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let lost = common::json(&common::run_in(tmp.path(), &["lost", c, "--json"]));
    let written = lost["compactions"][0]["facts"].as_array().unwrap();
    assert_eq!(written, &facts);
    let text = common::run_in(tmp.path(), &["lost", c]);
    let said = String::from_utf8_lossy(&text.stdout);
    // An unfixed error lost is marked.
    assert!(
        said.lines()
            .any(|l| l.trim_start().starts_with("! turn 2") && l.contains("error")),
        "{said}"
    );
    assert!(said.contains("the session keeps"), "{said}");
    // The JSON carries the session's totals the text says: one
    // compaction, so its own survival.
    let session = &lost["session"];
    assert_eq!(
        session["survival"], lost["compactions"][0]["survival"],
        "{lost:#}"
    );
    let describe = session["describe"].as_str().unwrap();
    assert!(
        said.contains(&format!("the session keeps {describe}")),
        "{said}"
    );
}

/// The inspector's preview says what the model would still know, per
/// kind, as it says the tokens.
#[test]
fn the_preview_says_what_it_keeps() {
    for (w, h) in [(80, 24), (200, 50)] {
        let mut h = Harness::new(w, h, false);
        h.char('p');
        // The demo's turns 2..5 are a person's summary already.
        h.typed("s:10..12");
        h.key(KeyCode::Enter);
        let preview = h.state.preview.as_ref().expect("a preview");
        let (survival, _) = preview.survival().expect("the digest made its summary");
        assert!(survival.0.len() >= 2, "{survival:?}");
        let text = h.text();
        assert!(text.contains(" of "), "{text}");
        if w == 200 {
            let line = text.lines().find(|l| l.contains("PREVIEW")).unwrap();
            assert!(line.contains(&survival.describe()), "{line}");
        }
        insta::assert_snapshot!(
            format!("preview_facts_{w}x{}", h.state.height),
            h.screen().backend()
        );
    }
}

/// The digest keeps at least 90 % of the files, commands, errors and
/// instructions of its range, within a quarter of a range over 20k tokens,
/// over every conversation of the corpus.
#[test]
fn the_digest_keeps_what_matters_within_a_quarter_of_a_large_range() {
    let mut kept = std::collections::BTreeMap::<String, (u64, u64)>::new();
    for source in common::corpus() {
        let conv = jp_inspect::core::ops::read::whole(&source).unwrap();
        if conv.turn_count < 5 {
            continue;
        }
        let (ws, dir) = common::workspace_with(&source);
        let out = common::run_in(
            ws.path(),
            &[
                "compact",
                dir.to_str().unwrap(),
                "s:2..-3",
                "--dry-run",
                "--summarize",
                "--summarizer",
                "digest",
                "--json",
            ],
        );
        let v = common::json(&out);
        for c in v["compactions"].as_array().unwrap() {
            let (from, to) = (
                c["from_turn"].as_u64().unwrap() as usize,
                c["to_turn"].as_u64().unwrap() as usize,
            );
            let range_chars: u64 = conv
                .events_of_turns(from, to)
                .map(|i| conv.events[i].chars)
                .sum();
            let summary = c["summary"]["summary"]
                .as_str()
                .or(c["summary"].as_str())
                .unwrap();
            if range_chars > 80_000 {
                assert!(
                    summary.chars().count() as u64 <= range_chars / 4,
                    "{source:?}: {} of {range_chars}",
                    summary.chars().count()
                );
            }
            for (kind, n) in c["survival"].as_object().unwrap() {
                let e = kept.entry(kind.clone()).or_default();
                e.0 += n["kept"].as_u64().unwrap();
                e.1 += n["total"].as_u64().unwrap();
            }
        }
    }
    eprintln!("digest survival: {kept:?}");
    for kind in ["file", "command", "error", "instruction"] {
        let (k, n) = kept.get(kind).copied().unwrap_or_default();
        assert!(n > 0, "no {kind} facts in the corpus: {kept:?}");
        assert!(k * 10 >= n * 9, "{kind}: {k} of {n}");
    }
}

/// `E` on a preview's summary: the text in an editor, the range's facts
/// beside it checked as the person types; Ctrl-S keeps the text and `a`
/// writes it as an authored summary.
#[test]
fn e_writes_a_summary_against_its_checklist() {
    use jp_inspect::core::ops::FactKind;
    use jp_inspect::tui::panels::Panel;
    for (w, hgt) in [(80, 24), (200, 50)] {
        let mut h = Harness::new(w, hgt, false);
        h.char('p');
        h.typed("s:10..12");
        h.key(KeyCode::Enter);
        h.char('E');
        let Some(Panel::Summary(e)) = &mut h.state.panel else {
            panic!("no editor: {}", h.text());
        };
        assert!(
            e.text().starts_with("Digest of turns 10-12"),
            "{}",
            e.text()
        );
        assert!(
            e.checks.iter().all(Option::is_some),
            "the digest names them all"
        );
        // Start from nothing, as a person writing their own.
        e.area = tui_textarea::TextArea::default();
        e.recheck();
        let file = e
            .facts
            .iter()
            .position(|f| f.kind == FactKind::File)
            .expect("a file in turns 10..12");
        let path = e.facts[file].key.clone();
        assert!(e.checks.iter().all(Option::is_none));
        let text = format!("Reviewed {path} and kept the layout.");
        h.typed(&text);
        let Some(Panel::Summary(e)) = &h.state.panel else {
            panic!("closed by typing");
        };
        // While keys come, the checks wait: a key is drawn at once.
        assert!(e.is_stale() && h.state.wants_idle());
        assert!(e.checks[file].is_none(), "judged at every key");
        h.act(jp_inspect::tui::msg::Msg::Idle);
        let Some(Panel::Summary(e)) = &h.state.panel else {
            panic!("closed by idling");
        };
        assert!(!h.state.wants_idle());
        assert_eq!(e.text(), text);
        assert!(e.checks[file].is_some(), "{path} named");
        assert!(
            e.checks.iter().any(Option::is_none),
            "not every fact is named by one sentence"
        );
        let screen = h.text();
        // What is left to name first; the named file after it, in view
        // where the list has the room.
        assert!(screen.contains("✗ "), "{screen}");
        assert!(hgt < 50 || screen.contains("✓ file"), "{screen}");
        insta::assert_snapshot!(format!("summary_editor_{w}x{hgt}"), h.screen().backend());
        // Ctrl-S keeps it, previewed as the person's; `a` writes it.
        h.act(jp_inspect::tui::msg::Msg::Key(
            crossterm::event::KeyEvent::new(
                KeyCode::Char('s'),
                crossterm::event::KeyModifiers::CONTROL,
            ),
        ));
        assert!(h.state.panel.is_none());
        assert!(h.state.preview.is_some(), "{}", h.text());
        h.char('a');
        let events: Vec<Value> =
            serde_json::from_slice(&fs::read(h.dir().join("events.json")).unwrap()).unwrap();
        let last = events
            .iter()
            .rev()
            .find(|e| e["type"] == "compaction")
            .unwrap();
        assert_eq!(last["summary"]["summary"], text.as_str(), "{last}");
        assert_eq!(last["summary"]["source"], "authored", "{last}");
        assert_eq!(
            (last["from_turn"].clone(), last["to_turn"].clone()),
            (json!(9), json!(11))
        );
    }
}

/// `E` where there is no summary says how to get one.
#[test]
fn e_without_a_summary_says_what_to_do() {
    let mut h = Harness::new(120, 36, false);
    h.char('E');
    assert!(h.state.panel.is_none());
    assert!(h.text().contains("E edits a summary"), "{}", h.text());
}

/// `simulate` says what each policy leaves the model knowing, per kind,
/// beside its tokens: the staged policy and D50 compared on what they keep.
#[test]
fn simulate_reports_survival_per_policy() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let v = common::json(&common::run_in(
        tmp.path(),
        &["simulate", "csvq", "--windows", "64k", "--json"],
    ));
    let runs = v["runs"].as_array().unwrap();
    let of = |policy: &str| {
        runs.iter()
            .find(|r| r["policy"] == policy)
            .unwrap_or_else(|| panic!("{policy}: {runs:?}"))["survival"]
            .clone()
    };
    assert_eq!(of("none"), json!({}), "nothing compacted, nothing lost");
    for policy in ["single", "staged"] {
        let s = of(policy);
        let kinds = s.as_object().unwrap();
        assert!(kinds.len() >= 2, "{policy}: {s}");
        for (kind, n) in kinds {
            assert!(
                n["kept"].as_u64() <= n["total"].as_u64(),
                "{policy} {kind}: {n}"
            );
        }
    }
    let text = common::run_in(tmp.path(), &["simulate", "csvq", "--windows", "64k"]);
    let said = String::from_utf8_lossy(&text.stdout);
    assert!(
        said.lines().any(|l| l.trim_start().starts_with("keeps ")),
        "{said}"
    );
}

/// `E` on a stored summary starts from its text; what is kept becomes a
/// new authored compaction over the same range (the old one stays).
#[test]
fn e_on_a_stored_summary_starts_from_its_text() {
    use jp_inspect::tui::panels::Panel;
    let mut h = Harness::new(120, 36, false);
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    h.char('E');
    let Some(Panel::Summary(e)) = &h.state.panel else {
        panic!("no editor: {}", h.text());
    };
    let stored = h.state.inspection.as_ref().unwrap().projection.overlays[0]
        .compaction
        .summary
        .clone()
        .unwrap();
    assert_eq!(e.text(), stored);
    assert_eq!(e.range.human(), "2..5");
    // A sentence more, at its end.
    if let Some(Panel::Summary(e)) = &mut h.state.panel {
        e.area.move_cursor(tui_textarea::CursorMove::Bottom);
        e.area.move_cursor(tui_textarea::CursorMove::End);
    }
    h.typed(" The cargo test run failed once, then passed.");
    h.act(jp_inspect::tui::msg::Msg::Key(
        crossterm::event::KeyEvent::new(
            KeyCode::Char('s'),
            crossterm::event::KeyModifiers::CONTROL,
        ),
    ));
    // Longer than the summary it stands beside, it is asked about first.
    h.char('a');
    assert!(h.text().contains("Apply it anyway?"), "{}", h.text());
    h.char('y');
    let events: Vec<Value> =
        serde_json::from_slice(&fs::read(h.dir().join("events.json")).unwrap()).unwrap();
    let summaries: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "compaction" && e["from_turn"] == 1 && e["to_turn"] == 4)
        .collect();
    assert_eq!(
        summaries.len(),
        2,
        "the old one stays, the new one is added"
    );
    assert_eq!(
        summaries[1]["summary"]["summary"],
        format!("{stored} The cargo test run failed once, then passed.").as_str()
    );
    assert_eq!(summaries[1]["summary"]["source"], "authored");
}

/// The compaction list says what the model still knows of each range as
/// the conversation opens, and marks a compaction that lost an instruction
/// or an unfixed error.
#[test]
fn the_list_marks_what_each_compaction_lost() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = planted(tmp.path());
    let c = conv.to_str().unwrap();
    for args in [
        &["t:2..3"][..],
        &[
            "s:4..4",
            "--summary",
            "Never push to main without a review from Mara.",
        ][..],
    ] {
        let out = common::run_in(tmp.path(), &[&["compact", c][..], args].concat());
        assert!(out.status.success(), "{}", common::stderr(&out));
    }
    let lost = common::json(&common::run_in(tmp.path(), &["lost", c, "--json"]));
    let total = |k: usize| {
        let s = lost["compactions"][k]["survival"].as_object().unwrap();
        // The figure counts the precise kinds only.
        let counted = ["file", "command", "error", "instruction"];
        let n = |f: &str| {
            s.iter()
                .filter(|(k, _)| counted.contains(&k.as_str()))
                .map(|(_, v)| v[f].as_u64().unwrap())
                .sum::<u64>()
        };
        (n("kept"), n("total"))
    };
    let mut options = jp_inspect::tui::Options::picker(tmp.path().to_path_buf(), Vec::new());
    options.picker = None;
    options.dir = conv.clone();
    // As it opens, the list focused or not: a person scanning it sees
    // the `!` at once.
    let h = Harness::opened(options, (160, 40), tmp);
    let text = h.text();
    let (kept, all) = total(0);
    let row = text
        .lines()
        .find(|l| l.contains("#1 ") && l.contains("saved"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(row.contains(&format!("!knows {kept}/{all}")), "{row}");
    let (kept, all) = total(1);
    let row = text
        .lines()
        .find(|l| l.contains("#2 ") && l.contains("saved"))
        .unwrap();
    assert!(row.contains(&format!(" knows {kept}/{all}")), "{row}");
}

/// Links a reviewer writes down, by class: what the base config attaches,
/// an issue referenced by number, a remote search of one repository per
/// query, and of a pasted list only the links the assistant discusses.
#[test]
fn links_by_class_attachments_references_searches_and_pasted_lists() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".jp/conversations/17950000001-links");
    fs::create_dir_all(&dir).unwrap();
    let table: String = (0..60)
        .map(|k| format!("{k},[model-{k:03}-base](https://models.example/org/model-{k:03}-base)\n"))
        .collect();
    let b = |s: &str| b64(s);
    let ev = json!([
        {"timestamp": ts(0, 0), "type": "turn_start"},
        {"timestamp": ts(0, 1), "type": "chat_request",
         "content": format!("Pick one of these:\n\n```csv\n{table}```\n")},
        {"timestamp": ts(0, 2), "type": "tool_call_request", "id": "s1", "name": "github_code_search",
         "arguments": {"repository": b("acme/grammars"), "query": b("abnf scopeName")}},
        {"timestamp": ts(0, 3), "type": "tool_call_response", "id": "s1", "content": b("no matches"), "is_error": false},
        {"timestamp": ts(0, 4), "type": "tool_call_request", "id": "s2", "name": "github_code_search",
         "arguments": {"repository": b("acme/grammars"), "query": b("wit tmLanguage")}},
        {"timestamp": ts(0, 5), "type": "tool_call_response", "id": "s2", "content": b("no matches"), "is_error": false},
        {"timestamp": ts(0, 6), "type": "tool_call_request", "id": "w1", "name": "fs_create_file",
         "arguments": {"path": b("docs/rfd/032-search.md"), "content": b("Crate: https://crates.io/crates/fastembed, 20 MB.")}},
        {"timestamp": ts(0, 7), "type": "tool_call_response", "id": "w1", "content": b("created"), "is_error": false},
        {"timestamp": ts(0, 8), "type": "tool_call_request", "id": "w2", "name": "fs_create_file",
         "arguments": {"path": b("src/lib.rs"), "content": b("// https://example.com/in-code\nfn f() {}")}},
        {"timestamp": ts(0, 8), "type": "tool_call_response", "id": "w2", "content": b("created"), "is_error": false},
        {"timestamp": ts(0, 9), "type": "chat_response",
         "message": "Take `model-007-base`: it is small. The bug came in with #598, not in step #2."},
    ]);
    fs::write(
        dir.join("events.json"),
        serde_json::to_string_pretty(&ev).unwrap(),
    )
    .unwrap();
    fs::write(
        dir.join("base_config.json"),
        r#"{"conversation": {"attachments": ["file:///docs/rfd/032-search.md", "cmd://date"]}}"#,
    )
    .unwrap();
    let c = dir.to_str().unwrap();
    let out = common::run_in(tmp.path(), &["compact", c, "s:1..1", "--dry-run", "--json"]);
    let facts = facts_of(&out);
    let urls: Vec<&str> = facts
        .iter()
        .filter(|f| f["kind"] == "url")
        .map(|f| f["text"].as_str().unwrap())
        .collect();
    find(&facts, "url", "attached: file:///docs/rfd/032-search.md");
    find(&facts, "url", "with #598");
    find(&facts, "url", "query=abnf scopeName");
    find(&facts, "url", "query=wit tmLanguage");
    find(&facts, "url", "https://models.example/org/model-007-base");
    // A document the model wrote names its links; code it wrote doesn't.
    find(&facts, "url", "https://crates.io/crates/fastembed");
    assert_eq!(urls.len(), 6, "{urls:#?}");
    // A list's `#2` is no reference of its own (six links in all), `#598`
    // is no figure, and a written document's figures are not listed.
    assert!(!facts.iter().any(|f| f["kind"] == "number"), "{facts:#?}");
}

/// An elision that strips a read's large result keeps its call: the path
/// is still named, what was read is gone, so the file is not kept, and
/// `lost` says so.
#[test]
fn a_read_whose_result_is_stripped_is_named_not_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = planted(tmp.path());
    let c = conv.to_str().unwrap();
    let out = common::run_in(
        tmp.path(),
        &[
            "compact",
            c,
            "t:2..3",
            "--over",
            "1KiB",
            "--dry-run",
            "--json",
        ],
    );
    let facts = facts_of(&out);
    let file = find(&facts, "file", "src/parser.rs");
    assert_eq!(
        (file["kept"].clone(), file["where"].clone()),
        (json!(false), json!("named")),
        "{file}"
    );
    // The small failing result is still sent whole: its error is kept.
    assert_eq!(find(&facts, "error", "precedence ... FAILED")["kept"], true);
    let out = common::run_in(tmp.path(), &["compact", c, "t:2..3", "--over", "1KiB"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let said =
        String::from_utf8_lossy(&common::run_in(tmp.path(), &["lost", c]).stdout).to_string();
    assert!(
        said.lines()
            .any(|l| l.contains("src/parser.rs") && l.ends_with("(named, contents gone)")),
        "{said}"
    );
}

/// The editor keeps what a person wrote: Esc on a changed text asks
/// first, a dropped edit is offered again by `E` on the same turns, Ctrl-R
/// starts over from the summary as it was, the checklist scrolls on its
/// own keys, and a text saved in `$EDITOR` (Ctrl-E) comes back judged.
#[test]
fn e_asks_before_dropping_an_edit_and_offers_it_again() {
    use crossterm::event::{KeyEvent, KeyModifiers};
    use jp_inspect::tui::msg::Msg;
    use jp_inspect::tui::panels::Panel;
    let ctrl = |c: KeyCode| Msg::Key(KeyEvent::new(c, KeyModifiers::CONTROL));
    let editor_text = |h: &Harness| match &h.state.panel {
        Some(Panel::Summary(e)) => Some(e.text()),
        _ => None,
    };
    let mut h = Harness::new(80, 24, false);
    h.char('p');
    h.typed("s:10..12");
    h.key(KeyCode::Enter);
    h.char('E');
    let original = editor_text(&h).expect("the editor");
    // Esc on an unchanged text closes at once.
    h.key(KeyCode::Esc);
    assert!(h.state.panel.is_none());
    h.char('E');
    h.typed("Mine: ");
    let mine = editor_text(&h).unwrap();
    assert!(mine.starts_with("Mine: Digest of turns 10-12"), "{mine}");
    h.key(KeyCode::Esc);
    assert_eq!(
        editor_text(&h).as_deref(),
        Some(mine.as_str()),
        "asked first"
    );
    assert!(h.text().contains("Esc again drops it"), "{}", h.text());
    h.key(KeyCode::Esc);
    assert!(h.state.panel.is_none());
    // Offered again on the same turns, with the way back.
    h.char('E');
    assert_eq!(editor_text(&h).as_deref(), Some(mine.as_str()));
    assert!(
        h.text().contains("your last edit of turns 10..12"),
        "{}",
        h.text()
    );
    h.act(ctrl(KeyCode::Char('r')));
    assert_eq!(editor_text(&h).as_deref(), Some(original.as_str()));
    // The checklist scrolls; typing `q` types it.
    h.act(ctrl(KeyCode::Down));
    let Some(Panel::Summary(e)) = &h.state.panel else {
        panic!("closed by scrolling");
    };
    assert_eq!(e.facts_scroll, 3);
    h.char('q');
    assert!(
        editor_text(&h).is_some_and(|t| t.starts_with('q')),
        "q is a letter here"
    );
    // What the person saved in their editor comes back, judged.
    h.act(Msg::EditedOutside(Ok(
        "Only src/value.rs was reviewed.\n".into()
    )));
    assert_eq!(
        editor_text(&h).as_deref(),
        Some("Only src/value.rs was reviewed.")
    );
    assert!(
        h.text().contains("back from the editor: your text names"),
        "{}",
        h.text()
    );
    h.act(Msg::EditedOutside(Err(
        "`nano` ended with exit status: 1".into()
    )));
    assert!(
        editor_text(&h).is_some(),
        "an editor that failed changes nothing"
    );
    assert!(h.text().contains("`nano` ended"), "{}", h.text());
}

/// A long line of a summary wraps in the editor instead of scrolling
/// sideways, the cursor's row kept on screen.
#[test]
fn e_wraps_a_long_line() {
    use jp_inspect::tui::panels::Panel;
    let mut h = Harness::new(80, 24, false);
    h.char('p');
    h.typed("s:10..12");
    h.key(KeyCode::Enter);
    h.char('E');
    let Some(Panel::Summary(e)) = &mut h.state.panel else {
        panic!("no editor");
    };
    e.area = tui_textarea::TextArea::default();
    let words: Vec<String> = (1..=40).map(|k| format!("word{k}")).collect();
    h.typed(&words.join(" "));
    h.act(jp_inspect::tui::msg::Msg::Idle);
    let screen = h.text();
    for w in ["word1 ", "word20 ", "word40"] {
        assert!(screen.contains(w), "{w} hidden: {screen}");
    }
    insta::assert_snapshot!("summary_editor_wrapped_80x24", h.screen().backend());
}

/// Ctrl-E in the editor runs the person's `$EDITOR` (a real program in a
/// real terminal) on the text, and what it saved comes back: Ctrl-S keeps
/// it and `a` writes it as the authored summary of its turns.
#[cfg(unix)]
#[test]
fn ctrl_e_hands_the_summary_to_the_persons_editor_and_back() {
    use std::os::unix::fs::PermissionsExt;
    use std::time::Duration;
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    let editor = tmp.path().join("editor.sh");
    // The person's edit: the file's text replaced by theirs.
    fs::write(
        &editor,
        "#!/bin/sh\nprintf 'Only src/value.rs was reviewed.\\n' > \"$1\"\n",
    )
    .unwrap();
    fs::set_permissions(&editor, fs::Permissions::from_mode(0o755)).unwrap();
    let mut c = common::binary();
    c.arg(&conv)
        .current_dir(tmp.path())
        .env("TERM", "xterm-256color")
        .env("EDITOR", &editor)
        .env_remove("VISUAL")
        .env("JP_USER_DATA_DIR", "/nonexistent-jp-user-data");
    let mut pty = common::pty::Pty::spawn(c, 120, 36);
    let patience = Duration::from_secs(120);
    let wait = |pty: &common::pty::Pty, what: &str| {
        assert!(
            pty.wait_for(what, patience).is_some(),
            "waited for {what:?}: {}",
            pty.text()
        );
    };
    wait(&pty, "projected");
    pty.send(b"p");
    wait(&pty, "rule");
    pty.send(b"s:10..12\r");
    wait(&pty, "PREVIEW");
    pty.send(b"E");
    wait(&pty, "Ctrl-R");
    pty.send(b"\x05");
    wait(&pty, "back from the editor");
    // Ctrl-S keeps it, `a` writes it: the file says so.
    pty.send(b"\x13");
    wait(&pty, "your text) (turns");
    pty.send(b"a");
    let written = || {
        let events: Vec<Value> =
            serde_json::from_slice(&fs::read(conv.join("events.json")).unwrap())
                .unwrap_or_default();
        events
            .iter()
            .rev()
            .find(|e| e["type"] == "compaction")
            .map(|c| c["summary"].clone())
    };
    let start = std::time::Instant::now();
    while written().is_none_or(|s| s["summary"] != "Only src/value.rs was reviewed.") {
        assert!(start.elapsed() < patience, "never written: {}", pty.text());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(written().unwrap()["source"], "authored");
    pty.send(b"q");
    let status = pty.wait_exit(patience).expect("q ends the inspector");
    assert!(status.success(), "{status:?}");
}

/// Compactions stacked over the same turns list the same facts again: what
/// `lost` and the report list stays within a fixed multiple of the
/// conversation, says what it left out and where to read it whole.
#[test]
fn lost_and_the_report_stay_bounded_by_the_conversation() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    common::edit_events(&dir, |events| {
        let last = events.last().unwrap()["timestamp"].clone();
        for _ in 0..300 {
            events.push(json!({
                "type": "compaction", "timestamp": last, "from_turn": 0, "to_turn": 22,
                "reasoning": "strip", "source": "manual"
            }));
        }
    });
    let size = fs::metadata(dir.join("events.json")).unwrap().len() as usize;
    let d = dir.to_str().unwrap();
    let out = common::run_in(tmp.path(), &["lost", d, "--json"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(
        out.stdout.len() < 4 * size,
        "lost --json wrote {} bytes for a conversation of {size}",
        out.stdout.len()
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let all = v["compactions"].as_array().unwrap();
    let last = all.last().unwrap();
    let left = last["facts_left_out"]
        .as_u64()
        .expect("the last ones are cut");
    let counted = |c: &Value| -> u64 {
        c["survival"]
            .as_object()
            .unwrap()
            .values()
            .map(|k| k["total"].as_u64().unwrap())
            .sum()
    };
    // Its survival stays whole; what is listed and left out make it.
    assert_eq!(
        last["facts"].as_array().unwrap().len() as u64 + left,
        counted(last)
    );
    // Read whole, one at a time.
    let n = last["position"].as_u64().unwrap().to_string();
    let one = common::json(&common::run_in(
        tmp.path(),
        &["lost", d, "--compaction", &n, "--json"],
    ));
    let whole = &one["compactions"][0];
    assert_eq!(
        whole["facts"].as_array().unwrap().len() as u64,
        counted(last)
    );
    assert!(whole.get("facts_left_out").is_none());
    let text = common::run_in(tmp.path(), &["lost", d]);
    assert!(
        String::from_utf8_lossy(&text.stdout)
            .contains(&format!("--compaction {n}` lists them whole")),
    );
    let page = tmp.path().join("r.html");
    let out = common::run_in(tmp.path(), &["report", d, "-o", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let html = fs::read_to_string(&page).unwrap();
    assert!(
        html.len() < 6 * size,
        "the page is {} bytes for {size}",
        html.len()
    );
    assert!(html.contains("left out to keep this page bounded"));
}

/// The CPU seconds `lost` takes on the demo with one turn of `n` units of
/// each shape that once cost the square of its size: a sentence of many
/// figures, a tool result of many errors over source snippets, and a
/// pasted list of links beside a long answer.
fn lost_cpu(n: usize) -> f64 {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    common::edit_events(&dir, |ev| {
        let figures: String = (0..n).map(|k| format!(" took {k} ms and")).collect();
        let errors: String = (0..n)
            .map(|k| {
                format!(
                    "error[E0{:03}]: bad thing {k}\n  --> src/a{k}.rs:1:1\n   |\n 1 | x\n   |\n",
                    k % 1000
                )
            })
            .collect();
        let links: String = (0..n)
            .map(|k| format!("- https://example.com/docs/page-number-{k}\n"))
            .collect();
        let answer: String = (0..n).map(|k| format!("word{k} ")).collect();
        let turn = ts(40, 0);
        ev.push(json!({"timestamp": turn, "type": "turn_start"}));
        ev.push(json!({"timestamp": turn, "type": "chat_request", "content": format!("Here are the pages:\n{links}")}));
        ev.push(json!({"timestamp": turn, "type": "tool_call_request", "id": "big", "name": "cargo_check", "arguments": {}}));
        ev.push(json!({"timestamp": turn, "type": "tool_call_response", "id": "big", "content": b64(&errors), "is_error": false}));
        ev.push(json!({"timestamp": turn, "type": "chat_response", "message": format!("The run{figures} ended. {answer} page-number-7 is the one.")}));
    });
    let out = tmp.path().join("out.json");
    let child = common::isolated(&["lost", dir.to_str().unwrap(), "--json"], tmp.path())
        .stdout(fs::File::create(&out).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let (status, cpu) = cpu_of(child);
    assert_eq!(status, 0, "lost failed");
    serde_json::from_slice::<Value>(&fs::read(&out).unwrap()).expect("lost wrote JSON");
    cpu
}

/// Waits for `child`; its exit status and its own CPU seconds (of it
/// alone: the tests running beside it are not counted).
fn cpu_of(child: std::process::Child) -> (i32, f64) {
    let (status, u) = reaped(child);
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (status, s(u.ru_utime) + s(u.ru_stime))
}

/// Waits for `child`; its exit status and its own resource use.
fn reaped(child: std::process::Child) -> (i32, libc::rusage) {
    let mut status = 0;
    // SAFETY: wait4 reaps our own child and fills the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut u) }, pid);
    (libc::WEXITSTATUS(status), u)
}

/// The peak memory (KiB) of `lost --json` on the demo with `n` more
/// compactions over the same turns.
fn lost_peak_kib(n: usize) -> i64 {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    common::edit_events(&dir, |events| {
        let last = events.last().unwrap()["timestamp"].clone();
        for _ in 0..n {
            events.push(json!({
                "type": "compaction", "timestamp": last, "from_turn": 0, "to_turn": 22,
                "reasoning": "strip", "source": "manual"
            }));
        }
    });
    let child = common::isolated(&["lost", dir.to_str().unwrap(), "--json"], tmp.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let (status, u) = reaped(child);
    assert_eq!(status, 0, "lost failed");
    u.ru_maxrss
}

/// What `lost` holds is bounded as its listing is: eight times the
/// compactions over the same turns, each of whose ranges holds the same
/// facts again, cost what their entries cost, not eight times the facts
/// (before: 47 → 147 MB; after: 43 → 73 MB). Measured as the process's
/// own peak.
#[test]
fn lost_holds_no_more_than_it_lists() {
    let (small, large) = (lost_peak_kib(400), lost_peak_kib(3_200));
    eprintln!("lost: {small} KiB at n, {large} KiB at 8n");
    assert!(
        large * 10 < small * 22,
        "peak {small} KiB at n compactions, {large} KiB at 8n"
    );
}

/// Finding facts is linear: twice the text costs about twice the CPU
/// (the square would cost four times). Measured in CPU time of the
/// process, not on a clock, so a busy machine does not move it.
#[test]
fn facts_are_found_in_linear_time() {
    let (small, large) = (lost_cpu(4_000), lost_cpu(8_000));
    eprintln!("lost: {small:.2} s of CPU at n, {large:.2} s at 2n");
    assert!(
        large < 3.0 * small + 0.3,
        "lost took {small:.2} s of CPU at n and {large:.2} s at 2n"
    );
}

/// A lost figure is shown as the figure and the words around it, so a
/// reader sees which one was lost; no listed fact runs on past a line's
/// worth, and none is cut inside a word.
#[test]
fn a_lost_figure_is_shown_as_itself_in_its_words() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = common::run_in(
        tmp.path(),
        &[
            "compact",
            "csvq",
            "s:2..5",
            "--summary",
            "Fixed the parser.",
            "--dry-run",
        ],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let numbers: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("turn ") && l.contains(" number "))
        .collect();
    assert!(!numbers.is_empty(), "{text}");
    for l in &numbers {
        let shown = l.split(" number ").nth(1).unwrap().trim();
        let (figure, said) = shown.split_once(" — in “").unwrap_or_else(|| panic!("{l}"));
        assert!(said.contains(figure.trim()), "{l}");
    }
    for l in text.lines().filter(|l| l.trim_start().starts_with("turn ")) {
        assert!(l.chars().count() < 320, "{l}");
    }
}

/// The list's `knows N/M` stays through a preview made and dropped, and
/// through an apply and its undo: each new state asks for its marks.
#[test]
fn the_knows_column_stays_through_previews_writes_and_undo() {
    let mut h = Harness::new(160, 40, false);
    let knows = |h: &Harness| {
        h.text()
            .lines()
            .filter(|l| l.contains("saved") && l.contains("knows "))
            .count()
    };
    assert_eq!(knows(&h), 2, "{}", h.text());
    h.char('p');
    h.typed("s:10..12");
    h.key(KeyCode::Enter);
    assert_eq!(knows(&h), 3, "with the preview: {}", h.text());
    h.key(KeyCode::Esc);
    assert_eq!(knows(&h), 2, "preview dropped: {}", h.text());
    h.char('p');
    h.typed("t:10..12");
    h.key(KeyCode::Enter);
    h.char('a');
    assert_eq!(knows(&h), 3, "applied: {}", h.text());
    h.char('u');
    assert_eq!(knows(&h), 2, "undone: {}", h.text());
}

/// A compaction's facts are found off the UI thread: `Enter`, `F` and `E`
/// each hand one job to the worker and return at once (the detail opens
/// saying what it waits for), a key is answered meanwhile, and the
/// result, when it comes, lands where it was asked.
#[test]
fn enter_f_and_e_find_facts_off_the_ui_thread() {
    use jp_inspect::tui::job::{FactsWant, Job};
    use jp_inspect::tui::msg::{Effect, Msg};
    use jp_inspect::tui::panels::Panel;
    let press = |h: &mut Harness, c: KeyCode| -> Vec<Effect> {
        let k = crossterm::event::KeyEvent::new(c, crossterm::event::KeyModifiers::NONE);
        jp_inspect::tui::update::update(&mut h.state, Msg::Key(k))
    };
    let wants = |fx: &[Effect]| -> Vec<FactsWant> {
        fx.iter()
            .filter_map(|e| match e {
                Effect::Job(j) => match &**j {
                    Job::RangeFacts { want, .. } => Some(want.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    };
    let mut h = Harness::new(160, 40, false);
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    // Enter: the detail is open before its facts are found.
    let fx = press(&mut h, KeyCode::Enter);
    assert_eq!(wants(&fx), vec![FactsWant::Detail]);
    assert!(
        h.text().contains("judging what the model still knows"),
        "{}",
        h.text()
    );
    // A key meanwhile is answered: the detail scrolls.
    press(&mut h, KeyCode::Char('j'));
    assert!(matches!(h.state.panel, Some(Panel::Detail(_))));
    h.run(fx);
    let text = h.text();
    assert!(!text.contains("judging what the model"), "{text}");
    assert!(text.contains("keeps "), "{text}");
    // Its key bar offers what only a compaction's detail has.
    assert!(
        text.contains("F lost facts") && text.contains("J judge"),
        "{text}"
    );
    h.key(KeyCode::Esc);
    // F: the trail is found by a job, then followed.
    let fx = press(&mut h, KeyCode::Char('F'));
    assert_eq!(wants(&fx), vec![FactsWant::Trail]);
    assert!(h.state.lost_trail.is_none());
    h.run(fx);
    assert!(h.state.lost_trail.is_some(), "{}", h.text());
    // E: the editor opens once its checklist is read.
    h.key(KeyCode::Tab);
    while h.state.nav.focus != jp_inspect::tui::state::Focus::Compactions {
        h.key(KeyCode::Tab);
    }
    h.state.nav.list_cursor = 0;
    let fx = press(&mut h, KeyCode::Char('E'));
    assert!(
        matches!(wants(&fx).as_slice(), [FactsWant::Checklist { .. }]),
        "{}",
        h.text()
    );
    assert!(h.state.panel.is_none());
    h.run(fx);
    assert!(
        matches!(h.state.panel, Some(Panel::Summary(_))),
        "{}",
        h.text()
    );
}
