//! The inspector driven the way a person does: key presses into `update`,
//! jobs run through the worker's `execute`, frames drawn into a
//! `TestBackend` and compared with insta snapshots. Writes go to temporary
//! copies of the demo conversation.

use crate::common;

use common::harness::Harness;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use jp_inspect::core::fmt::thousands;
use jp_inspect::core::ops::AutoConfig;
use jp_inspect::core::{model::compaction::Source, ops};
use jp_inspect::tui::job::Done;
use jp_inspect::tui::msg::{Effect, Msg};
use jp_inspect::tui::panels::Panel;
use jp_inspect::tui::state::{Focus, State};
use jp_inspect::tui::theme::Theme;
use jp_inspect::tui::{update, view, worker};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

#[test]
fn main_screen_small() {
    let h = Harness::new(80, 24, true);
    insta::assert_snapshot!("main_80x24", h.screen().backend());
}

#[test]
fn main_screen_wide() {
    let h = Harness::new(200, 50, true);
    insta::assert_snapshot!("main_200x50", h.screen().backend());
}

/// The gauge's figure is the context the core computes: the system prompt,
/// the tools and the projected events over the usable window. (Its events
/// part is counted apart from the core, on jp's own projection, by
/// `the_gauges_events_are_jps_projection_counted_by_the_spec`.)
#[test]
fn gauge_shows_both_markers_and_the_figure() {
    let h = Harness::new(120, 30, true);
    let conv = ops::read::whole(h.dir()).unwrap();
    let budget = ops::budget(&conv, &h.state.settings.config, None);
    let events =
        ops::project::chars_sent(&conv, &ops::project::project(&conv, ops::View::default()));
    let context = budget.context_tokens(events);
    // The demo configures max_tokens = 16000 out of the model's 200k.
    let usable = budget.usable().unwrap();
    assert_eq!(usable, 184_000);
    assert!(
        context > ops::project::tokens(events),
        "the overhead is counted"
    );
    let text = h.text();
    let gauge = text.lines().nth(1).unwrap();
    assert_eq!(gauge.matches('┃').count(), 2, "{gauge}");
    assert!(
        gauge.contains(&format!("{} tok", thousands(context))),
        "{gauge}"
    );
    // 156,332 of 184,000 is 84.96 %: under the hard marker (85 % =
    // 156,400), so it reads 84.9 %, never the marker's own 85.0 %.
    assert_eq!(context, 156_332);
    let pct = "84.9% of 184k";
    assert!(gauge.contains(pct), "{gauge} lacks {pct}");
    let labels = text.lines().nth(2).unwrap();
    assert!(
        labels.contains("60% soft") && labels.contains("85% hard"),
        "{labels}"
    );
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("window 200k − 16k out")
    );
}

/// A conversation with a real-sized system prompt and tools: both are
/// drawn as their own segments at the start of the bar.
#[test]
fn the_gauge_draws_the_system_prompt_and_tools_as_segments() {
    let mut h = Harness::new(200, 30, true);
    let path = h.dir().join("base_config.json");
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    config["assistant"]["system_prompt"] = "p".repeat(160_000).into();
    config["conversation"]["tools"]["big"] =
        serde_json::json!({"enable": true, "summary": "t".repeat(80_000)});
    std::fs::write(&path, config.to_string()).unwrap();
    let dir = h.dir().to_path_buf();
    h.run(vec![Effect::job(jp_inspect::tui::job::Job::Load {
        dir,
        preview: Vec::new(),
        config: None,
        view: Default::default(),
        since: None,
    })]);
    let term = h.screen();
    let buf = term.backend().buffer();
    let count = |c: Color| (0..buf.area.width).filter(|&x| buf[(x, 1)].fg == c).count();
    let (system, tools) = (
        count(Color::Rgb(90, 130, 220)),
        count(Color::Rgb(170, 120, 220)),
    );
    assert!(system >= 8, "40k of 184k is a fifth of the bar: {system}");
    assert!(tools >= 4 && tools < system, "{tools}");
    // 20k of tool definition on top of the demo's own 1.3k.
    assert!(
        h.text().contains("system prompt 40k · tools 21k"),
        "{}",
        h.text()
    );
}

#[test]
fn single_mode_draws_the_d50_trigger_instead() {
    let mut h = Harness::new(120, 30, true);
    h.char('m');
    let text = h.text();
    let gauge = text.lines().nth(1).unwrap();
    assert_eq!(gauge.matches('┃').count(), 1, "{gauge}");
    assert!(text.lines().nth(2).unwrap().contains("75% trigger"));
    assert!(text.lines().next().unwrap().contains("single (D50)"));
}

#[test]
fn bands_are_coloured_by_source() {
    let h = Harness::new(120, 40, true);
    let term = h.screen();
    let buf = term.backend().buffer();
    let mut manual = 0;
    let mut auto = 0;
    for y in 0..buf.area.height {
        let cell = &buf[(0, y)];
        if cell.symbol() == "┃" {
            match cell.fg {
                Color::Rgb(80, 160, 255) => manual += 1,
                Color::Rgb(230, 110, 200) => auto += 1,
                _ => {}
            }
        }
    }
    assert!(manual > 0, "manual bands drawn");
    // The auto compaction covers turns 6..8, further down: scroll there.
    let mut h = h;
    for _ in 0..5 {
        h.char('n');
    }
    let term = h.screen();
    let buf = term.backend().buffer();
    for y in 0..buf.area.height {
        let cell = &buf[(0, y)];
        if cell.symbol() == "┃" && cell.fg == Color::Rgb(230, 110, 200) {
            auto += 1;
        }
    }
    assert!(auto > 0, "auto bands drawn in a different colour");
}

#[test]
fn no_color_draws_no_colours() {
    let h = Harness::new(100, 30, false);
    let term = h.screen();
    let buf = term.backend().buffer();
    for cell in buf.content() {
        assert_eq!(cell.fg, Color::Reset, "{cell:?}");
        assert_eq!(cell.bg, Color::Reset, "{cell:?}");
    }
    // The bands are still there, as characters.
    assert!(h.text().contains('┃'));
}

