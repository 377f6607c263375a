//! `report`: the session's review on one page. Read back with an HTML
//! parser, it holds the figures `history`, `stats` and `lost` give as JSON
//! for the same conversation, runs no script, fetches nothing, shows a
//! hostile conversation's markup as text and redacts planted secrets.

use crate::common;

use scraper::{ElementRef, Html, Selector};
use serde_json::Value;
use std::path::Path;

fn ok(out: std::process::Output) -> std::process::Output {
    assert!(out.status.success(), "{}", common::stderr(&out));
    out
}

fn json_of(args: &[&str], cwd: &Path) -> Value {
    common::json(&ok(common::jp_inspect(args, cwd)))
}

fn sel(s: &str) -> Selector {
    Selector::parse(s).unwrap()
}

fn text(e: ElementRef) -> String {
    e.text().collect::<String>()
}

/// `$12.16`: a dollar figure as the report writes it.
fn dollars(v: f64) -> String {
    if v == 0.0 || v.abs() >= 0.01 {
        format!("${v:.2}")
    } else {
        // Two significant digits below a cent.
        let mut decimals = 3;
        while v.abs() * 10f64.powi(decimals) < 10.0 && decimals < 10 {
            decimals += 1;
        }
        format!("${v:.*}", decimals as usize)
    }
}

/// The report of the conversation in `dir` (in a workspace at `ws`), as
/// HTML parsed.
fn report(ws: &Path, dir: &Path, extra: &[&str]) -> (String, Html) {
    let file = ws.join("report.html");
    let mut args = vec![
        "report",
        dir.to_str().unwrap(),
        "-o",
        file.to_str().unwrap(),
    ];
    args.extend(extra);
    ok(common::jp_inspect(&args, ws));
    let text = std::fs::read_to_string(&file).unwrap();
    let doc = Html::parse_document(&text);
    (text, doc)
}

/// Nothing runs and nothing is fetched: no script, no handler, no
/// external `src`/`href`, no `<link>`, `<iframe>`, `<object>` or `<img>`.
fn assert_inert(doc: &Html) {
    for tag in [
        "script",
        "iframe",
        "object",
        "embed",
        "img",
        "link",
        "base",
        "meta[http-equiv]",
    ] {
        assert_eq!(doc.select(&sel(tag)).count(), 0, "a <{tag}> in the report");
    }
    for e in doc
        .root_element()
        .descendants()
        .filter_map(ElementRef::wrap)
    {
        for (name, value) in e.value().attrs() {
            assert!(!name.starts_with("on"), "a handler {name}={value}");
            if matches!(name, "src" | "href" | "xlink:href" | "action") {
                assert!(value.starts_with('#'), "{name}={value} fetches");
            }
            assert!(!value.contains("url("), "{name}={value} fetches");
        }
    }
    for style in doc.select(&sel("style")) {
        let css = text(style);
        assert!(!css.contains("url(") && !css.contains("@import"), "{css}");
    }
}

