//! A replay's writer (`--replay`): a thread that plays jp, writing the next
//! turn under jp's lock whenever the pace says so, while the inspector
//! follows the file like any other. Told its pace by the screen; stopped
//! when dropped.

use super::msg::ReplayPace;
use crate::core::ops::replay::Replay;
use std::sync::atomic::{AtomicBool, Ordering};
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
}

pub struct Writer {
    control: Arc<Control>,
    thread: Option<JoinHandle<()>>,
}

/// How often the writer looks at its pace: a pause or a new pace takes
/// effect within this.
const LOOK: Duration = Duration::from_millis(50);

impl Writer {
    pub fn start(mut replay: Replay, pace: ReplayPace) -> Writer {
        let control = Arc::new(Control {
            pace: Mutex::new(pace),
            stop: AtomicBool::new(false),
            now: AtomicBool::new(false),
            error: Mutex::new(None),
        });
        let c = control.clone();
        let thread = std::thread::spawn(move || {
            let mut last = Instant::now();
            while !c.stop.load(Ordering::Relaxed) {
                let pace = *c.pace.lock().unwrap_or_else(|e| e.into_inner());
                let due = !pace.paused && last.elapsed() >= pace.every;
                if c.now.swap(false, Ordering::Relaxed) || due {
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
