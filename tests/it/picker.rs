//! The conversation picker: `jp-inspect` with no argument in a workspace.
//! Driven as a person does (keys into `update`, jobs run inline), on a
//! real workspace; drawn at 80×24 and 200×50.

use crate::common;

use common::harness::Harness;
use crossterm::event::KeyCode;
use jp_inspect::core::ops::catalog::{self, Details, Listing};
use jp_inspect::core::ops::{Location, Workspace};
use jp_inspect::tui::theme::Theme;
use jp_inspect::tui::{Options, init, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::PathBuf;

/// A workspace holding the demo and a copy of it retitled "second", with
/// the picker open on it.
fn picking(w: u16, h: u16) -> Harness {
    let tmp = tempfile::tempdir().unwrap();
    let demo = common::demo_copy(tmp.path());
    let second = tmp.path().join(".jp/conversations/17950000000-second");
    common::copy_dir(&demo, &second);
    std::fs::write(second.join("metadata.json"), "{\"title\": \"second\"}").unwrap();
    let ws = Workspace::find(tmp.path()).unwrap();
    let listings = catalog::quick(&ws);
    Harness::opened(Options::picker(ws.root.clone(), listings), (w, h), tmp)
}

#[test]
fn pick_filter_open_and_come_back() {
    let mut p = picking(120, 30);
    assert!(p.state.in_picker);
    let picker = p.state.picker.as_ref().unwrap();
    assert_eq!(picker.listings.len(), 2);
    assert_eq!(picker.filled(), 2, "the background reads filled every line");
    let text = p.text();
    assert!(
        text.contains("csvq: first release") && text.contains("second"),
        "{text}"
    );
    assert!(
        text.contains("32") && text.contains("85%") && text.contains("1/1"),
        "{text}"
    );
    // Typing filters (smart case), Enter opens the one left.
    p.typed("first");
    assert_eq!(p.state.picker.as_ref().unwrap().visible().len(), 1);
    p.key(KeyCode::Enter);
    assert!(!p.state.in_picker);
    let m = p
        .state
        .inspection
        .as_ref()
        .expect("the conversation opened");
    assert_eq!(m.conv.title.as_deref(), Some("csvq: first release"));
    // q in the conversation comes back to the list, the filter cleared and
    // the cursor on the conversation left, so the next q quits.
    p.key(KeyCode::Char('q'));
    assert!(p.state.in_picker && !p.state.quit);
    let picker = p.state.picker.as_ref().unwrap();
    assert_eq!(picker.filter, "");
    assert_eq!(picker.visible().len(), 2);
    assert_eq!(
        picker.selected().unwrap().title.as_deref(),
        Some("csvq: first release")
    );
    p.key(KeyCode::Char('q'));
    assert!(p.state.quit);
}

#[test]
fn q_with_a_filter_typed_is_a_letter() {
    let mut p = picking(120, 30);
    p.typed("sq");
    assert!(!p.state.quit);
    assert_eq!(p.state.picker.as_ref().unwrap().filter, "sq");
}

#[test]
fn no_argument_outside_a_workspace_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = common::jp_inspect(&[], tmp.path());
    assert_eq!(out.status.code(), Some(1));
    let err = common::stderr(&out);
    assert!(
        err.contains("no jp workspace here") && err.contains("--demo"),
        "{err}"
    );
}

/// A listing with fixed values, for snapshots that don't depend on the
/// machine (paths, times).
fn fixed(id: u64, title: &str, turns: usize, ratio: f64, locked: bool) -> Listing {
    Listing {
        dir: PathBuf::from(format!("/work/project/.jp/conversations/{id}-x")),
        id: format!("jp-c{id}"),
        title: Some(title.into()),
        location: Location::Workspace,
        twin: None,
        size: 1_234_567,
        locked,
        last_activity: jp_inspect::core::model::timestamp::parse("2026-11-30 17:12:40"),
        details: Some(Ok(Details {
            turns,
            events: turns * 9,
            manual: 1,
            auto: 2,
            context_ratio: Some(ratio),
        })),
    }
}

#[test]
fn the_picker_at_80x24_and_200x50() {
    for (w, h) in [(80, 24), (200, 50)] {
        let mut listings = vec![
            fixed(17944860430, "csvq: first release", 32, 0.849, false),
            fixed(
                17800836875,
                "jp init XDG directory issue on Linux",
                4,
                0.46,
                true,
            ),
            fixed(
                17728322628,
                "Bear MCP Server Design Review",
                12,
                1.63,
                false,
            ),
        ];
        listings[2].details = None;
        let (state, _) = init(
            Options::picker(PathBuf::from("/work/project"), listings),
            Theme::new(true),
            (w, h),
        );
        let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
        term.draw(|f| view::draw(f, &state)).unwrap();
        insta::assert_snapshot!(format!("picker_{w}x{h}"), term.backend());
    }
}

