//! The inspector: a thin shell over the core. State, one `Msg` enum (key
//! bindings deserialise straight into its `Action`s), an update function;
//! drawing is a pure function of the state; everything that takes time runs
//! on a worker thread, and every change to a conversation is a job that
//! calls `core::ops`.

pub mod as_of;
pub mod detail_layout;
pub mod detail_text;
pub mod file_watcher;
pub mod highlight;
pub mod inspection;
pub mod job;
pub mod keys;
pub mod largest;
pub mod layout;
pub mod markdown;
pub mod msg;
pub mod outside;
pub mod panels;
pub mod picker;
pub mod replay_writer;
pub mod rows;
pub mod shown;
pub mod state;
pub mod status_log;
pub mod summary_editor;
pub mod terminal;
pub mod theme;
pub mod tools_view;
pub mod undo;
pub mod update;
pub mod user_config;
pub mod view;
pub mod worker;

use crate::core::ops::{AutoConfig, Mode};
use crate::keymap::Action;
use crossterm::event::{self, Event};
use job::Job;
use msg::{Effect, Msg};
use state::State;
use status_log::Level;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How the inspector starts.
pub struct Options {
    pub dir: PathBuf,
    /// Start with the workspace's conversations to pick from (its root
    /// and listing) instead of `dir`.
    pub picker: Option<(PathBuf, Vec<crate::core::ops::catalog::Listing>)>,
    /// A TOML file applied over the conversation's own auto table.
    pub config_file: Option<PathBuf>,
    /// What jp handed over, under `jp inspect`: read in place of its
    /// config files.
    pub jp: Option<crate::core::model::config::JpResolved>,
    /// Mode chosen on the command line.
    pub mode: Option<Mode>,
    pub window: Option<u64>,
    pub follow: bool,
    /// Said on the status line when the screen opens (where `--demo`'s
    /// temporary copy is).
    pub notice: Option<String>,
    /// A replay is being written into `dir`: follow it with automatic
    /// compaction on.
    pub replay: Option<state::ReplayState>,
    /// The workspace it was started in, and whether writes are refused.
    pub reach: state::Reach,
}

impl Options {
    /// Start in the picker over `root`'s `listings`, with nothing else set.
    pub fn picker(root: PathBuf, listings: Vec<crate::core::ops::catalog::Listing>) -> Options {
        let root_of_picker = root.clone();
        Options {
            dir: PathBuf::new(),
            picker: Some((root, listings)),
            config_file: None,
            jp: None,
            mode: None,
            window: None,
            follow: false,
            notice: None,
            replay: None,
            reach: state::Reach::of_workspace(&root_of_picker),
        }
    }
}

/// The state the inspector starts in and the work it starts with (the
/// first load, which also reads the configuration; following): a pure
/// function, so tests start the inspector exactly as the program does.
pub fn init(opts: Options, theme: theme::Theme, size: (u16, u16)) -> (State, Vec<Effect>) {
    let mut state = State::new(opts.dir.clone(), AutoConfig::default(), opts.window, theme);
    state.settings.config_file = opts.config_file.clone();
    state.settings.jp = opts.jp.clone();
    state.settings.mode_override = opts.mode;
    state.settings.reach = opts.reach.clone();
    let mut effects = update::update(&mut state, Msg::Resize(size.0, size.1));
    if let Some((root, listings)) = opts.picker {
        state.picker = Some(picker::Picker::new(root, listings));
        state.in_picker = true;
        effects.extend(update::fill_picker(&mut state));
        return (state, effects);
    }
    effects.push(Effect::job(Job::Load {
        dir: opts.dir,
        preview: Vec::new(),
        since: None,
        config: Some(job::ConfigFile {
            file: opts.config_file,
            jp: opts.jp,
        }),
        view: Default::default(),
    }));
    state.status.busy = Some(("loading the conversation".into(), Instant::now()));
    if opts.follow {
        effects.extend(update::update(&mut state, Action::Follow));
    }
    if let Some(notice) = opts.notice {
        state.set_status(notice, Level::Info);
    }
    if let Some(r) = opts.replay {
        // Following with `A` on from the start: every turn the writer adds
        // is a boundary the policy is evaluated at, as beside a real jp.
        state.replay = Some(r);
        state.settings.auto_run = true;
        if !state.settings.follow {
            effects.extend(update::update(&mut state, Action::Follow));
        }
        state.set_status(
            format!(
                "replaying {} turns, one every {}: Space pauses, + and - change the pace",
                r.total,
                humantime::format_duration(r.pace.every)
            ),
            Level::Info,
        );
    }
    (state, effects)
}

