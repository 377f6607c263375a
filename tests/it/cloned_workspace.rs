//! A cloned workspace can't hurt you: reads bounded whatever a file says
//! of itself, facts found and judged in time and memory linear in the
//! text, `watch` inside its workspace, completions that stay one shell
//! word, a pass over many conversations that lists them once, a rule that
//! can't be computed said instead of a panic. Each test runs the real
//! binary on real files, its memory and CPU bounded by the process's own
//! limits (`setrlimit` in the child), never by a clock.

use crate::common;

use serde_json::{Value, json};
use std::fs;
use std::os::unix::fs::symlink;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const ID: &str = "jp-c17944860430";

/// The binary in `cwd` with nothing of the machine's, its address space
/// limited to `memory` bytes and its CPU to `cpu_seconds`: past either the
/// kernel ends it, so a read or a search without bound fails the test
/// instead of the machine.
fn limited(args: &[&str], cwd: &Path, memory: u64, cpu_seconds: u64) -> Command {
    let mut c = common::isolated(args, cwd);
    // SAFETY: setrlimit only, between fork and exec.
    unsafe {
        c.pre_exec(move || {
            let set = |what, n: u64| {
                let l = libc::rlimit {
                    rlim_cur: n,
                    rlim_max: n,
                };
                if libc::setrlimit(what, &l) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            };
            set(libc::RLIMIT_AS, memory)?;
            set(libc::RLIMIT_CPU, cpu_seconds)
        });
    }
    c
}

const GIB: u64 = 1 << 30;

fn run(args: &[&str], cwd: &Path) -> Output {
    limited(args, cwd, 2 * GIB, 120).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Whether the kernel ended the process (out of CPU, or of memory where an
/// allocation aborts) rather than the process ending itself.
fn ended_by_signal(out: &Output) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    out.status.signal()
}

// ---- 1: no read past its limit, whatever `stat` says -------------------

/// `events.json`, `metadata.json` and `base_config.json` committed as links
/// to `/proc/self/pagemap` (a regular file whose `stat` size is 0 and which
/// reads for hundreds of gigabytes): every command that reads them refuses
/// the file by name, in a few megabytes.
#[cfg(target_os = "linux")]
#[test]
fn a_kernel_file_is_refused_by_name_not_read() {
    for name in ["events.json", "metadata.json", "base_config.json"] {
        let tmp = tempfile::tempdir().unwrap();
        let conv = common::demo_copy(tmp.path());
        fs::remove_file(conv.join(name)).unwrap();
        symlink("/proc/self/pagemap", conv.join(name)).unwrap();
        for args in [
            vec!["show", ID],
            vec!["stats", ID],
            vec!["watch", "--once", "--dry-run", "--enable"],
        ] {
            let out = run(&args, tmp.path());
            assert_eq!(ended_by_signal(&out), None, "{name} {args:?}: killed");
            assert!(!out.status.success(), "{name} {args:?}: read it");
            let err = stderr(&out);
            assert!(
                err.contains(name) && err.contains("/proc"),
                "{name} {args:?}: {err}"
            );
        }
        let out = run(&["list", "--json"], tmp.path());
        assert_eq!(ended_by_signal(&out), None, "{name} list: killed");
        let v = common::json(&out);
        let row = &v["conversations"][0];
        assert!(
            row["error"].as_str().unwrap_or("").contains("/proc"),
            "{name}: {row}"
        );
    }
}

/// jp's config tree and jp-inspect's own user file, linked to a kernel
/// file: refused by name, the command goes on or stops saying why.
#[cfg(target_os = "linux")]
#[test]
fn a_config_that_is_a_kernel_file_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    symlink("/proc/self/pagemap", tmp.path().join(".jp/config.toml")).unwrap();
    let out = run(&["stats", ID], tmp.path());
    assert_eq!(ended_by_signal(&out), None);
    let err = stderr(&out);
    assert!(
        err.contains("config.toml") && err.contains("/proc"),
        "{err}"
    );

    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = limited(&["stats", ID], tmp.path(), 2 * GIB, 120)
        .env("JP_INSPECT_CONFIG", "/proc/self/pagemap")
        .output()
        .unwrap();
    assert_eq!(ended_by_signal(&out), None);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("pagemap") && err.contains("/proc"), "{err}");
}

