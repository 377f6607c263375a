//! The terminal comes back every way the inspector can end: `q`, Ctrl-C,
//! SIGTERM, SIGHUP, and a panic. Each run is a real process in a real
//! pseudo-terminal (script(1)); the terminal settings (`stty -g`) before and
//! after must match, and the alternate screen must be left.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

struct Session {
    output: Vec<u8>,
}

impl Session {
    fn has(&self, needle: &[u8]) -> bool {
        self.output.windows(needle.len()).any(|w| w == needle)
    }

    fn last(&self, needle: &[u8]) -> Option<usize> {
        self.output.windows(needle.len()).rposition(|w| w == needle)
    }

    fn first(&self, needle: &[u8]) -> Option<usize> {
        self.output.windows(needle.len()).position(|w| w == needle)
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.output).into_owned()
    }

    /// The text without escape sequences and spaces (a redraw moves the
    /// cursor over blank cells instead of writing them).
    fn plain(&self) -> String {
        let text = self.text();
        let mut out = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\x1b' && chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            } else if c != ' ' {
                out.push(c);
            }
        }
        out
    }

    /// The two `stty -g` lines (before and after) are the same.
    fn settings_restored(&self) -> bool {
        let text = self.text();
        let lines: Vec<&str> = text
            .split(['\r', '\n'])
            .filter(|l| l.starts_with("STTY "))
            .collect();
        lines.len() == 2 && lines[0] == lines[1]
    }

    fn left_alternate_screen(&self) -> bool {
        match (self.last(b"\x1b[?1049h"), self.last(b"\x1b[?1049l")) {
            (Some(enter), Some(leave)) => leave > enter,
            _ => false,
        }
    }
}

/// What a test does once the program has written what it waits for.
enum Then<'a> {
    /// Types these bytes.
    Send(&'a [u8]),
    /// Lets the shell go on past its `go N`.
    Go(u32),
}

/// How long a step waits for what must come before the test says what
/// never came: a liveness bound for a busy machine, never a time judged.
const PATIENCE: Duration = Duration::from_secs(120);

/// Runs `inner` (shell) inside a pty (script(1)) with the terminal's
/// settings printed around it. Each step waits until the output holds its
/// text (after the previous step's), then acts: no step waits on a clock.
/// In `inner`, `go N` waits for the test's `Then::Go(N)`.
fn in_pty(inner: &str, steps: &[(&str, Then)], env: &[(&str, &str)]) -> Session {
    use std::io::Read;
    use std::sync::{Arc, Mutex};
    use wait_timeout::ChildExt;
    let bin = common::bin_path();
    let gate = tempfile::tempdir().unwrap();
    let go = gate.path().join("go");
    let script = format!(
        "stty cols 100 rows 30; echo STTY $(stty -g); BIN={bin}; GO={}; \
         go() {{ until [ -e \"$GO.$1\" ]; do sleep 0.05; done; }}; \
         {inner}; echo RC=$rc; echo STTY $(stty -g)",
        go.display()
    );
    let mut cmd = Command::new("script");
    cmd.args(["-q", "-e", "-c", &script, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("TERM", "xterm-256color")
        .env("JP_USER_DATA_DIR", "/nonexistent-jp-user-data");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("script(1) from util-linux");
    let mut stdin = child.stdin.take().unwrap();
    let output = Arc::new(Mutex::new(Vec::new()));
    let reader = {
        let (output, mut stdout) = (output.clone(), child.stdout.take().unwrap());
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                output.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        })
    };
    let mut from = 0;
    for (text, then) in steps {
        let start = std::time::Instant::now();
        loop {
            let out = output.lock().unwrap();
            if let Some(at) = out[from..]
                .windows(text.len())
                .position(|w| w == text.as_bytes())
            {
                from += at + text.len();
                break;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "never wrote {text:?}: {}",
                String::from_utf8_lossy(&out)
            );
            drop(out);
            std::thread::sleep(Duration::from_millis(20));
        }
        match then {
            Then::Send(bytes) => {
                stdin.write_all(bytes).unwrap();
                stdin.flush().unwrap();
            }
            Then::Go(n) => std::fs::write(format!("{}.{n}", go.display()), "").unwrap(),
        }
    }
    let status = child.wait_timeout(PATIENCE).unwrap();
    if status.is_none() {
        let _ = child.kill();
        panic!(
            "never ended: {}",
            String::from_utf8_lossy(&output.lock().unwrap())
        );
    }
    drop(stdin);
    reader.join().unwrap();
    let mut err = Vec::new();
    let _ = child.stderr.take().unwrap().read_to_end(&mut err);
    let mut output = std::mem::take(&mut *output.lock().unwrap());
    output.extend(err);
    Session { output }
}

