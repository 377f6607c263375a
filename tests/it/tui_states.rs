//! The inspector's states people meet and must never be left in: an
//! unreadable file, a list that emptied under the focus, status messages
//! that outstay their news.

use crate::common;

use common::harness::Harness;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jp_inspect::tui::msg::Msg;
use jp_inspect::tui::state::{Focus, INFO_SHOWN};
use jp_inspect::tui::status_log::Level;
use std::fs;
use std::time::Instant;

#[test]
fn an_unreadable_file_is_an_error_screen_not_a_loading_one() {
    for (name, bytes) in [
        ("empty", &b""[..]),
        (
            "malformed",
            &b"[\n  {\"type\": \"turn_start\",\n  oops\n]\n"[..],
        ),
    ] {
        let mut h = Harness::prepared(100, 30, true, |dir| {
            fs::write(dir.join("events.json"), bytes).unwrap();
        });
        assert!(h.state.inspection.is_none(), "{name}");
        let text = h.text();
        assert!(text.contains("can't be read"), "{name}: {text}");
        assert!(
            text.contains("events.json"),
            "{name}: the file is named: {text}"
        );
        if name == "malformed" {
            assert!(text.contains("events.json:3:"), "line and column: {text}");
        }
        // Only the keys that make sense are offered and do anything.
        let footer = text.lines().last().unwrap().to_string();
        assert!(
            footer.contains("quit") && footer.contains("wait for a fix"),
            "{footer}"
        );
        assert!(!footer.contains("preview"), "{footer}");
        h.char('p');
        assert!(h.state.input.is_none(), "no prompt on nothing");
        // `f` waits; the fixed file replaces the screen.
        h.char('f');
        assert!(h.state.settings.follow);
        assert!(
            h.text()
                .contains("replaced as soon as the file reads again")
        );
        let demo_events = common::demo().join("events.json");
        fs::copy(&demo_events, h.state.dir.join("events.json")).unwrap();
        h.act(Msg::FilesChanged);
        assert!(h.state.inspection.is_some(), "{name}");
        assert!(h.state.load_error.is_none());
        assert!(!h.text().contains("can't be read"));
        h.char('q');
        assert!(h.state.quit);
    }
    let h = Harness::prepared(80, 24, true, |dir| {
        fs::write(dir.join("events.json"), b"").unwrap();
    });
    insta::assert_snapshot!("unreadable_80x24", h.screen().backend());
    let h = Harness::prepared(200, 50, true, |dir| {
        fs::write(
            dir.join("events.json"),
            b"[\n  {\"type\": \"turn_start\",\n  oops\n]\n",
        )
        .unwrap();
    });
    insta::assert_snapshot!("unreadable_200x50", h.screen().backend());
}

#[test]
fn focus_returns_to_a_pane_when_the_list_empties() {
    let mut h = Harness::new(120, 36, true);
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    assert_eq!(h.state.nav.focus, Focus::Compactions);
    h.char('X');
    h.char('y');
    assert_eq!(h.state.list_len(), 0);
    assert_eq!(h.state.nav.focus, Focus::Raw, "focus left the empty list");
    let before = h.state.nav.cursor;
    h.char('j');
    assert_eq!(h.state.nav.cursor, before + 1, "navigation works");
    // The same after deleting the last one with d.
    let mut h = Harness::new(120, 36, true);
    for _ in 0..2 {
        while h.state.nav.focus != Focus::Compactions {
            h.key(KeyCode::Tab);
        }
        h.char('d');
        h.char('y');
    }
    assert_eq!(h.state.list_len(), 0);
    assert_ne!(h.state.nav.focus, Focus::Compactions);
}

#[test]
fn information_fades_errors_wait_for_a_key_and_a_fixed_file_clears_its_error() {
    let mut h = Harness::new(120, 36, true);
    h.state.set_status("following", Level::Info);
    h.act(Msg::Tick);
    assert!(h.state.status.message.is_some(), "not yet");
    h.state.status.since = Instant::now().checked_sub(INFO_SHOWN);
    h.act(Msg::Tick);
    assert!(h.state.status.message.is_none(), "faded");

    h.state.set_status("the lock is held", Level::Error);
    h.state.status.since = Instant::now().checked_sub(INFO_SHOWN * 10);
    h.act(Msg::Tick);
    assert!(h.state.status.message.is_some(), "an error does not fade");
    h.act(Msg::Key(KeyEvent::new(
        KeyCode::Char('j'),
        KeyModifiers::NONE,
    )));
    assert!(h.state.status.message.is_none(), "the next key clears it");

    // Following: a broken write shows an error; the next good one clears it.
    h.char('f');
    let events = h.state.dir.join("events.json");
    let good = fs::read(&events).unwrap();
    fs::write(&events, b"[ {").unwrap();
    h.act(Msg::FilesChanged);
    assert!(matches!(h.state.status.message, Some((_, Level::Error))));
    assert!(h.state.inspection.is_some(), "the last good view stays");
    fs::write(&events, good).unwrap();
    h.act(Msg::FilesChanged);
    assert!(
        h.state.status.message.is_none(),
        "{:?}",
        h.state.status.message
    );
}

