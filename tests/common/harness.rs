//! The inspector driven the way a person does, for the TUI tests: key
//! presses into `update`, jobs run inline through the worker's `execute`,
//! frames drawn into a `TestBackend`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jp_inspect::core::ops::AutoConfig;
use jp_inspect::core::{model::compaction::Source, model::timestamp, ops};
use jp_inspect::tui::job::Done;
use jp_inspect::tui::msg::{Effect, Msg};
use jp_inspect::tui::state::State;
use jp_inspect::tui::theme::Theme;
use jp_inspect::tui::{update, view, worker};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::Path;

pub struct Harness {
    /// What the state's files live in (the demo's copy, a workspace),
    /// removed when the harness is dropped.
    _files: Box<dyn std::any::Any>,
    pub state: State,
}

impl Harness {
    pub fn new(width: u16, height: u16, color: bool) -> Harness {
        Harness::prepared(width, height, color, |_| {})
    }

    /// The demo, changed by `prepare` (given its folder) before it loads.
    pub fn prepared(width: u16, height: u16, color: bool, prepare: impl FnOnce(&Path)) -> Harness {
        let demo = jp_inspect::demo::materialize().unwrap();
        prepare(&demo.conversation_dir);
        let mut state = State::new(
            demo.conversation_dir.clone(),
            AutoConfig::default(),
            None,
            Theme::new(color),
        );
        state.settings.clock = timestamp::parse("2026-11-20 09:00:00");
        // Started in the demo's workspace, as `--demo` starts it.
        state.settings.reach.workspace = Some(demo.workspace.path().to_path_buf());
        let mut h = Harness {
            _files: Box::new(demo),
            state,
        };
        h.act(Msg::Resize(width, height));
        h.run(vec![Effect::job(jp_inspect::tui::job::Job::Load {
            dir: h.state.dir.clone(),
            preview: Vec::new(),
            since: None,
            config: None,
            view: Default::default(),
        })]);
        h
    }

    /// The inspector as `init` opens it with `options` (the picker, say),
    /// its files kept in `files` for as long as the harness lives.
    pub fn opened(
        options: jp_inspect::tui::Options,
        size: (u16, u16),
        files: impl std::any::Any,
    ) -> Harness {
        let (state, fx) = jp_inspect::tui::init(options, Theme::new(true), size);
        let mut h = Harness {
            _files: Box::new(files),
            state,
        };
        h.run(fx);
        h
    }

    /// `w`, the prefilled window cleared, `text` typed, Enter.
    pub fn set_window(&mut self, text: &str) {
        self.char('w');
        for _ in 0..10 {
            self.key(KeyCode::Backspace);
        }
        self.typed(text);
        self.key(KeyCode::Enter);
    }

    pub fn dir(&self) -> &Path {
        &self.state.dir
    }

    /// Runs effects inline, feeding results back, until none are left.
    pub fn run(&mut self, fx: Vec<Effect>) {
        run_effects(&mut self.state, fx);
    }

    pub fn act(&mut self, a: impl Into<Msg>) {
        let fx = update::update(&mut self.state, a.into());
        self.run(fx);
    }

    pub fn key(&mut self, code: KeyCode) {
        self.act(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    pub fn char(&mut self, c: char) {
        let mods = if c.is_uppercase() {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        };
        self.act(Msg::Key(KeyEvent::new(KeyCode::Char(c), mods)));
    }

    pub fn typed(&mut self, s: &str) {
        for c in s.chars() {
            self.char(c);
        }
    }

    pub fn screen(&self) -> Terminal<TestBackend> {
        let mut term =
            Terminal::new(TestBackend::new(self.state.width, self.state.height)).unwrap();
        term.draw(|f| view::draw(f, &self.state)).unwrap();
        term
    }

    pub fn text(&self) -> String {
        self.screen().backend().to_string()
    }

    pub fn compactions_on_disk(&self) -> Vec<(Source, usize, usize)> {
        let conv = ops::read::whole(self.dir()).unwrap();
        conv.valid_compactions()
            .iter()
            .map(|c| (c.source, c.from_turn, c.to_turn))
            .collect()
    }
}

/// Runs `fx` inline on `state` as the runtime would, feeding each job's
/// result back, until no job is left.
pub fn run_effects(state: &mut State, mut fx: Vec<Effect>) {
    while !fx.is_empty() {
        let mut next = Vec::new();
        for e in fx {
            if let Effect::Job(job) = e {
                let generation = state.generation;
                let result = worker::execute(*job);
                next.extend(update::update(
                    state,
                    Msg::Done(Box::new(Done { generation, result })),
                ));
            }
        }
        fx = next;
    }
}

/// In the tools view (`T`), moves the cursor down to `tool`'s row.
pub fn select_tool(h: &mut Harness, tool: &str) {
    use jp_inspect::tui::panels::Panel;
    for _ in 0..100 {
        let Some(Panel::Tools(v)) = &h.state.panel else {
            panic!("no tools view");
        };
        if v.selected().is_some_and(|r| r.name == tool) {
            return;
        }
        h.char('j');
    }
    panic!("no row for {tool}: {}", h.text());
}