/// Gives the screen to the pager or the editor on a temp copy of `text`,
/// then takes it back; what to say of it.
fn hand_over(
    term: &mut terminal::Terminal,
    with: msg::Opener,
    title: &str,
    text: &str,
    extension: &str,
) -> Result<String, String> {
    let program = outside::program(with, |k| std::env::var(k).ok());
    let editor = with == msg::Opener::Editor;
    let file = outside::temp_file(text, extension, editor)
        .map_err(|e| format!("cannot make a copy to open: {e}"))?;
    let ran = term
        .suspended(|| outside::run(&program, &file))
        .map_err(|e| format!("the terminal could not be taken back: {e}"))?;
    ran?;
    Ok(if editor {
        format!(
            "closed the read-only copy of {title} in `{program}`; the conversation is unchanged"
        )
    } else {
        format!("back from `{program}`")
    })
}

/// Gives the screen to the editor on a copy of the summary being written,
/// then takes it back with what the person saved.
fn edit_outside(term: &mut terminal::Terminal, text: &str) -> Result<String, String> {
    let program = outside::program(msg::Opener::Editor, |k| std::env::var(k).ok());
    let file = outside::temp_file(text, "md", false)
        .map_err(|e| format!("cannot make a copy to edit: {e}"))?;
    term.suspended(|| outside::run(&program, &file))
        .map_err(|e| format!("the terminal could not be taken back: {e}"))??;
    crate::core::ops::summary_from_file(&file)
}

/// Runs the inspector until the person quits (or a signal asks it to); the
/// terminal is restored on every way out. `replay`: the turns to write
/// into `opts.dir` while it runs (`--replay`).
pub fn run(opts: Options, replay: Option<crate::core::ops::replay::Replay>) -> anyhow::Result<()> {
    let terminated = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
        signal_hook::consts::SIGINT,
    ] {
        signal_hook::flag::register(sig, terminated.clone())?;
    }
    // Resizes are read from our own flag: keys are polled here, not in
    // crossterm, which would otherwise be the one to notice SIGWINCH.
    let resized = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGWINCH, resized.clone())?;
    // The user's keys and colours: a mistake is said before the screen opens.
    let user = user_config::load()?;
    crate::keymap::install(user.bindings.clone());
    highlight::use_light(user.light);
    terminal::install_panic_hook();
    if !terminal::available() {
        anyhow::bail!(
            "the inspector needs a terminal, and there is none here (standard input is not one \
             and /dev/tty can't be opened); the headless commands work without one: jp-inspect \
             show, stats, list, compact, reset, auto, simulate, history, watch, models, count \
             (see jp-inspect --help)"
        );
    }
    let mut term = terminal::Terminal::enter()?;
    let writer = replay
        .zip(opts.replay)
        .map(|(r, s)| replay_writer::Writer::start(r, s.pace, true));
    let result = match event_loop(
        &mut term,
        opts,
        user.theme(),
        &terminated,
        &resized,
        writer.as_ref(),
    ) {
        // A draw or a read that failed as the terminal hung up (or as a
        // signal asked it to end) is the way out it was, not an error.
        Err(_) if terminal::hung_up() || terminated.load(Ordering::SeqCst) => Ok(()),
        r => r,
    };
    drop(writer);
    drop(term);
    result
}