// ---- 2 and 3: facts found and judged linearly --------------------------

/// The demo with the first user message of turn 2 replaced by `text`.
fn demo_with_message(root: &Path, text: &str) -> PathBuf {
    let conv = common::demo_copy(root);
    common::edit_events(&conv, |ev| {
        let second = ev
            .iter()
            .enumerate()
            .filter(|(_, e)| e["type"] == "turn_start")
            .nth(1)
            .map(|(k, _)| k)
            .unwrap();
        let request = ev
            .iter_mut()
            .skip(second)
            .find(|e| e["type"] == "chat_request")
            .unwrap();
        request["content"] = json!(text);
    });
    conv
}

/// A message of `http://` repeated with no space between: each link ends
/// where the next begins, so the links found are no longer in all than
/// the message, and `lost` and a digest's dry run stay within a gigabyte.
#[test]
fn links_without_spaces_are_found_once_each() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "http://".repeat(16_000) + &"http://a.example/".repeat(4_000);
    demo_with_message(tmp.path(), &text);
    for args in [
        vec!["lost", ID, "--json"],
        vec![
            "compact",
            ID,
            "s:1..32",
            "--dry-run",
            "--summarize",
            "--summarizer",
            "digest",
            "--json",
        ],
    ] {
        let out = limited(&args, tmp.path(), GIB, 120).output().unwrap();
        assert_eq!(ended_by_signal(&out), None, "{args:?}: killed");
        let v = common::json(&out);
        if args[0] == "compact" {
            let summary = v["compactions"][0]["summary"].as_str().unwrap_or("");
            assert!(
                summary.len() < text.len(),
                "a digest {} bytes long for a message of {}",
                summary.len(),
                text.len()
            );
        }
    }
}

