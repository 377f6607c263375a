//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod doc_samples;
pub mod harness;
pub mod jp;
pub mod oracle;
pub mod pty;
pub mod server;

use std::fs;
use std::path::{Path, PathBuf};

/// `../shared` next to the repository, when it exists. Tests that read it
/// are extra corpus checks and say so when it is absent. The one way any
/// test finds it: `JP_INSPECT_WITHOUT_SHARED=1` hides it, so a run can be
/// what a fresh clone's is (`.ci/run` runs the suite both ways).
pub fn shared() -> Option<PathBuf> {
    if std::env::var_os("JP_INSPECT_WITHOUT_SHARED").is_some_and(|v| !v.is_empty()) {
        return None;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    dir.is_dir().then_some(dir)
}

/// The real JP conversations of `../shared/fixtures/jp-conversations`.
pub fn fixture_conversations() -> Vec<PathBuf> {
    let Some(shared) = shared() else {
        eprintln!("../shared is absent: skipping the real-conversation corpus check");
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = fs::read_dir(shared.join("fixtures/jp-conversations"))
        .map(|r| {
            r.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

pub fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// Copies a directory tree (files made writable), returning the copy.
pub fn copy_dir(from: &Path, to: &Path) -> PathBuf {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
            let mut perms = fs::metadata(&target).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            fs::set_permissions(&target, perms).unwrap();
        }
    }
    to.to_path_buf()
}

/// A workspace in a temp dir holding a copy of `conv` under
/// `.jp/conversations/`; returns (tempdir, copied conversation dir).
pub fn workspace_with(conv: &Path) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let name = conv.file_name().unwrap();
    let dir = copy_dir(conv, &tmp.path().join(".jp/conversations").join(name));
    (tmp, dir)
}

/// The JSON a successful command printed; fails with its stderr otherwise.
pub fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `jp`'s lock, taken the way `jp` takes it (open, flock exclusive and
/// non-blocking, diagnostic JSON); the caller releases it the way jp does
/// (close, then delete the file).
pub fn jp_lock(path: &Path) -> fs::File {
    use std::io::Write;
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    loop {
        let f = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .unwrap();
        if f.try_lock().is_ok() {
            let mut f = f;
            let _ = f.set_len(0);
            let _ = write!(
                f,
                "{{\"pid\":{},\"session\":\"fake-jp\",\"acquired_at\":\"now\"}}",
                std::process::id()
            );
            return f;
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}

/// A copy of the bundled demo conversation in a workspace under `tmp`.
pub fn demo_copy(tmp: &Path) -> PathBuf {
    copy_dir(
        &demo(),
        &tmp.join(".jp/conversations")
            .join(jp_inspect::demo::DIR_NAME),
    )
}

/// The binary, for a test that sets its own environment, input or
/// process handling.
pub fn binary() -> std::process::Command {
    std::process::Command::new(bin_path())
}

/// The binary's path, for a test that runs it under another program.
/// Cargo names it to the integration tests; the crate's own unit tests
/// find it where cargo built it, beside their `deps/`.
pub fn bin_path() -> &'static str {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| match option_env!("CARGO_BIN_EXE_jp-inspect") {
        Some(p) => p.to_string(),
        None => {
            let exe = std::env::current_exe().expect("the test's own path");
            let target = exe
                .parent()
                .and_then(Path::parent)
                .expect("target/<profile>");
            target.join("jp-inspect").display().to_string()
        }
    })
}

/// The binary in `cwd` with nothing of the machine's: no jp user data or
/// global config, no user config (`XDG_CONFIG_HOME` inside `cwd`), no data
/// or cache of jp-inspect's, no input.
pub fn isolated(args: &[&str], cwd: &Path) -> std::process::Command {
    let mut c = binary();
    c.args(args)
        .current_dir(cwd)
        .env("JP_USER_DATA_DIR", cwd.join(".no-user-data"))
        .env("JP_INSPECT_DATA_DIR", cwd.join(".no-data"))
        .env("JP_INSPECT_CACHE_DIR", "off")
        .env_remove("JP_GLOBAL_CONFIG_DIR")
        .env_remove("JP_GLOBAL_CONFIG_FILE")
        .env("XDG_CONFIG_HOME", cwd.join(".no-user-config"))
        .stdin(std::process::Stdio::null());
    c
}

/// Runs the binary in `cwd` with no user data of the machine's.
pub fn jp_inspect(args: &[&str], cwd: &Path) -> std::process::Output {
    binary()
        .args(args)
        .current_dir(cwd)
        .env("JP_USER_DATA_DIR", cwd.join(".no-user-data"))
        .output()
        .unwrap()
}

pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The bundled demo conversation.
pub fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/demo")
        .join(jp_inspect::demo::DIR_NAME)
}