#[test]
fn u_undoes_each_write_of_the_session_and_ctrl_r_redoes_it() {
    let mut h = Harness::new(120, 36, true);
    let file = h.state.dir.join("events.json");
    let original = fs::read(&file).unwrap();
    h.char('u');
    assert!(
        h.text().contains("nothing to undo"),
        "said when there is nothing"
    );
    // Apply a preview, then reset all (which removes the demo's summary).
    h.char('p');
    h.typed("r+t:10..12");
    h.key(KeyCode::Enter);
    h.char('a');
    let applied = fs::read(&file).unwrap();
    assert_ne!(applied, original);
    h.char('X');
    h.char('y');
    assert_eq!(h.state.list_len(), 0);
    // u takes back the reset, then the apply, byte for byte.
    h.char('u');
    assert_eq!(fs::read(&file).unwrap(), applied);
    assert!(
        h.text().contains("undone: reset all compactions"),
        "{}",
        h.text()
    );
    h.char('u');
    assert_eq!(fs::read(&file).unwrap(), original);
    assert!(
        h.text().contains("undone: appended 1 compaction"),
        "{}",
        h.text()
    );
    // Ctrl-R redoes them in order.
    let ctrl_r = || Msg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL));
    h.act(ctrl_r());
    assert_eq!(fs::read(&file).unwrap(), applied);
    assert!(h.text().contains("redone: appended"), "{}", h.text());
    h.act(ctrl_r());
    assert_eq!(h.state.list_len(), 0);
    h.act(ctrl_r());
    assert!(h.text().contains("nothing to redo"));
    // A new write drops what could be redone.
    h.char('u');
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    h.char('d');
    h.char('y');
    assert!(h.state.history.redo.is_empty());
    h.char('u');
    assert_eq!(fs::read(&file).unwrap(), applied);
}

fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

#[test]
fn a_prefilled_prompt_is_replaced_by_typing_and_ctrl_u_clears_it() {
    let mut h = Harness::new(120, 36, true);
    h.char('p');
    h.typed("r+t:10..12");
    h.key(KeyCode::Enter);
    assert!(h.state.preview.is_some());
    // Reopened, the last rule is there, selected: typing replaces it.
    h.char('p');
    assert_eq!(h.state.input.as_ref().unwrap().text(), "r+t:10..12");
    h.typed("t:4..5");
    assert_eq!(h.state.input.as_ref().unwrap().text(), "t:4..5");
    // An arrow keeps the text and drops the selection.
    h.key(KeyCode::Esc);
    h.char('p');
    h.key(KeyCode::End);
    h.typed("x");
    assert_eq!(h.state.input.as_ref().unwrap().text(), "r+t:10..12x");
    h.act(ctrl('u'));
    assert_eq!(h.state.input.as_ref().unwrap().text(), "");
    h.typed("r");
    assert_eq!(h.state.input.as_ref().unwrap().text(), "r");
}

#[test]
fn search_is_smart_case_and_matches_are_marked_in_the_lines() {
    let mut h = Harness::new(160, 40, true);
    let search = |h: &mut Harness, q: &str| {
        h.char('/');
        h.act(ctrl('u'));
        h.typed(q);
        h.key(KeyCode::Enter);
        h.state.search.as_ref().unwrap().hits.clone()
    };
    let any_case = search(&mut h, "parser");
    let exact = search(&mut h, "Parser");
    let lower_only = search(&mut h, "pArser");
    assert!(!any_case.is_empty() && !exact.is_empty());
    assert!(exact.len() < any_case.len(), "{exact:?} vs {any_case:?}");
    assert!(lower_only.len() < any_case.len());
    for i in &exact {
        assert!(any_case.contains(i));
    }
    // The match in the selected line is drawn in the match style.
    search(&mut h, "parser");
    let screen = h.screen();
    let buf = screen.backend().buffer();
    let marked = h.state.theme.matched();
    let mut found = false;
    for y in 0..buf.area.height {
        let row: String = (0..buf.area.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        if let Some(at) = row.find("parser") {
            let x = row[..at].chars().count() as u16;
            found |= buf[(x, y)].bg == marked.bg.unwrap();
        }
    }
    assert!(found, "no marked match on screen:\n{}", h.text());
}

#[test]
fn at_80_columns_the_essentials_stay_and_the_rest_drops_whole() {
    let mut h = Harness::new(80, 24, true);
    h.char('p');
    h.typed("r+t:10..12");
    h.key(KeyCode::Enter);
    let text = h.text();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("staged"), "the mode: {}", lines[0]);
    assert!(
        lines[1].contains("context") && lines[1].contains('%'),
        "{}",
        lines[1]
    );
    let footer = lines.last().unwrap();
    for item in [
        "q quit",
        "? help",
        "p preview",
        "a apply",
        "s simulate",
        "/ search",
    ] {
        assert!(footer.contains(item), "{item} missing: {footer}");
    }
    // Nothing is cut in half: every item shown is whole.
    let shown = footer.trim_matches(['"', ' ']);
    assert!(
        !shown.ends_with("rese") && !shown.ends_with("mod"),
        "{footer}"
    );
    // ? still lists everything, the rule grammar with its examples too.
    h.key(KeyCode::Esc);
    h.key(KeyCode::Esc);
    h.char('?');
    let mut all = String::new();
    for _ in 0..40 {
        all.push_str(&h.text());
        h.char(' ');
    }
    for b in jp_inspect::keymap::bindings() {
        if b.scope == jp_inspect::keymap::Scope::Main {
            let start: String = b.help.chars().take(20).collect();
            assert!(all.contains(&start), "help misses `{}`", b.help);
        }
    }
    assert!(
        all.contains("s:..-3") && all.contains("t=sreq:2..6"),
        "rule examples"
    );
}

/// Opens the detail of the first event whose text has `needle`.
fn open_detail_of(h: &mut Harness, needle: &str) {
    h.char('/');
    h.act(ctrl('u'));
    h.typed(needle);
    h.key(KeyCode::Enter);
    h.key(KeyCode::Enter);
    assert!(
        matches!(
            h.state.panel,
            Some(jp_inspect::tui::panels::Panel::Detail(_))
        ),
        "no detail for {needle}"
    );
}

