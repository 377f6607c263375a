//! Files a cloned workspace plants, and what they can't do: the user's
//! own command summarizer never runs inside it, a conversation linked in
//! from elsewhere is locked where it lives, metadata that is a device or a
//! FIFO is neither read nor waited on, a config tree at its bounds stops
//! and says why, hostile names make valid charts, a linked record folder
//! is left alone, and an inspector that loses its terminal ends. Each test
//! runs the real binary on real files.

use crate::common;

use common::{demo_copy, stderr};
use serde_json::Value;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const ID: &str = "jp-c17944860430";

/// The binary in `cwd`, with the user's own jp config in `xdg` (or none)
/// and no jp user data.
fn command(args: &[&str], cwd: &Path, xdg: Option<&Path>) -> Command {
    let mut c = common::isolated(args, cwd);
    if let Some(x) = xdg {
        c.env("XDG_CONFIG_HOME", x);
    }
    c
}

/// Runs `c`, killing it (and failing) past `limit`; its output and peak
/// memory (KiB, from wait4).
// The child is reaped with wait4, for its peak memory.
#[allow(clippy::zombie_processes)]
fn measured(mut c: Command, limit: Duration) -> (Output, i64, Duration) {
    let child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let start = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout;
    let stderr = child.stderr;
    let reader = std::thread::spawn(move || {
        use std::io::Read;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let t = std::thread::spawn(move || {
            if let Some(mut e) = stderr {
                let _ = e.read_to_end(&mut b);
            }
            b
        });
        if let Some(mut o) = stdout {
            let _ = o.read_to_end(&mut a);
        }
        (a, t.join().unwrap())
    });
    std::thread::spawn(move || {
        let mut status = 0;
        // SAFETY: an empty rusage filled in by wait4 for our own child.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: waiting for the child we spawned.
        unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        let _ = tx.send((status, usage.ru_maxrss));
    });
    let (status, rss) = match rx.recv_timeout(limit) {
        Ok(r) => r,
        Err(_) => {
            // SAFETY: killing our own child, still running.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("still running after {limit:?}");
        }
    };
    let took = start.elapsed();
    let (stdout, stderr) = reader.join().unwrap();
    use std::os::unix::process::ExitStatusExt;
    let out = Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout,
        stderr,
    };
    (out, rss, took)
}

fn events(conv: &Path) -> Vec<u8> {
    fs::read(conv.join("events.json")).unwrap()
}

#[test]
fn the_users_command_summarizer_never_runs_in_the_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("clone");
    demo_copy(&ws);
    let xdg = tmp.path().join("xdg");
    let marker = tmp.path().join("the workspace's module ran");
    // The user's own command, which imports a module by name...
    fs::create_dir_all(xdg.join("jp")).unwrap();
    fs::write(
        xdg.join("jp/config.toml"),
        "[plugins.command.inspect.options.auto.summarizer]\nkind = \"command\"\n\
         command = \"python3 -m base64 | head -c 200\"\n",
    )
    .unwrap();
    // ...and a workspace that chooses it and ships a module of that name.
    fs::write(
        ws.join("base64.py"),
        format!(
            "open({:?}, 'w').write('pwned')\n",
            marker.display().to_string()
        ),
    )
    .unwrap();
    fs::write(
        ws.join(".jp/config.toml"),
        "[plugins.command.inspect.options.auto]\nenabled = true\nmode = \"single\"\n\
         trigger_ratio = 0.05\nmin_turns = 1\n\
         [plugins.command.inspect.options.auto.rule]\nsummary = {}\n\
         [plugins.command.inspect.options.auto.summarizer]\nkind = \"command\"\n",
    )
    .unwrap();
    let conv = ws
        .join(".jp/conversations")
        .join(jp_inspect::demo::DIR_NAME);
    let before = events(&conv);
    let out = command(&["watch", "--once", "--window", "200k"], &ws, Some(&xdg))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!marker.exists(), "the workspace's base64.py ran");
    assert_ne!(
        events(&conv),
        before,
        "the summary was written: {}",
        stderr(&out)
    );
    let text = String::from_utf8_lossy(&events(&conv)).into_owned();
    assert!(!text.contains("pwned"));

    // A directory the user names is where it runs.
    let here = tmp.path().join("summaries run here");
    fs::create_dir_all(&here).unwrap();
    fs::write(
        xdg.join("jp/config.toml"),
        format!(
            "[plugins.command.inspect.options.auto.summarizer]\nkind = \"command\"\n\
             command = \"pwd\"\ndirectory = {:?}\n",
            here.display().to_string()
        ),
    )
    .unwrap();
    let out = command(
        &[
            "compact",
            ID,
            "s:..-3",
            "--dry-run",
            "--summarize",
            "--json",
        ],
        &ws,
        Some(&xdg),
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&here.display().to_string()),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The victim's workspace with the demo, and the path of its conversation.
fn victim(tmp: &Path) -> PathBuf {
    demo_copy(&tmp.join("home/proj"))
}

