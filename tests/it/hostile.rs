//! A workspace someone else made: everything a cloned `.jp/` can hold
//! (links, odd configs, escape sequences, impossible compactions) tried
//! against the real binary on real files. Each test is one way such a
//! workspace used to reach past the conversation.

use crate::common;

use common::{demo_copy, jp_inspect, stderr};
use serde_json::{Value, json};
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ID: &str = "jp-c17944860430";

/// D50's single policy at a 32k window, evaluated without writing.
const AUTO_SINGLE_32K: [&str; 7] = [
    "auto",
    ID,
    "--dry-run",
    "--window",
    "32k",
    "--mode",
    "single",
];

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let conv = demo_copy(tmp.path());
    (tmp, conv)
}

/// Runs the binary in `cwd` with its own empty user config and data, and
/// the environment `env` adds.
fn run_with(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> std::process::Output {
    let mut c = common::binary();
    c.args(args)
        .current_dir(cwd)
        .env("JP_USER_DATA_DIR", cwd.join(".no-user-data"))
        .env("XDG_CONFIG_HOME", cwd.join(".no-user-config"))
        .env_remove("JP_GLOBAL_CONFIG_DIR")
        .env_remove("JP_GLOBAL_CONFIG_FILE");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// Like [`run_with`], failing the test if the process takes longer than
/// `limit` (it is killed then).
/// How long a command that should end by itself is waited for before the
/// test says it never did: a liveness bound for a busy machine, not a
/// time the test judges.
const PATIENCE: Duration = Duration::from_secs(120);

fn run_within(args: &[&str], cwd: &Path, limit: Duration) -> std::process::Output {
    use wait_timeout::ChildExt;
    let mut child = common::binary()
        .args(args)
        .current_dir(cwd)
        .env("JP_USER_DATA_DIR", cwd.join(".no-user-data"))
        .env("XDG_CONFIG_HOME", cwd.join(".no-user-config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    if child.wait_timeout(limit).unwrap().is_none() {
        let _ = child.kill();
        panic!(
            "`jp-inspect {}` never ended by itself (waited {:?})",
            args.join(" "),
            started.elapsed()
        );
    }
    child.wait_with_output().unwrap()
}

fn events(conv: &Path) -> Vec<Value> {
    serde_json::from_slice(&fs::read(conv.join("events.json")).unwrap()).unwrap()
}

#[test]
fn a_symlinked_lock_file_is_refused_and_its_target_kept() {
    let (tmp, conv) = workspace();
    let victim = tmp.path().join("victim.txt");
    fs::write(&victim, "precious\n").unwrap();
    let locks = tmp.path().join(".jp/locks");
    fs::create_dir_all(&locks).unwrap();
    symlink(&victim, locks.join(format!("{ID}.lock"))).unwrap();
    let before = fs::read(conv.join("events.json")).unwrap();
    for args in [
        vec!["compact", ID, "t:10..12"],
        vec!["reset", ID, "--all"],
        vec!["auto", ID, "--window", "64k"],
    ] {
        let out = jp_inspect(&args, tmp.path());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("symbolic link") && err.contains(&format!("{ID}.lock")),
            "{args:?}: {err}"
        );
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    }
    assert_eq!(fs::read(conv.join("events.json")).unwrap(), before);
}

#[test]
fn a_symlinked_locks_folder_is_refused() {
    let (tmp, _conv) = workspace();
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    symlink(&elsewhere, tmp.path().join(".jp/locks")).unwrap();
    let out = jp_inspect(&["compact", ID, "t:10..12"], tmp.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn the_record_folder_and_file_are_never_followed() {
    // A linked record folder: the events are written, the record is not
    // put where the link points, and the write says so.
    let (tmp, conv) = workspace();
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::remove_dir_all(tmp.path().join(".jp/jp-inspect")).ok();
    symlink(&elsewhere, tmp.path().join(".jp/jp-inspect")).unwrap();
    let out = jp_inspect(&["compact", ID, "t,over=4k:10..12"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(events(&conv).len() > 286);

    // A linked record file is not read through (and named).
    let (tmp, _conv) = workspace();
    let secret = tmp.path().join("secret.json");
    fs::write(&secret, r#"{"compactions": []}"#).unwrap();
    fs::create_dir_all(tmp.path().join(".jp/jp-inspect")).unwrap();
    let record = tmp.path().join(".jp/jp-inspect/17944860430.json");
    symlink(&secret, &record).unwrap();
    let out = jp_inspect(&["compact", ID, "t,over=4k:10..12"], tmp.path());
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_eq!(
        fs::read_to_string(&secret).unwrap(),
        r#"{"compactions": []}"#
    );
}

#[test]
fn temp_files_get_fresh_random_names() {
    // Planted links at every name the old scheme (`<name>.jp-inspect-<pid>.tmp`)
    // could use for the next few processes: none is followed.
    let (tmp, conv) = workspace();
    let victim = tmp.path().join("victim.txt");
    fs::write(&victim, "precious\n").unwrap();
    let next = std::process::id();
    for pid in next..next + 200 {
        let _ = symlink(
            &victim,
            conv.join(format!("events.json.jp-inspect-{pid}.tmp")),
        );
    }
    let out = jp_inspect(&["compact", ID, "t:10..12"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(
        !fs::symlink_metadata(conv.join("events.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn extends_never_prints_the_files_it_points_at() {
    let (tmp, _conv) = workspace();
    fs::write(
        tmp.path().join(".env"),
        "ANTHROPIC_API_KEY=sk-ant-very-secret-value\n",
    )
    .unwrap();
    for target in ["/proc/self/environ", ".env"] {
        let target = if target.starts_with('/') {
            target.to_string()
        } else {
            tmp.path().join(target).display().to_string()
        };
        fs::write(
            tmp.path().join(".jp/config.toml"),
            format!("extends = [{target:?}]\n"),
        )
        .unwrap();
        for args in [
            vec!["stats", ID],
            vec!["auto", ID, "--dry-run"],
            vec!["watch", ID, "--once"],
        ] {
            let out = run_with(
                &args,
                tmp.path(),
                &[("JP_INSPECT_TEST_SECRET", "hunter2-in-the-environment")],
            );
            let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
            assert!(!all.contains("hunter2"), "{args:?}: {all}");
            assert!(!all.contains("very-secret"), "{args:?}: {all}");
            assert!(!all.contains("ANTHROPIC_API_KEY"), "{args:?}: {all}");
            // A kernel file is refused before a byte is read; the .env is
            // read and refused as no TOML, its text never repeated.
            let refused = if target.starts_with("/proc") {
                "lies under /proc"
            } else {
                "not valid TOML"
            };
            assert!(all.contains(refused), "{args:?}: {all}");
        }
    }
}

#[test]
fn a_parse_error_names_file_line_and_column() {
    let (tmp, _conv) = workspace();
    let cfg = tmp.path().join(".jp/config.toml");
    fs::write(&cfg, "[conversation]\nx = = 1\n").unwrap();
    let out = jp_inspect(&["stats", ID], tmp.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("{}:2:", cfg.display())), "{err}");
}

#[test]
fn extends_globs_end_on_link_loops_and_huge_trees() {
    let (tmp, _conv) = workspace();
    let looped = tmp.path().join(".jp/loop");
    fs::create_dir_all(&looped).unwrap();
    symlink(".", looped.join("a")).unwrap();
    symlink(".", looped.join("b")).unwrap();
    fs::write(
        tmp.path().join(".jp/config.toml"),
        "extends = [\"loop/**/*.none\"]\n",
    )
    .unwrap();
    let out = run_within(&["stats", ID, "--json"], tmp.path(), PATIENCE);
    assert!(out.status.success(), "{}", stderr(&out));

    fs::write(
        tmp.path().join(".jp/config.toml"),
        "extends = [\"/usr/**/*.none\"]\n",
    )
    .unwrap();
    let out = run_within(&["stats", ID], tmp.path(), PATIENCE);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("stopped"), "{}", stderr(&out));
}

#[test]
fn deeply_nested_configs_fail_fast_in_every_format() {
    let (tmp, _conv) = workspace();
    let deep = |open: &str, close: &str, n: usize| format!("{}{}", open.repeat(n), close.repeat(n));
    for (name, text) in [
        ("config.yaml", format!("a: {}\n", deep("[", "]", 100_000))),
        (
            "config.json",
            format!("{{\"a\": {}}}", deep("[", "]", 100_000)),
        ),
        (
            "config.json5",
            format!("{{a: {}}}", deep("[", "]", 100_000)),
        ),
        ("config.toml", format!("a = {}\n", deep("[", "]", 100_000))),
    ] {
        for ext in ["toml", "json", "json5", "yaml", "yml"] {
            let _ = fs::remove_file(tmp.path().join(format!(".jp/config.{ext}")));
        }
        fs::write(tmp.path().join(".jp").join(name), text).unwrap();
        let out = run_within(&["stats", ID], tmp.path(), PATIENCE);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("nested more than 128 levels"),
            "{name}: {}",
            stderr(&out)
        );
    }
}

/// The demo with a title, a message and a tool result that carry escape
/// sequences, as a hostile conversation would.
fn with_escapes(conv: &Path) {
    let osc = "\u{1b}]0;pwned\u{7}";
    fs::write(
        conv.join("metadata.json"),
        json!({"title": format!("{osc}evil\u{1b}[2J\rtitle\nsecond line")}).to_string(),
    )
    .unwrap();
    common::edit_events(conv, |ev| {
        if let Some(e) = ev.iter_mut().find(|e| e["type"] == "chat_request") {
            e["content"] = json!(format!("{osc}hello\u{1b}[31m red\u{0}"));
        }
    });
}

#[test]
fn conversation_text_never_drives_the_terminal() {
    let (tmp, conv) = workspace();
    with_escapes(&conv);
    for args in [
        vec!["list"],
        vec!["show", ID],
        vec!["show", ID, "--compacted"],
        vec!["stats", ID],
        vec!["history", ID],
        vec!["stats", "\u{1b}]0;nope\u{7}"],
    ] {
        let out = jp_inspect(&args, tmp.path());
        for (what, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            assert!(
                !bytes
                    .iter()
                    .any(|&b| b == 0x1b || b == 0x07 || b == 0 || b == b'\r'),
                "{args:?} {what} holds a control character: {:?}",
                String::from_utf8_lossy(bytes)
            );
        }
        let all = String::from_utf8_lossy(&out.stdout).to_string() + &stderr(&out);
        assert!(
            all.contains('␛'),
            "{args:?}: the escape is not shown: {all}"
        );
    }
    // JSON stays exact.
    let v = common::json(&jp_inspect(&["stats", ID, "--json"], tmp.path()));
    assert!(
        v["conversation"]["title"]
            .as_str()
            .unwrap()
            .starts_with("\u{1b}]0;pwned")
    );
}

#[test]
fn a_symlinked_events_file_is_written_through_and_kept() {
    let (tmp, conv) = workspace();
    let real = tmp.path().join(".jp/real-events.json");
    fs::rename(conv.join("events.json"), &real).unwrap();
    symlink(&real, conv.join("events.json")).unwrap();
    let out = jp_inspect(&["compact", ID, "t:10..12"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let link = fs::symlink_metadata(conv.join("events.json")).unwrap();
    assert!(link.file_type().is_symlink(), "the link was replaced");
    let written: Vec<Value> = serde_json::from_slice(&fs::read(&real).unwrap()).unwrap();
    assert_eq!(written.len(), 287);

    // A link out of the workspace's storage is refused, its target kept.
    let (tmp, conv) = workspace();
    let outside = tmp.path().join("outside.json");
    fs::rename(conv.join("events.json"), &outside).unwrap();
    symlink(&outside, conv.join("events.json")).unwrap();
    let before = fs::read(&outside).unwrap();
    let out = jp_inspect(&["compact", ID, "t:10..12"], tmp.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("outside"), "{}", stderr(&out));
    assert_eq!(fs::read(&outside).unwrap(), before);
}

#[test]
fn hard_links_and_read_only_files_need_force() {
    let (tmp, conv) = workspace();
    let other = tmp.path().join("other-name.json");
    fs::hard_link(conv.join("events.json"), &other).unwrap();
    let out = jp_inspect(&["compact", ID, "t:10..12"], tmp.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("2 hard links"), "{}", stderr(&out));
    let out = jp_inspect(&["compact", ID, "t:10..12", "--force"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));

    let (tmp, conv) = workspace();
    let path = conv.join("events.json");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let out = jp_inspect(&["reset", ID, "--all"], tmp.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("read-only"), "{}", stderr(&out));
    let out = jp_inspect(&["reset", ID, "--all", "--force"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o444
    );
}

#[test]
fn the_owner_and_group_are_kept() {
    // Giving a file away needs root; as another user the check is moot.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("not root: skipping the owner check");
        return;
    }
    let (tmp, conv) = workspace();
    let path = conv.join("events.json");
    std::os::unix::fs::chown(&path, Some(4321), Some(4322)).unwrap();
    let out = jp_inspect(&["compact", ID, "t:10..12"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let m = fs::metadata(&path).unwrap();
    assert_eq!((m.uid(), m.gid()), (4321, 4322));
}

#[test]
fn a_closed_stderr_is_no_panic() {
    let (tmp, _conv) = workspace();
    for args in [vec!["stats", "jp-cNOPE"], vec!["stats", ID]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let status = common::binary()
            .args(&args)
            .current_dir(tmp.path())
            .env("JP_USER_DATA_DIR", tmp.path().join(".no-user-data"))
            .stdout(writer.try_clone().unwrap())
            .stderr(writer)
            .status()
            .unwrap();
        let want = if args[1] == ID { 0 } else { 1 };
        assert_eq!(status.code(), Some(want), "{args:?}");
    }
}

/// The demo with two compactions jp projects in its own way: a backwards
/// range and one that runs past every turn.
fn with_impossible_compactions(conv: &Path) {
    common::edit_events(conv, |ev| {
        for (from, to) in [(json!(1), json!(0)), (json!(3), json!(u64::MAX))] {
            ev.push(json!({
                "type": "compaction",
                "timestamp": "2026-11-12 14:50:40.000000",
                "from_turn": from,
                "to_turn": to,
                "reasoning": "strip",
            }));
        }
    });
}

#[test]
fn impossible_compactions_are_marked_for_what_they_do() {
    let (tmp, conv) = workspace();
    with_impossible_compactions(&conv);
    let v = common::json(&jp_inspect(&["stats", ID, "--json"], tmp.path()));
    let list = v["compactions"].as_array().unwrap();
    let warnings: Vec<&str> = list.iter().filter_map(|c| c["warning"].as_str()).collect();
    assert_eq!(
        warnings,
        [
            "no effect: the range runs backwards",
            "covers every future turn as well: its range runs past the last turn"
        ]
    );
    let text = String::from_utf8_lossy(&jp_inspect(&["stats", ID], tmp.path()).stdout).to_string();
    assert!(
        text.contains("warning: no effect: the range runs backwards"),
        "{text}"
    );
    // Every command still works on them.
    for args in [
        vec!["show", ID, "--compacted"],
        vec!["list"],
        vec!["history", ID],
        vec!["simulate", ID],
    ] {
        let out = jp_inspect(&args, tmp.path());
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    // The automatic policy names the endless one as why it can't act.
    let out = jp_inspect(&AUTO_SINGLE_32K, tmp.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("covers every future turn as well"), "{text}");
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn impossible_compactions_project_as_jp_projects_them() {
    let shared = common::shared()
        .expect("../shared is absent: a corpus check runs whole or is ignored, never passed");
    let oracle = shared.join("tools/jp-oracle/oracle");
    let (tmp, conv) = workspace();
    with_impossible_compactions(&conv);
    let jp = Command::new(&oracle)
        .arg("project")
        .arg(&conv)
        .output()
        .unwrap();
    assert!(jp.status.success(), "{}", stderr(&jp));
    let jp: Value = serde_json::from_slice(&jp.stdout).unwrap();
    let ours = common::json(&jp_inspect(
        &["show", ID, "--compacted", "--json"],
        tmp.path(),
    ));
    let ours_events = ours["events"].as_array().map(Vec::len);
    assert_eq!(
        ours_events,
        jp["projected"].as_array().map(Vec::len),
        "projected event count differs from jp's"
    );
}

/// A summarizer of the user's own that calls a real HTTP server on
/// 127.0.0.1, counting the calls.
struct Endpoint {
    hits: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    port: u16,
    _server: std::thread::JoinHandle<()>,
}

fn endpoint() -> Endpoint {
    use std::sync::atomic::Ordering;
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = hits.clone();
    let handle = std::thread::spawn(move || {
        while let Ok(Some(req)) = server.recv_timeout(Duration::from_secs(30)) {
            counter.fetch_add(1, Ordering::SeqCst);
            let body = json!({"choices": [{"message": {"content": "a summary"}}]});
            let _ = req.respond(tiny_http::Response::from_string(body.to_string()));
        }
    });
    Endpoint {
        hits,
        port,
        _server: handle,
    }
}

#[test]
fn a_dry_run_sends_nothing_unless_asked() {
    use std::sync::atomic::Ordering;
    let (tmp, _conv) = workspace();
    let ep = endpoint();
    let user = tmp.path().join(".no-user-config/jp");
    fs::create_dir_all(&user).unwrap();
    fs::write(
        user.join("config.toml"),
        format!(
            "[conversation.compaction.auto.summarizer]\nkind = \"openai\"\n\
             base_url = \"http://127.0.0.1:{}/v1\"\nmodel = \"m\"\n",
            ep.port
        ),
    )
    .unwrap();
    let out = run_with(&["compact", ID, "s:2..5", "--dry-run"], tmp.path(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        ep.hits.load(Ordering::SeqCst),
        0,
        "a dry run sent the conversation"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Not sent") && text.contains(&format!("127.0.0.1:{}", ep.port)),
        "{text}"
    );
    let v = common::json(&run_with(
        &["compact", ID, "s:2..5", "--dry-run", "--json"],
        tmp.path(),
        &[],
    ));
    assert_eq!(v["withheld"]["turns"], json!([[1, 4]]));
    assert!(v["withheld"]["input_chars"].as_u64().unwrap() > 1000);
    let out = run_with(&AUTO_SINGLE_32K, tmp.path(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(ep.hits.load(Ordering::SeqCst), 0, "auto --dry-run sent it");

    // Asked for, it is sent.
    let out = run_with(
        &["compact", ID, "s:2..5", "--dry-run", "--summarize"],
        tmp.path(),
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(ep.hits.load(Ordering::SeqCst), 1);
}

/// A real server on 127.0.0.1 playing an OpenAI-compatible judge: it
/// reads the facts it is sent and calls each conveyed, quoting a line of
/// its own; it keeps what it was sent.
fn judge_server() -> common::server::Server {
    common::server::Server::start(|seen| {
        let asked = seen.json()["messages"][1]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let ids: Vec<usize> = asked
            .lines()
            .take_while(|l| !l.starts_with("What is still sent"))
            .filter_map(|l| l.split_once(". [")?.0.parse().ok())
            .collect();
        let verdicts: Vec<Value> = ids
            .iter()
            .map(|id| json!({"id": id, "verdict": "conveyed", "quote": format!("said as {id}")}))
            .collect();
        let content = format!("```json\n{}\n```", json!({ "verdicts": verdicts }));
        common::server::Reply::json(200, json!({"choices": [{"message": {"content": content}}]}))
    })
}

fn user_judge_config(tmp: &Path, url: &str) {
    let user = tmp.join(".no-user-config/jp");
    fs::create_dir_all(&user).unwrap();
    fs::write(
        user.join("config.toml"),
        format!(
            "[conversation.compaction.auto.summarizer]\nkind = \"openai\"\n\
             base_url = \"{url}/v1\"\nmodel = \"judge-m\"\n"
        ),
    )
    .unwrap();
}

#[test]
fn a_model_judges_only_when_asked_its_price_shown_first() {
    let (tmp, conv) = workspace();
    let server = judge_server();
    user_judge_config(tmp.path(), &server.url());
    // Not asked: nothing is sent, and the offline judge signs.
    let v = common::json(&run_with(&["lost", ID, "--json"], tmp.path(), &[]));
    assert_eq!(server.requests().len(), 0, "lost sent facts unasked");
    let facts = |v: &Value| -> Vec<Value> {
        v["compactions"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["facts"].as_array().cloned().unwrap_or_default())
            .collect()
    };
    let offline = facts(&v);
    assert!(offline.iter().any(|f| f["kept"] == false));
    assert!(offline.iter().all(|f| f["judge"] == "meaning"));
    for args in [
        &["compact", ID, "s:2..5", "--dry-run"][..],
        &["report", ID, "-o", "r.html"],
    ] {
        let out = run_with(args, tmp.path(), &[]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    assert_eq!(
        server.requests().len(),
        0,
        "a dry run or report judged unasked"
    );

    // Asked: the price on stderr, one call a compaction, each verdict the
    // model's own with its quote and its name.
    let out = run_with(
        &["lost", ID, "--json", "--judge", "openai"],
        tmp.path(),
        &[],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("asking openai judge-m to judge") && err.contains("tokens sent"),
        "{err}"
    );
    let v = common::json(&out);
    let judged = facts(&v);
    assert_eq!(judged.len(), offline.len());
    assert!(
        judged
            .iter()
            .all(|f| f["kept"] == true && f["judge"] == "openai judge-m")
    );
    assert!(
        judged
            .iter()
            .all(|f| f["quote"].as_str().unwrap().starts_with("said as "))
    );
    let seen = server.requests();
    let with_facts = v["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["facts"].as_array().is_some_and(|f| !f.is_empty()))
        .count();
    assert_eq!(seen.len(), with_facts);
    // What it was sent: the facts and what is still sent of the range
    // (compaction #1's summary names the fix).
    let first = seen[0].json()["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        first.contains("[instruction]") && first.contains("[summary]"),
        "{first}"
    );
    let text = run_with(&["lost", ID, "--judge", "openai"], tmp.path(), &[]);
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("(judged by openai judge-m)"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );

    // A dry run judged on request: what it would keep, asked once, nothing
    // written; without --dry-run the judge is refused.
    let before = server.requests().len() + 1;
    let events = fs::read(conv.join("events.json"));
    let out = run_with(
        &[
            "compact",
            ID,
            "s:2..5",
            "--dry-run",
            "--summarizer",
            "digest",
            "--judge",
            "openai",
            "--json",
        ],
        tmp.path(),
        &[],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("asking openai judge-m to judge"), "{err}");
    let planned = common::json(&out);
    let facts = planned["compactions"][0]["facts"].as_array().unwrap();
    assert!(!facts.is_empty());
    assert!(facts.iter().all(|f| f["judge"] == "openai judge-m"));
    assert_eq!(server.requests().len(), before);
    let unchanged = fs::read(conv.join("events.json"));
    assert_eq!(events.unwrap(), unchanged.unwrap());
    let out = run_with(
        &["compact", ID, "s:2..5", "--judge", "openai"],
        tmp.path(),
        &[],
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--dry-run"), "{}", stderr(&out));
    assert_eq!(server.requests().len(), before);

    // The judge failing: the price was still shown first, then the error.
    let failing = common::server::Server::start(|_| {
        common::server::Reply::json(500, json!({"error": {"message": "judge down"}}))
    });
    user_judge_config(tmp.path(), &failing.url());
    let out = run_with(&["lost", ID, "--judge", "openai"], tmp.path(), &[]);
    let err = stderr(&out);
    assert!(!out.status.success());
    let (price, fail) = (
        err.find("asking openai").unwrap(),
        err.find("judge down").unwrap(),
    );
    assert!(price < fail, "{err}");
}

#[test]
fn a_cloned_workspace_cannot_point_the_judge_anywhere() {
    let (tmp, _conv) = workspace();
    let server = judge_server();
    fs::write(
        tmp.path().join(".jp/config.toml"),
        format!(
            "[conversation.compaction.auto.summarizer]\nkind = \"openai\"\n\
             base_url = \"{}/v1\"\nmodel = \"m\"\n",
            server.url()
        ),
    )
    .unwrap();
    let out = run_with(&["lost", ID, "--judge", "openai"], tmp.path(), &[]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("no endpoint configured"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.requests().len(), 0);
}

#[test]
fn a_missing_summarizer_names_where_one_may_be_defined() {
    let (tmp, _conv) = workspace();
    let out = run_with(
        &["compact", ID, "s:2..5", "--summarizer", "openai"],
        tmp.path(),
        &[],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(".no-user-config/jp/config.toml"), "{err}");
    assert!(!err.contains("of the conversation config"), "{err}");
}

/// What jp-inspect writes beside a conversation stays out of version
/// control: a committed `.jp/` shows no lock file and no record after a
/// write.
#[test]
fn a_committed_jp_folder_stays_clean() {
    let (tmp, _conv) = workspace();
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(tmp.path())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap()
    };
    if git(&["init", "-q"]).status.code() != Some(0) {
        eprintln!("git is absent: skipping the version-control check");
        return;
    }
    git(&["add", "-A"]);
    git(&["commit", "-qm", "the workspace"]);
    let out = jp_inspect(&["compact", ID, "t,over=4k:10..12"], tmp.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(tmp.path().join(".jp/jp-inspect/17944860430.json").exists());
    let status = String::from_utf8_lossy(&git(&["status", "--porcelain"]).stdout).to_string();
    let changed: Vec<&str> = status.lines().collect();
    assert_eq!(
        changed,
        [" M .jp/conversations/17944860430-csvq-first-release/events.json"],
        "{status}"
    );
    // The lock file it took is left empty (never unlinked: a jp that
    // opened it meanwhile must find the file it locks), and ignored.
    let lock = tmp.path().join(".jp/locks/jp-c17944860430.lock");
    assert_eq!(fs::read(&lock).unwrap(), b"");
}

/// `J` in a compaction's detail: the price first (nothing sent yet), a
/// question, and only a yes asks the judge; its verdicts land in the
/// detail signed by who gave them. A `n` sends nothing. Without a judge
/// in the person's own config, `J` says so and sends nothing.
#[test]
fn j_in_the_detail_prices_asks_and_shows_the_judges_verdicts() {
    use common::harness::Harness;
    use crossterm::event::KeyCode;
    use jp_inspect::tui::panels::Panel;
    let server = judge_server();
    let open = |h: &mut Harness| {
        h.key(KeyCode::Tab);
        h.key(KeyCode::Tab);
        h.key(KeyCode::Enter);
    };
    // No judge of the person's own: said, nothing sent.
    let mut h = Harness::new(160, 40, false);
    open(&mut h);
    h.char('J');
    assert!(h.text().contains("no model to judge with"), "{}", h.text());
    assert_eq!(server.requests().len(), 0);

    let mut h = Harness::new(160, 40, false);
    h.state
        .settings
        .config
        .apply_document(
            &json!({"conversation": {"compaction": {"auto": {"summarizer": {
                "kind": "openai", "base_url": format!("{}/v1", server.url()), "model": "judge-m"
            }}}}}),
            "your config",
        )
        .unwrap();
    open(&mut h);
    h.char('J');
    let Some(Panel::Confirm(c)) = &h.state.panel else {
        panic!("no question: {}", h.text());
    };
    assert!(
        c.question.starts_with("asking openai judge-m to judge")
            && c.question.contains("tokens sent"),
        "{}",
        c.question
    );
    assert_eq!(server.requests().len(), 0, "sent before the answer");
    h.char('n');
    assert_eq!(server.requests().len(), 0, "sent after a no");
    open_again(&mut h);
    h.char('J');
    h.char('y');
    assert_eq!(server.requests().len(), 1);
    let text = h.text();
    assert!(text.contains("(judged by openai judge-m)"), "{text}");
    assert!(matches!(h.state.panel, Some(Panel::Detail(_))), "{text}");
    // Its header says whose the verdicts are, where they are read first.
    let Some(Panel::Detail(d)) = &h.state.panel else {
        unreachable!()
    };
    assert!(
        d.header
            .iter()
            .any(|l| l.to_string().contains("(judged by openai judge-m)")),
        "{:?}",
        d.header
    );

    fn open_again(h: &mut Harness) {
        h.key(KeyCode::Enter);
    }
}