fn detail(h: &Harness) -> &jp_inspect::tui::panels::Detail {
    match &h.state.panel {
        Some(jp_inspect::tui::panels::Panel::Detail(d)) => d,
        _ => panic!("no detail open"),
    }
}

#[test]
fn the_detail_layout_wraps_scrolls_sideways_and_says_where_it_is() {
    use jp_inspect::tui::detail_layout;
    for (w, hgt) in [(80, 24), (200, 50)] {
        let mut h = Harness::new(w, hgt, true);
        open_detail_of(&mut h, "parser: part of csvq");
        // Opened at the search's match; from the top here.
        h.char('g');
        let d = detail(&h).clone();
        assert!(d.wrap, "wrapping is the default");
        let width = (w - 2) as usize;
        let rows = detail_layout::total_rows(&d, width);
        if w == 80 {
            assert!(rows > d.lines.len(), "some line is wider than {width}");
        }
        let text = h.text();
        let room = detail_layout::room(&d, &h.state);
        assert!(
            text.contains(&format!("rows 1–{room} of {rows}")),
            "{w}x{hgt}: {text}"
        );
        // Every character is reachable: the last row shows the text's end.
        h.char('G');
        let last_line = d.lines.last().unwrap();
        let tail: String = last_line
            .spans
            .iter()
            .map(|s| s.content.to_string())
            .collect::<String>()
            .chars()
            .rev()
            .take(10)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        assert!(
            h.text().contains(tail.trim()),
            "{w}x{hgt}: the end `{tail}`"
        );
        assert!(h.text().contains(&format!("of {rows}")));
        insta::assert_snapshot!(format!("detail_wrapped_{w}x{hgt}"), h.screen().backend());
        // Unwrapped: one row per line, h/l move sideways.
        h.char('w');
        let d = detail(&h);
        assert!(!d.wrap && d.scroll == 0);
        assert!(
            h.text()
                .contains(&format!("lines 1–{room} of {}", d.lines.len()))
        );
        h.char('l');
        let max = detail_layout::max_hscroll(detail(&h), &h.state);
        assert_eq!(detail(&h).hscroll, max.min(8));
        h.char('h');
        assert_eq!(detail(&h).hscroll, 0);
    }
}

#[test]
fn l_lists_the_events_by_size_and_enter_jumps_to_one() {
    use jp_inspect::tui::panels::Panel;
    for (w, hgt) in [(80, 24), (200, 50)] {
        let mut h = Harness::new(w, hgt, true);
        h.char('L');
        let Some(Panel::Largest(l)) = &h.state.panel else {
            panic!("no largest view");
        };
        let l = l.clone();
        assert!(l.entries.windows(2).all(|p| p[0].tokens >= p[1].tokens));
        // The shares are of the context the gauge shows.
        let m = h.state.inspection.as_ref().unwrap();
        assert_eq!(l.context, h.state.context_of(&m.estimate));
        let biggest = &l.entries[0];
        assert_eq!(
            biggest.tokens,
            m.projection
                .events
                .iter()
                .map(|e| jp_inspect::core::ops::project::tokens(
                    m.projection.chars(&m.conv.events, e)
                ))
                .max()
                .unwrap()
        );
        insta::assert_snapshot!(format!("largest_{w}x{hgt}"), h.screen().backend());
        // Enter on the second puts the cursor on that raw event.
        h.char('j');
        let jp_inspect::core::ops::largest::Origin::Event {
            raw: Some(second), ..
        } = l.entries[1].origin
        else {
            panic!("not a raw event: {:?}", l.entries[1]);
        };
        h.key(KeyCode::Enter);
        assert!(h.state.panel.is_none());
        assert_eq!(h.state.nav.focus, Focus::Raw);
        assert_eq!(h.state.selected_raw(), Some(second));
        let row = h.state.nav.cursor;
        assert!(row >= h.state.nav.scroll && row < h.state.nav.scroll + h.state.pane_height());
    }
}

#[test]
fn each_turn_header_has_a_bar_of_its_size_against_the_largest() {
    use jp_inspect::tui::rows::size_bar;
    assert_eq!(size_bar(100, 100), "████");
    assert_eq!(size_bar(50, 100), "██  ");
    assert_eq!(size_bar(0, 100), "    ");
    assert_eq!(size_bar(1, 100), "▏   ", "a tiny turn still shows");
    let h = Harness::new(200, 50, true);
    // Turn 1 of the demo is the largest (a full bar); turn 3 is smaller.
    let text = h.text();
    let header = |n: usize| {
        text.lines()
            .find(|l| l.starts_with(&format!("\" turn {n} · ")))
            .unwrap_or_else(|| panic!("turn {n} not on screen"))
            .to_string()
    };
    assert!(header(1).contains("████"), "{}", header(1));
    let turn3 = header(3);
    let left = turn3.split('│').next().unwrap();
    assert!(
        !left.contains("████") && left.contains(['▏', '▎', '▍', '▌', '▋', '▊', '▉', '█']),
        "{turn3}"
    );
}