#[test]
fn the_demo_report_holds_the_figures_of_history_stats_and_lost() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let (_, doc) = report(tmp.path(), &dir, &[]);
    assert_inert(&doc);
    let d = dir.to_str().unwrap();
    let history = json_of(&["history", d, "--json"], tmp.path());
    let stats = json_of(&["stats", d, "--json"], tmp.path());
    let lost = json_of(&["lost", d, "--json"], tmp.path());

    // The curve is history's, value for value.
    let expected: Vec<String> = history["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{:.4}", r["ratio"].as_f64().unwrap() * 100.0))
        .collect();
    let series = doc
        .select(&sel("#context svg [data-series=\"context\"]"))
        .next()
        .expect("the context curve, inline");
    assert_eq!(
        series.value().attr("data-values").unwrap(),
        expected.join(",")
    );

    // The bill is history's.
    let overview = doc.select(&sel("main > div.wide > table")).next().unwrap();
    let billed = overview
        .select(&sel("tr"))
        .find(|r| text(*r).starts_with("billed"))
        .unwrap();
    let cells: Vec<String> = billed.select(&sel("td")).map(text).collect();
    assert_eq!(
        cells[1],
        dollars(history["cost"]["total"].as_f64().unwrap())
    );
    // Without compaction the demo runs into the window: a bill of requests
    // that never got through is no cheaper, so it is not set beside it.
    assert!(
        cells[2].starts_with("not comparable: ")
            && cells[2].ends_with("requests would have been refused")
            && !cells[2].contains('$'),
        "{cells:?}"
    );

    // Each compaction: what stats says it saves, what lost says it lost.
    let compactions = stats["compactions"].as_array().unwrap();
    assert_eq!(compactions.len(), 2);
    let lost_by: Vec<&Value> = lost["compactions"].as_array().unwrap().iter().collect();
    let events: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("events.json")).unwrap()).unwrap();
    let summaries: Vec<Option<String>> = events
        .iter()
        .filter(|e| e["type"] == "compaction")
        .map(|e| e["summary"]["summary"].as_str().map(String::from))
        .collect();
    assert!(summaries.iter().any(Option::is_some));
    let mut kept_all = (0, 0);
    for (c, l) in compactions.iter().zip(&lost_by) {
        let n = c["position"].as_u64().unwrap();
        let section = doc
            .select(&sel(&format!("section#compaction-{n}")))
            .next()
            .unwrap_or_else(|| panic!("a section for compaction {n}"));
        let dd: Vec<(String, String)> = section
            .select(&sel("dt"))
            .zip(section.select(&sel("dd")))
            .map(|(t, d)| (text(t), text(d)))
            .collect();
        let saves = &dd.iter().find(|(t, _)| t == "Saves").unwrap().1;
        let saved = c["tokens_saved"].as_i64().unwrap();
        assert_eq!(
            saves,
            &format!(
                "{} tokens a request",
                jp_inspect::core::fmt::signed_thousands(saved)
            )
        );
        let facts = l["facts"].as_array().unwrap();
        let gone: Vec<&Value> = facts.iter().filter(|f| f["kept"] == false).collect();
        let grave = gone
            .iter()
            .filter(|f| f["where"] != "partly")
            .filter(|f| f["kind"] == "instruction" || (f["kind"] == "error" && f["fixed"] != true))
            .count();
        assert_eq!(section.select(&sel("ul.facts > li")).count(), gone.len());
        assert_eq!(section.select(&sel("ul.facts > li.grave")).count(), grave);
        // The grave ones come first.
        let classes: Vec<bool> = section
            .select(&sel("ul.facts > li"))
            .map(|li| {
                li.value()
                    .has_class("grave", scraper::CaseSensitivity::CaseSensitive)
            })
            .collect();
        assert!(classes.windows(2).all(|w| w[0] >= w[1]), "{classes:?}");
        // The figure counts the precise kinds only.
        let counted = |f: &Value| {
            ["file", "command", "error", "instruction"].contains(&f["kind"].as_str().unwrap())
        };
        let all = facts.iter().filter(|f| counted(f)).count();
        kept_all.0 += all - gone.iter().filter(|f| counted(f)).count();
        kept_all.1 += all;
        // Its summary, as the stream holds it, or none.
        let pre = section.select(&sel("pre")).next().map(text);
        let said = summaries[n as usize - 1].clone();
        assert_eq!(pre, said);
    }
    let facts_row = overview
        .select(&sel("tr"))
        .find(|r| text(*r).starts_with("facts the model still knows"))
        .unwrap();
    let cells: Vec<String> = facts_row.select(&sel("td")).map(text).collect();
    assert_eq!(cells[1], format!("{} of {}", kept_all.0, kept_all.1));
    let session: usize = lost["session"]["survival"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| ["file", "command", "error", "instruction"].contains(&k.as_str()))
        .map(|(_, c)| c["kept"].as_u64().unwrap() as usize)
        .sum();
    assert_eq!(session, kept_all.0);
}