#[test]
fn a_conversation_linked_from_another_workspace_is_locked_where_it_lives() {
    let tmp = tempfile::tempdir().unwrap();
    let real = victim(tmp.path());
    let evil = tmp.path().join("evil");
    fs::create_dir_all(evil.join(".jp/conversations")).unwrap();
    let linked = evil.join(".jp/conversations/17944860430-x");
    symlink(
        format!(
            "../../../home/proj/.jp/conversations/{}",
            jp_inspect::demo::DIR_NAME
        ),
        &linked,
    )
    .unwrap();
    // jp holds the real workspace's lock, mid-query.
    let lock = tmp.path().join("home/proj/.jp/locks/jp-c17944860430.lock");
    let held = common::jp_lock(&lock);
    let before = events(&real);
    let auto = ["--window", "32k", "--mode", "single"];
    // By id: not one of this workspace's conversations at all.
    let by_id = command(&[&["auto", ID][..], &auto[..]].concat(), &evil, None)
        .output()
        .unwrap();
    assert!(!by_id.status.success());
    // By its path: locked where it really lives, so refused.
    let by_path = command(
        &[&["auto", linked.to_str().unwrap()][..], &auto[..]].concat(),
        &evil,
        None,
    )
    .output()
    .unwrap();
    assert!(!by_path.status.success(), "written under the wrong lock");
    assert!(stderr(&by_path).contains("lock"), "{}", stderr(&by_path));
    assert_eq!(
        events(&real),
        before,
        "the other workspace's conversation changed"
    );
    drop(held);
    let _ = fs::remove_file(&lock);

    // All of `.jp/conversations` a link: watch compacts nothing there.
    let evil2 = tmp.path().join("evil2");
    fs::create_dir_all(evil2.join(".jp")).unwrap();
    symlink(
        "../../home/proj/.jp/conversations",
        evil2.join(".jp/conversations"),
    )
    .unwrap();
    let out = command(
        &[
            "watch", "--once", "--enable", "--window", "32k", "--mode", "single",
        ],
        &evil2,
        None,
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(events(&real), before, "watch followed the link");
    // The same run in the victim's own workspace would have fired.
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains(ID),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let own = command(
        &[
            "watch",
            "--once",
            "--enable",
            "--window",
            "32k",
            "--mode",
            "single",
            "--dry-run",
        ],
        &tmp.path().join("home/proj"),
        None,
    )
    .output()
    .unwrap();
    assert!(String::from_utf8_lossy(&own.stdout).contains(ID));
}

#[test]
fn metadata_that_is_a_device_is_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = demo_copy(tmp.path());
    fs::remove_file(conv.join("metadata.json")).unwrap();
    symlink("/dev/zero", conv.join("metadata.json")).unwrap();
    let (out, rss, took) = measured(
        command(&["list", "--json"], tmp.path(), None),
        Duration::from_secs(60),
    );
    eprintln!(
        "list beside /dev/zero metadata: {took:?}, {} MB",
        rss / 1024
    );
    assert!(rss < 300 * 1024, "{rss} KiB");
    let v = common::json(&out);
    let row = &v["conversations"][0];
    assert!(
        row["error"]
            .as_str()
            .unwrap_or("")
            .contains("not a regular file"),
        "{row}"
    );
    // The same for the other files, named when read by path.
    for (name, file) in [
        ("base_config.json", "base_config.json"),
        ("events.json", "events.json"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let conv = demo_copy(tmp.path());
        fs::remove_file(conv.join(name)).unwrap();
        symlink("/dev/zero", conv.join(name)).unwrap();
        let (out, rss, _) = measured(
            command(
                &["stats", conv.join(file).to_str().unwrap()],
                tmp.path(),
                None,
            ),
            Duration::from_secs(60),
        );
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(rss < 300 * 1024, "{name}: {rss} KiB");
        let err = stderr(&out);
        assert!(
            err.contains(name) && err.contains("not a regular file"),
            "{err}"
        );
    }
}

#[test]
fn metadata_that_is_a_fifo_blocks_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = demo_copy(tmp.path());
    fs::remove_file(conv.join("metadata.json")).unwrap();
    let fifo = std::ffi::CString::new(conv.join("metadata.json").to_str().unwrap()).unwrap();
    // SAFETY: a path and a mode.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    // A read of a FIFO waits for a writer that never comes: the bound is
    // how long to wait for a process that should not wait at all.
    let patience = Duration::from_secs(120);
    let (out, _, _) = measured(command(&["list", "--json"], tmp.path(), None), patience);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let row = &common::json(&out)["conversations"][0];
    assert!(
        row["error"]
            .as_str()
            .unwrap_or("")
            .contains("metadata.json: not a regular file"),
        "{row}"
    );
    let (out, _, _) = measured(
        command(&["watch", "--once", "--window", "32k"], tmp.path(), None),
        patience,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("metadata.json: not a regular file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_config_tree_at_its_bounds_costs_little_and_says_why_it_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    demo_copy(tmp.path());
    let big = tmp.path().join(".jp/big");
    fs::create_dir_all(&big).unwrap();
    let rule = "[[conversation.compaction.rules]]\nkeep_first = 1\nkeep_last = 2\nreasoning = \"strip\"\n\n";
    let file: String = rule.repeat((1 << 20) / rule.len() - 1);
    assert!(file.len() < 1 << 20);
    for i in 0..64 {
        fs::write(big.join(format!("rules-{i:02}.toml")), &file).unwrap();
    }
    fs::write(
        tmp.path().join(".jp/config.toml"),
        "extends = [\"big/*.toml\"]\n",
    )
    .unwrap();
    let (out, rss, took) = measured(
        command(&["stats", ID, "--json"], tmp.path(), None),
        Duration::from_secs(60),
    );
    eprintln!(
        "stats with 64 x 1 MiB of config: {took:?}, {} MB",
        rss / 1024
    );
    assert!(rss < 400 * 1024, "{rss} KiB");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("MiB together") && err.contains("rules-"),
        "{err}"
    );
}

/// A title and a model name no XML document may hold.
fn with_hostile_names(conv: &Path) {
    let meta = conv.join("metadata.json");
    let mut m: Value = serde_json::from_slice(&fs::read(&meta).unwrap()).unwrap();
    m["title"] = Value::from("csvq\u{fffe} <script>alert(1)</script> \u{1}");
    fs::write(&meta, serde_json::to_vec(&m).unwrap()).unwrap();
    let base = conv.join("base_config.json");
    let mut b: Value = serde_json::from_slice(&fs::read(&base).unwrap()).unwrap();
    b["assistant"]["model"]["id"]["name"] = Value::from("claude\u{1}-opus-4-5\u{ffff}");
    fs::write(&base, serde_json::to_vec(&b).unwrap()).unwrap();
}

#[test]
fn charts_of_hostile_names_are_valid_xml_and_follow_the_umask() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = demo_copy(tmp.path());
    with_hostile_names(&conv);
    for (umask, mode) in [(0o022, 0o644), (0o077, 0o600)] {
        for (cmd, file) in [("history", "h.svg"), ("simulate", "s.svg")] {
            let path = tmp.path().join(format!("{umask:o}-{file}"));
            let mut c = command(
                &[
                    cmd,
                    ID,
                    if cmd == "simulate" {
                        "--windows"
                    } else {
                        "--window"
                    },
                    "64k",
                    "--svg",
                    path.to_str().unwrap(),
                ],
                tmp.path(),
                None,
            );
            // SAFETY: umask is async-signal-safe.
            unsafe {
                use std::os::unix::process::CommandExt;
                c.pre_exec(move || {
                    libc::umask(umask);
                    Ok(())
                });
            }
            let out = c.output().unwrap();
            assert!(out.status.success(), "{cmd}: {}", stderr(&out));
            assert!(stderr(&out).contains(&format!("wrote {}", path.display())));
            let text = fs::read_to_string(&path).unwrap();
            let doc =
                roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{cmd}: not XML: {e}"));
            assert!(
                !doc.descendants().any(|n| n.tag_name().name() == "script"),
                "{cmd}"
            );
            let got = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(got, mode, "{cmd} under umask {umask:o}");
        }
    }
    // An unwritable place is named as given, never by a temporary file.
    let out = command(
        &[
            "history",
            ID,
            "--window",
            "64k",
            "--svg",
            "/nonexistent/dir/chart.svg",
        ],
        tmp.path(),
        None,
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("/nonexistent/dir/chart.svg") && !err.contains(".tmp"),
        "{err}"
    );
}

