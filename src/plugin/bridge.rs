//! Running one `jp inspect …` for jp: the command runs as a second
//! jp-inspect, as if typed; its output goes to jp as `print` messages,
//! its warnings as `log`, its end as `exit`. jp's `shutdown`, jp going
//! away (our stdin ending, our stdout closing) and a signal to us all
//! stop it: SIGTERM first, which every command and the inspector end on
//! cleanly, then SIGKILL if it has not ended within jp's grace period.

use super::foreground::Foreground;
use super::host;
use super::protocol::{self, FromHost, Init, ToHost};
use super::split::{Out, Splitter};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a stopped command has to end before it is killed: inside
/// jp's own five seconds, so jp hears our `exit` before it kills us.
const GRACE: Duration = Duration::from_secs(4);

/// The most of a failing command's error kept for jp to show.
const REASON_LIMIT: usize = 64 << 10;

/// What the bridge waits for.
enum Event {
    Exited(std::io::Result<ExitStatus>),
    /// jp asked us to stop, went away, or a signal came: why.
    Stop(&'static str),
}

/// The messages to jp, one writer for every thread.
type ToJp = Arc<Mutex<std::io::Stdout>>;

fn tell(out: &ToJp, message: &ToHost) -> bool {
    let mut out = out.lock().unwrap_or_else(|p| p.into_inner());
    protocol::send(&mut *out, message).is_ok()
}

/// Whether `args` open the inspector (no command named) rather than run
/// a headless command.
fn opens_the_inspector(args: &[String]) -> bool {
    use clap::Parser;
    let argv = std::iter::once("jp-inspect".to_string()).chain(args.iter().cloned());
    match crate::cli::Cli::try_parse_from(argv) {
        Ok(cli) => cli.command.is_none(),
        // --help, --version and mistakes print and end: no terminal needed.
        Err(_) => false,
    }
}

/// Whether the command was asked for JSON.
fn wants_json(args: &[String]) -> bool {
    args.iter()
        .take_while(|a| a.as_str() != "--")
        .any(|a| a == "--json")
}

/// Runs what `init` asks and tells jp how it ended; the exit code.
pub fn run(init: Init, input: BufReader<std::io::Stdin>) -> i32 {
    let out: ToJp = Arc::new(Mutex::new(std::io::stdout()));
    if !tell(&out, &ToHost::Ready) {
        return 1;
    }
    if init.version != protocol::VERSION {
        tell(
            &out,
            &ToHost::warning(format!(
                "jp speaks version {} of the plugin protocol, jp-inspect {}: carrying on",
                init.version,
                protocol::VERSION
            )),
        );
    }
    let (events, rx) = mpsc::channel::<Event>();
    listen_to_jp(input, events.clone());
    listen_for_signals(events.clone());

    let inspector = opens_the_inspector(&init.args);
    let mut terminal = None;
    if inspector {
        match Foreground::take() {
            Ok(f) => terminal = Some(f),
            Err(why) => {
                tell(&out, &ToHost::exit(Some(1), Some(why)));
                return 1;
            }
        }
    }

    let (init_reader, mut init_writer) = match std::io::pipe() {
        Ok(pipe) => pipe,
        Err(e) => return fail(&out, format!("cannot start: {e}")),
    };
    let mut command = match child_command(&init, terminal.as_ref(), &init_reader) {
        Ok(c) => c,
        Err(e) => return fail(&out, format!("cannot start: {e}")),
    };
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => return fail(&out, format!("cannot start jp-inspect: {e}")),
    };
    drop(command);
    drop(init_reader);
    let handed = serde_json::to_vec(&init).unwrap_or_default();
    std::thread::spawn(move || {
        let _ = init_writer.write_all(&handed);
    });

    let pid = child.id() as libc::pid_t;
    let reason = Arc::new(Mutex::new(Reason::default()));
    let json = wants_json(&init.args);
    let printed = child
        .stdout
        .take()
        .map(|stdout| relay_output(stdout, json, out.clone(), events.clone()));
    let logged = child
        .stderr
        .take()
        .map(|stderr| relay_errors(stderr, json, out.clone(), reason.clone()));
    {
        let events = events.clone();
        std::thread::spawn(move || {
            let _ = events.send(Event::Exited(child.wait()));
        });
    }
    drop(events);

    let ended = wait_for(&rx, pid);
    let status = ended.status;
    // What the command printed last, before its end is told. A process it
    // started may hold its output open: not waited for long.
    for relay in [printed, logged].into_iter().flatten() {
        let _ = relay.recv_timeout(Duration::from_secs(1));
    }
    let signalled = status
        .as_ref()
        .map(|s| std::os::unix::process::ExitStatusExt::signal(s).is_some())
        .unwrap_or(true);
    if let Some(t) = terminal.as_mut() {
        t.give_back(signalled);
    }
    let code = status.as_ref().ok().and_then(ExitStatus::code);
    let said = reason.lock().unwrap_or_else(|p| p.into_inner()).take();
    let reason = why_it_ended(&status, ended.stopped, said);
    if code == Some(0)
        && let Some(r) = &reason
    {
        // Said on the way to a success (`--demo`'s note): not an error.
        tell(&out, &ToHost::warning(r.clone()));
    }
    tell(&out, &ToHost::exit(code, reason));
    code.unwrap_or(1)
}