#[test]
fn preview_shows_the_delta_and_apply_writes_it() {
    let mut h = Harness::new(120, 36, true);
    let before = h.compactions_on_disk();
    h.char('p');
    h.typed("auto");
    h.key(KeyCode::Enter);
    let preview = h.state.preview.clone().expect("a preview");
    assert_eq!(preview.request.spec(), "auto");
    assert_eq!(preview.plan.additions.len(), 1);
    let text = h.text();
    // The status line says the plan's context before and after.
    let t = preview.plan.tokens;
    assert!(t.after < t.before);
    let figure = format!("{} → {} tok", thousands(t.before), thousands(t.after));
    assert!(text.contains(&figure), "{text} lacks {figure}");
    assert!(text.contains("PREVIEW auto"), "{text}");
    assert!(text.contains('┇'), "the preview band is drawn");
    insta::assert_snapshot!("preview_auto", h.screen().backend());
    // Nothing is written by previewing.
    assert_eq!(h.compactions_on_disk(), before);

    // The range the policy's own reasons name ("elision: turns 9..23",
    // 1-based), as the CLI says them in a process of its own.
    let cli = common::json(&common::run_in(
        h.dir(),
        &["auto", h.dir().to_str().unwrap(), "--dry-run", "--json"],
    ));
    let named = cli["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r.as_str()?.strip_prefix("elision: turns "))
        .next()
        .expect("the reasons name the elision's turns")
        .to_string();
    let (from, to) = named.split_once("..").unwrap();
    let (from, to): (u64, u64) = (from.parse().unwrap(), to.parse().unwrap());
    h.char('a');
    let after = h.compactions_on_disk();
    assert_eq!(after.len(), before.len() + 1);
    let added = after.last().unwrap();
    assert_eq!(added.0, Source::Auto);
    assert_eq!((added.1 as u64 + 1, added.2 as u64 + 1), (from, to));
    assert!(h.state.preview.is_none());
    assert!(h.text().contains("appended 1 compaction (auto)"));
}

#[test]
fn esc_drops_the_preview_without_writing() {
    let mut h = Harness::new(120, 36, true);
    let before = std::fs::read(h.dir().join("events.json")).unwrap();
    h.char('p');
    h.typed("s:..-3");
    h.key(KeyCode::Enter);
    assert!(h.state.preview.is_some());
    assert!(h.text().contains("PREVIEW s:..-3"));
    h.key(KeyCode::Esc);
    assert!(h.state.preview.is_none());
    assert!(!h.text().contains("PREVIEW"));
    assert_eq!(std::fs::read(h.dir().join("events.json")).unwrap(), before);
}

#[test]
fn a_bad_rule_says_where() {
    let mut h = Harness::new(120, 36, true);
    h.char('p');
    h.typed("s:0..3");
    h.key(KeyCode::Enter);
    let input = h.state.input.as_ref().expect("the input stays open");
    assert!(input.error.as_deref().unwrap().contains("at column 3"));
    assert!(h.text().contains("turn numbers start at 1"));
}

#[test]
fn reset_auto_asks_then_removes_only_automatic_ones() {
    let mut h = Harness::new(120, 36, true);
    h.char('R');
    assert!(matches!(h.state.panel, Some(Panel::Confirm(_))));
    insta::assert_snapshot!("confirm_reset_auto", h.screen().backend());
    // "n" keeps everything.
    h.char('n');
    assert_eq!(h.compactions_on_disk().len(), 2);
    h.char('R');
    h.char('y');
    let left = h.compactions_on_disk();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].0, Source::Manual);
}

#[test]
fn reset_all_and_delete_one() {
    let mut h = Harness::new(120, 36, true);
    // Delete #1 from the compaction list.
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    assert_eq!(h.state.nav.focus, Focus::Compactions);
    h.char('d');
    h.char('y');
    let left = h.compactions_on_disk();
    assert_eq!(left, vec![(Source::Auto, 5, 7)]);
    h.char('X');
    h.char('y');
    assert!(h.compactions_on_disk().is_empty());
}

#[test]
fn a_write_refused_by_the_lock_is_a_message() {
    let mut h = Harness::new(120, 36, true);
    let dir = h.dir().to_path_buf();
    let _held = jp_inspect::core::ops::jp_files::hold(&dir).unwrap();
    let before = std::fs::read(dir.join("events.json")).unwrap();
    h.char('X');
    h.char('y');
    let text = h.text();
    assert!(text.contains("jp holds the lock"), "{text}");
    assert_eq!(std::fs::read(dir.join("events.json")).unwrap(), before);
    // With a preview open the failure is not hidden behind it, and the
    // preview stays to retry.
    h.char('p');
    h.typed("auto");
    h.key(KeyCode::Enter);
    h.char('a');
    let text = h.text();
    let status = text.lines().rev().nth(1).unwrap();
    assert!(status.contains("jp holds the lock"), "{text}");
    assert!(!status.contains("PREVIEW"), "{text}");
    assert!(h.state.preview.is_some(), "the preview stays to retry");
    assert_eq!(std::fs::read(dir.join("events.json")).unwrap(), before);
}

#[test]
fn detail_layout_highlights_and_toggles_the_stored_form() {
    let mut h = Harness::new(120, 36, true);
    // Turn 1's big tool result: src/main.rs.
    for _ in 0..11 {
        h.char('j');
    }
    h.key(KeyCode::Enter);
    let Some(Panel::Detail(d)) = &h.state.panel else {
        panic!("no detail view");
    };
    assert!(d.title.contains("tool result"), "{}", d.title);
    let coloured = d
        .lines
        .iter()
        .flat_map(|l| &l.spans)
        .filter(|s| s.style.fg.is_some())
        .count();
    assert!(coloured > 10, "the Rust code is highlighted");
    insta::assert_snapshot!("detail", h.screen().backend());
    h.char('r');
    assert!(h.text().contains("as stored"));
    h.key(KeyCode::Esc);
    assert!(h.state.panel.is_none());
}

#[test]
fn simulation_view() {
    let mut h = Harness::new(140, 40, true);
    h.char('s');
    let Some(Panel::Simulation(sim)) = &h.state.panel else {
        panic!("no simulation view");
    };
    // 4 policies (none, single, staged, staged+backstop) x 4 windows.
    assert_eq!(sim.runs.as_ref().unwrap().as_ref().unwrap().len(), 16);
    insta::assert_snapshot!("simulation_200k", h.screen().backend());
    h.key(KeyCode::Left);
    assert!(h.text().contains("window 128k"));
}

/// At 80 columns a long help text wraps under its own column, never back
/// to the left edge where the section titles are.
#[test]
fn help_rows_stay_in_their_columns_at_80x24() {
    let mut h = Harness::new(80, 24, false);
    h.char('?');
    let text = h.text();
    let titles = ["The panes", "Everywhere", "As of (t)"];
    for line in text.lines().skip(2).take(20) {
        let inner = line.trim_start_matches('"').trim_start_matches('│');
        assert!(
            inner.starts_with("  ")
                || titles.iter().any(|t| inner.starts_with(t))
                || inner.trim_end_matches(['│', '"', ' ']).is_empty(),
            "{line}"
        );
    }
    insta::assert_snapshot!("help_80x24", h.screen().backend());
}

