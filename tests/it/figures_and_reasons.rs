//! Figures that add up and reasons that are true, in every view: search,
//! follow, counts, per-event tokens, simulated bills, tool hints, the
//! preview's gauge, a held lock, a summary that adds tokens, the help's
//! layout. Each through the real binary or the inspector as a person
//! drives it.

use crate::common;

use common::harness::Harness;
use common::run_in;
use crossterm::event::KeyCode;
use jp_inspect::core::model::event::Kind;
use serde_json::Value;

/// Search finds what the panes show: a tool call by its name, every call
/// of it, its decoded arguments, a kind as the panes label it.
#[test]
fn search_finds_tool_names_arguments_and_kinds() {
    let conv = jp_inspect::core::ops::read::whole(&common::demo()).unwrap();
    for tool in ["fs_read_file", "cargo_test"] {
        let calls: Vec<usize> = (0..conv.events.len())
            .filter(|&i| {
                matches!(&conv.events[i].kind, Kind::ToolCallRequest { name, .. } if &**name == tool)
            })
            .collect();
        assert!(calls.len() > 1, "{tool}: {}", calls.len());
        let hits = jp_inspect::core::ops::Needle::new(tool).events_in(&conv);
        assert!(calls.iter().all(|c| hits.contains(c)), "{tool}: {hits:?}");
    }
    assert!(
        !jp_inspect::core::ops::Needle::new("src/parser.rs")
            .events_in(&conv)
            .is_empty()
    );
    let results = jp_inspect::core::ops::Needle::new("tool result").events_in(&conv);
    let answered = (0..conv.events.len()).filter(|&i| {
        matches!(
            conv.events[i].kind,
            Kind::ToolCallResponse {
                is_error: false,
                ..
            }
        )
    });
    assert!(answered.into_iter().all(|i| results.contains(&i)));
}

/// `/fs_read_file` Enter in the inspector: many matches, not "no match".
#[test]
fn the_inspectors_search_finds_a_tool_on_many_lines() {
    let mut h = Harness::new(120, 36, false);
    h.char('/');
    h.typed("fs_read_file");
    h.key(KeyCode::Enter);
    let text = h.text();
    let said = text
        .lines()
        .find(|l| l.contains("match 1 of"))
        .unwrap_or_else(|| panic!("{text}"));
    let n: usize = said
        .split("match 1 of ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    assert!(n > 5, "{said}");
}

/// A summary longer than the one turn it replaces, where no compaction
/// covers that turn, is said to add tokens, not to let anything back in.
#[test]
fn a_summary_longer_than_its_turn_is_not_said_to_let_anything_back_in() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = run_in(
        tmp.path(),
        &[
            "compact",
            "csvq",
            "s:30..30",
            "--dry-run",
            "--summarize",
            "--summarizer",
            "digest",
        ],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        common::stderr(&out)
    );
    assert!(!said.contains("lets back in"), "{said}");
    assert!(
        said.contains("longer than the turn 30 it replaces: adds"),
        "{said}"
    );
}

/// A turn appended the way jp does (under its lock, renamed into place),
/// then the inspector told.
fn append_turn(h: &mut Harness, text: &str) {
    common::jp_appends_a_turn(h.dir(), text);
    h.act(jp_inspect::tui::msg::Msg::FilesChanged);
}

/// `f` with the cursor where the inspector opened it: new turns move the
/// view to the newest, as `tail -f` does; a person reading an earlier
/// turn stays there.
#[test]
fn follow_moves_to_each_new_last_turn_unless_the_person_moved() {
    let mut h = Harness::new(120, 36, false);
    h.char('f');
    for n in 0..3 {
        append_turn(&mut h, &format!("new turn {n}"));
        let m = h.state.inspection.as_ref().unwrap();
        assert_eq!(h.state.nav.cursor + 1, m.layout.rows(), "after turn {n}");
    }
    assert!(h.text().contains("new turn 2"), "{}", h.text());
    // Read an earlier turn: following leaves the cursor there.
    h.char('g');
    h.char('j');
    h.char('j');
    let at = h.state.nav.cursor;
    append_turn(&mut h, "one more");
    assert_eq!(h.state.nav.cursor, at);
}