fn rc(s: &Session) -> Option<i32> {
    let text = s.text();
    let at = text.rfind("RC=")?;
    text[at + 3..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[test]
fn q_quits_and_restores() {
    let s = in_pty(
        "$BIN --demo; rc=$?",
        &[("projected view", Then::Send(b"q"))],
        &[],
    );
    assert!(s.has(b"csvq: first release"), "{}", s.text());
    assert_eq!(rc(&s), Some(0), "{}", s.text());
    assert!(s.left_alternate_screen());
    assert!(s.settings_restored(), "{}", s.text());
}

#[test]
fn ctrl_c_quits_and_restores() {
    let s = in_pty(
        "$BIN --demo; rc=$?",
        &[("projected view", Then::Send(b"\x03"))],
        &[],
    );
    assert_eq!(rc(&s), Some(0), "{}", s.text());
    assert!(s.left_alternate_screen());
    assert!(s.settings_restored(), "{}", s.text());
}

#[test]
fn sigterm_and_sighup_restore() {
    for sig in ["TERM", "HUP"] {
        let s = in_pty(
            &format!("$BIN --demo & pid=$!; go 1; kill -{sig} $pid; wait $pid; rc=$?"),
            &[("projected view", Then::Go(1))],
            &[],
        );
        assert_eq!(rc(&s), Some(0), "SIG{sig}: {}", s.text());
        assert!(s.left_alternate_screen(), "SIG{sig}");
        assert!(s.settings_restored(), "SIG{sig}: {}", s.text());
    }
}

#[test]
fn a_panic_restores_the_terminal_before_the_message() {
    let s = in_pty(
        "$BIN --demo; rc=$?",
        &[],
        &[("JP_INSPECT_PANIC_AFTER_DRAW", "1")],
    );
    assert_eq!(rc(&s), Some(101), "{}", s.text());
    assert!(s.left_alternate_screen());
    let leave = s.first(b"\x1b[?1049l").unwrap();
    let message = s
        .last(b"JP_INSPECT_PANIC_AFTER_DRAW is set")
        .expect("the panic message");
    assert!(
        message > leave,
        "the message comes after the terminal is restored"
    );
    assert!(s.settings_restored(), "{}", s.text());
}

/// A panic on a thread of the inspector's own (the marks, a job) ends it
/// as one on the main thread does: the terminal given back, then the
/// message, exit 101; not a main loop drawing on into a restored screen.
#[test]
fn a_panic_off_the_main_thread_ends_the_inspector_the_same_way() {
    let s = in_pty(
        "$BIN --demo; rc=$?",
        &[],
        &[("JP_INSPECT_PANIC_AFTER_DRAW", "thread")],
    );
    assert_eq!(rc(&s), Some(101), "{}", s.text());
    assert!(s.left_alternate_screen());
    let leave = s.first(b"\x1b[?1049l").unwrap();
    let message = s
        .last(b"JP_INSPECT_PANIC_AFTER_DRAW is set")
        .expect("the panic message");
    assert!(message > leave, "{}", s.text());
    assert!(s.has(b"jp-inspect stopped"), "{}", s.text());
    assert!(s.settings_restored(), "{}", s.text());
}

#[test]
fn an_error_before_the_screen_opens_leaves_the_terminal_alone() {
    let s = in_pty("$BIN /no/such/conversation; rc=$?", &[], &[]);
    assert_eq!(rc(&s), Some(1));
    assert!(!s.has(b"\x1b[?1049h"));
    assert!(s.has(b"no such"), "{}", s.text());
    assert!(s.settings_restored());
}

#[test]
fn a_resize_redraws_at_the_new_size() {
    let s = in_pty(
        "$BIN --demo & pid=$!; go 1; stty cols 130 rows 41; kill -WINCH $pid; go 2; \
         kill -TERM $pid; wait $pid; rc=$?",
        // The footer drawn on the new last row is the redraw at the size.
        &[("projected view", Then::Go(1)), ("\x1b[41;1H", Then::Go(2))],
        &[],
    );
    assert_eq!(rc(&s), Some(0), "{}", s.text());
    // The footer is drawn on the new last row.
    assert!(s.has(b"\x1b[41;1H"), "no frame at 41 rows: {}", s.text());
}

#[test]
fn a_vanished_terminal_ends_the_program() {
    // The pty's owner is killed outright: the program must notice the
    // hang-up and exit rather than spin.
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let bin = common::bin_path();
    let script = format!(
        "stty cols 100 rows 30; {bin} --demo & echo $! > {}; wait",
        pidfile.display()
    );
    let mut child = Command::new("script")
        .args(["-q", "-e", "-c", &script, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .env("TERM", "xterm-256color")
        .spawn()
        .unwrap();
    // Its pid, once the shell has started it.
    let start = std::time::Instant::now();
    let pid: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            break pid;
        }
        assert!(start.elapsed() < PATIENCE, "the program never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let start = std::time::Instant::now();
    while let Some(state) = jp_inspect::platform::process_state(pid) {
        if state == 'Z' {
            break;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "jp-inspect (pid {pid}) kept running after its terminal went away"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A user config file in a fresh directory, named by `JP_INSPECT_CONFIG`.
fn user_config(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).unwrap();
    let path = path.display().to_string();
    (dir, path)
}

#[test]
fn a_mistake_in_the_users_config_is_named_before_the_screen_opens() {
    let (_dir, path) = user_config(
        "theme = \"dark\"\n[[key]]\nscope = \"main\"\nkeys = [\"j\"]\naction = \"dwon\"\n",
    );
    let s = in_pty("$BIN --demo; rc=$?", &[], &[("JP_INSPECT_CONFIG", &path)]);
    assert_eq!(rc(&s), Some(1), "{}", s.text());
    assert!(!s.has(b"\x1b[?1049h"));
    assert!(s.has(format!("{path}:5:").as_bytes()), "{}", s.text());
    assert!(s.has(b"dwon"), "{}", s.text());
    // Found through XDG_CONFIG_HOME the same way.
    let xdg = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(xdg.path().join("jp-inspect")).unwrap();
    std::fs::write(
        xdg.path().join("jp-inspect/config.toml"),
        "[colors]\nuser = \"reddish\"\n",
    )
    .unwrap();
    let s = in_pty(
        "$BIN --demo; rc=$?",
        &[],
        &[("XDG_CONFIG_HOME", &xdg.path().display().to_string())],
    );
    assert_eq!(rc(&s), Some(1), "{}", s.text());
    assert!(s.has(b"jp-inspect/config.toml:2:"), "{}", s.text());
}

#[test]
fn the_users_keys_replace_the_bundled_ones() {
    let (_dir, path) =
        user_config("[[key]]\nscope = \"global\"\nkeys = [\"x\"]\naction = \"quit\"\n");
    let env = [("JP_INSPECT_CONFIG", path.as_str())];
    let s = in_pty(
        "$BIN --demo; rc=$?",
        &[("projected view", Then::Send(b"x"))],
        &env,
    );
    assert_eq!(rc(&s), Some(0), "x quits: {}", s.text());
    // `q` no longer quits: the help that `?` opens after it is drawn.
    let s = in_pty(
        "$BIN --demo; rc=$?",
        &[
            ("projected view", Then::Send(b"q?")),
            ("The panes", Then::Send(b"xx")),
        ],
        &env,
    );
    assert_eq!(rc(&s), Some(0), "{}", s.text());
}

#[test]
fn the_light_theme_draws_its_colours_and_no_color_still_wins() {
    let (_dir, path) = user_config("theme = \"light\"\n[colors]\nmanual = \"#123456\"\n");
    let s = in_pty(
        "$BIN --demo; rc=$?",
        &[("projected view", Then::Send(b"q"))],
        &[("JP_INSPECT_CONFIG", &path)],
    );
    assert_eq!(rc(&s), Some(0), "{}", s.text());
    // The light header background and the user's colour for manual bands.
    assert!(s.has(b"48;2;232;234;240"), "{}", s.text());
    assert!(s.has(b"38;2;18;52;86"), "{}", s.text());
    let s = in_pty(
        "$BIN --demo; rc=$?",
        &[("projected view", Then::Send(b"q"))],
        &[("JP_INSPECT_CONFIG", &path), ("NO_COLOR", "1")],
    );
    assert_eq!(rc(&s), Some(0), "{}", s.text());
    assert!(!s.has(b"38;2;18;52;86") && !s.has(b"48;2;232;234;240"));
}

/// A tmux session running the inspector on the demo, for what only a real
/// terminal emulator does (pane resizes). `None` (said) without tmux.
/// Its one test reads CPU ticks from /proc, so Linux only.
#[cfg(target_os = "linux")]
struct Tmux {
    name: String,
}

#[cfg(target_os = "linux")]
impl Tmux {
    fn start(cols: u16, rows: u16) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            eprintln!("tmux is absent: skipping the pane-resize check");
            return None;
        }
        let name = format!("jp-inspect-test-{}", std::process::id());
        let bin = common::bin_path();
        let ok = Command::new("tmux")
            .args([
                "new-session",
                "-d",
                "-s",
                &name,
                "-x",
                &cols.to_string(),
                "-y",
                &rows.to_string(),
            ])
            .arg(format!(
                "env JP_USER_DATA_DIR=/nonexistent-jp-user-data {bin} --demo"
            ))
            .status()
            .unwrap()
            .success();
        assert!(ok, "tmux new-session");
        let t = Tmux { name };
        assert!(t.wait_for("turn 1/32"), "{}", t.screen());
        // The demo's notice fades first: on a narrow pane it takes the
        // line the position is read from.
        let start = std::time::Instant::now();
        while t.screen().contains("demo copy") {
            assert!(start.elapsed() < PATIENCE, "{}", t.screen());
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(t)
    }

    fn tmux(&self, args: &[&str]) {
        let mut full = args.to_vec();
        full.insert(1, "-t");
        full.insert(2, &self.name);
        assert!(Command::new("tmux").args(&full).status().unwrap().success());
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &format!("{}:0.0", self.name)])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn wait_for(&self, needle: &str) -> bool {
        let start = std::time::Instant::now();
        while start.elapsed() < PATIENCE {
            if self.screen().contains(needle) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    /// User and system CPU time of the inspector so far, in clock ticks.
    /// The CPU time the inspector has used, in clock ticks (Linux's
    /// accounting; the test that reads it runs there).
    #[cfg(target_os = "linux")]
    fn cpu_ticks(&self) -> u64 {
        let out = Command::new("tmux")
            .args([
                "list-panes",
                "-t",
                &format!("{}:0", self.name),
                "-F",
                "#{pane_pid}",
            ])
            .output()
            .unwrap();
        // The first pane is the inspector's (a split adds others).
        let pid = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap()
            .split_whitespace()
            .collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    }
}

#[cfg(target_os = "linux")]
impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .status();
    }
}

/// After a resize (a pane split, a zoom, the window resized) the very
/// next key is handled at once, and nothing spins while waiting for it.
#[cfg(target_os = "linux")]
#[test]
fn a_key_right_after_a_resize_is_handled_and_nothing_spins() {
    let Some(t) = Tmux::start(120, 40) else {
        return;
    };
    let resizes: [&[&str]; 3] = [
        &["resize-window", "-x", "100", "-y", "30"],
        &["split-window", "-h", "sleep 60"],
        &["resize-pane", "-Z"],
    ];
    for (k, resize) in resizes.iter().enumerate() {
        t.tmux(resize);
        std::thread::sleep(Duration::from_millis(300));
        let before = t.cpu_ticks();
        std::thread::sleep(Duration::from_millis(1000));
        let idle = t.cpu_ticks() - before;
        assert!(
            idle < 30,
            "{idle} ticks of CPU in a second of waiting after {resize:?}"
        );
        let target = if k == 0 {
            t.name.clone()
        } else {
            format!("{}.0", t.name)
        };
        assert!(
            Command::new("tmux")
                .args(["send-keys", "-t", &target, "j"])
                .status()
                .unwrap()
                .success()
        );
        assert!(
            t.wait_for(&format!("event {} of 286", k + 1)),
            "the key after {resize:?} was not handled: {}",
            t.screen()
        );
    }
}

/// `o` and `e` hand the screen to a real pager and editor and take it back:
/// the pager (here one that saves what it is given) gets the selected
/// event's text, the editor a read-only copy no other user can read (this
/// one succeeds only on a file of mode 400 in a folder of mode 700), and
/// the terminal is the inspector's again after
/// each, then restored at the end.
#[test]
fn the_pager_and_the_editor_get_the_text_and_the_screen_comes_back() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("paged.txt");
    let pager = format!("cat > {} <", out.display());
    // Each key once the screen is the inspector's (again): the pager and
    // the editor each give it back by entering the alternate screen anew.
    let s = in_pty(
        "$BIN --demo; rc=$?",
        &[
            ("projected view", Then::Send(b"jo")),
            ("\x1b[?1049h", Then::Send(b"e")),
            ("\x1b[?1049h", Then::Send(b"q")),
        ],
        &[
            ("PAGER", pager.as_str()),
            (
                "EDITOR",
                r#"sh -c 'test "$(stat -c %a "$0")" = 400 && test "$(stat -c %a "$(dirname "$0")")" = 700'"#,
            ),
            ("VISUAL", ""),
        ],
    );
    assert_eq!(rc(&s), Some(0), "{}", s.text());
    let paged = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("the pager did not run ({e}): {}", s.text()));
    assert!(paged.contains("turn_start"), "the selected event: {paged}");
    // Drawn cell by cell: the words are there with the spaces skipped.
    assert!(
        s.plain().contains("closedtheread-onlycopy"),
        "the editor was handed a read-only copy: {}",
        s.text()
    );
    // Left for each program and entered again after it.
    let enters = s.output.windows(8).filter(|w| w == b"\x1b[?1049h").count();
    assert!(enters >= 3, "entered {enters} times");
    assert!(s.left_alternate_screen());
    assert!(s.settings_restored(), "{}", s.text());
}