#[test]
fn help_lists_every_binding() {
    let mut h = Harness::new(120, 60, true);
    h.char('?');
    let text = h.text();
    for b in jp_inspect::keymap::bindings() {
        if b.scope == jp_inspect::keymap::Scope::Main {
            assert!(text.contains(&b.help), "help misses `{}`", b.help);
        }
    }
    h.key(KeyCode::Esc);
    assert!(h.state.panel.is_none());
}

#[test]
fn search_jumps_between_matches() {
    let mut h = Harness::new(120, 36, true);
    h.char('/');
    h.typed("license");
    h.key(KeyCode::Enter);
    let hits = h.state.search.as_ref().unwrap().hits.clone();
    assert!(hits.len() >= 2, "{hits:?}");
    let first = h.state.selected_raw().unwrap();
    assert_eq!(first, hits[0]);
    h.char('>');
    assert_eq!(h.state.selected_raw().unwrap(), hits[1]);
    h.char('<');
    assert_eq!(h.state.selected_raw().unwrap(), hits[0]);
    assert!(h.text().contains("match 1 of"));
}

#[test]
fn turns_face_each_other_and_move_together() {
    let mut h = Harness::new(120, 36, true);
    h.char('n');
    h.char('n');
    let text = h.text();
    // The panes' first rows are the same turn's headers, side by side.
    let first = text.lines().nth(5).unwrap();
    assert_eq!(first.matches("turn 3 ·").count(), 2, "{first}");
}

#[test]
fn mouse_wheel_scrolls_and_click_focuses() {
    let mut h = Harness::new(120, 36, true);
    h.act(Msg::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 10,
        row: 10,
        modifiers: KeyModifiers::NONE,
    }));
    assert_eq!(h.state.nav.scroll, 3);
    let s = jp_inspect::tui::layout::screen(120, 36, h.state.list_len());
    h.act(Msg::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 70,
        row: s.projected.y + 2,
        modifiers: KeyModifiers::NONE,
    }));
    assert_eq!(h.state.nav.focus, Focus::Projected);
    assert_eq!(h.state.nav.cursor, 3 + 1);
}

#[test]
fn window_can_be_set_and_unknown_is_said() {
    let mut h = Harness::new(120, 36, true);
    h.char('w');
    for _ in 0..10 {
        h.key(KeyCode::Backspace);
    }
    h.typed("128k");
    h.key(KeyCode::Enter);
    assert_eq!(h.state.settings.window_override, Some(128_000));
    // The override sets the window; the reserve stays: 128k − 16k.
    assert!(h.text().contains("window 128k (set) − 16k out"));
    assert!(h.text().contains("of 112k"));
}

#[test]
fn quit_and_ctrl_c() {
    let mut h = Harness::new(80, 24, true);
    h.char('q');
    assert!(h.state.quit);
    let mut h = Harness::new(80, 24, true);
    h.act(Msg::Key(KeyEvent::new(
        KeyCode::Char('c'),
        KeyModifiers::CONTROL,
    )));
    assert!(h.state.quit);
    let mut h = Harness::new(80, 24, true);
    h.act(Msg::Terminate);
    assert!(h.state.quit);
    // Ctrl-C also from a dialog and from an input.
    for opener in ['R', 'p'] {
        let mut h = Harness::new(80, 24, true);
        h.char(opener);
        assert!(h.state.panel.is_some() || h.state.input.is_some());
        h.act(Msg::Key(KeyEvent::new(
            KeyCode::Char('c'),
            KeyModifiers::CONTROL,
        )));
        assert!(h.state.quit, "{opener}");
    }
}

#[test]
fn follow_refreshes_when_jp_appends_under_the_lock() {
    let mut h = Harness::new(120, 36, true);
    h.char('f');
    assert!(h.state.settings.follow);
    assert!(h.text().contains("● following"));
    h.char('G');
    let events_before = h.state.inspection.as_ref().unwrap().conv.events.len();
    let tokens_before = h.state.inspection.as_ref().unwrap().estimate.tokens();
    let mut watcher = jp_inspect::tui::file_watcher::Watcher::new(h.dir()).unwrap();

    // Another process appends a turn the way jp does: under the lock, to a
    // temp file renamed over events.json.
    let dir = h.dir().to_path_buf();
    let mut events: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("events.json")).unwrap()).unwrap();
    events.push(serde_json::json!({"timestamp": "2026-11-13 09:00:00.0", "type": "turn_start"}));
    events.push(
        serde_json::json!({"timestamp": "2026-11-13 09:00:01.0", "type": "chat_request",
        "content": "One more thing: add a --version flag. ".repeat(200)}),
    );
    let next = dir.join("next.json");
    std::fs::write(&next, serde_json::to_string_pretty(&events).unwrap() + "\n").unwrap();
    let id = ops::jp_files::id_of_dir(&dir).unwrap();
    let (lock, _) = jp_inspect::core::ops::jp_files::lock_paths(&dir, id);
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    let status = std::process::Command::new("flock")
        .arg(&lock)
        .arg("-c")
        .arg(format!(
            "cp {0}/next.json {0}/events.json.tmp && mv {0}/events.json.tmp {0}/events.json",
            dir.display()
        ))
        .status()
        .unwrap();
    assert!(status.success());

    // A liveness bound for a busy machine, not a time judged.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !watcher.changed() {
        assert!(
            std::time::Instant::now() < deadline,
            "the watcher saw no change"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.act(Msg::FilesChanged);
    let m = h.state.inspection.as_ref().unwrap();
    assert_eq!(m.conv.events.len(), events_before + 2);
    assert_eq!(m.conv.turn_count, 33);
    assert!(
        m.estimate.tokens() > tokens_before + 1_500,
        "the gauge moves"
    );
    // Following: the selection stays at the end as the session grows.
    assert_eq!(h.state.nav.cursor + 1, m.layout.rows());
    assert!(h.text().contains("One more thing: add a --version flag."));
}

#[test]
fn without_follow_changes_are_not_loaded() {
    let mut h = Harness::new(120, 36, true);
    let generation = h.state.generation;
    h.act(Msg::FilesChanged);
    assert_eq!(h.state.generation, generation);
}