#[test]
fn with_simulate_it_holds_simulate_s_table() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let (_, doc) = report(tmp.path(), &dir, &["--simulate", "--windows", "64k"]);
    assert_inert(&doc);
    let sim = json_of(
        &[
            "simulate",
            dir.to_str().unwrap(),
            "--windows",
            "64k",
            "--json",
        ],
        tmp.path(),
    );
    let rows: Vec<Vec<String>> = doc
        .select(&sel("section#simulation tbody tr"))
        .map(|r| r.select(&sel("td")).map(text).collect())
        .collect();
    let runs = sim["runs"].as_array().unwrap();
    assert_eq!(rows.len(), runs.len());
    for (row, run) in rows.iter().zip(runs) {
        assert_eq!(row[0], run["policy"].as_str().unwrap());
        assert_eq!(row[3], run["overflows"].to_string());
        assert_eq!(row[4], run["requests"].to_string());
    }
}

/// The demo with a hostile title, tool name and summary, and secrets
/// planted where the report quotes the conversation.
fn hostile(ws: &Path) -> std::path::PathBuf {
    let dir = common::demo_copy(ws);
    let meta = dir.join("metadata.json");
    let mut m: Value = serde_json::from_slice(&std::fs::read(&meta).unwrap()).unwrap();
    m["title"] =
        "<script>alert(1)</script></svg><img src=x onerror=alert(2)>\u{1b}]0;pwn\u{7}".into();
    std::fs::write(&meta, serde_json::to_string_pretty(&m).unwrap() + "\n").unwrap();
    common::edit_events(&dir, |events| {
        for e in events.iter_mut() {
            if e["name"] == "cargo_test" {
                e["name"] = "<b onmouseover=x>cargo_test</b>".into();
            }
            if e["type"] == "compaction" && e["summary"].is_object() {
                e["summary"]["summary"] = "</pre><script>alert(3)</script> [x](https://evil.example/) \
                     key sk-ant-api03-PLANTEDPLANTEDPLANTEDPLANTED and \
                     -----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34\n-----END RSA PRIVATE KEY-----"
                    .into();
            }
        }
        let first = events
            .iter_mut()
            .find(|e| {
                e["type"] == "chat_request"
                    && e["content"]
                        .as_str()
                        .is_some_and(|c| c.starts_with("Start with the parser"))
            })
            .unwrap();
        let c = first["content"].as_str().unwrap().to_string();
        first["content"] = format!("{c} Use password=hunter2hunter for the test database.").into();
    });
    dir
}

