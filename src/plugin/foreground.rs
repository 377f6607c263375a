//! The terminal under `jp inspect`. jp starts a plugin in a process group
//! of its own with pipes for stdin and stdout, so a terminal program
//! there is in the background: its first read or mode change stops it
//! (SIGTTIN, SIGTTOU) and its keys go to jp. The inspector therefore
//! opens the controlling terminal itself, makes its own group the
//! terminal's foreground while it runs, and gives it back to jp's group
//! when it ends, however it ends. Ctrl-Z suspends jp's whole job, which
//! is what the shell knows of, and takes the terminal back on `fg`.

use super::host::Job;
use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};
use std::time::Duration;

/// The terminal, taken from jp's group; given back on drop.
pub struct Foreground {
    tty: File,
    host: Job,
    saved: Option<libc::termios>,
    given_back: bool,
}

/// Runs `f` with SIGTTOU ignored: a process in a background group may
/// then change the terminal's foreground group instead of being stopped.
fn without_sigttou<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: swapping one signal's disposition and putting it back.
    unsafe {
        let previous = libc::signal(libc::SIGTTOU, libc::SIG_IGN);
        let out = f();
        libc::signal(libc::SIGTTOU, previous);
        out
    }
}

impl Foreground {
    /// Takes the terminal for our group, from jp's. Fails with a sentence
    /// saying why when there is no terminal or jp is not in its foreground.
    pub fn take() -> Result<Foreground, String> {
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map_err(|e| {
                format!(
                    "the inspector needs a terminal, and jp inspect runs without one here \
                     (/dev/tty: {e}); the headless commands work: jp inspect stats CONV, list, \
                     show, compact, auto, watch … (jp inspect -h)"
                )
            })?;
        let fd = tty.as_raw_fd();
        // SAFETY: plain queries of our own process and the terminal.
        let (foreground, host_pid, ours) =
            unsafe { (libc::tcgetpgrp(fd), libc::getppid(), libc::getpgid(0)) };
        // SAFETY: as above.
        let host_pgrp = unsafe { libc::getpgid(host_pid) };
        if foreground < 0 || (foreground != host_pgrp && foreground != ours) {
            return Err(
                "jp is not in the terminal's foreground (started in the background?): the \
                 inspector would steal the terminal from whatever is; run jp inspect in the \
                 foreground"
                    .into(),
            );
        }
        // SAFETY: a zeroed termios is a valid out-parameter.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: fd is the open terminal.
        let saved = (unsafe { libc::tcgetattr(fd, &mut saved) } == 0).then_some(saved);
        // SAFETY: fd is the terminal; our group is in its session.
        let set = without_sigttou(|| unsafe { libc::tcsetpgrp(fd, ours) });
        if set != 0 {
            return Err(format!(
                "the terminal could not be taken from jp for the inspector: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(Foreground {
            tty,
            host: Job {
                pid: host_pid,
                pgrp: host_pgrp,
            },
            saved,
            given_back: false,
        })
    }

    /// The open terminal, for the inspector to use as its stdin and stdout.
    pub fn tty(&self) -> &File {
        &self.tty
    }

    /// jp's job, for the inspector's Ctrl-Z.
    pub fn host(&self) -> Job {
        self.host
    }

    /// Gives the terminal back to jp's group. `abruptly`: the inspector
    /// did not end by itself (killed), so its modes are undone here: the
    /// settings the terminal had before, the main screen, the cursor, no
    /// mouse reporting.
    pub fn give_back(&mut self, abruptly: bool) {
        if self.given_back {
            return;
        }
        self.given_back = true;
        let fd = self.tty.as_raw_fd();
        if abruptly {
            use std::io::Write;
            let _ = crate::terminal_reset::restore_to(&mut self.tty);
            let _ = self.tty.flush();
            if let Some(saved) = &self.saved {
                // SAFETY: fd is the terminal, saved came from it.
                unsafe { libc::tcsetattr(fd, libc::TCSADRAIN, saved) };
            }
        }
        // SAFETY: queries and a change of the terminal's foreground group.
        without_sigttou(|| unsafe {
            if libc::tcgetpgrp(fd) == libc::getpgid(0) {
                libc::tcsetpgrp(fd, self.host.pgrp);
            }
        });
    }
}

impl Drop for Foreground {
    fn drop(&mut self) {
        self.give_back(true);
    }
}

/// Suspends the inspector the way a shell expects (Ctrl-Z). Run directly,
/// it stops its own job. Under jp, it gives the terminal to jp's group and
/// stops jp's job, which the shell then reports as stopped; after `fg`
/// puts jp back in the foreground, it takes the terminal again. Returns
/// when the inspector may draw again. The caller has left raw mode and
/// the alternate screen first.
pub fn suspend(tty: RawFd, host: Option<Job>) {
    let Some(host) = host else {
        // SAFETY: stopping our own process group, as the terminal would.
        unsafe { libc::kill(0, libc::SIGTSTP) };
        return;
    };
    // SAFETY: giving jp's group the terminal it had, then stopping it.
    without_sigttou(|| unsafe { libc::tcsetpgrp(tty, host.pgrp) });
    // SAFETY: a signal to jp's process group.
    unsafe { libc::kill(-host.pgrp, libc::SIGTSTP) };
    let tick = Duration::from_millis(50);
    // jp may not stop (it ignores SIGTSTP): then carry on at once.
    let mut stopped = false;
    for _ in 0..40 {
        match state_of(host.pid) {
            Some('T') | Some('t') => {
                stopped = true;
                break;
            }
            None => return,
            _ => std::thread::sleep(tick),
        }
    }
    if stopped {
        // Until the shell runs jp again with the terminal (`fg`; after
        // `bg` it runs without, and the inspector waits for the `fg`).
        loop {
            std::thread::sleep(tick);
            let Some(state) = state_of(host.pid) else {
                return;
            };
            // SAFETY: a query of the terminal's foreground group.
            let foreground = unsafe { libc::tcgetpgrp(tty) };
            if !matches!(state, 'T' | 't') && foreground == host.pgrp {
                break;
            }
        }
    }
    // SAFETY: taking the terminal back for our group.
    without_sigttou(|| unsafe { libc::tcsetpgrp(tty, libc::getpgid(0)) });
}

/// A process's state letter (`T`: stopped), `None` once it is gone.
fn state_of(pid: i32) -> Option<char> {
    crate::platform::process_state(pid)
}