#[test]
fn load_warnings_are_shown() {
    let demo = jp_inspect::demo::materialize().unwrap();
    let path = demo.conversation_dir.join("events.json");
    let mut events: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    events.push(serde_json::json!({"type": "compaction", "timestamp": "2026-11-30 10:00:00.0", "from_turn": 2}));
    std::fs::write(&path, serde_json::to_string_pretty(&events).unwrap() + "\n").unwrap();
    let mut state = State::new(
        demo.conversation_dir.clone(),
        AutoConfig::default(),
        None,
        Theme::new(true),
    );
    update::update(&mut state, Msg::Resize(160, 40));
    let result = worker::execute(jp_inspect::tui::job::Job::Load {
        dir: demo.conversation_dir.clone(),
        preview: Vec::new(),
        config: None,
        view: Default::default(),
        since: None,
    });
    update::update(
        &mut state,
        Msg::Done(Box::new(Done {
            generation: 0,
            result,
        })),
    );
    let (text, _) = state.status.message.clone().unwrap();
    assert!(text.starts_with("1 warning reading the file"), "{text}");
    assert!(text.contains("compaction #3 is invalid"), "{text}");
    let mut term = Terminal::new(TestBackend::new(160, 40)).unwrap();
    term.draw(|f| view::draw(f, &state)).unwrap();
    assert!(
        term.backend()
            .to_string()
            .contains("INVALID, left out of the projection: missing `to_turn`")
    );
}

/// Every screen, overlay, prompt and error state, drawn at sizes from 1×1
/// to 250×80: drawing must never panic (it did with an error in a prompt
/// at 88 columns or fewer).
#[test]
fn drawing_is_safe_at_every_size() {
    type Setup = fn(&mut Harness);
    let states: Vec<(&str, Setup)> = vec![
        ("main", |_| {}),
        ("rule prompt", |h| {
            h.char('p');
            h.typed("s:..-3");
        }),
        ("rule error", |h| {
            h.char('p');
            h.typed("garbage");
            h.key(KeyCode::Enter);
        }),
        ("window error", |h| {
            h.char('w');
            h.typed("abc");
            h.key(KeyCode::Enter);
        }),
        ("search prompt", |h| {
            h.char('/');
            h.typed("cargo");
        }),
        ("preview", |h| {
            h.char('p');
            h.typed("auto");
            h.key(KeyCode::Enter);
        }),
        ("detail", |h| {
            h.char('j');
            h.key(KeyCode::Enter);
        }),
        ("help", |h| h.char('?')),
        ("confirm", |h| h.char('X')),
        ("simulation", |h| h.char('S')),
        ("compaction list", |h| {
            h.key(KeyCode::Tab);
            h.key(KeyCode::Tab);
        }),
        ("largest", |h| h.char('L')),
        ("detail unwrapped", |h| {
            h.char('j');
            h.key(KeyCode::Enter);
            h.char('w');
            h.char('l');
        }),
        ("unreadable file", |h| {
            std::fs::write(h.state.dir.join("events.json"), b"[ {").unwrap();
            h.state.inspection = None;
            h.act(Msg::FilesChanged);
            h.char('f');
        }),
        ("picker", |h| {
            let listing = jp_inspect::core::ops::catalog::Listing {
                dir: h.state.dir.clone(),
                id: "jp-c17944860430".into(),
                title: Some("a title long enough to be cut at every narrow width".into()),
                location: ops::Location::User,
                twin: None,
                size: 123_456,
                locked: true,
                last_activity: None,
                details: None,
            };
            h.state.picker = Some(jp_inspect::tui::picker::Picker::new(
                std::path::PathBuf::from("/work/project"),
                vec![listing],
            ));
            h.state.in_picker = true;
        }),
    ];
    let mut sizes = vec![(1, 1), (250, 80), (39, 9), (40, 10)];
    for w in (20..=250).step_by(23) {
        for hgt in (5..=80).step_by(15) {
            sizes.push((w, hgt));
        }
    }
    for w in 78..=90 {
        sizes.push((w, 24));
    }
    for (name, setup) in states {
        let mut h = Harness::new(120, 36, true);
        setup(&mut h);
        for &(w, hgt) in &sizes {
            h.act(Msg::Resize(w, hgt));
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.text()));
            assert!(result.is_ok(), "{name} panicked at {w}x{hgt}");
        }
    }
}

#[test]
fn a_prompt_keeps_what_was_typed_visible_at_80_columns() {
    let mut h = Harness::new(80, 24, true);
    h.char('p');
    h.typed("garbage");
    h.key(KeyCode::Enter);
    let text = h.text();
    assert!(text.contains("garbage"), "{text}");
    assert!(text.contains("expected"), "the error is shown: {text}");
    h.key(KeyCode::Esc);
    h.char('w');
    h.typed("abc");
    h.key(KeyCode::Enter);
    let text = h.text();
    assert!(text.contains("abc"), "{text}");
    assert!(text.contains("not a token count"), "{text}");
}

#[test]
fn j_projects_as_todays_jp_and_the_list_marks_the_difference() {
    let mut h = Harness::new(160, 40, true);
    let ours = h.state.inspection.as_ref().unwrap().estimate.tokens();
    assert!(h.text().contains("≠jp"), "the bounded compaction is marked");
    h.char('J');
    let text = h.text();
    assert!(
        text.lines().next().unwrap().contains("staged · as jp"),
        "{text}"
    );
    let jps = h.state.inspection.as_ref().unwrap().estimate.tokens();
    assert!(
        jps < ours,
        "jp strips every tool call of the range: {jps} vs {ours}"
    );
    // The compaction's detail says it in words.
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    h.char('j');
    h.key(KeyCode::Enter);
    assert!(
        h.text()
            .contains("today's jp ignores its over bound: jp strips all")
    );
    h.key(KeyCode::Esc);
    h.char('J');
    assert_eq!(h.state.inspection.as_ref().unwrap().estimate.tokens(), ours);
}