/// How the command ended, and whether it was stopped (when, why) and
/// then killed for not ending within [`GRACE`].
struct Ended {
    status: std::io::Result<ExitStatus>,
    stopped: Option<(&'static str, bool)>,
}

/// Waits for the command to end: a stop jp asks for (or a signal) is sent
/// on as SIGTERM, and SIGKILL follows if it does not end within [`GRACE`].
fn wait_for(rx: &mpsc::Receiver<Event>, pid: libc::pid_t) -> Ended {
    let mut stopping: Option<(Instant, &'static str)> = None;
    let mut killed = false;
    let status = loop {
        let wait = match stopping {
            Some((at, _)) if !killed => GRACE.saturating_sub(at.elapsed()),
            _ => Duration::from_secs(3600),
        };
        match rx.recv_timeout(wait) {
            Ok(Event::Exited(status)) => break status,
            Ok(Event::Stop(why)) => {
                if stopping.is_none() {
                    // SAFETY: a signal to our child, not yet reaped.
                    unsafe { libc::kill(pid, libc::SIGTERM) };
                    stopping = Some((Instant::now(), why));
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if stopping.is_some() && !killed {
                    // SAFETY: as above.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                    killed = true;
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err(std::io::Error::other("lost track of jp-inspect's process"));
            }
        }
    };
    Ended {
        status,
        stopped: stopping.map(|(_, why)| (why, killed)),
    }
}

/// What jp is told of the end: a failure to wait, a kill after the grace,
/// a signal (with what the command said last, if anything), else what it
/// said.
fn why_it_ended(
    status: &std::io::Result<ExitStatus>,
    stopped: Option<(&'static str, bool)>,
    said: Option<String>,
) -> Option<String> {
    let code = status.as_ref().ok().and_then(ExitStatus::code);
    match (status, stopped) {
        (Err(e), _) => Some(format!("jp-inspect: {e}")),
        (Ok(_), Some((why, true))) => Some(format!(
            "jp-inspect was stopped ({why}) and did not end within {} s",
            GRACE.as_secs()
        )),
        (Ok(s), _) if code.is_none() => Some(match said {
            Some(said) => said,
            None => format!("jp-inspect ended by {s}"),
        }),
        _ => said,
    }
}

fn fail(out: &ToJp, reason: String) -> i32 {
    tell(out, &ToHost::exit(Some(1), Some(reason)));
    1
}

/// The second jp-inspect: the same program, the arguments jp passed, jp's
/// directories, and `init` on an inherited descriptor.
fn child_command(
    init: &Init,
    terminal: Option<&Foreground>,
    init_reader: &std::io::PipeReader,
) -> std::io::Result<Command> {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe()?;
    let mut command = Command::new(exe);
    command.args(&init.args);
    command.env(host::INIT_FD_VAR, "3");
    if let Some(d) = &init.paths.user_data {
        command.env("JP_USER_DATA_DIR", d);
    }
    if let Some(d) = &init.paths.user_config {
        command.env("JP_GLOBAL_CONFIG_DIR", d);
    }
    match terminal {
        Some(t) => {
            command
                .stdin(t.tty().try_clone()?)
                .stdout(t.tty().try_clone()?)
                .env(host::JOB_VAR, t.host().to_var());
        }
        None => {
            command.stdin(Stdio::null()).stdout(Stdio::piped());
        }
    }
    command.stderr(Stdio::piped());
    let fd = init_reader.as_raw_fd();
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(move || {
            // It never outlives the bridge, even one killed outright.
            crate::platform::die_with_parent_before_exec()?;
            if libc::getppid() == 1 {
                return Err(std::io::Error::other("the bridge is gone"));
            }
            libc::signal(libc::SIGTTOU, libc::SIG_DFL);
            if fd == 3 {
                libc::fcntl(3, libc::F_SETFD, 0);
            } else if libc::dup2(fd, 3) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok(command)
}

/// Reads jp's messages: `shutdown`, or the end of our stdin (jp gone),
/// stops the command.
fn listen_to_jp(input: BufReader<std::io::Stdin>, events: mpsc::Sender<Event>) {
    std::thread::spawn(move || {
        for line in input.lines() {
            let Ok(line) = line else {
                break;
            };
            if protocol::parse(&line) == Some(FromHost::Shutdown) {
                let _ = events.send(Event::Stop("jp asked it to shut down"));
            }
        }
        let _ = events.send(Event::Stop("jp went away"));
    });
}

/// SIGTERM, SIGHUP and SIGINT to the bridge stop the command too.
fn listen_for_signals(events: mpsc::Sender<Event>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT]) else {
        return;
    };
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            let _ = events.send(Event::Stop("a signal came"));
        }
    });
}

/// Relays the command's output as `print` messages; a failed message
/// (jp closed our stdout) stops the command. The receiver hears when the
/// output has ended.
fn relay_output(
    mut stdout: impl Read + Send + 'static,
    json: bool,
    out: ToJp,
    events: mpsc::Sender<Event>,
) -> mpsc::Receiver<()> {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let mut splitter = Splitter::new(json);
        let mut buf = vec![0u8; 1 << 16];
        // A long document's `print`, open: the output is held for it, so
        // no other message lands inside its line.
        let mut held: Option<std::sync::MutexGuard<'_, std::io::Stdout>> = None;
        let mut open = true;
        while open {
            let n = match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            for o in splitter.feed(&buf[..n]) {
                if !relay(&out, &mut held, o) {
                    let _ = events.send(Event::Stop("jp closed its end of the output"));
                    open = false;
                    break;
                }
            }
        }
        if open {
            for o in splitter.end() {
                relay(&out, &mut held, o);
            }
        }
        drop(held);
        let _ = done.send(());
    });
    finished
}