#[test]
fn a_hostile_conversation_renders_as_text_with_its_secrets_redacted() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hostile(tmp.path());
    let (raw, doc) = report(tmp.path(), &dir, &[]);
    assert_inert(&doc);
    assert!(doc.select(&sel("b")).next().is_none());
    let h1 = text(doc.select(&sel("h1")).next().unwrap());
    assert!(
        h1.starts_with("<script>alert(1)</script></svg><img"),
        "{h1}"
    );
    assert!(!raw.contains('\u{1b}') && !raw.contains('\u{7}'));
    for secret in ["PLANTEDPLANTED", "MIIBOgIBAAJBAKj34", "hunter2hunter"] {
        assert!(!raw.contains(secret), "{secret} is in the report");
    }
    assert!(raw.contains("[redacted: Anthropic API key]"));
    let about = text(doc.select(&sel("section#about")).next().unwrap());
    assert!(about.contains("likely secrets replaced"), "{about}");

    // --json says what it redacted; --no-redact keeps it all.
    let file = tmp.path().join("r.html");
    let said = json_of(
        &[
            "report",
            dir.to_str().unwrap(),
            "-o",
            file.to_str().unwrap(),
            "--json",
        ],
        tmp.path(),
    );
    assert!(said["redacted_total"].as_u64().unwrap() >= 3, "{said}");
    assert_eq!(said["redacted"]["private key"], 1);
    ok(common::jp_inspect(
        &[
            "report",
            dir.to_str().unwrap(),
            "-o",
            file.to_str().unwrap(),
            "--no-redact",
        ],
        tmp.path(),
    ));
    let kept = std::fs::read_to_string(&file).unwrap();
    assert!(kept.contains("PLANTEDPLANTED") && kept.contains("hunter2hunter"));
    assert_inert(&Html::parse_document(&kept));

    // The Markdown shows the same as text: no tag, no link of its own.
    let md = tmp.path().join("r.md");
    ok(common::jp_inspect(
        &["report", dir.to_str().unwrap(), "-o", md.to_str().unwrap()],
        tmp.path(),
    ));
    let md = std::fs::read_to_string(&md).unwrap();
    // Outside its fenced summaries (literal text in Markdown).
    let prose: String = md.split("\n```").step_by(2).collect::<Vec<_>>().join("\n");
    assert!(
        md.contains("<script>alert(3)"),
        "the summary, in its fence, as written"
    );
    assert!(!prose.contains("<script") && !prose.contains("<img") && !prose.contains("<b "));
    assert!(
        !prose.contains("](https://evil"),
        "a link of the conversation's became one"
    );
    assert!(!md.contains("PLANTEDPLANTED"));
}

#[test]
fn the_markdown_report_writes_its_chart_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let md = tmp.path().join("review.md");
    ok(common::jp_inspect(
        &["report", dir.to_str().unwrap(), "-o", md.to_str().unwrap()],
        tmp.path(),
    ));
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.contains("](review-context.svg)"));
    let svg = std::fs::read_to_string(tmp.path().join("review-context.svg")).unwrap();
    roxmltree::Document::parse(&svg).expect("well-formed SVG");
    // The page as a reviewer reads it; the temporary folder's name aside.
    insta::assert_snapshot!("demo_report_markdown", text);
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn reports_of_the_shared_conversations_parse_and_hold_history_s_requests() {
    let convs = common::fixture_conversations();
    if convs.is_empty() {
        eprintln!("../shared is not here: the shared conversations are not reported");
        return;
    }
    for conv in convs.iter().take(4) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = common::copy_dir(
            conv,
            &tmp.path()
                .join(".jp/conversations")
                .join(conv.file_name().unwrap()),
        );
        let (_, doc) = report(tmp.path(), &dir, &["--window", "200k"]);
        assert_inert(&doc);
        let history = json_of(
            &[
                "history",
                dir.to_str().unwrap(),
                "--window",
                "200k",
                "--json",
            ],
            tmp.path(),
        );
        let n = history["requests"].as_array().unwrap().len();
        let values = doc
            .select(&sel("#context svg [data-series=\"context\"]"))
            .next()
            .map(|s| s.value().attr("data-values").unwrap().split(',').count());
        assert_eq!(values, Some(n), "{}", conv.display());
    }
}

#[test]
fn the_home_folder_is_shortened_unless_asked_not_to() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    common::edit_events(&dir, |events| {
        let c = events
            .iter_mut()
            .find(|e| e["type"] == "compaction" && e["summary"].is_object())
            .unwrap();
        c["summary"]["summary"] =
            "Edited /home/reviewer/src/csvq/src/parser.rs, not /home/reviewers.".into();
    });
    let file = tmp.path().join("r.html");
    let run = |extra: &[&str]| {
        let mut cmd = common::binary();
        cmd.args([
            "report",
            dir.to_str().unwrap(),
            "-o",
            file.to_str().unwrap(),
        ])
        .args(extra)
        .current_dir(tmp.path())
        .env("JP_USER_DATA_DIR", tmp.path().join("no-user-data"))
        .env("HOME", "/home/reviewer");
        ok(cmd.output().unwrap());
        std::fs::read_to_string(&file).unwrap()
    };
    let short = run(&[]);
    assert!(
        short.contains("Edited ~/src/csvq/src/parser.rs, not /home/reviewers."),
        "{short}"
    );
    assert!(short.contains("shown as ~ (1 place)"));
    let full = run(&["--full-paths"]);
    assert!(full.contains("Edited /home/reviewer/src/csvq/src/parser.rs"));
}