/// `A` runs automatic compaction by itself while following: jp completes a
/// turn (under its lock, then renames the folder as it does when it sets a
/// title); the inspector finds the conversation again by id, the policy
/// fires at that boundary, and a notice says so.
#[test]
fn a_runs_automatic_compaction_at_new_turns_and_follow_survives_a_rename() {
    let mut h = Harness::new(160, 40, true);
    h.set_window("64k");
    h.char('A');
    assert!(h.state.settings.auto_run && h.state.settings.follow);
    assert!(
        h.text()
            .lines()
            .next()
            .unwrap()
            .contains("following · auto")
    );
    let before = h.compactions_on_disk().len();

    // The default configuration leaves it disabled: `A` says it overrides.
    let (text, _) = h.state.status.message.clone().unwrap();
    assert!(text.contains("A enables it here only"), "{text}");

    // jp: one more turn, written under its lock; then the title changes
    // and the folder is renamed.
    let dir = h.dir().to_path_buf();
    common::jp_appends_a_turn(&dir, &"Cut the release notes. ".repeat(300));
    let id = ops::jp_files::id_of_dir(&dir).unwrap();
    let renamed = dir.with_file_name(format!("{id}-csvq-release-notes"));
    std::fs::rename(&dir, &renamed).unwrap();

    h.act(Msg::FilesChanged);
    assert_eq!(h.state.dir, renamed, "followed by id");
    let (text, _) = h.state.status.message.clone().unwrap();
    assert!(text.starts_with("automatic compaction fired:"), "{text}");
    let on_disk = h.compactions_on_disk();
    assert!(on_disk.len() > before);
    assert!(on_disk[before..].iter().all(|(s, _, _)| *s == Source::Auto));
    assert_eq!(h.state.inspection.as_ref().unwrap().conv.turn_count, 33);
    // Once per turn: nothing new, nothing more.
    let n = on_disk.len();
    h.act(Msg::FilesChanged);
    assert_eq!(h.compactions_on_disk().len(), n);
    // A turn that needs nothing: the reason is said, once.
    common::jp_appends_a_turn(&renamed, "Thanks.");
    h.act(Msg::FilesChanged);
    assert_eq!(h.compactions_on_disk().len(), n);
    let (text, _) = h.state.status.message.clone().unwrap();
    assert!(
        text.starts_with("automatic compaction after turn 34: nothing fired: "),
        "{text}"
    );
    h.state.status.message = None;
    h.act(Msg::FilesChanged);
    assert!(h.state.status.message.is_none(), "said once per turn");
}

/// `t`: "as of" mode. The session's requests from the last; `[`/`]` step;
/// the projected pane is what that request was sent (the compactions
/// appended before it, none after), the raw pane dims what came later, the
/// gauge shows that moment's context, a curve of the whole session sits
/// above the panes; `t` returns to now.
#[test]
fn as_of_mode_shows_what_each_request_was_sent() {
    let mut h = Harness::new(200, 50, true);
    let now_tokens = h.state.inspection.as_ref().unwrap().estimate.tokens();
    h.char('t');
    let a = h.state.as_of.as_ref().expect("as of mode");
    let n = a.points.len();
    assert_eq!(a.current, n - 1);
    assert!(
        h.text()
            .lines()
            .next()
            .unwrap()
            .contains(&format!("as of request {n}/{n}"))
    );
    // Back to the request right before compaction #1 was appended (the
    // first request that has it in `compactions_since` is the one after).
    let k = a
        .points
        .iter()
        .position(|p| !p.compactions_since.is_empty())
        .unwrap();
    for _ in 0..(n - k) {
        h.char('[');
    }
    let a = h.state.as_of.as_ref().unwrap();
    assert_eq!(a.current, k - 1);
    let point = a.point().unwrap().clone();
    let m = h.state.inspection.as_ref().unwrap();
    assert_eq!(m.as_of, Some(point.raw_index));
    assert!(
        m.projection.overlays.is_empty(),
        "no compaction was appended yet"
    );
    assert!(m.compactions.is_empty());
    let text = h.text();
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .contains(&thousands(point.context)),
        "the gauge shows that request's context: {text}"
    );
    insta::assert_snapshot!("as_of_200x50", h.screen().backend());
    // One step on: compaction #1 is in force.
    h.char(']');
    assert_eq!(
        h.state
            .inspection
            .as_ref()
            .unwrap()
            .projection
            .overlays
            .len(),
        1
    );
    // Writes are refused in the past.
    h.char('X');
    assert!(h.state.panel.is_none());
    h.act(Msg::Resize(80, 24));
    insta::assert_snapshot!("as_of_80x24", h.screen().backend());
    h.char('t');
    assert!(h.state.as_of.is_none());
    assert_eq!(
        h.state.inspection.as_ref().unwrap().estimate.tokens(),
        now_tokens
    );
}

/// `w` with a window smaller than what every request carries keeps the
/// prompt open with the reason, and the window in force stays.
#[test]
fn a_window_too_small_is_refused_in_the_prompt() {
    let mut h = Harness::new(160, 40, false);
    h.set_window("10");
    assert_eq!(h.state.settings.window_override, None);
    let input = h.state.input.as_ref().expect("the prompt stays open");
    assert!(
        input
            .error
            .as_deref()
            .is_some_and(|e| e.contains("leaves no room")),
        "{:?}",
        input.error
    );
    assert!(h.text().contains("leaves no room"), "{}", h.text());
}

/// The help stops at its end: scrolling past it, one `k` moves back at once.
#[test]
fn help_scrolling_stops_at_its_end() {
    let mut h = Harness::new(120, 36, false);
    h.char('?');
    for _ in 0..40 {
        h.char(' ');
    }
    let Some(Panel::Help { scroll: at_end }) = h.state.panel.clone() else {
        panic!("no help");
    };
    assert!(at_end > 0, "{at_end}");
    h.char('G');
    assert!(
        matches!(h.state.panel, Some(Panel::Help { scroll }) if scroll == at_end),
        "pages stop at the end G goes to"
    );
    let last = h.text();
    h.char('k');
    let Some(Panel::Help { scroll }) = h.state.panel.clone() else {
        panic!("no help");
    };
    assert_eq!(scroll, at_end - 1, "k scrolls back a row at once");
    assert_ne!(h.text(), last, "one k moves the text");
}

/// A compaction carries the moment it was written, not the moment it was
/// previewed: a preview left open a while is stamped when `a` writes it.
#[test]
fn an_applied_preview_is_stamped_when_written() {
    let mut h = Harness::new(160, 40, false);
    h.char('p');
    h.typed("t:10..12");
    h.key(KeyCode::Enter);
    let planned = h.state.preview.as_ref().unwrap().plan.additions[0]
        .compaction
        .timestamp;
    let later = planned + chrono::Duration::minutes(5);
    h.state.settings.clock = Some(later);
    h.char('a');
    let text = std::fs::read_to_string(h.dir().join("events.json")).unwrap();
    let events: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let written = events.last().unwrap();
    assert_eq!(written["type"], "compaction");
    assert_eq!(
        written["timestamp"],
        jp_inspect::core::model::timestamp::format(&later)
    );
}

