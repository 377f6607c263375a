//! Inspector benchmarks: a full frame of a million-event conversation, the
//! time from a key press to the next frame, the first frame of a 100 MB
//! conversation, and the picker's first frame on 1,000 conversations.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jp_inspect::core::ops::AutoConfig;
use jp_inspect::keymap::Action;
use jp_inspect::tui::job::{Done, Job};
use jp_inspect::tui::msg::Msg;
use jp_inspect::tui::state::State;
use jp_inspect::tui::theme::Theme;
use jp_inspect::tui::{update, view, worker};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

fn opened(dir: &Path) -> State {
    let mut s = State::new(
        dir.to_path_buf(),
        AutoConfig::default(),
        None,
        Theme::new(true),
    );
    update::update(&mut s, Msg::Resize(200, 50));
    let result = worker::execute(Job::Load {
        dir: dir.to_path_buf(),
        preview: Vec::new(),
        config: None,
        view: Default::default(),
        since: None,
    });
    update::update(
        &mut s,
        Msg::Done(Box::new(Done {
            generation: 0,
            result,
        })),
    );
    s
}

fn frame(term: &mut Terminal<TestBackend>, s: &State) {
    term.draw(|f| view::draw(f, s)).unwrap();
}

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn million(c: &mut Criterion) {
    let dir = common::million_events();
    let mut s = opened(&dir);
    let events = s.inspection.as_ref().unwrap().conv.events.len();
    // Somewhere in the middle.
    for _ in 0..5 {
        update::update(&mut s, Action::Bottom);
    }
    s.nav.cursor /= 2;
    update::update(&mut s, Action::Down);
    let mut term = Terminal::new(TestBackend::new(200, 50)).unwrap();
    let mut g = c.benchmark_group(format!("inspector, {events} events"));
    g.bench_function("full frame (200x50)", |b| {
        b.iter(|| frame(&mut term, black_box(&s)))
    });
    g.bench_function("key to frame: scroll (j)", |b| {
        b.iter(|| {
            update::update(&mut s, key('j'));
            frame(&mut term, &s);
        })
    });
    g.bench_function("key to frame: next turn (n)", |b| {
        b.iter(|| {
            update::update(&mut s, key('n'));
            frame(&mut term, &s);
        })
    });
    // "As of" mode: the curve replayed once (a job), then stepping.
    let mut fx = update::update(&mut s, key('t'));
    while let Some(jp_inspect::tui::msg::Effect::Job(job)) = fx.pop() {
        let result = worker::execute(*job);
        let generation = s.generation;
        fx = update::update(&mut s, Msg::Done(Box::new(Done { generation, result })));
    }
    assert!(s.as_of.is_some());
    let mut forward = true;
    g.bench_function("key to frame: step a request in as-of mode (] / [)", |b| {
        b.iter(|| {
            forward = !forward;
            update::update(&mut s, key(if forward { ']' } else { '[' }));
            frame(&mut term, &s);
        })
    });
    update::update(&mut s, key('t'));
    g.bench_function("key to frame: open preview (p, Esc)", |b| {
        b.iter(|| {
            update::update(&mut s, key('p'));
            frame(&mut term, &s);
            update::update(
                &mut s,
                Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
            );
        })
    });
    g.finish();
}

fn first_frame(c: &mut Criterion) {
    let dir = common::hundred_mb();
    let mut g = c.benchmark_group("open 100 MB");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    g.bench_function("load, build the view, first frame", |b| {
        b.iter(|| {
            let s = opened(&dir);
            let mut term = Terminal::new(TestBackend::new(200, 50)).unwrap();
            frame(&mut term, &s);
            black_box(s.rows.len())
        })
    });
    g.finish();
}

/// The picker's first frame on a workspace of 1,000 conversations: the
/// listing from the folders and metadata (what `jp-inspect` does before
/// the screen opens), the initial state, one frame. The details fill in
/// behind it.
fn picker(c: &mut Criterion) {
    let root = common::workspace_of(1000);
    let mut term = Terminal::new(TestBackend::new(200, 50)).unwrap();
    let mut g = c.benchmark_group("picker, 1,000 conversations");
    g.sample_size(20);
    g.bench_function("list + first frame", |b| {
        b.iter(|| {
            let ws = jp_inspect::core::ops::Workspace::find(&root).unwrap();
            let listings = jp_inspect::core::ops::catalog::quick(&ws);
            let (s, fx) = jp_inspect::tui::init(
                jp_inspect::tui::Options::picker(ws.root.clone(), listings),
                Theme::new(true),
                (200, 50),
            );
            frame(&mut term, &s);
            black_box(fx.len())
        })
    });
    g.finish();
}

criterion_group!(benches, million, first_frame, picker);
criterion_main!(benches);