/// Reads every event crossterm has ready, without waiting; how many.
fn read_buffered(actions: &mut Vec<Msg>) -> anyhow::Result<usize> {
    let mut n = 0;
    while event::poll(Duration::ZERO)? {
        n += 1;
        match event::read()? {
            Event::Key(k) => actions.push(Msg::Key(k)),
            Event::Mouse(m) => actions.push(Msg::Mouse(m)),
            Event::Resize(w, h) => actions.push(Msg::Resize(w, h)),
            _ => {}
        }
    }
    Ok(n)
}

/// What the update asks of a replay's writer.
fn steer_replay(w: &replay_writer::Writer, fx: Effect) {
    match fx {
        Effect::Replay(pace) => w.set(pace),
        Effect::ReplayNext => w.next_now(),
        Effect::ReplayEvaluated(turns) => w.evaluated(turns),
        Effect::ReplayLockstep(on) => w.lockstep(on),
        _ => {}
    }
}

/// Waits a frame for input, taking what came into `actions` (or, when
/// nothing came, the work put off while keys came); `false` once the
/// terminal hung up.
fn wait_for_input(state: &State, actions: &mut Vec<Msg>) -> anyhow::Result<bool> {
    match terminal::wait_input(Duration::from_millis(40)) {
        terminal::Input::HungUp => return Ok(false),
        terminal::Input::Ready => {
            // Everything crossterm has buffered, without waiting. Input
            // it won't hand over (see the resize above) must not make the
            // loop spin: wait out the tick instead.
            if read_buffered(actions)? == 0 {
                std::thread::sleep(Duration::from_millis(40));
            }
        }
        terminal::Input::Timeout => {
            if state.wants_idle() {
                actions.push(Msg::Idle);
            }
        }
    }
    Ok(true)
}

/// Whether the main thread is to panic after its first draw, for the test
/// that proves the panic hook restores the terminal. With `thread`, another
/// thread panics instead, for the test that proves a panic off the main
/// thread ends the inspector as one on it does.
fn panic_for_tests() -> bool {
    let asked = std::env::var_os("JP_INSPECT_PANIC_AFTER_DRAW");
    if asked.as_deref() == Some(std::ffi::OsStr::new("thread")) {
        let _ = std::thread::Builder::new()
            .name("jp-inspect-marks".into())
            .spawn(|| {
                std::thread::sleep(Duration::from_millis(300));
                panic!("JP_INSPECT_PANIC_AFTER_DRAW is set");
            });
    }
    asked.is_some_and(|v| v != "thread")
}

