//! A replay's writer (`--replay`): a thread that plays jp, writing the next
//! turn under jp's lock whenever the pace says so, while the inspector
//! follows the file like any other. Told its pace by the screen; stopped
//! when dropped.

use super::msg::ReplayPace;
use crate::core::ops::replay::Replay;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[derive(Debug)]
struct Control {
    pace: Mutex<ReplayPace>,
    stop: AtomicBool,
    /// Write the next turn now, whatever the pace (`]`).
    now: AtomicBool,
    error: Mutex<Option<String>>,
    /// Each turn waits until the inspector has evaluated the boundary
    /// before it (`A` on): otherwise two turns written between two of its
    /// looks would be one boundary, skipped at a fast pace or under load.
    lockstep: AtomicBool,
    /// The turns whose boundary the inspector has evaluated.
    evaluated: AtomicUsize,
}

pub struct Writer {
    control: Arc<Control>,
    thread: Option<JoinHandle<()>>,
}

/// How often the writer looks at its pace: a pause or a new pace takes
/// effect within this.
const LOOK: Duration = Duration::from_millis(50);

/// How long a turn waits for the inspector's evaluation of the boundary
/// before it (an LLM summarizer may take a minute).
const STALLED: Duration = Duration::from_secs(120);

impl Writer {
    /// `lockstep`: wait for the inspector's evaluation of each boundary.
    pub fn start(mut replay: Replay, pace: ReplayPace, lockstep: bool) -> Writer {
        let control = Arc::new(Control {
            pace: Mutex::new(pace),
            stop: AtomicBool::new(false),
            now: AtomicBool::new(false),
            error: Mutex::new(None),
            lockstep: AtomicBool::new(lockstep),
            evaluated: AtomicUsize::new(0),
        });
        let c = control.clone();
        let thread = std::thread::spawn(move || {
            let mut last = Instant::now();
            while !c.stop.load(Ordering::Relaxed) {
                let pace = *c.pace.lock().unwrap_or_else(|e| e.into_inner());
                // The first turn has no boundary before it. A boundary that is
                // never said to be evaluated (a stalled summarizer) holds the
                // replay for a while, not for ever.
                let caught_up = !c.lockstep.load(Ordering::Relaxed)
                    || replay.written() == 0
                    || c.evaluated.load(Ordering::Relaxed) >= replay.written()
                    || last.elapsed() >= STALLED;
                let due = !pace.paused && last.elapsed() >= pace.every;
                if caught_up && (c.now.swap(false, Ordering::Relaxed) || due) {
                    match replay.step() {
                        Ok(true) => last = Instant::now(),
                        Ok(false) => return,
                        // Someone mid-write (the inspector appending a
                        // compaction): the turn comes a moment later.
                        Err(crate::core::error::Error::Locked { .. }) => {}
                        Err(e) => {
                            *c.error.lock().unwrap_or_else(|e| e.into_inner()) =
                                Some(e.to_string());
                            return;
                        }
                    }
                }
                std::thread::sleep(LOOK);
            }
        });
        Writer {
            control,
            thread: Some(thread),
        }
    }

    /// Writes the next turn at once (paused or not).
    pub fn next_now(&self) {
        self.control.now.store(true, Ordering::Relaxed);
    }

    /// The inspector has evaluated the boundary after `turns` turns.
    pub fn evaluated(&self, turns: usize) {
        self.control.evaluated.fetch_max(turns, Ordering::Relaxed);
    }

    /// Whether each turn waits for the inspector's evaluation (`A` on).
    pub fn lockstep(&self, on: bool) {
        self.control.lockstep.store(on, Ordering::Relaxed);
    }

    pub fn set(&self, pace: ReplayPace) {
        *self.control.pace.lock().unwrap_or_else(|e| e.into_inner()) = pace;
    }

    /// What stopped the writer, once.
    pub fn take_error(&self) -> Option<String> {
        self.control
            .error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.control.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