/// The inspector's budget is the one `ops` builds for the CLI: for a model
/// missing from the table with `max_tokens` configured, a window typed with
/// `w` reserves that output, as `stats --window` does.
#[test]
fn the_inspector_and_the_cli_reserve_the_same_output_for_an_unlisted_model() {
    let mut h = Harness::prepared(120, 40, false, |dir| {
        let path = dir.join("base_config.json");
        let mut config: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        config["assistant"]["model"]["id"] =
            serde_json::json!({"provider": "acme", "name": "unlisted-1"});
        config["assistant"]["model"]["parameters"]["max_tokens"] = serde_json::json!(8000);
        std::fs::write(&path, config.to_string()).unwrap();
    });
    assert!(
        h.state.budget().unwrap().window.is_none(),
        "the table doesn't know it"
    );
    h.set_window("64k");
    let inspector = h.state.budget().unwrap();
    assert_eq!(
        (inspector.reserve(), inspector.usable()),
        (8000, Some(56_000))
    );
    let conv = ops::read::whole(h.dir()).unwrap();
    let cli_budget = jp_inspect::core::ops::budget(&conv, &h.state.settings.config, Some(64_000));
    assert_eq!(inspector, cli_budget);
    let out = common::jp_inspect(
        &[
            "stats",
            h.dir().to_str().unwrap(),
            "--window",
            "64k",
            "--json",
        ],
        h.dir(),
    );
    let v = common::json(&out);
    assert_eq!(v["window"]["reserve"], 8000);
    assert_eq!(v["window"]["usable"], 56_000);
}

/// The mode toggle says the thresholds in force, not the defaults.
#[test]
fn the_mode_toggle_says_the_configured_thresholds() {
    let mut h = Harness::new(120, 40, false);
    h.state.settings.config.mode = ops::Mode::Single;
    h.state.settings.config.soft_ratio = 0.5;
    h.state.settings.config.hard_ratio = 0.9;
    h.state.settings.config.trigger_ratio = 0.7;
    h.char('m');
    let (said, _) = h.state.status.message.clone().unwrap();
    assert_eq!(
        said,
        "automatic mode: staged (elide above 50%, summarise above 90%)"
    );
    h.char('m');
    let (said, _) = h.state.status.message.clone().unwrap();
    assert_eq!(said, "automatic mode: single (RFD D50: one trigger at 70%)");
}

/// A reset that takes the next request past the usable window says so in
/// the dialog, before `y`; one that fits doesn't.
#[test]
fn a_reset_past_the_usable_window_is_warned_of_before_it_is_written() {
    let mut h = Harness::new(120, 40, false);
    h.char('X');
    let text = h.text();
    // The figures the status bar says before and after, whatever they are.
    let stats = common::json(&common::run_anywhere(&["stats", "--demo", "--json"]));
    let before = stats["context"]["tokens"].as_u64().unwrap();
    assert!(
        text.contains(&format!(
            "context: {} → ",
            jp_inspect::core::fmt::thousands(before)
        )),
        "{text}"
    );
    assert!(
        text.contains("over the usable window (184,000 tok): the next request won't fit"),
        "{text}"
    );
    h.char('n');
    h.set_window("1m");
    h.char('X');
    let text = h.text();
    assert!(text.contains("Remove all 2 compactions?"), "{text}");
    assert!(!text.contains("over the usable window"), "{text}");
}

/// "As of" moves by request, to the ends, and from compaction to
/// compaction (the first request after each, where the cache breaks).
#[test]
fn as_of_goes_to_the_ends_to_request_n_and_from_compaction_to_compaction() {
    let mut h = Harness::new(120, 40, false);
    h.char('t');
    let a = h.state.as_of.clone().expect("as of opened");
    let last = a.points.len() - 1;
    assert_eq!(a.current, last, "it opens at the last request");
    let marks: Vec<usize> = (0..a.points.len())
        .filter(|&k| !a.points[k].compactions_since.is_empty())
        .collect();
    assert_eq!(marks.len(), 2, "the demo's two compactions");
    h.key(KeyCode::Home);
    assert_eq!(h.state.as_of.as_ref().unwrap().current, 0);
    h.char('}');
    assert_eq!(h.state.as_of.as_ref().unwrap().current, marks[0]);
    h.char('}');
    assert_eq!(h.state.as_of.as_ref().unwrap().current, marks[1]);
    h.char('}');
    assert_eq!(
        h.state.as_of.as_ref().unwrap().current,
        marks[1],
        "none after the last"
    );
    let (said, _) = h.state.status.message.clone().unwrap();
    assert!(said.starts_with("no compaction that way"), "{said}");
    h.char('{');
    assert_eq!(h.state.as_of.as_ref().unwrap().current, marks[0]);
    h.key(KeyCode::End);
    assert_eq!(h.state.as_of.as_ref().unwrap().current, last);
    // What is drawn follows: the request's own context.
    let point = h.state.as_of.as_ref().unwrap().points[last].clone();
    assert!(
        h.text()
            .contains(&jp_inspect::core::fmt::thousands(point.context))
    );
    // Request N, typed (the current one prefilled and selected).
    h.char('#');
    assert!(h.text().contains("go to request number"), "{}", h.text());
    h.typed("3");
    h.key(KeyCode::Enter);
    assert!(h.state.input.is_none());
    assert_eq!(h.state.as_of.as_ref().unwrap().current, 2);
    assert!(
        h.text()
            .lines()
            .next()
            .unwrap()
            .contains(&format!("as of request 3/{}", last + 1))
    );
    h.char('#');
    h.typed("999");
    h.key(KeyCode::Enter);
    let error = h.state.input.as_ref().and_then(|i| i.error.clone());
    assert_eq!(
        error.as_deref(),
        Some(format!("a request number from 1 to {}", last + 1).as_str())
    );
    h.key(KeyCode::Esc);
    assert_eq!(h.state.as_of.as_ref().unwrap().current, 2);
}