#[test]
fn a_linked_record_folder_is_neither_read_nor_emptied() {
    let tmp = tempfile::tempdir().unwrap();
    let real = victim(tmp.path());
    // The victim has a record of its automatic compactions.
    let theirs = tmp.path().join("home/proj/.jp/jp-inspect");
    fs::create_dir_all(&theirs).unwrap();
    let record = theirs.join("17944860430.json");
    fs::write(&record, "{\"compactions\": []}\n").unwrap();
    let _ = real;
    // A clone of the same conversation whose record folder links there.
    let evil = tmp.path().join("evil");
    demo_copy(&evil);
    symlink(&theirs, evil.join(".jp/jp-inspect")).unwrap();
    let out = command(&["reset", ID, "--all"], &evil, None)
        .output()
        .unwrap();
    assert!(record.exists(), "reset deleted another workspace's record");
    assert_eq!(
        fs::read_to_string(&record).unwrap(),
        "{\"compactions\": []}\n"
    );
    let said = stderr(&out);
    assert!(said.contains("symbolic link"), "{said}");
    let stats = command(&["stats", ID, "--json"], &evil, None)
        .output()
        .unwrap();
    assert!(
        stderr(&stats).contains("symbolic link"),
        "read through the link: {}",
        stderr(&stats)
    );
}