/// Every fixture conversation (when `../shared` is there) and the demo.
pub fn corpus() -> Vec<PathBuf> {
    let mut dirs = fixture_conversations();
    dirs.push(demo());
    dirs
}

/// A workspace holding copies of the demo and of every fixture.
pub fn workspace() -> (tempfile::TempDir, Vec<PathBuf>) {
    let tmp = tempfile::tempdir().unwrap();
    let mut dirs = vec![demo()];
    dirs.extend(fixture_conversations());
    let copies = dirs
        .iter()
        .map(|d| {
            copy_dir(
                d,
                &tmp.path()
                    .join(".jp/conversations")
                    .join(d.file_name().unwrap()),
            )
        })
        .collect();
    (tmp, copies)
}

/// Runs the binary with no user data of the machine's, wherever it is.
pub fn run_anywhere(args: &[&str]) -> std::process::Output {
    binary()
        .args(args)
        .env("JP_USER_DATA_DIR", "/nonexistent-jp-user-data")
        .output()
        .unwrap()
}

/// Rewrites the `events.json` of the conversation in `dir` through `f`,
/// pretty-printed as jp writes it.
pub fn edit_events(dir: &Path, f: impl FnOnce(&mut Vec<serde_json::Value>)) {
    let path = dir.join("events.json");
    let mut events: Vec<serde_json::Value> =
        serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    f(&mut events);
    fs::write(&path, serde_json::to_string_pretty(&events).unwrap()).unwrap();
}

/// The `(from_turn, to_turn)` of every compaction event of `events`, in
/// stream order.
pub fn compaction_ranges(events: &[serde_json::Value]) -> Vec<(u64, u64)> {
    events
        .iter()
        .filter(|e| e["type"] == "compaction")
        .map(|e| {
            (
                e["from_turn"].as_u64().unwrap(),
                e["to_turn"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The binary run in `dir` with `args`, jp's user data kept inside it.
pub fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    binary()
        .args(args)
        .current_dir(dir)
        .env("JP_USER_DATA_DIR", dir.join("no-user-data"))
        .output()
        .unwrap()
}

/// What jp does at the end of a query: the new events.json renamed into
/// place while `flock` holds `.jp/locks/jp-c<ID>.lock`.
pub fn jp_appends_a_turn(dir: &std::path::Path, request: &str) {
    let mut events: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("events.json")).unwrap()).unwrap();
    events.push(serde_json::json!({"timestamp": "2026-11-13 09:00:00.0", "type": "turn_start"}));
    events.push(
        serde_json::json!({"timestamp": "2026-11-13 09:00:01.0", "type": "chat_request",
        "content": request}),
    );
    jp_writes(dir, &events);
}

/// `events` written as jp does: renamed into place while `flock` holds
/// `.jp/locks/jp-c<ID>.lock`.
pub fn jp_writes(dir: &std::path::Path, events: &[serde_json::Value]) {
    let lock = jp_inspect::core::ops::jp_files::lock_path(dir).unwrap();
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(
        dir.join("next.json"),
        serde_json::to_string_pretty(&events).unwrap() + "\n",
    )
    .unwrap();
    let status = std::process::Command::new("flock")
        .arg(&lock)
        .arg("-c")
        .arg(format!("mv {0}/next.json {0}/events.json", dir.display()))
        .status()
        .unwrap();
    assert!(status.success());
}

/// Adds to the conversation at `conv` (a demo copy) a noisy tool: six calls
/// of `git_status` at the end of its third turn, each a short question and
/// a short answer no message quotes. It is the shape `tools` suggests
/// `omit` for, and a replay with that hint saves tokens: what a test of
/// writing a hint needs, the demo's own tools having no hint that saves.
pub fn add_noisy_tool(conv: &Path) {
    use base64::Engine as _;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    edit_events(conv, |events| {
        let starts: Vec<usize> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| e["type"] == "turn_start")
            .map(|(i, _)| i)
            .collect();
        let at = starts[3];
        let stamp = events[at - 1]["timestamp"].clone();
        let mut noise = Vec::new();
        for k in 0..6 {
            let id = format!("toolu_noise{k}");
            noise.push(serde_json::json!({
                "timestamp": stamp, "type": "tool_call_request", "id": id,
                "name": "git_status", "arguments": {}
            }));
            noise.push(serde_json::json!({
                "timestamp": stamp, "type": "tool_call_response", "id": id,
                "content": b64("On branch main, nothing to commit, working tree clean"),
                "is_error": false
            }));
        }
        events.splice(at..at, noise);
    });
}
