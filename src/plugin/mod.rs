//! jp-inspect as `jp inspect`: jp's command-plugin protocol (jp's RFD
//! 072). jp runs every `jp-*` program on `PATH` with no arguments and
//! pipes for stdin and stdout, asks it to describe itself (for `jp -h`)
//! or sends `init` with the arguments to run. jp-inspect answers from
//! here, before anything else looks at the terminal.
//!
//! A run under jp is two processes: this one speaks the protocol (the
//! bridge), and a second jp-inspect runs the command as if typed, its
//! output relayed to jp as `print` messages and its end as `exit`. So
//! every command and the inspector work unchanged, and whatever the
//! command does, the bridge can always stop it when jp goes away.

mod bridge;
mod describe;
pub mod foreground;
pub mod host;
pub mod protocol;
pub mod split;

use protocol::{FromHost, ToHost};
use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::time::Duration;

/// How long a jp-inspect started with no arguments and no terminal on
/// stdin waits for jp's first message before it goes on as if typed.
const FIRST_MESSAGE_WAIT: Duration = Duration::from_secs(1);

/// The most of jp's first message read: `init` carries jp's whole
/// resolved configuration, a few hundred kilobytes for a workspace with
/// many tools.
const FIRST_MESSAGE_LIMIT: u64 = 64 << 20;

/// Answers jp when jp is the one asking: `Some(exit code)` when this
/// process was started by jp's plugin host and has done what it asked;
/// `None` to go on as a program run by a person.
pub fn serve_if_asked() -> Option<i32> {
    if std::env::args_os().len() != 1 || host::is_child() || std::io::stdin().is_terminal() {
        return None;
    }
    if !readable_within(0, FIRST_MESSAGE_WAIT) {
        return None;
    }
    let mut input = BufReader::new(std::io::stdin());
    let mut line = String::new();
    let read = Read::take(&mut input, FIRST_MESSAGE_LIMIT)
        .read_line(&mut line)
        .ok()?;
    if read == 0 {
        return None;
    }
    match protocol::parse(&line)? {
        FromHost::Describe => {
            let message = ToHost::Describe(describe::describe());
            // jp reads one line, then waits for us to exit.
            let _ = protocol::send(&mut std::io::stdout().lock(), &message);
            Some(0)
        }
        FromHost::Init(init) => Some(bridge::run(*init, input)),
        FromHost::Shutdown | FromHost::Other => None,
    }
}

/// Whether `fd` has something to read (or its end) within `wait`.
fn readable_within(fd: i32, wait: Duration) -> bool {
    let mut fds = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = wait.as_millis().min(i32::MAX as u128) as i32;
    loop {
        // SAFETY: one valid pollfd and its count.
        let n = unsafe { libc::poll(&mut fds, 1, ms) };
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return n > 0 && fds.revents & libc::POLLIN != 0;
    }
}