#[test]
fn w_in_the_inspector_writes_the_same_report_and_says_where() {
    let out = tempfile::tempdir().unwrap();
    let mut h = common::harness::Harness::new(120, 30, false);
    h.state.settings.report_dir = Some(out.path().to_path_buf());
    h.char('W');
    let status = h.text();
    let file = std::fs::read_dir(out.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "html"))
        .expect("a report written");
    let name = file.file_name().unwrap().to_str().unwrap().to_string();
    assert!(status.contains("wrote the report to"), "{status}");
    assert!(status.contains(&name[..20]), "{status}");
    let doc = Html::parse_document(&std::fs::read_to_string(&file).unwrap());
    assert_inert(&doc);
    // The inspector's copy of the demo holds its two compactions.
    assert_eq!(doc.select(&sel("section[id^=\"compaction-\"]")).count(), 2);
}

/// Every field a page quotes, not only the texts of events: a compaction's
/// tool names, the folder of a conversation without an id, the model id.
#[test]
fn every_field_reaches_the_page_cleaned_and_redacted() {
    let tmp = tempfile::tempdir().unwrap();
    let demo = common::demo_copy(tmp.path());
    let dir = demo.with_file_name(
        "notes\u{1b}]0;pwn\u{7}\u{202e}\rsk-ant-api03-PLANTEDFOLDERPLANTEDFOLDER00",
    );
    std::fs::rename(&demo, &dir).unwrap();
    let config = dir.join("base_config.json");
    let mut c: Value = serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    let model = c
        .pointer_mut("/assistant/model/id/name")
        .expect("the demo names its model");
    *model = "claude\u{1b}[31m\u{9b}sk-ant-api03-PLANTEDMODELPLANTEDMODEL000".into();
    std::fs::write(&config, serde_json::to_string_pretty(&c).unwrap() + "\n").unwrap();
    common::edit_events(&dir, |events| {
        let elision = events
            .iter_mut()
            .find(|e| e["type"] == "compaction" && e["summary"].is_null())
            .expect("the demo has an elision");
        elision["tool_overrides"] = serde_json::json!({
            "x\u{1b}]0;pwn\u{7}\r# heading sk-ant-api03-PLANTEDTOOLPLANTEDTOOL000000":
                {"policy": "strip", "request": false, "response": false}
        });
    });
    let planted = ["PLANTEDFOLDER", "PLANTEDMODEL", "PLANTEDTOOL"];
    let raw_chars = ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\r'];
    let check = |what: &str, text: &str| {
        for p in planted {
            assert!(!text.contains(p), "{what}: {p} printed");
        }
        for ch in raw_chars {
            assert!(!text.contains(ch), "{what}: raw {:?}", ch);
        }
    };
    let d = dir.to_str().unwrap();
    let (html, doc) = report(tmp.path(), &dir, &[]);
    check("html", &html);
    assert_inert(&doc);
    let md = tmp.path().join("r.md");
    ok(common::jp_inspect(
        &["report", d, "-o", md.to_str().unwrap()],
        tmp.path(),
    ));
    check("markdown", &std::fs::read_to_string(&md).unwrap());
    for e in std::fs::read_dir(tmp.path()).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "svg") {
            check("chart", &std::fs::read_to_string(e.path()).unwrap());
        }
    }
    let out = ok(common::jp_inspect(&["report", d, "-o", "-"], tmp.path()));
    check("report -o -", &String::from_utf8_lossy(&out.stdout));
    check(
        "report -o - (stderr)",
        &String::from_utf8_lossy(&out.stderr),
    );
}