/// One step of relaying: a whole piece as one `print`, or a long
/// document's `print` opened, continued or closed. Whether jp took it.
fn relay<'a>(
    out: &'a ToJp,
    held: &mut Option<std::sync::MutexGuard<'a, std::io::Stdout>>,
    o: Out,
) -> bool {
    match o {
        Out::Whole(piece) => tell(out, &ToHost::print(piece.text, piece.json)),
        Out::Open => {
            let mut guard = out.lock().unwrap_or_else(|p| p.into_inner());
            let ok = protocol::print_open(&mut *guard, true).is_ok();
            *held = Some(guard);
            ok
        }
        Out::More(text) => held
            .as_mut()
            .is_some_and(|g| protocol::print_more(&mut **g, &text).is_ok()),
        Out::Close => held
            .take()
            .is_some_and(|mut g| protocol::print_close(&mut *g).is_ok()),
    }
}

/// What a command said on stderr that is its error: from its first line
/// that starts an error (`jp-inspect: …`, clap's `error: …`) to the end.
#[derive(Debug, Default)]
struct Reason {
    text: String,
}

impl Reason {
    fn started(&self) -> bool {
        !self.text.is_empty()
    }

    fn add(&mut self, line: &str) {
        if self.text.len() < REASON_LIMIT {
            self.text.push_str(line);
            self.text.push('\n');
        }
    }

    fn take(&mut self) -> Option<String> {
        let text = std::mem::take(&mut self.text);
        let text = text.trim_end();
        let text = text.strip_prefix("jp-inspect: ").unwrap_or(text);
        (!text.is_empty()).then(|| text.to_string())
    }
}

/// Relays the command's stderr: its error is kept for `exit`, every other
/// line is a warning. jp shows a plugin's `log` only with `-v`, so with
/// text output a warning is printed too, on the error channel (never
/// with `--json`, whose output stays one document).
fn relay_errors(
    stderr: impl Read + Send + 'static,
    json: bool,
    out: ToJp,
    reason: Arc<Mutex<Reason>>,
) -> mpsc::Receiver<()> {
    let (done, finished) = mpsc::channel();
    // The messages go out from a thread of their own: the reader never
    // waits on the output while a long document holds it, so a command
    // that fills its stderr meanwhile is never stalled.
    let (said, saying) = mpsc::channel::<ToHost>();
    std::thread::spawn(move || {
        for m in saying {
            tell(&out, &m);
        }
        let _ = done.send(());
    });
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stderr);
        let mut line = Vec::new();
        loop {
            line.clear();
            match lines.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\n', '\r']);
            let mut r = reason.lock().unwrap_or_else(|p| p.into_inner());
            if r.started() || text.starts_with("jp-inspect: ") || text.starts_with("error: ") {
                r.add(text);
                continue;
            }
            drop(r);
            let _ = said.send(ToHost::warning(text.to_string()));
            if !json {
                let _ = said.send(ToHost::Print {
                    text: format!("{text}\n"),
                    channel: "error",
                    format: "plain",
                });
            }
        }
    });
    finished
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inspector_is_what_no_command_opens() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(opens_the_inspector(&args(&[])));
        assert!(opens_the_inspector(&args(&["jp-c17000000000"])));
        assert!(opens_the_inspector(&args(&["--demo"])));
        assert!(!opens_the_inspector(&args(&["stats", "x", "--json"])));
        assert!(!opens_the_inspector(&args(&["--help"])));
        assert!(!opens_the_inspector(&args(&["stat", "x"])));
        assert!(wants_json(&args(&["stats", "x", "--json"])));
        assert!(!wants_json(&args(&["show", "--", "--json"])));
    }

    #[test]
    fn an_error_is_what_follows_its_first_line() {
        let mut r = Reason::default();
        assert!(!r.started());
        r.add("jp-inspect: no conversation matches `x`");
        r.add("  jp-c1  a title");
        assert_eq!(
            r.take().as_deref(),
            Some("no conversation matches `x`\n  jp-c1  a title")
        );
        assert_eq!(r.take(), None);
    }
}
