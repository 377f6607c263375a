//! jp-inspect as `jp inspect`: jp's command-plugin protocol spoken by the
//! real binary over pipes, and beside the real jp program (its plugin
//! host, its user-local copies and locks, `jp query` against its stub LLM)
//! where `../shared` has it.

use crate::common;

use common::jp::{Jp, Reaped, alive, children_of};
use common::pty::Pty;
use serde_json::{Value, json};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// jp-inspect started as jp's host starts it: no arguments, pipes, its
/// own session (no terminal).
fn as_plugin(cwd: &Path) -> (Child, ChildStdin, mpsc::Receiver<Value>) {
    use std::os::unix::process::CommandExt;
    let mut c = common::binary();
    c.current_dir(cwd)
        .env("JP_USER_DATA_DIR", cwd.join(".no-user-data"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // SAFETY: setsid is async-signal-safe.
    unsafe {
        c.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let mut child = c.spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not a protocol line ({e}): {line}"));
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    (child, stdin, rx)
}

fn say(stdin: &mut ChildStdin, message: &Value) {
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
}

fn init(args: &[&str], workspace: &Path) -> Value {
    json!({
        "type": "init", "version": 1,
        "workspace": {"root": workspace, "storage": workspace.join(".jp"), "id": "abc12"},
        "paths": {},
        "config": {}, "args": args, "log_level": 0
    })
}

/// Every message up to and including `exit`.
fn until_exit(rx: &mpsc::Receiver<Value>, timeout: Duration) -> Vec<Value> {
    let start = Instant::now();
    let mut out = Vec::new();
    while let Some(left) = timeout.checked_sub(start.elapsed()) {
        match rx.recv_timeout(left) {
            Ok(m) => {
                let done = m["type"] == "exit";
                out.push(m);
                if done {
                    return out;
                }
            }
            Err(_) => break,
        }
    }
    panic!("no exit message within {timeout:?}: {out:?}");
}

/// How long a test waits for what must come (an answer, an exit) before
/// it says what never came: a liveness bound for a busy machine, never a
/// time the test judges.
const PATIENCE: Duration = Duration::from_secs(120);

/// Waits until every process of `pids` is gone; fails saying `what`.
fn gone(pids: &[u32], what: &str) {
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) {
        assert!(start.elapsed() < PATIENCE, "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn describe_is_answered_at_once_without_touching_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let (mut child, mut stdin, rx) = as_plugin(tmp.path());
    say(&mut stdin, &json!({"type": "describe"}));
    drop(stdin);
    // A describe that touched the terminal would wait on it for ever: the
    // bound is for that, the time is said, not judged (benches time it).
    let d = rx.recv_timeout(PATIENCE).expect("an answer to describe");
    eprintln!(
        "describe answered in {:?} (spawn included)",
        start.elapsed()
    );
    assert_eq!(d["type"], "describe");
    assert_eq!(d["name"], "inspect");
    assert_eq!(d["command"], json!(["inspect"]));
    assert!(d["version"].as_str().is_some_and(|v| !v.is_empty()));
    assert!(
        d["description"]
            .as_str()
            .is_some_and(|s| s.len() > 10 && !s.contains('\n'))
    );
    assert!(
        d["help"].as_str().unwrap().contains("Usage: jp inspect"),
        "{d}"
    );
    assert!(child.wait().unwrap().success());
}

#[test]
fn init_runs_the_command_relays_its_json_whole_and_says_how_it_ended() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    let direct = common::jp_inspect(&["stats", conv.to_str().unwrap(), "--json"], tmp.path());
    assert!(direct.status.success());
    let (mut child, mut stdin, rx) = as_plugin(tmp.path());
    say(
        &mut stdin,
        &init(&["stats", conv.to_str().unwrap(), "--json"], tmp.path()),
    );
    let said = until_exit(&rx, PATIENCE);
    assert_eq!(said[0], json!({"type": "ready"}));
    let prints: Vec<&Value> = said.iter().filter(|m| m["type"] == "print").collect();
    assert_eq!(prints.len(), 1, "one document, one print: {prints:?}");
    assert_eq!(prints[0]["format"], "json");
    let relayed: Value = serde_json::from_str(prints[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(relayed, common::json(&direct));
    assert_eq!(said.last().unwrap(), &json!({"type": "exit", "code": 0}));
    drop(stdin);
    assert!(child.wait().unwrap().success());

    // A failure: its code, and its error as the reason.
    let (mut child, mut stdin, rx) = as_plugin(tmp.path());
    say(
        &mut stdin,
        &init(&["stats", "no-such-conversation-xyz"], tmp.path()),
    );
    let said = until_exit(&rx, PATIENCE);
    let exit = said.last().unwrap();
    assert_eq!(exit["code"], 1, "{exit}");
    let reason = exit["reason"].as_str().unwrap();
    assert!(reason.contains("no conversation matches"), "{reason}");
    assert!(!reason.starts_with("jp-inspect: "), "{reason}");
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

/// What jp hands over in `init` is the configuration the command reads,
/// in place of the files (jp read them, its environment and `--cfg` on
/// top): given to the command's requests, as the same command run by hand
/// reads the files.
#[test]
fn the_configuration_jp_hands_over_is_the_one_the_command_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    let soft = |doc: &Value| doc["thresholds"]["soft"]["ratio"].as_f64();
    let direct = common::jp_inspect(&["stats", conv.to_str().unwrap(), "--json"], tmp.path());
    assert_eq!(soft(&common::json(&direct)), Some(0.6));
    let (mut child, mut stdin, rx) = as_plugin(tmp.path());
    let mut hello = init(&["stats", conv.to_str().unwrap(), "--json"], tmp.path());
    hello["config"] = json!({"conversation": {"compaction": {"auto": {"soft_ratio": 0.65}}}});
    say(&mut stdin, &hello);
    let said = until_exit(&rx, PATIENCE);
    let print = said
        .iter()
        .find(|m| m["type"] == "print")
        .expect("the document");
    let relayed: Value = serde_json::from_str(print["text"].as_str().unwrap()).unwrap();
    assert_eq!(soft(&relayed), Some(0.65), "{}", relayed["thresholds"]);
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// A document longer than the relay holds (`show --json` of a turn with a
/// 3 MB result) comes to jp as one `print`, written as it arrived: the
/// same document the command printed, whole and once.
#[test]
fn a_long_json_document_is_relayed_whole_as_it_streams() {
    use base64::Engine as _;
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    common::edit_events(&conv, |events| {
        let k = events
            .iter()
            .position(|e| e["type"] == "tool_call_response")
            .unwrap();
        let big = "line of a large result, é ✓ \"quoted\" \\ tab\t\n".repeat(80_000);
        events[k]["content"] = json!(base64::engine::general_purpose::STANDARD.encode(big));
    });
    let args = ["show", conv.to_str().unwrap(), "--json"];
    let direct = common::jp_inspect(&args, tmp.path());
    assert!(direct.status.success());
    assert!(
        direct.stdout.len() > 2 << 20,
        "{} bytes",
        direct.stdout.len()
    );
    let (mut child, mut stdin, rx) = as_plugin(tmp.path());
    say(&mut stdin, &init(&args, tmp.path()));
    let said = until_exit(&rx, PATIENCE);
    let prints: Vec<&Value> = said.iter().filter(|m| m["type"] == "print").collect();
    assert_eq!(prints.len(), 1, "one document, one print");
    assert_eq!(prints[0]["format"], "json");
    assert!(
        prints[0]["text"].as_str().unwrap().as_bytes() == direct.stdout.as_slice(),
        "the relayed text is not the document printed"
    );
    assert_eq!(said.last().unwrap(), &json!({"type": "exit", "code": 0}));
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// A workspace with the demo, for a `watch` that runs until stopped.
fn watching(tmp: &Path) -> (Child, ChildStdin, mpsc::Receiver<Value>) {
    common::demo_copy(tmp);
    let (child, mut stdin, rx) = as_plugin(tmp);
    say(
        &mut stdin,
        &init(&["watch", "--workspace", tmp.to_str().unwrap()], tmp),
    );
    loop {
        let m = rx.recv_timeout(PATIENCE).expect("watch to start");
        if m["type"] == "print" && m["text"].as_str().unwrap_or("").contains("watching") {
            break;
        }
    }
    (child, stdin, rx)
}

#[test]
fn shutdown_stops_a_watch_in_good_time_with_an_exit() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut child, mut stdin, rx) = watching(tmp.path());
    let start = Instant::now();
    say(&mut stdin, &json!({"type": "shutdown"}));
    // jp kills a plugin that outlives its shutdown by 5 s; here the exit
    // it says is the proof it ended by itself (the time is only said).
    let said = until_exit(&rx, PATIENCE);
    eprintln!("shutdown to exit: {:?}", start.elapsed());
    assert_eq!(said.last().unwrap()["code"], 0, "{said:?}");
    assert!(child.wait().unwrap().success());
}

#[test]
fn the_end_of_jps_pipe_ends_jp_inspect() {
    let tmp = tempfile::tempdir().unwrap();
    let (child, stdin, _rx) = watching(tmp.path());
    let bridge = child.id();
    let inner = children_of(bridge);
    assert_eq!(
        inner.len(),
        1,
        "the command runs as one child of the bridge"
    );
    drop(stdin);
    gone(&[bridge, inner[0]], "the command outlived jp's pipe");
    drop(child);
}

#[test]
fn a_killed_bridge_takes_its_command_with_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut child, _stdin, _rx) = watching(tmp.path());
    let inner = children_of(child.id());
    child.kill().unwrap();
    child.wait().unwrap();
    gone(&[inner[0]], "the command outlived its bridge");
}

#[test]
fn with_no_message_it_goes_on_as_typed() {
    // A pipe that stays open and silent: after the short wait, the usual
    // answer (here: no workspace).
    let tmp = tempfile::tempdir().unwrap();
    let (mut child, stdin, _rx) = as_plugin(tmp.path());
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < PATIENCE, "it waited for ever");
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(stdin);
    // The usual answer, as typed: no workspace here.
    assert_eq!(status.code(), Some(1));
}

// --- beside the real jp ---------------------------------------------------

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn jp_help_lists_jp_inspect_in_good_time() {
    let Some(jp) = Jp::new("jp_help_lists_jp_inspect_in_good_time", 0, "") else {
        return;
    };
    // jp lists a plugin only when its describe answers while jp scans
    // PATH; on a loaded machine one scan can miss it, so up to three are
    // asked (the time is said, not bounded: that is the benchmarks' job).
    let mut seen = String::new();
    for _ in 0..3 {
        let start = Instant::now();
        let mut pty = Pty::spawn(jp.jp(&["-h"]), 120, 40);
        let status = pty.wait_exit(PATIENCE).expect("jp -h ended");
        eprintln!("jp -h with jp-inspect on PATH: {:?}", start.elapsed());
        assert!(status.success());
        let text = pty.text();
        if let Some(line) = text.lines().find(|l| l.trim_start().starts_with("inspect")) {
            assert!(line.contains("Inspect a conversation"), "{line}");
            return;
        }
        seen = text;
    }
    panic!("no inspect in jp -h, three times:\n{seen}");
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn jp_inspect_stats_prints_what_jp_inspect_prints_itself() {
    let Some(jp) = Jp::new(
        "jp_inspect_stats_prints_what_jp_inspect_prints_itself",
        0,
        "",
    ) else {
        return;
    };
    let id = jp.new_conversation("hello");
    jp.query(&id, "and then?");
    let via_jp = jp
        .jp(&["inspect", "stats", &id, "--json"])
        .output()
        .unwrap();
    let direct = jp.jp_inspect(&["stats", &id, "--json"]).output().unwrap();
    assert!(via_jp.status.success(), "{}", common::stderr(&via_jp));
    assert!(direct.status.success(), "{}", common::stderr(&direct));
    assert_eq!(common::json(&via_jp), common::json(&direct));
    assert_eq!(common::json(&direct)["turn_count"], 2);
    // An error comes back as jp's error, with jp-inspect's code.
    let bad = jp.jp(&["inspect", "stats", "jp-c1"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let said = String::from_utf8_lossy(&bad.stdout) + String::from_utf8_lossy(&bad.stderr);
    assert!(said.contains("no conversation matches"), "{said}");
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn the_inspector_under_jp_takes_the_terminal_and_gives_it_back() {
    let Some(jp) = Jp::new(
        "the_inspector_under_jp_takes_the_terminal_and_gives_it_back",
        0,
        "",
    ) else {
        return;
    };
    let id = jp.new_conversation("hello");
    let start = Instant::now();
    let mut pty = Pty::spawn(jp.jp(&["inspect", &id]), 100, 30);
    let first = pty
        .wait_for("projected view", PATIENCE)
        .unwrap_or_else(|| panic!("no inspector:\n{}", pty.text()));
    eprintln!(
        "jp inspect: first frame after {first:?} ({:?} with the spawn)",
        start.elapsed()
    );
    // Keys reach it: the help opens.
    pty.send(b"?");
    assert!(pty.wait_for("The panes", PATIENCE).is_some(), "no help");
    pty.send(b"q");
    pty.send(b"q");
    let status = pty.wait_exit(PATIENCE).expect("q ends it");
    assert!(status.success(), "{status:?}");
    let text = pty.text();
    assert!(text.contains("\x1b[?1049l"), "the main screen is back");
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn ctrl_c_stops_jp_inspect_watch_in_good_time() {
    let Some(jp) = Jp::new("ctrl_c_stops_jp_inspect_watch_in_good_time", 0, "") else {
        return;
    };
    jp.new_conversation("hello");
    let mut pty = Pty::spawn(jp.jp(&["inspect", "watch"]), 100, 30);
    pty.wait_for("watching", PATIENCE)
        .unwrap_or_else(|| panic!("watch did not start:\n{}", pty.text()));
    let start = Instant::now();
    pty.send(b"\x03");
    let status = pty.wait_exit(PATIENCE).expect("Ctrl-C ends it");
    eprintln!("jp inspect watch: Ctrl-C to exit {:?}", start.elapsed());
    // jp kills what outlives its shutdown by 5 s: a success is jp-inspect
    // ending by itself.
    assert!(status.success(), "{status:?}\n{}", pty.text());
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn killing_jp_ends_jp_inspect_in_good_time() {
    let Some(jp) = Jp::new("killing_jp_ends_jp_inspect_in_good_time", 0, "") else {
        return;
    };
    jp.new_conversation("hello");
    let mut host = Reaped(
        jp.jp(&["inspect", "watch"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let host_pid = host.0.id();
    let start = Instant::now();
    let (bridge, inner) = loop {
        let bridges = children_of(host_pid);
        if let Some(&b) = bridges.first()
            && let Some(&i) = children_of(b).first()
        {
            break (b, i);
        }
        assert!(start.elapsed() < PATIENCE, "no jp-inspect");
        std::thread::sleep(Duration::from_millis(20));
    };
    host.0.kill().unwrap();
    host.0.wait().unwrap();
    let start = Instant::now();
    gone(&[bridge, inner], "jp-inspect outlived the jp that ran it");
    eprintln!("jp killed: jp-inspect gone after {:?}", start.elapsed());
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn watch_beside_a_real_query_compacts_after_jps_lock_and_jp_sends_it() {
    let auto = "[plugins.command.inspect.options.auto]\nenabled = true\nmode = \"single\"\n\
                min_turns = 2\ntrigger_ratio = 0.3\n\
                [plugins.command.inspect.options.auto.rule]\nkeep_first = 0\nkeep_last = 1\n\
                [plugins.command.inspect.options.auto.rule.summary]\n";
    let Some(jp) = Jp::new(
        "watch_beside_a_real_query_compacts_after_jps_lock_and_jp_sends_it",
        2,
        auto,
    ) else {
        return;
    };
    // Turns long enough that a summary of them is shorter than they are
    // (one that isn't would save nothing, and is not written).
    let opening = format!(
        "a first question about the parser, in some detail please. {}",
        "more context about the parser and the failing case. ".repeat(40)
    );
    let id = jp.new_conversation(&opening);
    jp.query(
        &id,
        &format!(
            "a second question about the parser and its tests, please. {}",
            "the tests fail in the following way. ".repeat(40)
        ),
    );
    let mut watch = Reaped(
        jp.jp_inspect(&["watch", "--window", "1500", "-v"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let lines = BufReader::new(watch.0.stdout.take().unwrap()).lines();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in lines.map_while(Result::ok) {
            let _ = tx.send((Instant::now(), l));
        }
    });
    let (_, first) = rx.recv_timeout(PATIENCE).unwrap();
    assert!(first.contains("watching"), "{first}");
    jp.query(&id, "a third question, about the parser's errors, please");
    let released = Instant::now();
    // -v says why nothing fired at a boundary; the firing is the line that
    // names a range of turns.
    let (fired_at, fired) = loop {
        let (at, line) = rx.recv_timeout(PATIENCE).expect("watch fired");
        // (and says what it read at the release).
        if !line.contains("skipped") && !line.contains(" read: ") {
            break (at, line);
        }
        eprintln!("watch: {line}");
    };
    assert!(fired.contains(&id) && fired.contains("turns"), "{fired}");
    assert!(fired_at >= released, "fired while jp held its lock");
    jp.query(&id, "and a fourth");
    let last = jp.chat_requests().pop().unwrap();
    let sent: Vec<&str> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(
        sent.contains(&"[Summary of previous conversation]"),
        "{sent:?}"
    );
    // The summarised turn itself is no longer sent.
    assert!(!sent.contains(&opening.as_str()), "{sent:?}");
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn one_conversation_in_two_copies_is_one_conversation() {
    let Some(jp) = Jp::new("one_conversation_in_two_copies_is_one_conversation", 4, "") else {
        return;
    };
    let id = jp.new_conversation("hello");
    let silo = jp.silo();
    let user = jp.copy_in(&silo, &id).expect("jp's user-local copy");
    let workspace = jp
        .copy_in(&jp.ws.join(".jp"), &id)
        .expect("the workspace copy");

    let stats = jp.jp_inspect(&["stats", &id, "--json"]).output().unwrap();
    assert!(stats.status.success(), "{}", common::stderr(&stats));
    let list = jp.jp_inspect(&["list", "--json"]).output().unwrap();
    let rows = common::json(&list);
    let rows: Vec<&Value> = rows
        .as_array()
        .or_else(|| rows["conversations"].as_array())
        .unwrap()
        .iter()
        .filter(|r| r["id"] == id.as_str())
        .collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0]["other_copy"].is_string(), "{}", rows[0]);

    // jp holds its lock (in the silo) for the whole of a query. The lock
    // file alone is no sign it is held yet (jp names itself in it before
    // taking the flock): wait for the query to reach the stub.
    let asked = jp.chat_requests().len();
    let mut query = Reaped(
        jp.jp(&["query", &format!("--id={id}"), "a slow one"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let lock = silo.join(format!("locks/{id}.lock"));
    let start = Instant::now();
    while !(fs::read_to_string(&lock).is_ok_and(|t| t.contains("pid"))
        && jp.chat_requests().len() > asked)
    {
        assert!(start.elapsed() < PATIENCE, "jp took no lock");
        std::thread::sleep(Duration::from_millis(20));
    }
    let refused = jp.jp_inspect(&["compact", &id, "s:..-1"]).output().unwrap();
    assert!(!refused.status.success(), "compacted under jp's lock");
    assert!(
        common::stderr(&refused).contains("lock"),
        "{}",
        common::stderr(&refused)
    );
    assert!(query.0.wait().unwrap().success());

    let done = jp.jp_inspect(&["compact", &id, "s:..-1"]).output().unwrap();
    assert!(done.status.success(), "{}", common::stderr(&done));
    let a = fs::read(user.join("events.json")).unwrap();
    let b = fs::read(workspace.join("events.json")).unwrap();
    assert_eq!(a, b, "both copies hold the same events");
    assert!(String::from_utf8_lossy(&a).contains("\"compaction\""));
    // And jp reads the compaction back: what it prints of the projected
    // conversation is the summary jp-inspect wrote.
    let events: Vec<Value> = serde_json::from_slice(&a).unwrap();
    let summary = events
        .iter()
        .rev()
        .find(|e| e["type"] == "compaction")
        .and_then(|c| c["summary"]["summary"].as_str())
        .expect("a summary written")
        .to_string();
    let printed = jp
        .jp(&["conversation", "print", &id, "--compacted"])
        .output()
        .unwrap();
    assert!(printed.status.success(), "{}", common::stderr(&printed));
    let shown = String::from_utf8_lossy(&printed.stdout);
    let first_line = summary.lines().next().unwrap();
    assert!(
        shown.contains(first_line),
        "jp prints no {first_line:?}: {shown}"
    );
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn jp_and_jp_inspect_read_a_workspace_laid_out_like_jps_alike() {
    let Some(jp) = Jp::new(
        "jp_and_jp_inspect_read_a_workspace_laid_out_like_jps_alike",
        0,
        "",
    ) else {
        return;
    };
    // jp's own workspace's shape: a persona and dozens of tool files that
    // `extends` reaches through globs, jp-inspect's settings where jp keeps
    // them.
    let storage = jp.ws.join(".jp");
    let ours = fs::read_to_string(storage.join("config.toml")).unwrap();
    jp_inspect::synth::write_config_tree(&storage, 64).unwrap();
    let generated = fs::read_to_string(storage.join("config.toml")).unwrap();
    // The stub's provider and the plugin's approval stay; the generated
    // model and tools are jp's own layout.
    let stub: String = ours
        .split("\n\n")
        .filter(|s| s.contains("llamacpp]") || s.contains("title.generate"))
        .collect::<Vec<_>>()
        .join("\n\n");
    fs::write(
        storage.join("config.toml"),
        format!("{generated}\n{stub}\n"),
    )
    .unwrap();
    common::copy_dir(
        &common::demo(),
        &storage
            .join("conversations")
            .join(jp_inspect::demo::DIR_NAME),
    );
    let id = "jp-c17944860430";

    let agreed = jp.jp(&["inspect", "stats", id]).output().unwrap();
    let said = String::from_utf8_lossy(&agreed.stdout).into_owned();
    assert!(agreed.status.success(), "{said}{}", common::stderr(&agreed));
    assert!(!said.contains("differ"), "{said}");

    let other = jp
        .jp(&[
            "--cfg",
            "assistant.model.id=openai/gpt-5",
            "inspect",
            "stats",
            id,
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&other.stdout).into_owned();
    assert!(other.status.success(), "{said}{}", common::stderr(&other));
    assert!(
        said.contains("differ (the model: jp's is openai/gpt-5, the files say anthropic/"),
        "{said}"
    );
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn the_inspector_under_jp_without_a_terminal_says_so() {
    let Some(jp) = Jp::new("the_inspector_under_jp_without_a_terminal_says_so", 0, "") else {
        return;
    };
    let id = jp.new_conversation("hello");
    let mut c = jp.jp(&["inspect", &id]);
    // SAFETY: setsid is async-signal-safe: no controlling terminal.
    unsafe {
        use std::os::unix::process::CommandExt;
        c.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("the inspector needs a terminal"), "{said}");
}

/// Of jp's two copies, `reset --json` names the one `stats` read, and the
/// other beside it.
#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn reset_names_the_copy_stats_read() {
    let Some(jp) = Jp::new("reset_names_the_copy_stats_read", 4, "") else {
        return;
    };
    let id = jp.new_conversation("hello");
    let compact = jp.jp_inspect(&["compact", &id, "r:1..1"]).output().unwrap();
    assert!(compact.status.success(), "{}", common::stderr(&compact));
    let stats = common::json(&jp.jp_inspect(&["stats", &id, "--json"]).output().unwrap());
    let reset = jp
        .jp_inspect(&["reset", &id, "--all", "--json"])
        .output()
        .unwrap();
    assert!(reset.status.success(), "{}", common::stderr(&reset));
    let reset = common::json(&reset);
    assert_eq!(
        reset["conversation"]["path"], stats["conversation"]["path"],
        "{reset}\n{stats}"
    );
    assert_eq!(
        reset["conversation"]["other_copy"], stats["conversation"]["other_copy"],
        "{reset}\n{stats}"
    );
}

/// `Y` copies the preview in force as the command that makes it: the one
/// copied from the inspector, run in a shell's words, is accepted by both
/// jp-inspect and the real jp (`--dry-run`), and plans the same turns.
#[test]
fn the_copied_command_of_a_preview_runs_in_jp_inspect_and_in_jp() {
    use crossterm::event::KeyCode;
    use jp_inspect::tui::msg::{Effect, Msg};
    // The clipboard's text, from the inspector on the demo.
    let mut h = common::harness::Harness::new(120, 36, false);
    h.char('p');
    h.typed("r+t:10..12");
    h.key(KeyCode::Enter);
    let k =
        crossterm::event::KeyEvent::new(KeyCode::Char('Y'), crossterm::event::KeyModifiers::NONE);
    let fx = jp_inspect::tui::update::update(&mut h.state, Msg::Key(k));
    let copied = fx
        .iter()
        .find_map(|e| match e {
            Effect::Copy(text) => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("Y copies: {}", h.text()));
    let mut lines = copied.lines();
    let ours = shlex::split(lines.next().unwrap()).unwrap();
    assert_eq!(
        ours,
        ["jp-inspect", "compact", "jp-c17944860430", "r+t:10..12"]
    );
    let jps = shlex::split(
        lines
            .next()
            .and_then(|l| l.strip_prefix("# or with jp itself: "))
            .expect("jp's own, in a comment"),
    )
    .unwrap();
    assert_eq!(
        jps,
        [
            "jp",
            "conversation",
            "compact",
            "jp-c17944860430",
            "--compact=r+t:10..12"
        ]
    );

    // Run, with a conversation of jp's own in place of the demo's id.
    let Some(jp) = Jp::new(
        "the_copied_command_of_a_preview_runs_in_jp_inspect_and_in_jp",
        0,
        "",
    ) else {
        return;
    };
    let id = jp.new_conversation("first");
    jp.query(&id, "second");
    jp.query(&id, "third");
    let with_id = |words: &[String]| -> Vec<String> {
        words
            .iter()
            .map(|w| w.replace("jp-c17944860430", &id))
            .chain(["--dry-run".to_string()])
            .collect()
    };
    let ours = with_id(&ours[1..]);
    let ours: Vec<&str> = ours.iter().map(String::as_str).collect();
    let out = jp.jp_inspect(&ours).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let jps = with_id(&jps[1..]);
    let jps: Vec<&str> = jps.iter().map(String::as_str).collect();
    let out = jp.jp(&jps).output().unwrap();
    assert!(out.status.success(), "jp: {}", common::stderr(&out));
}