#[test]
fn an_inspector_that_loses_its_terminal_or_gets_sigterm_ends() {
    // Liveness bounds, generous for a busy machine: what each waits for
    // is named, and none is a time the test measures.
    let patience = Duration::from_secs(120);
    // The terminal hangs up (its window closed): it ends, and never spins.
    let tmp = tempfile::tempdir().unwrap();
    demo_copy(tmp.path());
    let mut c = command(&[ID], tmp.path(), None);
    c.env("TERM", "xterm-256color");
    let mut pty = common::pty::Pty::spawn(c, 100, 30);
    assert!(
        pty.wait_for("projected view", patience).is_some(),
        "the inspector never drew"
    );
    pty.close();
    let status = pty.wait_exit(patience).expect("it outlived its terminal");
    // A panic (exit 101) is no way to end: ratatui's own clean-up printed
    // to the dead terminal and panicked.
    assert_eq!(status.code(), Some(0), "{status:?}: {}", pty.text());

    // SIGTERM: it ends, with the terminal restored.
    let mut c = command(&[ID], tmp.path(), None);
    c.env("TERM", "xterm-256color");
    let mut pty = common::pty::Pty::spawn(c, 100, 30);
    assert!(
        pty.wait_for("projected view", patience).is_some(),
        "the inspector never drew"
    );
    // SAFETY: a signal to our child.
    unsafe { libc::kill(pty.child.id() as i32, libc::SIGTERM) };
    let status = pty.wait_exit(patience).expect("SIGTERM ends it");
    assert_eq!(
        status.code(),
        Some(0),
        "a clean end, not a death by signal: {status:?}"
    );
    assert!(
        pty.text().contains("\x1b[?1049l"),
        "the alternate screen was never left"
    );
}