fn event_loop(
    term: &mut terminal::Terminal,
    opts: Options,
    theme: theme::Theme,
    terminated: &AtomicBool,
    resized: &AtomicBool,
    writer: Option<&replay_writer::Writer>,
) -> anyhow::Result<()> {
    let worker = worker::Worker::start();
    let mut watcher: Option<file_watcher::Watcher> = None;
    let size = term.size()?;
    let (mut state, mut effects) = init(opts, theme, (size.width, size.height));
    let panic_after_draw = panic_for_tests();
    let mut dirty = true;
    let mut last_tick = Instant::now();
    let mut last_lock_look = Instant::now() - Duration::from_secs(1);
    loop {
        let mut effects_after = Vec::new();
        for fx in effects.drain(..) {
            dirty |= perform(
                fx,
                term,
                &mut state,
                &worker,
                &mut watcher,
                writer,
                &mut effects_after,
            )?;
        }
        if dirty {
            term.draw(&state)?;
            dirty = false;
            if panic_after_draw {
                panic!("JP_INSPECT_PANIC_AFTER_DRAW is set");
            }
        }
        if state.quit {
            return Ok(());
        }
        let mut actions = effects_after;
        if terminated.load(Ordering::Relaxed) {
            actions.push(Msg::Terminate);
        }
        if resized.swap(false, Ordering::Relaxed) {
            let size = term.size()?;
            actions.push(Msg::Resize(size.width, size.height));
            // crossterm saw the SIGWINCH too: take its resize now, while no
            // key is waiting. Its reader is edge-triggered and returns at
            // the resize, so a key read in the same wake-up would be left
            // unread until the next key came.
            read_buffered(&mut actions)?;
        }
        if !wait_for_input(&state, &mut actions)? {
            return Ok(());
        }
        if let Some(e) = writer.and_then(replay_writer::Writer::take_error) {
            state.set_status(format!("the replay stopped: {e}"), Level::Error);
            dirty = true;
        }
        while let Ok(done) = worker.results.try_recv() {
            actions.push(Msg::Done(Box::new(done)));
        }
        if let Some(w) = &mut watcher
            && w.changed()
        {
            actions.push(Msg::FilesChanged);
        }
        // jp's lock, looked at twice a second: the header says when jp is
        // mid-query (a write would be refused).
        if last_lock_look.elapsed() >= Duration::from_millis(500) {
            last_lock_look = Instant::now();
            let held = crate::core::ops::boundary::jp_mid_query(&state.dir);
            if held != state.jp_lock {
                actions.push(Msg::LockSeen(held));
            }
        }
        let ticking = state.status.busy.is_some()
            || state.settings.auto_waiting
            || state.status_expired(Instant::now());
        if ticking && last_tick.elapsed() >= Duration::from_millis(100) {
            last_tick = Instant::now();
            actions.push(Msg::Tick);
        }
        for a in actions {
            dirty = true;
            effects.extend(update::update(&mut state, a));
        }
    }
}

/// Carries out one effect `update` asked for; whether the screen must be
/// drawn again. What it learns comes back as messages in `after`.
fn perform(
    fx: Effect,
    term: &mut terminal::Terminal,
    state: &mut State,
    worker: &worker::Worker,
    watcher: &mut Option<file_watcher::Watcher>,
    writer: Option<&replay_writer::Writer>,
    after: &mut Vec<Msg>,
) -> anyhow::Result<bool> {
    let mut redraw = false;
    match fx {
        Effect::Job(job) => worker.submit(state.generation, *job),
        Effect::Watch(true) => {
            *watcher = match file_watcher::Watcher::new(&state.dir) {
                Ok(w) => Some(w),
                Err(e) => {
                    state.set_status(format!("cannot follow: {e}"), Level::Error);
                    state.settings.follow = false;
                    None
                }
            };
        }
        Effect::Watch(false) => *watcher = None,
        Effect::Suspend => {
            let tty = terminal::input_fd();
            let host = crate::plugin::host::job();
            if let Err(e) = term.suspended(|| crate::plugin::foreground::suspend(tty, host)) {
                state.set_status(
                    format!("the terminal could not be taken back: {e}"),
                    Level::Error,
                );
            }
            // The size may have changed meanwhile.
            let size = term.size()?;
            after.push(Msg::Resize(size.width, size.height));
            redraw = true;
        }
        fx @ (Effect::Replay(_)
        | Effect::ReplayNext
        | Effect::ReplayEvaluated(_)
        | Effect::ReplayLockstep(_)) => {
            if let Some(w) = writer {
                steer_replay(w, fx);
            }
        }
        Effect::Copy(text) => {
            let in_tmux = std::env::var_os("TMUX").is_some();
            if let Err(e) = term.write_raw(&outside::osc52(&text, in_tmux)) {
                state.set_status(format!("cannot copy: {e}"), Level::Error);
            }
        }
        Effect::EditOutside { text } => {
            after.push(Msg::EditedOutside(edit_outside(term, &text)));
            redraw = true;
        }
        Effect::Open {
            with,
            title,
            text,
            extension,
        } => {
            let said = hand_over(term, with, &title, &text, extension);
            let level = if said.is_ok() {
                Level::Info
            } else {
                Level::Error
            };
            state.set_status(said.unwrap_or_else(|e| e), level);
            redraw = true;
        }
    }
    Ok(redraw)
}
