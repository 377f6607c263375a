//! The terminal: raw mode, the alternate screen and the mouse, entered once
//! and restored on every way out (normal exit, error, panic, signal).

use super::state::State;
use crossterm::event::EnableMouseCapture;
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, disable_raw_mode, enable_raw_mode};
use ratatui::backend::CrosstermBackend;
use std::io::{self, Stdout, Write};
use std::sync::Once;

pub struct Terminal {
    /// Never dropped: ratatui's drop prints with `eprintln!` when the cursor
    /// can't be shown, which panics once the terminal has hung up. Ours
    /// restores what it can and leaves the rest to the process's exit.
    inner: std::mem::ManuallyDrop<ratatui::Terminal<CrosstermBackend<Stdout>>>,
}

impl Terminal {
    pub fn enter() -> io::Result<Terminal> {
        enable_raw_mode()?;
        let mut out = io::stdout();
        if let Err(e) = execute!(out, EnterAlternateScreen, EnableMouseCapture) {
            restore();
            return Err(e);
        }
        match ratatui::Terminal::new(CrosstermBackend::new(out)) {
            Ok(inner) => Ok(Terminal {
                inner: std::mem::ManuallyDrop::new(inner),
            }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }

    pub fn size(&self) -> io::Result<ratatui::layout::Size> {
        self.inner.size()
    }

    pub fn draw(&mut self, state: &State) -> io::Result<()> {
        self.inner.draw(|f| super::view::draw(f, state)).map(|_| ())
    }

    /// Writes an escape sequence of our own (OSC 52) straight out.
    pub fn write_raw(&mut self, text: &str) -> io::Result<()> {
        let out = self.inner.backend_mut();
        out.write_all(text.as_bytes())?;
        out.flush()
    }

    /// Runs `f` with the terminal as the inspector found it (a pager or an
    /// editor takes the screen), then enters again and redraws all of it.
    pub fn suspended<T>(&mut self, f: impl FnOnce() -> T) -> io::Result<T> {
        restore();
        let out = f();
        enable_raw_mode()?;
        execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
        self.inner.clear()?;
        Ok(out)
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        restore();
        let _ = self.inner.show_cursor();
    }
}

/// What waiting for input found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    Ready,
    Timeout,
    /// The terminal is gone (its emulator closed, the ssh link dropped).
    HungUp,
}

/// The file descriptor crossterm reads keys from: stdin when it is a
/// terminal, else `/dev/tty` (kept open here for polling).
pub fn input_fd() -> std::os::fd::RawFd {
    use std::os::fd::AsRawFd;
    static TTY: std::sync::OnceLock<Option<std::fs::File>> = std::sync::OnceLock::new();
    // SAFETY: isatty only inspects the descriptor.
    if unsafe { libc::isatty(0) } == 1 {
        return 0;
    }
    TTY.get_or_init(|| std::fs::File::open("/dev/tty").ok())
        .as_ref()
        .map_or(0, |f| f.as_raw_fd())
}

/// Whether there is a terminal to draw on and read keys from: standard
/// input, or the process's controlling terminal.
pub fn available() -> bool {
    // SAFETY: isatty only inspects the descriptor.
    (unsafe { libc::isatty(0) } == 1) || std::fs::File::open("/dev/tty").is_ok()
}

/// Waits up to `timeout` for a key, a mouse event or a resize to be
/// readable. Polled here rather than in crossterm: once the terminal hangs
/// up, crossterm reads end-of-file in a loop that never returns.
pub fn wait_input(timeout: std::time::Duration) -> Input {
    let mut fds = libc::pollfd {
        fd: input_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: one valid pollfd, its count, a timeout.
    let n = unsafe { libc::poll(&mut fds, 1, ms) };
    if n < 0 {
        // EINTR (a signal, a resize): let the loop look around.
        return Input::Timeout;
    }
    if fds.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
        Input::HungUp
    } else if fds.revents & libc::POLLIN != 0 {
        Input::Ready
    } else {
        Input::Timeout
    }
}

/// Whether the terminal has hung up (its window closed, its ssh session
/// gone): a draw or a read that failed then is its going, not a failure.
pub fn hung_up() -> bool {
    matches!(wait_input(std::time::Duration::ZERO), Input::HungUp)
}

/// Puts the terminal back: cooked mode, main screen, no mouse reporting,
/// cursor shown. Safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let mut out = io::stdout();
    let _ = restore_to(&mut out);
}

/// The escape sequences that undo what `Terminal::enter` did.
fn restore_to<W: Write>(out: &mut W) -> io::Result<()> {
    crate::terminal_reset::restore_to(out)
}

/// Restores the terminal before the panic message is printed, so it is
/// readable and the shell is usable afterwards.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
            // Off the main thread a panic would end only that thread, and
            // the main loop would go on drawing into a terminal given
            // back: keys echoed, `q` lost. The whole inspector ends, as a
            // panic of its own main thread ends it.
            let thread = std::thread::current();
            if thread.name() != Some("main") {
                eprintln!(
                    "jp-inspect stopped: its {} thread failed (above)",
                    thread.name().unwrap_or("background")
                );
                std::process::exit(101);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restore_sequences_leave_the_alternate_screen_and_show_the_cursor() {
        let mut buf = Vec::new();
        restore_to(&mut buf).unwrap();
        let s = String::from_utf8(buf).unwrap();
        assert!(s.contains("\x1b[?1049l"), "{s:?}");
        assert!(s.contains("\x1b[?25h"), "{s:?}");
        assert!(s.contains("\x1b[?1000l"), "{s:?}");
    }
}