/// `count` without the provider's key says what to do: set it, or count
/// with `--offline`.
#[test]
fn count_without_a_key_names_offline() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = common::binary()
        .args(["count", "csvq"])
        .current_dir(tmp.path())
        .env("JP_USER_DATA_DIR", tmp.path().join("no-user-data"))
        .env("XDG_CONFIG_HOME", tmp.path().join("no-config"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("JP_GLOBAL_CONFIG_DIR")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = common::stderr(&out);
    assert!(err.contains("ANTHROPIC_API_KEY"), "{err}");
    assert!(err.contains("--offline"), "{err}");
}

/// jp-inspect(1) says what it is: a NAME line and a DESCRIPTION.
#[test]
fn the_man_page_has_a_name_and_a_description() {
    let tmp = tempfile::tempdir().unwrap();
    let out = common::run_anywhere(&["man", "--dir", &tmp.path().display().to_string()]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let page = std::fs::read_to_string(tmp.path().join("jp-inspect.1")).unwrap();
    let name = page.split(".SH NAME").nth(1).unwrap_or_default();
    let name_line = name.lines().nth(1).unwrap_or_default();
    assert!(name_line.contains("jp conversation"), "{name_line}");
    let description = page.split(".SH DESCRIPTION").nth(1).unwrap_or_default();
    let body = description.split(".SH ").next().unwrap_or_default();
    assert!(body.contains("projected view"), "{body}");
}

/// One enabled tool is "1 enabled tool definition", not "definitions".
#[test]
fn stats_counts_one_tool_in_the_singular() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    let path = conv.join("base_config.json");
    let mut b: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let tools = b["conversation"]["tools"].as_object_mut().unwrap();
    tools.retain(|k, _| k == "*" || k == "fs_read_file");
    std::fs::write(&path, serde_json::to_vec(&b).unwrap()).unwrap();
    let out = run_in(tmp.path(), &["stats", "csvq"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(1 enabled tool definition)"), "{text}");
}

/// Every integer is a part of the totals beside it: `show --json`'s and
/// `show --compacted --json`'s events add up to `stats`' raw and projected
/// totals, each category too; the context's parts add up to it; the
/// system prompt's figure does not move when events are compacted.
#[test]
fn per_event_tokens_add_up_to_the_totals_in_every_view() {
    for source in common::corpus() {
        let (ws, conv) = common::workspace_with(&source);
        let c = conv.to_str().unwrap();
        let stats = common::json(&run_in(ws.path(), &["stats", c, "--json"]));
        for (args, total) in [
            (vec!["show", c, "--json"], &stats["raw"]),
            (
                vec!["show", c, "--compacted", "--json"],
                &stats["projected"],
            ),
        ] {
            let shown = common::json(&run_in(ws.path(), &args));
            let events = shown["events"].as_array().unwrap();
            let sum: u64 = events.iter().map(|e| e["tokens"].as_u64().unwrap()).sum();
            assert_eq!(
                sum,
                total["tokens"].as_u64().unwrap(),
                "{args:?} {source:?}"
            );
            let by: u64 = total["by_category"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_u64().unwrap())
                .sum();
            assert_eq!(by, sum, "{source:?}");
        }
        let ctx = &stats["context"];
        let parts = ["system_prompt", "tools", "events"]
            .iter()
            .map(|k| ctx[k].as_u64().unwrap_or_else(|| panic!("{k}: {ctx}")))
            .sum::<u64>();
        assert_eq!(parts, ctx["tokens"].as_u64().unwrap(), "{source:?}");
        // Compacting events leaves the system prompt's figure alone.
        let out = run_in(ws.path(), &["compact", c, "t:..-2"]);
        assert!(out.status.success(), "{}", common::stderr(&out));
        let after = common::json(&run_in(ws.path(), &["stats", c, "--json"]));
        assert_eq!(
            after["context"]["system_prompt"], ctx["system_prompt"],
            "{source:?}"
        );
    }
}

/// A simulated session with requests the API would refuse says so beside
/// what it is billed: it is not the cheapest, it never got through.
#[test]
fn simulate_says_refused_requests_beside_the_billed_figure() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = run_in(tmp.path(), &["simulate", "csvq", "--windows", "200k"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let none = text
        .lines()
        .find(|l| l.contains(" none "))
        .unwrap_or_else(|| panic!("{text}"));
    let over: usize = none.split_whitespace().nth(4).unwrap().parse().unwrap();
    assert!(over > 0, "{none}");
    // No figure beside it: billed, it would read as the cheapest.
    assert!(
        none.ends_with(&format!("— ({over} refused: not billed)")),
        "{none}"
    );
    assert!(!none.contains('$'), "{none}");
    let staged = text.lines().find(|l| l.contains(" staged ")).unwrap();
    assert!(!staged.contains("refused"), "{staged}");
}

/// Totals set side by side follow the rule of a run's row: a total with
/// refused requests has no figure. A sweep has its baseline, no
/// compaction at each window, and says each setting's change from it,
/// a bill only where neither ran into the window.
#[test]
fn totals_and_sweeps_compare_only_what_compares() {
    let tmp = tempfile::tempdir().unwrap();
    let demo = common::demo_copy(tmp.path());
    common::copy_dir(
        &demo,
        &tmp.path()
            .join(".jp/conversations/17944860431-a-second-copy"),
    );
    let out = run_in(tmp.path(), &["simulate", "--windows", "200k,1m"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let totals: Vec<&str> = text.lines().filter(|l| l.starts_with("total ")).collect();
    assert!(!totals.is_empty(), "{text}");
    for t in &totals {
        let over: usize = t.split_whitespace().nth(4).unwrap().parse().unwrap();
        assert_eq!(over > 0, t.contains("refused"), "{t}");
        assert_eq!(over > 0, !t.contains('$'), "{t}");
    }

    let sweep = [
        "simulate",
        "--windows",
        "200k,1m",
        "--sweep",
        "trigger_ratio=0.5,0.75",
    ];
    let out = run_in(tmp.path(), &sweep);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = text.lines().filter(|l| l.contains(" single ")).collect();
    let baseline: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("(baseline)"))
        .collect();
    assert_eq!(baseline.len(), 2, "{text}");
    assert!(baseline.iter().all(|l| l.contains(" none ")), "{text}");
    assert_eq!(rows.len(), 4, "{text}");
    let mut json_args = sweep.to_vec();
    json_args.push("--json");
    let v = common::json(&run_in(tmp.path(), &json_args));
    let base = v["baseline"].as_array().unwrap();
    for (row, setting) in rows.iter().zip(
        v["settings"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["totals"].as_array().unwrap().clone()),
    ) {
        let b = base
            .iter()
            .find(|b| b["window"] == setting["window"])
            .unwrap();
        let input = |t: &Value| t["input_tokens"].as_f64().unwrap();
        let change =
            format!("{:+.1}%", (input(&setting) / input(b) - 1.0) * 100.0).replace('-', "−");
        assert!(row.contains(&change), "{row} lacks {change}");
        let last = row.split_whitespace().last().unwrap();
        let refused = setting["refused"].as_u64().unwrap() + b["refused"].as_u64().unwrap();
        if refused > 0 {
            assert_eq!(last, "—", "{row}");
        } else {
            let bill = |t: &Value| t["billed"]["total"].as_f64().unwrap();
            let change =
                format!("{:+.1}%", (bill(&setting) / bill(b) - 1.0) * 100.0).replace('-', "−");
            assert_eq!(last, change, "{row}");
        }
    }
}

/// The simulation view at 80×24 keeps what it exists for: the billed cost.
#[test]
fn the_simulation_view_keeps_billed_at_80x24() {
    let mut h = Harness::new(80, 24, false);
    h.char('s');
    let text = h.text();
    assert!(text.contains("billed"), "{text}");
    // The refused run has no figure, and says why as far as the row goes.
    assert!(text.contains("— (27 refused"), "{text}");
}

/// A rule that changes nothing: the CLI offers `--force`, the inspector,
/// which has none, doesn't.
#[test]
fn only_the_cli_offers_force_for_a_rule_that_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = run_in(tmp.path(), &["compact", "csvq", "t:3..4"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        common::stderr(&out)
    );
    assert!(said.contains("inside the summary of turns 2..5"), "{said}");
    assert!(said.contains("--force writes it anyway"), "{said}");
    let mut h = Harness::new(160, 40, false);
    h.char('p');
    h.typed("t:3..4");
    h.key(KeyCode::Enter);
    let text = h.text();
    assert!(text.contains("inside the summary of turns 2..5"), "{text}");
    assert!(!text.contains("--force"), "{text}");
}

/// `tools` writes its figures with thousands separators and counts in
/// words.
#[test]
fn tools_writes_numbers_as_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = run_in(tmp.path(), &["tools", "csvq"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("1 conversation, "), "{text}");
    for word in text.split_whitespace() {
        let digits = word.trim_start_matches('-');
        if digits.len() >= 4 && digits.chars().all(|c| c.is_ascii_digit()) {
            panic!("{word} without separators: {text}");
        }
    }
}

/// `request`'s Anthropic body is one the Messages API takes: with the
/// output bound jp asks for (the demo configures 16k).
#[test]
fn requests_anthropic_body_has_max_tokens() {
    let out = common::run_anywhere(&["request", "--demo"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["max_tokens"], 16_000, "{body}");
}

/// The picker's key bar says what Esc does on an empty filter: it quits.
#[test]
fn the_pickers_bar_says_esc_quits_on_an_empty_filter() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let ws = jp_inspect::core::ops::Workspace::at(tmp.path());
    let listings = jp_inspect::core::ops::catalog::quick(&ws);
    let mut h = Harness::opened(
        jp_inspect::tui::Options::picker(ws.root.clone(), listings),
        (120, 30),
        tmp,
    );
    let text = h.text();
    let bar = text.lines().last().unwrap();
    assert!(bar.contains("q/Esc quit"), "{bar}");
    assert!(!bar.contains("Esc clear"), "{bar}");
    h.key(KeyCode::Esc);
    assert!(
        h.state.quit,
        "Esc on an empty filter quits, as the bar says"
    );
}

/// After `u`, the key bar offers the redo.
#[test]
fn after_an_undo_the_bar_offers_redo() {
    let mut h = Harness::new(200, 50, false);
    h.char('p');
    h.typed("t:10..12");
    h.key(KeyCode::Enter);
    h.char('a');
    let bar = |h: &Harness| h.text().lines().last().unwrap().to_string();
    assert!(
        bar(&h).contains("undo") && !bar(&h).contains("redo"),
        "{}",
        bar(&h)
    );
    h.char('u');
    assert!(bar(&h).contains("redo"), "{}", bar(&h));
}

/// A stored compaction that makes requests larger says what it adds, not
/// "saves 0".
#[test]
fn stats_says_what_a_longer_summary_adds() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = run_in(
        tmp.path(),
        &["compact", "csvq", "s:30..30", "--summarizer", "digest"],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let out = run_in(tmp.path(), &["stats", "csvq"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .skip_while(|l| !l.contains("30..30"))
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    assert!(row.trim_start().starts_with("adds "), "{row}");
    assert!(row.contains("never pays for itself"), "{row}");
    assert!(!row.contains("saves 0"), "{row}");
}

/// The inspector asks before applying a summary that adds tokens: `n`
/// writes nothing, `y` writes it.
#[test]
fn applying_a_summary_that_adds_tokens_asks_first() {
    let mut h = Harness::new(120, 36, false);
    let before = h.compactions_on_disk().len();
    h.char('p');
    h.typed("s:30..30");
    h.key(KeyCode::Enter);
    h.char('a');
    let text = h.text();
    assert!(text.contains("Apply it anyway?"), "{text}");
    assert!(text.contains("longer than the turn 30"), "{text}");
    assert_eq!(h.compactions_on_disk().len(), before);
    h.char('n');
    assert_eq!(h.compactions_on_disk().len(), before);
    h.char('a');
    h.char('y');
    assert_eq!(h.compactions_on_disk().len(), before + 1);
}

/// A window of whole thousands is shown as such: `1k`, not `1.0k`.
#[test]
fn a_window_of_whole_thousands_reads_as_given() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = run_in(tmp.path(), &["tools", "csvq", "--window", "4k"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("at 4k"), "{text}");
    assert!(!text.contains("4.0k"), "{text}");
}

/// `tools` says at which window its savings were replayed, and why there.
#[test]
fn tools_says_which_window_it_replays_at_and_why() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let own = run_in(tmp.path(), &["tools", "csvq"]);
    let own = String::from_utf8_lossy(&own.stdout);
    assert!(
        own.contains("replayed at 200k, the conversation's own window"),
        "{own}"
    );
    let given = run_in(tmp.path(), &["tools", "csvq", "--window", "64k"]);
    let given = String::from_utf8_lossy(&given.stdout);
    assert!(
        given.contains("replayed at 64k, as --window gives"),
        "{given}"
    );
}

/// At 80×24 a preview's gauge keeps its markers' labels apart: each stops
/// short of the next, and the figures are rounded to give the bar room.
#[test]
fn the_preview_gauge_keeps_its_labels_apart_at_80x24() {
    let mut h = Harness::new(80, 24, false);
    h.char('p');
    h.typed("t:10..12");
    h.key(KeyCode::Enter);
    let text = h.text();
    let gauge = text.lines().nth(1).unwrap();
    assert!(gauge.contains(" → "), "{text}");
    let marks = text.lines().nth(2).unwrap();
    assert!(marks.contains("└85% hard"), "{marks}");
    assert!(marks.contains("└60%"), "{marks}");
    assert!(!marks.contains("%└"), "{marks}");
    let bar = gauge.chars().filter(|c| "█░▒┃".contains(*c)).count();
    assert!(bar >= 30, "{gauge}");
}

/// A held lock: the status line says the verdict first and what to do
/// next, the lock's path last; cut at 80 columns it says `M` reads the
/// rest, and `M` shows it whole.
#[test]
fn a_held_lock_says_the_verdict_first_and_m_reads_it_all() {
    let mut h = Harness::new(80, 24, false);
    let dir = h.dir().to_path_buf();
    let lock_path = jp_inspect::core::ops::jp_files::lock_path(&dir).unwrap();
    let _held = jp_inspect::core::ops::jp_files::hold(&dir).unwrap();
    h.char('X');
    h.char('y');
    let text = h.text();
    let status = text.lines().rev().nth(1).unwrap().trim_matches('"').trim();
    assert!(status.starts_with("jp holds the lock"), "{status}");
    assert!(status.ends_with("M: all of it"), "{status}");
    let said = &h.state.status.log.said.back().unwrap().text;
    assert!(said.contains("try again when jp's query ends"), "{said}");
    assert!(said.contains("jp-inspect watch"), "{said}");
    assert!(
        said.ends_with(&format!("(lock: {})", lock_path.display())),
        "{said}"
    );
    h.char('M');
    let text = h.text();
    assert!(text.contains("messages · "), "{text}");
    assert!(text.contains("try again when jp's query ends"), "{text}");
    h.char('x');
    assert!(h.state.panel.is_none());
}

/// `S` on a preview whose summary the digest made already says so, over
/// the preview's line.
#[test]
fn s_on_a_digest_preview_says_why_there_is_nothing_to_make() {
    let mut h = Harness::new(120, 36, false);
    h.char('p');
    h.typed("s:10..12");
    h.key(KeyCode::Enter);
    assert!(h.state.preview.is_some());
    let status = |h: &Harness| h.text().lines().rev().nth(1).unwrap().to_string();
    assert!(status(&h).contains("PREVIEW"), "{}", status(&h));
    h.char('S');
    let line = status(&h);
    assert!(
        line.contains("nothing for S to make: `digest` made the summary already"),
        "{line}"
    );
    assert!(!line.contains("M: all"), "{line}");
    assert!(line.contains("preview open"), "{line}");
    assert!(h.state.preview.is_some());
}

/// `count --offline`'s estimate is `stats`' context, an MCP tool whose
/// schema is unknown counted one way in both (by name and description),
/// and said so once.
#[test]
fn count_and_stats_count_the_tools_one_way() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let path = dir.join("base_config.json");
    let mut config: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    config["conversation"]["tools"]["note_get"] = serde_json::json!({
        "enable": true,
        "source": "mcp.grizzly.note_get",
        "summary": "Read one of the user's notes.",
    });
    std::fs::write(&path, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
    let mut dirs = vec![dir];
    dirs.extend(common::fixture_conversations());
    for dir in dirs {
        let d = dir.to_str().unwrap();
        let stats = run_in(tmp.path(), &["stats", d, "--json"]);
        assert!(stats.status.success(), "{}", common::stderr(&stats));
        let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
        let count = run_in(tmp.path(), &["count", d, "--offline", "--json"]);
        assert!(count.status.success(), "{}", common::stderr(&count));
        let count: serde_json::Value = serde_json::from_slice(&count.stdout).unwrap();
        let parts = count["parts"].as_array().unwrap();
        let sum: u64 = parts.iter().map(|p| p["estimated"].as_u64().unwrap()).sum();
        assert_eq!(
            Some(sum),
            stats["context"]["tokens"].as_u64(),
            "{d}: {stats}"
        );
        let tools = parts
            .iter()
            .find(|p| p["part"] == "tools")
            .map_or(0, |p| p["estimated"].as_u64().unwrap());
        assert_eq!(Some(tools), stats["context"]["tools"].as_u64(), "{d}");
    }
    let text = run_in(tmp.path(), &["count", "csvq", "--offline"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("1 MCP schema unknown, counted by name and description only"),
        "{text}"
    );
}

/// A rule's name is words; only a rule as typed is in backticks.
#[test]
fn a_rules_name_is_not_quoted_as_if_typed() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = run_in(tmp.path(), &["compact", "csvq", "--dry-run"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\njp's default rule saves "), "{text}");
    assert!(!text.contains("`jp's default rule`"), "{text}");
    let out = run_in(tmp.path(), &["compact", "csvq", "t:10..12", "--dry-run"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("`t:10..12` saves "), "{text}");
}

/// The help's wrapped lines keep their indent at 80×24: every line of the
/// rules and bands sections is indented under its heading.
#[test]
fn the_helps_wrapped_lines_keep_their_indent() {
    let mut h = Harness::new(80, 24, false);
    h.char('?');
    h.key(KeyCode::End);
    let text = h.text();
    let inside: Vec<String> = text
        .lines()
        .map(|l| l.trim_matches('"').trim_start_matches(' '))
        .filter_map(|l| l.strip_prefix('│'))
        .map(|l| l.trim_end_matches(['│', ' ']).to_string())
        .collect();
    let rules = inside
        .iter()
        .position(|l| l == "Rules")
        .unwrap_or_else(|| panic!("{text}"));
    let settings = inside.iter().position(|l| l == "Settings").unwrap();
    for l in &inside[rules + 1..settings] {
        if l.is_empty() || l == "Bands" {
            continue;
        }
        assert!(l.starts_with("  "), "{l:?} in\n{text}");
    }
}

/// A reserve capped at half a small window is said where the window is
/// shown: history's heading and the inspector's top bar.
#[test]
fn a_reserve_capped_at_half_the_window_is_said_where_it_is_shown() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = run_in(tmp.path(), &["history", "csvq", "--window", "20k"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .contains("10k = window 20k − 10k reserved (capped at half the window, from 16k)"),
        "{text}"
    );
    let mut h = Harness::new(120, 36, false);
    h.set_window("20k");
    let top = h.text().lines().next().unwrap().to_string();
    assert!(top.contains("window 20k (set) − 10k out (half)"), "{top}");
}

/// What docs/headless.md says `lost --demo` shows, it shows; and it
/// promises no line the product no longer prints.
#[test]
fn the_docs_say_what_lost_shows_on_the_demo() {
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/headless.md"),
    )
    .unwrap();
    assert!(
        docs.contains("keeps 2 of 2\nfiles, 2 of 2 errors and 3 of 3 decisions"),
        "the docs' claim moved: update this test with it"
    );
    let out = common::run_anywhere(&["lost", "--demo"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.split("\n#2").next().unwrap();
    assert!(first.contains("2 of 2 files"), "{first}");
    assert!(first.contains("2 of 2 errors"), "{first}");
    assert!(first.contains("3 of 3 decisions"), "{first}");
    assert!(first.contains("1 of 2 instructions"), "{first}");
    assert!(
        first.contains("instruction Start with the parser"),
        "{first}"
    );
    assert!(first.contains("command     cargo_run args=--"), "{first}");
    assert!(!first.contains("error       cargo_test:"), "{first}");
    assert!(!text.contains("fetched again after it"), "{text}");
    assert!(!docs.contains("fetched again after it"));
}

/// How far the next compaction is: `stats` says what is left before each
/// threshold (or how far past it the context is), and the gauge's labels
/// say the same; both from `stats --json`'s own figures.
#[test]
fn stats_and_the_gauge_say_how_far_the_next_compaction_is() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let v = common::json(&run_in(tmp.path(), &["stats", "csvq", "--json"]));
    let context = v["context"]["tokens"].as_i64().unwrap();
    let soft = v["thresholds"]["soft"]["tokens"].as_i64().unwrap();
    let hard = v["thresholds"]["hard"]["tokens"].as_i64().unwrap();
    let left: Vec<i64> = v["headroom"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["left"].as_i64().unwrap())
        .collect();
    assert_eq!(left, vec![soft - context, hard - context]);
    let thousands = |n: i64| jp_inspect::core::fmt::thousands(n.unsigned_abs());
    let out = run_in(tmp.path(), &["stats", "csvq"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("next compaction: "))
        .unwrap_or_else(|| panic!("{text}"));
    // The demo is past soft and just short of hard.
    assert!(soft < context && context < hard, "{line}");
    assert!(
        line.contains(&format!("soft passed by {} tok", thousands(soft - context)))
            && line.contains(&format!("hard in {} tok", thousands(hard - context))),
        "{line}"
    );
    let h = Harness::new(200, 50, false);
    let screen = h.text();
    let human = jp_inspect::core::fmt::human_tokens((hard - context) as u64);
    assert!(
        screen.contains("soft passed") && screen.contains(&format!("hard in {human}")),
        "{screen}"
    );
}

/// The gauge's scale holds still as a preview comes and goes: its soft
/// and hard markers stand in the same columns, at 200 and at 80 columns.
#[test]
fn the_gauges_markers_hold_still_through_a_preview() {
    for (w, hgt) in [(200, 50), (120, 36), (80, 24)] {
        let mut h = Harness::new(w, hgt, false);
        let markers = |h: &Harness| -> Vec<usize> {
            let text = h.text();
            let gauge = text.lines().nth(1).unwrap().trim_matches('"').to_string();
            gauge
                .chars()
                .enumerate()
                .filter(|(_, c)| *c == '┃')
                .map(|(k, _)| k)
                .collect()
        };
        let before = markers(&h);
        assert_eq!(before.len(), 2, "{}", h.text());
        h.char('p');
        h.typed("s:10..12");
        h.key(KeyCode::Enter);
        assert!(
            h.text().lines().nth(1).unwrap().contains(" → "),
            "{}",
            h.text()
        );
        assert_eq!(markers(&h), before, "{w}x{hgt}: {}", h.text());
        h.key(KeyCode::Esc);
        assert_eq!(markers(&h), before, "{w}x{hgt}, dropped");
    }
}

/// At 80×24: the auto preview's "why" keeps its last line, the gauge its
/// one decimal (84.9 %, not 84 %), and each pane's title its token figure.
#[test]
fn at_80x24_the_why_the_percent_and_the_pane_titles_are_whole() {
    let mut h = Harness::new(80, 24, false);
    let text = h.text();
    for title in ["raw", "projected"] {
        let line = text
            .lines()
            .find(|l| l.contains(&format!(" {title}")) && l.contains(" tok"))
            .unwrap_or_else(|| panic!("{text}"));
        let pane = if title == "raw" {
            line.split('│').next().unwrap()
        } else {
            line.split('│').nth(1).unwrap()
        };
        assert!(pane.trim_end_matches([' ', '"']).ends_with("tok"), "{pane}");
    }
    h.char('p');
    h.typed("auto");
    h.key(KeyCode::Enter);
    let text = h.text();
    let gauge = text.lines().nth(1).unwrap();
    assert!(gauge.contains("84.9% →"), "{gauge}");
    let preview = h.state.preview.as_ref().expect("the preview");
    let last = jp_inspect::tui::view::why::lines(preview, &h.state)
        .pop()
        .unwrap();
    let start: String = last.chars().take(40).collect();
    assert!(text.replace('\n', " ").contains(&start), "{start}: {text}");
}

/// A compaction on a free local model has nothing to pay back: said so,
/// not "never pays", in `stats` and in the list.
#[test]
fn a_free_models_compaction_has_nothing_to_pay_back() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    let base = conv.join("base_config.json");
    let mut b: serde_json::Value = serde_json::from_slice(&std::fs::read(&base).unwrap()).unwrap();
    b["assistant"]["model"]["id"] = serde_json::json!({"provider": "ollama", "name": "qwen3:8b"});
    std::fs::write(&base, serde_json::to_vec_pretty(&b).unwrap()).unwrap();
    let out = run_in(tmp.path(), &["stats", "csvq", "--window", "200k"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the model bills nothing: nothing to pay back"),
        "{text}"
    );
    assert!(!text.contains("never pays"), "{text}");
}