#[test]
fn the_auto_preview_explains_its_decision_as_the_cli_does() {
    for (w, hgt) in [(80, 24), (200, 50)] {
        let mut h = Harness::new(w, hgt, true);
        h.char('p');
        h.typed("auto");
        h.key(KeyCode::Enter);
        let p = h.state.preview.clone().expect("auto fires on the demo");
        let lines = jp_inspect::tui::view::why::lines(&p, &h.state);
        assert!(lines[0].starts_with("staged mode, usable window 184k, context"));
        let notes: Vec<String> = p.plan.notes.iter().map(ToString::to_string).collect();
        // The CLI, a process of its own on the same files, gives the same
        // reasons in the same order.
        let cli = common::json(&common::run_in(
            h.dir(),
            &["auto", h.dir().to_str().unwrap(), "--dry-run", "--json"],
        ));
        let reasons: Vec<String> = cli["reasons"]
            .as_array()
            .expect("auto --json gives its reasons")
            .iter()
            .map(|r| r.as_str().unwrap().to_string())
            .collect();
        assert_eq!(notes, reasons);
        assert!(
            notes.iter().any(|n| n.starts_with("recent window:")),
            "{notes:?}"
        );
        assert!(
            notes.iter().any(|n| n.contains("soft threshold")),
            "{notes:?}"
        );
        assert_eq!(cli["mode"], "staged");
        assert_eq!(cli["usable"], 184_000);
        // On screen: the headline and the start of every note.
        let text = h.text().replace('\n', "");
        assert!(text.contains("why: the automatic policy"), "{w}x{hgt}");
        assert!(
            text.contains("staged mode, usable window 184k"),
            "{w}x{hgt}"
        );
        if w == 200 {
            for n in &notes {
                let start: String = n.chars().take(30).collect();
                assert!(text.contains(&start), "{w}x{hgt}: `{start}` not shown");
            }
            insta::assert_snapshot!("auto_why_200x50", h.screen().backend());
        }
    }
}

/// Appends a turn to the conversation the way jp does (a new file renamed
/// over events.json).
fn jp_appends_a_turn(dir: &std::path::Path, n: usize) {
    let mut events: Vec<serde_json::Value> =
        serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
    events.push(
        serde_json::json!({"timestamp": format!("2026-11-13 09:00:0{n}.0"), "type": "turn_start"}),
    );
    events.push(serde_json::json!({"timestamp": format!("2026-11-13 09:00:0{n}.5"), "type": "chat_request", "content": "one more thing"}));
    events.push(serde_json::json!({"timestamp": format!("2026-11-13 09:00:0{n}.7"), "type": "tool_call_request", "id": format!("call{n}"), "name": "fs_read_file", "arguments": {"path": "src/main.rs"}}));
    events.push(serde_json::json!({"timestamp": format!("2026-11-13 09:00:0{n}.8"), "type": "tool_call_response", "id": format!("call{n}"), "content": "fn main() {}", "is_error": false}));
    let tmp = dir.join("events.json.tmp");
    fs::write(&tmp, serde_json::to_string_pretty(&events).unwrap() + "\n").unwrap();
    fs::rename(&tmp, dir.join("events.json")).unwrap();
}

#[test]
fn an_open_preview_is_planned_again_when_new_turns_arrive() {
    let mut h = Harness::new(160, 40, true);
    h.char('f');
    h.char('p');
    h.typed("t:..-3");
    h.key(KeyCode::Enter);
    let range = |h: &Harness| h.state.preview.as_ref().unwrap().plan.additions[0].range();
    let before = range(&h);
    assert_eq!(before.to + 1, 32 - 3, "all but the last three of 32");
    assert!(h.text().contains("t:..-3 (turns 1..29)"), "{}", h.text());
    jp_appends_a_turn(&h.state.dir.clone(), 1);
    h.act(Msg::FilesChanged);
    let after = range(&h);
    assert_eq!(
        after.to,
        before.to + 1,
        "the relative range moved with the stream"
    );
    assert!(h.text().contains("t:..-3 (turns 1..30)"), "{}", h.text());
    // What `a` writes is the plan against the new stream.
    h.char('a');
    let conv = jp_inspect::core::ops::read::whole(&h.state.dir).unwrap();
    let last = conv.valid_compactions().last().unwrap().clone();
    assert_eq!(last.to_turn, after.to);
}

#[test]
fn messages_render_their_markdown_in_the_detail_layout() {
    for color in [true, false] {
        let mut h = Harness::new(160, 40, color);
        open_detail_of(&mut h, "Here's where csvq stands");
        let d = detail(&h);
        let joined: Vec<String> = d
            .lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.to_string()).collect())
            .collect();
        assert!(!joined.iter().any(|l| l.contains("**")), "{joined:?}");
        let works = d
            .lines
            .iter()
            .flat_map(|l| l.spans.iter())
            .find(|s| s.content.contains("Works"))
            .expect("the bold Works");
        assert!(
            works
                .style
                .add_modifier
                .contains(ratatui::style::Modifier::BOLD),
            "{works:?}"
        );
        if !color {
            assert!(
                d.lines
                    .iter()
                    .flat_map(|l| l.spans.iter())
                    .all(|s| s.style.fg.is_none()),
                "NO_COLOR: no colours"
            );
        }
    }
}