/// Eight instructions, and a stored summary of their words run together
/// with `;` and no line or sentence break: `lost` judges them in one pass
/// over the summary per word, not one per occurrence.
#[test]
fn judging_a_long_summary_is_linear_in_its_length() {
    let tmp = tempfile::tempdir().unwrap();
    let words = ["keep", "parser", "tests", "green", "merging", "branch"];
    let instructions: String = (0..8)
        .map(|k| {
            format!(
                "Always {} the {} {} {} before {} {k}.",
                words[k % 6],
                words[(k + 1) % 6],
                words[(k + 2) % 6],
                words[(k + 3) % 6],
                words[(k + 4) % 6]
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    let conv = demo_with_message(tmp.path(), &instructions);
    let summary = (words.join(";") + ";").repeat(240_000 / 36);
    common::edit_events(&conv, |ev| {
        let c = ev.iter_mut().find(|e| e["type"] == "compaction").unwrap();
        c["summary"]["summary"] = json!(summary);
    });
    // Quadratic, this took minutes of CPU; linear, a fraction of a second.
    let out = limited(&["lost", ID, "--json"], tmp.path(), 2 * GIB, 30)
        .output()
        .unwrap();
    assert_eq!(ended_by_signal(&out), None, "out of CPU or memory");
    let v = common::json(&out);
    let facts = v.to_string();
    assert!(facts.contains("Always keep the parser"), "{facts:.2000}");
}

// ---- 4: watch stays inside its workspace -------------------------------

/// The inotify watches process `pid` holds, from its descriptors' fdinfo.
#[cfg(target_os = "linux")]
fn inotify_watches(pid: u32) -> usize {
    let mut n = 0;
    for fd in fs::read_dir(format!("/proc/{pid}/fdinfo"))
        .unwrap()
        .flatten()
    {
        if let Ok(info) = fs::read_to_string(fd.path()) {
            n += info
                .lines()
                .filter(|l| l.starts_with("inotify wd:"))
                .count();
        }
    }
    n
}

/// A ladder of links inside `.jp` (each rung's two links to the next) and
/// a link out to a folder of 300 folders: `watch` walks neither, holding a
/// watch for each storage folder, its conversations and locks folders and
/// the conversation it serves, and still fires at jp's release.
#[cfg(target_os = "linux")]
#[test]
fn watch_watches_only_the_workspace_conversations_never_through_a_link() {
    use std::io::{BufRead, BufReader};
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    let jp = tmp.path().join(".jp");
    fs::create_dir_all(jp.join("locks")).unwrap();
    for k in 0..22 {
        let rung = jp.join(format!("t/d{k}"));
        fs::create_dir_all(&rung).unwrap();
        for side in ["x", "y"] {
            symlink(format!("../d{}", k + 1), rung.join(side)).unwrap();
        }
    }
    fs::create_dir_all(jp.join("t/d22")).unwrap();
    let outside = tempfile::tempdir().unwrap();
    for k in 0..300 {
        fs::create_dir_all(outside.path().join(format!("f{k}"))).unwrap();
    }
    symlink(outside.path(), jp.join("o")).unwrap();
    // A conversation folder that is itself a link out is not watched either.
    symlink(
        outside.path().join("f0"),
        jp.join("conversations/17000000000-linked"),
    )
    .unwrap();
    let mut watch = limited(
        &["watch", "--enable", "--dry-run", "--json", "--verbose"],
        tmp.path(),
        2 * GIB,
        120,
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut lines = BufReader::new(watch.stdout.take().unwrap()).lines();
    let mut next_event = |want: &str| -> Value {
        for line in lines.by_ref() {
            let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
            if v["event"] == want {
                return v;
            }
        }
        panic!("watch ended before a {want} line");
    };
    let scope = next_event("watching");
    assert_eq!(scope["conversations"], 1, "{scope}");
    let held = inotify_watches(watch.id());
    // .jp, .jp/locks, .jp/conversations and the demo's folder.
    assert!(held <= 4, "{held} inotify watches");
    assert_eq!(scope["folders"], held, "watch says what it watches");
    // jp's turn, written under its lock: still seen.
    common::jp_appends_a_turn(&conv, "one more turn");
    let read = next_event("read");
    assert_eq!(read["conversation"], ID, "{read}");
    let _ = watch.kill();
    let _ = watch.wait();
}

// ---- 5: a completion is one shell word ---------------------------------

/// In a real bash, with the script `completions bash` registers: a folder
/// whose slug would run a command (`notes;touch${IFS}pwned`) completes to
/// the conversation's id, and every candidate of every shell is one plain
/// word.
#[test]
fn a_completion_never_offers_a_word_a_shell_would_split() {
    let tmp = tempfile::tempdir().unwrap();
    let convs = tmp.path().join(".jp/conversations");
    common::copy_dir(
        &common::demo(),
        &convs.join("17944860430-notes;touch${IFS}pwned"),
    );
    common::copy_dir(&common::demo(), &convs.join("17944860431-notes-plain"));
    let bin_dir = Path::new(common::bin_path()).parent().unwrap();
    let script = common::binary()
        .args(["completions", "bash"])
        .output()
        .unwrap();
    assert!(script.status.success());
    let script_path = tmp.path().join("complete.bash");
    fs::write(&script_path, &script.stdout).unwrap();
    let bash = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source {}; COMP_WORDS=(jp-inspect show no); COMP_CWORD=2; COMP_TYPE=9; \
             _clap_complete_jp_inspect jp-inspect no show; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script_path.display()
        ))
        .current_dir(tmp.path())
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin_dir.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("JP_USER_DATA_DIR", tmp.path().join(".no-user-data"))
        .output()
        .unwrap();
    let offered = String::from_utf8_lossy(&bash.stdout).into_owned();
    let offered: Vec<&str> = offered.lines().collect();
    assert!(
        offered.contains(&"jp-c17944860430"),
        "the hostile folder by its id: {offered:?} {}",
        stderr(&bash)
    );
    assert!(offered.contains(&"notes-plain"), "{offered:?}");
    assert!(!tmp.path().join("pwned").exists());
    for shell in ["bash", "zsh", "fish"] {
        let out = common::binary()
            .args(["--", "jp-inspect", "show", "no"])
            .current_dir(tmp.path())
            .env("JP_INSPECT_COMPLETE", shell)
            .env("_CLAP_COMPLETE_INDEX", "2")
            .env("JP_USER_DATA_DIR", tmp.path().join(".no-user-data"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("touch"), "{shell}: {text:?}");
        assert!(text.contains("jp-c17944860430"), "{shell}: {text:?}");
    }
}

// ---- 6: one listing per pass -------------------------------------------

/// CPU seconds (user and system) a finished child used, from wait4.
// The child is reaped with wait4, for its CPU time.
#[allow(clippy::zombie_processes)]
fn cpu_of(mut c: Command) -> (Output, f64) {
    let child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let out = {
        use std::io::Read;
        let (mut so, mut se) = (child.stdout.unwrap(), child.stderr.unwrap());
        let err = std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = se.read_to_end(&mut b);
            b
        });
        let mut o = Vec::new();
        let _ = so.read_to_end(&mut o);
        (o, err.join().unwrap())
    };
    let mut status = 0;
    // SAFETY: an empty rusage filled in by wait4 for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting for the child we spawned.
    unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    use std::os::unix::process::ExitStatusExt;
    (
        Output {
            status: std::process::ExitStatus::from_raw(status),
            stdout: out.0,
            stderr: out.1,
        },
        secs(usage.ru_utime) + secs(usage.ru_stime),
    )
}

/// `watch --once` over 4,000 tiny conversations lists the folder once per
/// pass: its CPU stays under three times `list`'s over the same folder
/// (about twice: it reads each conversation twice; looked up one by one,
/// it was four times at 3,000 and growing with the count).
/// CPU time, not elapsed time: a busy machine changes neither figure much.
#[test]
fn watch_once_over_many_conversations_lists_them_once() {
    let tmp = tempfile::tempdir().unwrap();
    let small = common::data()
        .join("conformance/c01_identity/conversations/17800000000-refactor-the-config-parser");
    let convs = tmp.path().join(".jp/conversations");
    for k in 0..4000u64 {
        common::copy_dir(&small, &convs.join(format!("{}-c{k}", 17_800_000_000 + k)));
    }
    let (list, list_cpu) = cpu_of(limited(&["list", "--json"], tmp.path(), 4 * GIB, 600));
    assert!(list.status.success(), "{}", stderr(&list));
    let (watch, watch_cpu) = cpu_of(limited(
        &["watch", "--once", "--dry-run", "--enable", "--json"],
        tmp.path(),
        4 * GIB,
        600,
    ));
    assert!(watch.status.success(), "{}", stderr(&watch));
    eprintln!("list {list_cpu:.2} s of CPU, watch --once {watch_cpu:.2} s");
    assert!(
        watch_cpu < 3.0 * list_cpu.max(0.2),
        "watch --once {watch_cpu:.2} s of CPU against list's {list_cpu:.2} s"
    );
}

// ---- 7: a rule that can't be computed ----------------------------------

/// `keep_first = "1000000years"` in the workspace's config and in a
/// conversation's `base_config.json`: said, naming the file and the key,
/// and the rule left out, where it made jp-inspect panic.
#[test]
fn a_keep_window_past_the_calendar_is_said_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    fs::write(
        tmp.path().join(".jp/config.toml"),
        "[[conversation.compaction.rules]]\nkeep_first = \"1000000years\"\nkeep_last = 1\n\
         reasoning = \"strip\"\n",
    )
    .unwrap();
    for args in [
        vec!["compact", ID, "--dry-run", "--json"],
        vec!["watch", "--once", "--dry-run", "--enable"],
        vec!["stats", ID],
    ] {
        let out = run(&args, tmp.path());
        assert_ne!(out.status.code(), Some(101), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("config.toml") && err.contains("1000000years"),
            "{args:?}: {err}"
        );
    }
    // The same in the conversation's own base config.
    fs::remove_file(tmp.path().join(".jp/config.toml")).unwrap();
    let path = conv.join("base_config.json");
    let mut base: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    base["conversation"]["compaction"] =
        json!({"rules": [{"keep_first": "1000000years", "keep_last": 1, "reasoning": "strip"}]});
    fs::write(&path, serde_json::to_string_pretty(&base).unwrap() + "\n").unwrap();
    let out = run(&["compact", ID, "--dry-run", "--json"], tmp.path());
    assert_ne!(out.status.code(), Some(101), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("base config") && err.contains("1000000years"),
        "{err}"
    );
    // A bound on the command line is refused before anything runs.
    let out = run(
        &[
            "compact",
            ID,
            "r",
            "--keep-first",
            "1000000years",
            "--dry-run",
        ],
        tmp.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("longer than a keep window"),
        "{}",
        stderr(&out)
    );
}
