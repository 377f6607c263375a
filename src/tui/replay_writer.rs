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
    /// How many times the writer has looked at its pace: what a pause
    /// held back is known by the looks that wrote nothing.
    looks: AtomicUsize,
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
            looks: AtomicUsize::new(0),
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
                if caught_up && writes(&pace, &c.now, last.elapsed()) {
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
                c.looks.fetch_add(1, Ordering::Relaxed);
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

    /// How many times it has looked at its pace so far.
    pub fn looks(&self) -> usize {
        self.control.looks.load(Ordering::Relaxed)
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

/// Whether a look writes the next turn (its boundary caught up): asked
/// for with `]` (taken), or due at the pace, which a pause holds back.
fn writes(pace: &ReplayPace, asked: &AtomicBool, since_last: Duration) -> bool {
    asked.swap(false, Ordering::Relaxed) || (!pace.paused && since_last >= pace.every)
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.control.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_holds_back_what_is_due_and_never_what_is_asked() {
        let every = Duration::from_secs(2);
        let (running, paused) = (
            ReplayPace {
                paused: false,
                every,
            },
            ReplayPace {
                paused: true,
                every,
            },
        );
        let none = AtomicBool::new(false);
        assert!(writes(&running, &none, every));
        assert!(!writes(&running, &none, every / 2));
        assert!(!writes(&paused, &none, every * 10));
        let asked = AtomicBool::new(true);
        assert!(writes(&paused, &asked, Duration::ZERO));
        assert!(!asked.load(Ordering::Relaxed), "taken once");
        assert!(!writes(&paused, &asked, Duration::ZERO));
    }
}