#[test]
fn inside_a_turn_each_projected_event_faces_the_raw_event_it_came_from() {
    use jp_inspect::core::ops::Projected;
    use jp_inspect::tui::inspection::Cell;
    let mut h = Harness::new(160, 40, true);
    // Omitting tool calls drops events from the projected side.
    h.char('p');
    h.typed("t=omit:10..12");
    h.key(KeyCode::Enter);
    let m = h.state.inspection.as_ref().unwrap();
    let (mut faced, mut blanks) = (0, 0);
    for row in 0..m.layout.rows() {
        let (b, raw, proj) = m.layout.cells(row);
        if !(9..=11).contains(&b) {
            continue;
        }
        match (raw, proj) {
            (Cell::Event(i), Cell::Event(j)) => {
                match m.projection.events[j] {
                    Projected::Raw { index, .. } => assert_eq!(index, i, "row {row}"),
                    Projected::Summary { .. } => panic!("no summary in turns 10..12"),
                }
                faced += 1;
            }
            (Cell::Event(i), Cell::Blank) => {
                let kind = &m.conv.events[i].kind;
                // Omitted tool calls, and events never sent (a compaction).
                assert!(
                    kind.tag().starts_with("tool_call") || !kind.is_model_visible(),
                    "{i}"
                );
                blanks += kind.tag().starts_with("tool_call") as usize;
            }
            _ => {}
        }
    }
    assert!(faced > 0 && blanks > 0, "faced {faced}, blanks {blanks}");
}

#[test]
fn orientation_position_sticky_header_and_the_selected_compaction() {
    let mut h = Harness::new(160, 40, true);
    h.char('j');
    let status_line = |h: &Harness| h.text().lines().rev().nth(1).unwrap().to_string();
    let line = status_line(&h);
    assert!(line.contains("turn 1/32 · event 1 of 286"), "{line}");
    // Paging into a turn keeps its header on the top row.
    h.char('n');
    h.char('n');
    h.char('n');
    h.char('n');
    h.char('n');
    for _ in 0..6 {
        h.char('j');
    }
    let b = h
        .state
        .inspection
        .as_ref()
        .unwrap()
        .layout
        .block_of(h.state.nav.scroll + 3);
    h.state.nav.scroll += 3;
    h.act(Msg::Tick);
    assert!(h.state.sticky.is_some());
    let text = h.text();
    let top = text
        .lines()
        .find(|l| l.contains("raw stream"))
        .and_then(|_| {
            text.lines()
                .skip_while(|l| !l.contains("raw stream"))
                .nth(1)
        })
        .unwrap()
        .to_string();
    assert!(top.contains(&format!(" turn {} · ", b + 1)), "{top}");
    // Selecting a compaction in the list scrolls both panes to its range
    // and makes its bands stand out.
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    h.char('j');
    let m = h.state.inspection.as_ref().unwrap();
    let second = &m.compactions[1];
    let from = second.range.unwrap().from;
    assert_eq!(h.state.nav.scroll, m.layout.offsets[from]);
    assert_eq!(m.selected_position, Some(second.position));
    let screen = h.screen();
    let buf = screen.backend().buffer();
    let reversed = (0..buf.area.height).any(|y| {
        buf[(0, y)]
            .modifier
            .contains(ratatui::style::Modifier::REVERSED)
    });
    assert!(reversed, "the selected compaction's band stands out");
    // Back in a pane, nothing stands out.
    h.key(KeyCode::Tab);
    assert_eq!(h.state.inspection.as_ref().unwrap().selected_position, None);
}

/// `L` lists the largest 500 events and says what it leaves out: the
/// title counts them all, the last row says how many smaller ones and their
/// share; the Σ column stays in its place.
#[test]
fn l_says_what_it_leaves_out() {
    use jp_inspect::tui::panels::Panel;
    let mut h = Harness::prepared(120, 40, false, |dir| {
        common::edit_events(dir, |ev| {
            for i in 0..150 {
                ev.push(serde_json::json!({"timestamp": format!("2026-11-13 09:{:02}:00.0", i % 60), "type": "turn_start"}));
                ev.push(serde_json::json!({"timestamp": format!("2026-11-13 09:{:02}:01.0", i % 60), "type": "chat_request", "content": format!("ok {i}")}));
            }
        })
    });
    h.char('L');
    let Some(Panel::Largest(l)) = &h.state.panel else {
        panic!("no largest view");
    };
    let (listed, total) = (l.entries.len(), l.total);
    assert_eq!(listed, 500);
    assert!(total > 500, "{total}");
    assert!(
        h.text()
            .contains(&format!("the largest 500 of {total} by size")),
        "{}",
        h.text()
    );
    for _ in 0..listed {
        h.char('j');
    }
    let text = h.text();
    assert!(
        text.contains(&format!("{} smaller entries not listed", total - 500)),
        "{text}"
    );
    // Σ sits in one column on every row.
    let columns: Vec<usize> = text
        .lines()
        .filter(|l| l.starts_with('│'))
        .filter_map(|l| {
            l.find('%')
                .and_then(|a| l[a + 1..].find('%').map(|b| a + b))
        })
        .collect();
    assert!(columns.windows(2).all(|w| w[0] == w[1]), "{columns:?}");
}