/// Not following, an outside write is found and said (what changed), the
/// view left as it was until `r`, which says it again; while following, a
/// reload says it by itself. The inspector's own write is not reported as
/// an outside change.
#[test]
fn an_outside_write_is_said_and_r_reloads_it() {
    let mut h = Harness::new(120, 36, true);
    assert!(!h.state.settings.follow);
    common::jp_appends_a_turn(h.dir(), "One more thing.");
    h.act(Msg::FilesChanged);
    let (text, _) = h.state.status.message.clone().unwrap();
    assert_eq!(
        text,
        "changed on disk: 2 events added (1 new turn) · r reloads, f follows"
    );
    assert_eq!(h.state.inspection.as_ref().unwrap().conv.turn_count, 32);
    assert!(
        h.text()
            .lines()
            .next()
            .unwrap()
            .contains("changed on disk · r reloads")
    );
    h.char('r');
    assert_eq!(h.state.inspection.as_ref().unwrap().conv.turn_count, 33);
    let (text, _) = h.state.status.message.clone().unwrap();
    assert_eq!(text, "reloaded: 2 events added (1 new turn)");
    assert!(!h.text().lines().next().unwrap().contains("changed on disk"));
    // Our own write, then its file notification: nothing to say.
    h.char('p');
    h.typed("auto");
    h.key(KeyCode::Enter);
    h.char('a');
    let (said, _) = h.state.status.message.clone().unwrap();
    h.act(Msg::FilesChanged);
    assert_eq!(h.state.status.message.clone().unwrap().0, said);
    assert!(h.state.changed_on_disk.is_none());
    // Following: the reload says what came.
    h.char('f');
    common::jp_appends_a_turn(h.dir(), "And another.");
    h.act(Msg::FilesChanged);
    assert_eq!(h.state.inspection.as_ref().unwrap().conv.turn_count, 34);
    let (text, _) = h.state.status.message.clone().unwrap();
    assert_eq!(text, "reloaded: 2 events added (1 new turn)");
}

/// An undo made against compactions another writer has since changed is
/// not offered in the key bar, and `u` says why instead of writing.
#[test]
fn an_undo_that_no_longer_applies_says_why_and_leaves_the_key_bar() {
    let mut h = Harness::new(160, 36, true);
    h.char('p');
    h.typed("auto");
    h.key(KeyCode::Enter);
    h.char('a');
    let footer = |h: &Harness| h.text().lines().last().unwrap().to_string();
    assert!(footer(&h).contains("undo"), "{}", footer(&h));
    // Another writer takes the compaction out again (under jp's lock).
    let dir = h.dir().to_path_buf();
    let mut events: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("events.json")).unwrap()).unwrap();
    let last = events
        .iter()
        .rposition(|e| e["type"] == "compaction")
        .unwrap();
    events.remove(last);
    common::jp_writes(&dir, &events);
    h.char('r');
    let (text, _) = h.state.status.message.clone().unwrap();
    assert!(
        text.starts_with(
            "reloaded whole (the file is shorter than before): 1 earlier event changed or removed"
        ),
        "{text}"
    );
    assert!(!footer(&h).contains("undo"), "{}", footer(&h));
    let before = std::fs::read(dir.join("events.json")).unwrap();
    h.char('u');
    let (text, _) = h.state.status.message.clone().unwrap();
    assert!(
        text.starts_with("can't undo \"") && text.contains("its compactions changed since"),
        "{text}"
    );
    assert_eq!(std::fs::read(dir.join("events.json")).unwrap(), before);
}

/// At 80 columns a compaction's row keeps what the model still knows of
/// its range and the `≠jp` mark: the policies column narrows instead.
#[test]
fn a_narrow_list_keeps_the_knows_mark_and_the_jp_mark() {
    let h = Harness::new(80, 24, true);
    let text = h.text();
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" turns ") && l.contains(" saved "))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows.iter().all(|r| r.contains("knows ")), "{rows:#?}");
    assert!(
        rows[1].trim_end_matches(['"', ' ']).ends_with("≠jp"),
        "{rows:#?}"
    );
    // One policies width for both rows: their savings line up.
    let at = |r: &str| r.find(" saved ").unwrap();
    assert_eq!(at(rows[0]), at(rows[1]), "{rows:#?}");
}

/// `F` goes from a compaction to the event of each fact it lost, the
/// grave ones first, round to the first again; from its detail view too.
#[test]
fn f_goes_to_the_event_of_each_lost_fact() {
    let mut h = Harness::new(120, 36, true);
    h.char('F');
    assert!(
        status(&h).contains("select one in the list"),
        "{}",
        status(&h)
    );
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    assert_eq!(h.state.nav.focus, Focus::Compactions);
    // From the first compaction's detail view.
    h.key(KeyCode::Enter);
    assert!(matches!(h.state.panel, Some(Panel::Detail(_))));
    h.char('F');
    assert!(h.state.panel.is_none(), "the detail closes");
    let total = {
        let s = &status(&h);
        assert!(s.starts_with("lost fact 1 of "), "{s}");
        assert!(s.contains("(compaction #1)"), "{s}");
        let n: usize = s["lost fact 1 of ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        n
    };
    let trail = h.state.lost_trail.clone().unwrap();
    assert_eq!(trail.events.len(), total);
    // Every stop is an event of the compaction's range (turns 2..5).
    assert!(
        trail
            .events
            .iter()
            .all(|(turn, _, _)| (1..=4).contains(turn))
    );
    for k in 0..total {
        assert_eq!(h.state.nav.focus, Focus::Raw);
        let m = h.state.inspection.as_ref().unwrap();
        let (_, cell, _) = m.layout.cells(h.state.nav.cursor);
        let (_, event, said) = &trail.events[k];
        assert_eq!(
            cell,
            jp_inspect::tui::inspection::Cell::Event(*event),
            "stop {k}: {said}"
        );
        // The event is of the turn the status line names; a sentence the
        // user or the assistant wrote is in it as quoted.
        let turn: usize = said.split(' ').nth(1).unwrap().parse().unwrap();
        assert_eq!(m.conv.events[*event].turn + 1, turn, "{said}");
        if said.contains(" · instruction · ") || said.contains(" · decision · ") {
            let quoted = said.rsplit(" · ").next().unwrap();
            let words: String = quoted.chars().take(16).collect();
            assert!(
                m.conv.text(*event).contains(words.trim_end_matches('…')),
                "stop {k}: `{words}` not in event {event}"
            );
        }
        h.char('F');
    }
    assert!(
        status(&h).starts_with("lost fact 1 of "),
        "round to the first: {}",
        status(&h)
    );
}

fn status(h: &Harness) -> String {
    h.state
        .status
        .message
        .clone()
        .map(|(t, _)| t)
        .unwrap_or_default()
}

/// The gauge's events part counted apart from the core: jp's own code
/// (`oracle-next`, which knows `over` bounds) projects the demo, and each
/// event the provider is sent is counted by compaction.md's rule (request
/// content; message, reasoning or structured data as compact JSON; tool
/// name plus arguments as compact JSON; tool response content; storage
/// base64 undone by format.md's rule), four characters a token. Only the
/// system prompt and the tools' share comes from the core.
#[test]
#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
fn the_gauges_events_are_jps_projection_counted_by_the_spec() {
    let oracle = common::oracle::binary("oracle-next").expect("../shared lacks oracle-next");
    let h = Harness::new(120, 30, true);
    let v = common::oracle::provider_visible(&oracle, h.dir()).unwrap();
    let events: u64 = v["projected"]
        .as_array()
        .unwrap()
        .iter()
        .map(spec_chars)
        .sum();
    let conv = ops::read::whole(h.dir()).unwrap();
    let budget = ops::budget(&conv, &h.state.settings.config, None);
    let context = (events + budget.overhead_chars()) / 4;
    let gauge = h.text().lines().nth(1).unwrap().to_string();
    assert!(
        gauge.contains(&format!("{} tok", thousands(context))),
        "{gauge} lacks {context}"
    );
}

/// An event's characters by compaction.md's rule.
fn spec_chars(e: &serde_json::Value) -> u64 {
    use serde_json::Value;
    let n = |s: &str| s.chars().count() as u64;
    let compact = |v: &Value| n(&serde_json::to_string(v).unwrap());
    match e["type"].as_str().unwrap_or_default() {
        "chat_request" => n(e["content"].as_str().unwrap_or_default()),
        "chat_response" => {
            ["message", "reasoning"]
                .iter()
                .filter_map(|k| e[k].as_str())
                .map(n)
                .sum::<u64>()
                + e.get("data").map_or(0, compact)
        }
        "tool_call_request" => {
            n(e["name"].as_str().unwrap_or_default()) + compact(&decoded(&e["arguments"]))
        }
        "tool_call_response" => n(&decoded_str(e["content"].as_str().unwrap_or_default())),
        _ => 0,
    }
}

/// format.md: a string is decoded only if it is valid base64 whose bytes
/// are valid UTF-8.
fn decoded_str(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_else(|| s.to_string())
}

fn decoded(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::String(s) => Value::String(decoded_str(s)),
        Value::Array(a) => Value::Array(a.iter().map(decoded).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), decoded(v))).collect()),
        other => other.clone(),
    }
}