/// A picker over fixed listings, drawn at `w`×`h`.
fn fixed_picker(w: u16, h: u16) -> Harness {
    let mut listings = vec![
        fixed(17944860430, "csvq: first release", 32, 0.849, false),
        fixed(17800836875, "quarterly numbers", 4, 0.46, false),
        fixed(
            17728322628,
            "Bear MCP Server Design Review",
            12,
            1.63,
            false,
        ),
    ];
    listings[0].size = 10;
    listings[1].size = 3_000_000;
    listings[2].size = 500;
    Harness::opened(
        Options::picker(PathBuf::from("/work/project"), listings),
        (w, h),
        (),
    )
}

fn order(p: &Harness) -> Vec<String> {
    let picker = p.state.picker.as_ref().unwrap();
    picker
        .visible()
        .iter()
        .map(|&i| picker.listings[i].title.clone().unwrap())
        .collect()
}

/// Tab orders by activity, size, context and title (Shift-Tab back), and
/// the header says which; the cursor goes to the top.
#[test]
fn tab_sorts_by_activity_size_context_compactions_and_title() {
    let mut p = fixed_picker(120, 20);
    let activity = order(&p);
    p.key(KeyCode::Down);
    p.key(KeyCode::Tab);
    assert_eq!(p.state.picker.as_ref().unwrap().cursor, 0);
    assert!(p.text().contains("by size (Tab)"), "{}", p.text());
    assert_eq!(
        order(&p),
        [
            "quarterly numbers",
            "Bear MCP Server Design Review",
            "csvq: first release"
        ]
    );
    p.key(KeyCode::Tab);
    assert!(p.text().contains("by context % (Tab)"));
    assert_eq!(
        order(&p),
        [
            "Bear MCP Server Design Review",
            "csvq: first release",
            "quarterly numbers"
        ]
    );
    p.key(KeyCode::Tab);
    assert!(p.text().contains("by compactions (Tab)"), "{}", p.text());
    // Most compactions first, by what each listing read.
    let counts: Vec<usize> = {
        let picker = p.state.picker.as_ref().unwrap();
        picker
            .visible()
            .iter()
            .map(|&i| match &picker.listings[i].details {
                Some(Ok(d)) => d.manual + d.auto,
                _ => 0,
            })
            .collect()
    };
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    assert!(counts[0] > 0, "{counts:?}");
    assert_eq!(order(&p)[0], "csvq: first release");
    p.key(KeyCode::Tab);
    assert_eq!(
        order(&p),
        [
            "Bear MCP Server Design Review",
            "csvq: first release",
            "quarterly numbers"
        ],
        "by title, case aside"
    );
    p.key(KeyCode::Tab);
    assert_eq!(order(&p), activity);
    p.key(KeyCode::BackTab);
    assert!(p.text().contains("by title (Tab)"));
}

/// `?` shows the picker's keys (any key closes them); after `/` a filter
/// may start with `q` or `?`; Esc leaves typing, then quits.
#[test]
fn question_mark_helps_and_slash_types_q() {
    let mut p = fixed_picker(100, 24);
    p.key(KeyCode::Char('?'));
    assert!(p.state.picker.as_ref().unwrap().help);
    let text = p.text();
    assert!(
        text.contains("picker keys") && text.contains("order by activity"),
        "{text}"
    );
    p.key(KeyCode::Char('x'));
    assert!(!p.state.picker.as_ref().unwrap().help);
    assert_eq!(
        p.state.picker.as_ref().unwrap().filter,
        "",
        "the closing key is not typed"
    );
    p.key(KeyCode::Char('/'));
    p.typed("quar");
    assert!(!p.state.quit);
    assert_eq!(order(&p), ["quarterly numbers"]);
    assert!(p.text().contains("filter (every key types): quar"));
    p.key(KeyCode::Esc);
    assert_eq!(p.state.picker.as_ref().unwrap().filter, "");
    assert!(!p.state.quit, "Esc first clears the filter");
    p.key(KeyCode::Esc);
    assert!(!p.state.quit && !p.state.picker.as_ref().unwrap().typing);
    p.key(KeyCode::Char('q'));
    assert!(p.state.quit);
}

/// At 40 columns the titles keep their width: number columns go first.
#[test]
fn at_40_columns_the_title_keeps_its_width() {
    let p = fixed_picker(40, 12);
    let text = p.text();
    let row = text
        .lines()
        .find(|l| l.contains("Bear"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(row.contains("Bear MCP Server Design Re"), "{row}");
    insta::assert_snapshot!("picker_40x12", p.screen().backend());
}

/// At 80×24 the column the list is sorted by is shown, whichever it is.
#[test]
fn the_sorted_column_is_shown_at_80x24() {
    let mut p = fixed_picker(80, 24);
    p.key(KeyCode::Tab);
    let text = p.text();
    assert!(text.contains("by size (Tab)"), "{text}");
    let header = text.lines().nth(2).unwrap();
    assert!(header.contains("size"), "{header}");
    assert!(text.contains("2.9 MiB"), "{text}");
    assert!(text.contains("500 B"), "{text}");
    p.key(KeyCode::Tab);
    let header = p.text().lines().nth(2).unwrap().to_string();
    assert!(header.contains("ctx"), "{header}");
}