/// The system prompt and the tool definitions are rows like the events:
/// `O` lists each part in the order sent with its tokens (adding up to the
/// gauge's system prompt and tools within a token per part), Enter opens
/// one's text; `L` ranks them among the events.
#[test]
fn o_lists_the_system_prompt_and_each_tool_and_opens_them() {
    use jp_inspect::core::model::overhead::PartKind;
    use jp_inspect::core::ops::largest::Origin;
    use jp_inspect::tui::panels::Panel;
    let mut h = Harness::new(120, 40, false);
    let m = h.state.inspection.as_ref().unwrap();
    let (system, tools) = (m.estimate.system_tokens(), m.estimate.tool_tokens());
    h.char('O');
    let Some(Panel::Largest(l)) = &h.state.panel else {
        panic!("no overhead view");
    };
    let parts: Vec<_> = l
        .entries
        .iter()
        .map(|e| match &e.origin {
            Origin::Overhead(p) => (p.kind, p.name.clone(), e.tokens),
            Origin::Event { .. } => panic!("an event in O: {e:?}"),
        })
        .collect();
    assert_eq!(parts[0].0, PartKind::Prompt);
    let of = |tool: bool| -> (u64, usize) {
        let k: Vec<_> = parts
            .iter()
            .filter(|p| (p.0 == PartKind::Tool) == tool)
            .collect();
        (k.iter().map(|p| p.2).sum(), k.len())
    };
    let ((sys_sum, sys_n), (tool_sum, tool_n)) = (of(false), of(true));
    assert_eq!(tool_n, 14, "the demo's enabled tools");
    assert!(
        sys_sum.abs_diff(system) <= sys_n as u64,
        "{sys_sum} vs {system}"
    );
    assert!(
        tool_sum.abs_diff(tools) <= tool_n as u64,
        "{tool_sum} vs {tools}"
    );
    let text = h.text();
    assert!(text.contains("what every request carries"), "{text}");
    insta::assert_snapshot!("overhead_120x40", h.screen().backend());
    // The last tool opens with its description and schema.
    let (_, name, _) = parts.last().unwrap().clone();
    h.char('G');
    h.key(KeyCode::Enter);
    let Some(Panel::Detail(d)) = &h.state.panel else {
        panic!("no detail");
    };
    assert_eq!(d.title, format!("tool: {name}"));
    let text = h.text();
    assert!(text.contains("input schema:"), "{text}");
    assert!(text.contains("sent with every request"), "{text}");
    h.key(KeyCode::Esc);
    // `L` ranks them with the events; the shares add up to the context.
    h.char('L');
    let Some(Panel::Largest(l)) = &h.state.panel else {
        panic!("no largest view");
    };
    assert!(
        l.entries
            .iter()
            .any(|e| matches!(&e.origin, Origin::Overhead(p) if p.name == name))
    );
    let sum: u64 = l.entries.iter().map(|e| e.tokens).sum();
    let n = l.entries.len() as u64;
    assert!(sum.abs_diff(l.context) <= n, "{sum} vs {}", l.context);
}

/// A search leads into the text: Enter on a hit opens the event at its
/// first match with the matches marked, `/` searches inside the detail
/// view, `n`/`N` go from match to match (wrapping around).
#[test]
fn search_leads_to_the_match_inside_the_detail_layout() {
    for (w, hgt) in [(80, 24), (200, 50)] {
        let mut h = Harness::new(w, hgt, true);
        // Deep in the 103k-character read of src/query.rs.
        open_detail_of(&mut h, "Error::at(18,");
        let d = detail(&h).clone();
        assert_eq!(d.needle.as_deref(), Some("Error::at(18,"));
        assert!(d.scroll > 100, "{w}x{hgt}: opened at row {}", d.scroll);
        assert!(
            h.text().contains("Error::at(18,"),
            "{w}x{hgt}: the match on screen"
        );
        // The match is drawn in the search's style.
        let screen = h.screen();
        let buf = screen.backend().buffer();
        let matched = jp_inspect::tui::theme::Theme::new(true).matched();
        let marked = buf
            .content()
            .iter()
            .filter(|c| c.bg == matched.bg.unwrap_or_default() && c.symbol() != " ")
            .count();
        assert!(
            marked >= "Error::at(18,".len(),
            "{w}x{hgt}: {marked} cells marked"
        );
        // `/` inside the view searches its text only.
        h.char('/');
        h.act(ctrl('u'));
        h.typed("Schema::from_str");
        h.key(KeyCode::Enter);
        let d = detail(&h).clone();
        assert_eq!(d.needle.as_deref(), Some("Schema::from_str"));
        let (said, _) = h.state.status.message.clone().unwrap();
        assert!(said.ends_with("in this text: n next, N previous"), "{said}");
        let first = d.scroll;
        h.char('n');
        let second = detail(&h).scroll;
        assert!(second > first, "n goes down: {first} -> {second}");
        h.char('N');
        assert_eq!(detail(&h).scroll, first, "N comes back");
        h.char('/');
        h.act(ctrl('u'));
        h.typed("no such text anywhere");
        h.key(KeyCode::Enter);
        let (said, _) = h.state.status.message.clone().unwrap();
        assert_eq!(said, "no match in this text");
    }
}