/// `v` shows one kind of event at a time in both panes, the cursor staying
/// on its event where it is shown, and comes back to every event.
#[test]
fn v_shows_one_kind_of_event_then_all() {
    use jp_inspect::core::model::event::{Kind, ResponseKind};
    use jp_inspect::tui::inspection::Cell;
    let mut h = Harness::new(120, 36, true);
    let all = h.state.inspection.as_ref().unwrap().layout.clone();
    // Each kind in turn: every raw row shown is of it, and every event of
    // it has a row (counted from the stream itself).
    type Is = fn(&Kind) -> bool;
    let kinds: [(&str, Is); 4] = [
        ("only the user's messages", |k| {
            matches!(k, Kind::ChatRequest)
        }),
        ("only the assistant's messages", |k| {
            matches!(k, Kind::ChatResponse(ResponseKind::Message))
        }),
        ("only tool calls", |k| {
            matches!(k, Kind::ToolCallRequest { .. })
        }),
        ("only tool errors", |k| {
            matches!(k, Kind::ToolCallResponse { is_error: true, .. })
        }),
    ];
    for (label, is) in kinds {
        h.char('v');
        assert!(
            status(&h).starts_with(&format!("showing {label}")),
            "{}",
            status(&h)
        );
        assert!(h.text().contains(label), "the pane titles say it");
        let m = h.state.inspection.as_ref().unwrap();
        let shown: Vec<usize> = (0..m.layout.rows())
            .filter_map(|r| match m.layout.cells(r).1 {
                Cell::Event(i) => Some(i),
                _ => None,
            })
            .collect();
        let expected: Vec<usize> = (0..m.conv.events.len())
            .filter(|&i| is(&m.conv.events[i].kind))
            .collect();
        assert!(!expected.is_empty(), "{label}: the demo has some");
        assert_eq!(shown, expected, "{label}");
        // A row for each turn's header, and one per event of the kind.
        let blocks = m.layout.blocks();
        assert!(m.layout.rows() < all.rows());
        assert!(m.layout.rows() >= blocks + expected.len());
    }
    // On a tool error, back to every event: the cursor stays on it.
    let m = h.state.inspection.as_ref().unwrap();
    let row = (0..m.layout.rows())
        .find(|&r| matches!(m.layout.cells(r).1, Cell::Event(_)))
        .unwrap();
    let Cell::Event(error) = m.layout.cells(row).1 else {
        unreachable!()
    };
    h.state.nav.focus = Focus::Raw;
    h.state.nav.cursor = row;
    h.char('v');
    assert!(
        status(&h).starts_with("showing every event"),
        "{}",
        status(&h)
    );
    let m = h.state.inspection.as_ref().unwrap();
    assert_eq!(m.layout, all, "every event again, as opened");
    assert_eq!(m.layout.cells(h.state.nav.cursor).1, Cell::Event(error));
    // What the panes show holds over a reload.
    h.char('v');
    let generation = h.state.generation;
    h.char('r');
    assert!(h.state.generation > generation, "r read the file again");
    let m = h.state.inspection.as_ref().unwrap();
    assert!(m.layout.picks.is_some(), "{}", status(&h));
    assert!(h.text().contains("only the user's messages"));
}

/// Going to an event the panes leave out (`v`) shows every event again:
/// `F` to a lost error while only the user's messages are shown.
#[test]
fn going_to_an_event_not_shown_shows_all_again() {
    use jp_inspect::tui::inspection::Cell;
    let mut h = Harness::new(120, 36, true);
    h.char('v');
    assert!(status(&h).starts_with("showing only the user's messages"));
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    // Lost facts of the first compaction until one is not a user message.
    let mut tried = 0;
    loop {
        h.char('F');
        let trail = h.state.lost_trail.clone().unwrap();
        let (_, event, said) = trail.events[trail.at].clone();
        let m = h.state.inspection.as_ref().unwrap();
        let users = matches!(
            m.conv.events[event].kind,
            jp_inspect::core::model::event::Kind::ChatRequest
        );
        if !users {
            let m = h.state.inspection.as_ref().unwrap();
            assert!(
                m.layout.picks.is_none(),
                "every event shown again for: {said}"
            );
            assert_eq!(m.layout.cells(h.state.nav.cursor).1, Cell::Event(event));
            break;
        }
        tried += 1;
        assert!(
            tried < trail.events.len(),
            "the trail has a fact that is not the user's"
        );
    }
}