/// `y` copies the selected event's text (OSC 52 by the runtime), `o` and
/// `e` hand it to the pager and the editor; in the detail view, the text as
/// shown (`r`: as stored).
#[test]
fn y_o_and_e_take_the_selected_text_out() {
    use jp_inspect::tui::msg::{Effect, Msg, Opener};
    use jp_inspect::tui::update::update;
    let mut h = Harness::new(120, 40, false);
    // The first user message of the demo.
    let i = loop {
        h.char('j');
        let i = h.state.selected_raw().expect("an event");
        let m = h.state.inspection.as_ref().unwrap();
        if m.conv.events[i].kind.label() == "user" {
            break i;
        }
    };
    let text = h.state.inspection.as_ref().unwrap().conv.text(i);
    let key = |h: &mut Harness, c: char| {
        update(
            &mut h.state,
            Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
        )
    };
    let fx = key(&mut h, 'y');
    let copied: Vec<&String> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Copy(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(copied, [&text]);
    let (said, _) = h.state.status.message.clone().unwrap();
    assert!(
        said.starts_with("copied ") && said.contains("OSC 52"),
        "{said}"
    );
    let fx = key(&mut h, 'e');
    match fx.as_slice() {
        [Effect::Open { with, text: t, .. }] => {
            assert_eq!(*with, Opener::Editor);
            assert_eq!(t, &text);
        }
        other => panic!("{other:?}"),
    }
    // In the detail view as stored: the stored JSON goes out.
    h.key(KeyCode::Enter);
    h.char('r');
    let fx = key(&mut h, 'o');
    match fx.as_slice() {
        [
            Effect::Open {
                with,
                text: t,
                extension,
                ..
            },
        ] => {
            assert_eq!(*with, Opener::Pager);
            assert_eq!(t, h.state.inspection.as_ref().unwrap().conv.raw(i));
            assert_eq!(*extension, "json");
        }
        other => panic!("{other:?}"),
    }
}

/// Without colour the band glyphs tell manual and automatic compactions
/// apart (the demo has one of each); with colour, the colours do.
#[test]
fn no_color_gives_automatic_bands_their_own_glyph() {
    let mut h = Harness::new(140, 40, false);
    // Turn 5: the end of the manual band (2..5), the automatic one (6..8)
    // below it.
    for _ in 0..4 {
        h.char('n');
    }
    let plain = h.text();
    assert!(
        plain.contains("║ auto") && plain.contains("┃ manual"),
        "{plain}"
    );
    // Rows whose gutter (the first column, after the snapshot's quote)
    // is `glyph`.
    let rows = |text: &str, glyph: char| {
        text.lines()
            .filter(|l| l.chars().nth(1) == Some(glyph))
            .count()
    };
    assert!(rows(&plain, '║') > 0, "an automatic band: {plain}");
    assert!(rows(&plain, '┃') > 0, "a manual band: {plain}");
    let mut h = Harness::new(140, 40, true);
    for _ in 0..4 {
        h.char('n');
    }
    let coloured = h.text();
    assert!(!coloured.contains('║'), "{coloured}");
}

/// A compaction's detail says what it hid (the loss ledger, as `lost`
/// says it) above the event, whose turns are named in both bases.
#[test]
fn a_compactions_detail_says_what_it_hid() {
    let mut h = Harness::new(160, 64, false);
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    h.key(KeyCode::Enter);
    let text = h.text();
    assert!(
        text.contains("hid 7 tool calls, 7 results (1 error), 3 reasoning blocks, 8 messages"),
        "{text}"
    );
    assert!(
        text.contains("fs_read_file") && text.contains("src/parser.rs"),
        "{text}"
    );
    // What the model no longer knows of its range, judged by meaning: the
    // summary tells the fix, both failing tests and the files, not the
    // user's opening example query nor the run that showed it.
    assert!(
        text.contains("keeps 1 of 2 instructions, 2 of 2 errors, 2 of 2 files, 1 of 2 commands"),
        "{text}"
    );
    assert!(text.contains("instruction Start with the parser"), "{text}");
    assert!(text.contains("lost:"), "{text}");
    assert!(
        text.contains("the event (turns stored 0-based: from_turn 1 is turn 2)"),
        "{text}"
    );
    // What it cost with the prompt cache, as `stats` says it.
    let stats = common::json(&common::run_anywhere(&["stats", "--demo", "--json"]));
    let said = stats["compactions"][0]["payback_text"].as_str().unwrap();
    assert!(text.contains(&format!("cost: {said}")), "{said}\n{text}");
}

/// `T`: the tools by response tokens, Tab re-sorts keeping the tool under
/// the cursor, Enter lists its calls and jumps to one, `a` asks before it
/// writes the tool's hint into the workspace's config.
#[test]
fn t_weighs_the_tools_lists_their_calls_and_writes_a_hint_after_asking() {
    use jp_inspect::tui::panels::Panel;
    use jp_inspect::tui::tools_view::Column;
    for (w, hgt) in [(80, 24), (200, 50)] {
        let mut h = Harness::new(w, hgt, true);
        h.char('T');
        let Some(Panel::Tools(v)) = &h.state.panel else {
            panic!("no tools view");
        };
        let rows: Vec<_> = v.rows().into_iter().cloned().collect();
        assert!(
            rows.windows(2)
                .all(|p| p[0].response_tokens >= p[1].response_tokens)
        );
        assert_eq!(rows[0].name, "fs_read_file");
        insta::assert_snapshot!(format!("tools_{w}x{hgt}"), h.screen().backend());
        h.char('j');
        let second = rows[1].name.clone();
        h.key(KeyCode::Tab);
        let Some(Panel::Tools(v)) = &h.state.panel else {
            panic!("closed by Tab");
        };
        assert_eq!(v.sort, Column::Errors);
        assert_eq!(
            v.selected().unwrap().name,
            second,
            "the cursor follows its tool"
        );
        h.key(KeyCode::Enter);
        let Some(Panel::Tools(v)) = &h.state.panel else {
            panic!("closed by Enter");
        };
        let calls = v.calls.clone().expect("the calls");
        assert_eq!(calls.tool, second);
        assert_eq!(calls.calls.len(), rows[1].calls);
        h.char('j');
        h.key(KeyCode::Enter);
        assert!(h.state.panel.is_none());
        assert_eq!(h.state.selected_raw(), Some(calls.calls[1].raw));
    }
    // The demo's tools have no hint that saves: a noisy one has.
    let mut h = Harness::prepared(120, 36, false, common::add_noisy_tool);
    h.char('T');
    common::harness::select_tool(&mut h, "git_status");
    h.char('a');
    let config = h
        .dir()
        .ancestors()
        .find(|d| d.join(".jp").is_dir())
        .unwrap()
        .join(".jp/config.toml");
    assert!(
        h.text().contains("Write `omit` for git_status into"),
        "{}",
        h.text()
    );
    assert!(!config.exists(), "written before the answer");
    h.char('n');
    assert!(!config.exists());
    h.char('a');
    h.char('y');
    let text = std::fs::read_to_string(&config).unwrap();
    assert_eq!(
        text,
        "[plugins.command.inspect.options.tools.git_status]\ncompaction = \"omit\"\n"
    );
    // Read again at once: what is previewed from now on takes it.
    assert!(
        h.state
            .settings
            .config
            .tool_hints
            .contains_key("git_status")
    );
}

/// The help pages by a screen with Space and goes to its end with `G`.
#[test]
fn help_pages_by_the_screen_and_g_goes_to_the_end() {
    use jp_inspect::tui::panels::Panel;
    let mut h = Harness::new(120, 40, false);
    h.char('?');
    let scroll = |h: &Harness| match h.state.panel {
        Some(Panel::Help { scroll }) => scroll,
        _ => panic!("help closed"),
    };
    h.key(KeyCode::Char(' '));
    assert!(scroll(&h) >= 20, "a page is {} lines", scroll(&h));
    h.char('G');
    let end = jp_inspect::tui::view::overlays::help_max_scroll(&h.state);
    assert_eq!(scroll(&h), end);
    h.char('g');
    assert_eq!(scroll(&h), 0);
    h.char('j');
    assert_eq!(scroll(&h), 1);
}

/// The header says when jp holds the conversation's lock, at any width.
#[test]
fn the_header_says_jp_holds_the_lock() {
    for w in [80, 200] {
        let mut h = Harness::new(w, 24, false);
        assert!(!h.text().contains("jp holds the lock"));
        h.act(jp_inspect::tui::msg::Msg::LockSeen(true));
        let first = h.text().lines().next().unwrap_or_default().to_string();
        assert!(first.contains("jp holds the lock"), "{w}: {first}");
        h.act(jp_inspect::tui::msg::Msg::LockSeen(false));
        assert!(!h.text().contains("jp holds the lock"));
    }
}

/// `A` judges a boundary on the file jp left, as `watch` does: a shown
/// conversation read before jp's last write (between its two copies, or a
/// turn written in parts) is read again before the policy looks at it.
#[test]
fn a_boundary_is_judged_on_the_file_jp_left_not_the_copy_shown() {
    use jp_inspect::tui::job::{Job, JobResult};
    let h = Harness::new(120, 30, false);
    let shown = h.state.inspection.as_ref().unwrap().conv.clone();
    common::jp_appends_a_turn(h.dir(), "and one more question");
    let result = jp_inspect::tui::worker::execute(Job::Boundary {
        dir: h.dir().to_path_buf(),
        conv: shown.clone(),
        config: jp_inspect::core::ops::AutoConfig::default(),
        window: Some(64_000),
        now: jp_inspect::core::model::timestamp::parse("2026-11-20 09:00:00").unwrap(),
    });
    let JobResult::Boundary(turns, said) = result else {
        panic!("a boundary's result");
    };
    assert_eq!(turns, shown.turn_count + 1);
    assert!(said.is_ok(), "{said:?}");
}

/// What automatic compaction did at a boundary stays on screen over the
/// reload that shows its write; the reload's words go to the log (`M`).
#[test]
fn a_firings_notice_stays_over_the_reload_that_shows_it() {
    let mut h = Harness::new(160, 40, false);
    h.set_window("64k");
    h.char('A');
    common::jp_appends_a_turn(h.dir(), "and one more question");
    h.act(Msg::FilesChanged);
    // jp writes again within the turn (its answer), and the watcher says
    // so while the verdict is still on screen.
    let mut events: Vec<serde_json::Value> =
        serde_json::from_slice(&fs::read(h.dir().join("events.json")).unwrap()).unwrap();
    events.push(serde_json::json!({"timestamp": "2026-11-13 09:00:02.0", "type": "chat_response", "message": "an answer"}));
    common::jp_writes(h.dir(), &events);
    h.act(Msg::FilesChanged);
    let (said, _) = h.state.status.message.clone().expect("a status");
    assert!(said.starts_with("automatic compaction fired"), "{said}");
    let log: Vec<String> = h
        .state
        .status
        .log
        .said
        .iter()
        .map(|e| e.text.clone())
        .collect();
    assert!(log.iter().any(|l| l.starts_with("reloaded")), "{log:?}");
}

/// A question about applying a preview that adds tokens asks with the
/// figures the preview has now: new events under it plan it again, and
/// the question follows.
#[test]
fn the_apply_question_follows_its_preview_through_a_reload() {
    let mut h = Harness::new(160, 40, false);
    h.char('f');
    h.char('p');
    h.typed("s:32..");
    h.key(KeyCode::Enter);
    h.char('a');
    let asked = |h: &Harness| match &h.state.panel {
        Some(jp_inspect::tui::panels::Panel::Confirm(c)) => c.question.clone(),
        other => panic!("no question open: {other:?}"),
    };
    let before = asked(&h);
    assert!(before.starts_with("Apply it anyway?"), "{before}");
    common::jp_appends_a_turn(
        h.dir(),
        "and one more question, a long one this time about the parser",
    );
    h.act(Msg::FilesChanged);
    let after = asked(&h);
    let preview = h.state.preview.as_ref().unwrap();
    assert_eq!(
        Some(after.clone()),
        preview
            .plan
            .additions
            .iter()
            .find_map(|a| a.raises())
            .map(|why| format!("Apply it anyway? {why}"))
    );
    assert_ne!(before, after, "the range grew with the new turn");
}
