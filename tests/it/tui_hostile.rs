//! The inspector on what a hostile or careless workspace holds: a preview
//! that would send the conversation to a summarizer, escape sequences in
//! the conversation, impossible compactions. Driven through `update` with
//! jobs run inline, as the other TUI tests.

use crate::common;

use common::harness::Harness;
use crossterm::event::KeyCode;
use jp_inspect::core::ops::SummarizerConfig;
use jp_inspect::tui::panels::Panel;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// An OpenAI-shaped endpoint on 127.0.0.1 that counts its calls.
fn endpoint() -> (u16, Arc<AtomicUsize>) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        while let Ok(Some(req)) = server.recv_timeout(Duration::from_secs(30)) {
            counter.fetch_add(1, Ordering::SeqCst);
            let body = json!({"choices": [{"message": {"content": "what turns 10-12 did"}}]});
            let _ = req.respond(tiny_http::Response::from_string(body.to_string()));
        }
    });
    (port, hits)
}

#[test]
fn a_preview_calls_no_summarizer_until_s_is_pressed() {
    let (port, hits) = endpoint();
    let mut h = Harness::new(160, 40, false);
    h.state.settings.config.summarizer = SummarizerConfig::OpenAi {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        model: "m".into(),
        api_key_env: None,
        timeout: Duration::from_secs(10),
    };
    let before = std::fs::read(h.dir().join("events.json")).unwrap();
    h.char('p');
    h.typed("s:10..12");
    h.key(KeyCode::Enter);
    let preview = h.state.preview.clone().expect("a preview");
    let withheld = preview
        .plan
        .withheld
        .clone()
        .expect("the summary is withheld");
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "previewing sent the conversation"
    );
    let text = h.text();
    assert!(
        text.contains("S makes the summary") && text.contains(&format!("127.0.0.1:{port}")),
        "{text}"
    );
    assert!(withheld.input_chars > 1000);

    // Applying a withheld preview writes nothing and says why.
    h.char('a');
    assert_eq!(std::fs::read(h.dir().join("events.json")).unwrap(), before);
    assert!(h.text().contains("not applied"), "{}", h.text());

    // S makes it (one call), then a writes the real summary.
    h.char('S');
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    let preview = h.state.preview.clone().expect("still previewing");
    assert!(preview.plan.withheld.is_none());
    h.char('a');
    let events: Vec<Value> =
        serde_json::from_slice(&std::fs::read(h.dir().join("events.json")).unwrap()).unwrap();
    let last = events.last().unwrap();
    assert_eq!(last["summary"]["summary"], "what turns 10-12 did");
}

#[test]
fn escape_sequences_are_drawn_not_obeyed() {
    let mut h = Harness::prepared(120, 36, false, |dir| {
        common::edit_events(dir, |ev| {
            let first = ev.iter_mut().find(|e| e["type"] == "chat_request").unwrap();
            first["content"] = json!("\u{1b}]0;pwned\u{7}hello\u{1b}[2J world");
        })
    });
    // The first request's row, then its detail.
    h.char('j');
    h.char('j');
    let text = h.text();
    assert!(text.contains("␛]0;pwned␇hello"), "{text}");
    h.key(KeyCode::Enter);
    let Some(Panel::Detail(d)) = &h.state.panel else {
        panic!("no detail view");
    };
    let body: String = d
        .lines
        .iter()
        .flat_map(|l| &l.spans)
        .map(|s| s.content.as_ref())
        .collect();
    assert!(body.contains("␛[2J"), "{body}");
    assert!(!body.contains('\u{1b}'), "{body}");
}

#[test]
fn an_endless_compaction_is_marked_in_the_list_and_detail() {
    let h = Harness::prepared(160, 40, false, |dir| {
        common::edit_events(dir, |ev| {
            ev.push(json!({
                "type": "compaction", "timestamp": "2026-11-12 14:50:40.000000",
                "from_turn": 3, "to_turn": u64::MAX, "reasoning": "strip",
            }))
        })
    });
    let rows = &h.state.inspection.as_ref().unwrap().compactions;
    assert_eq!(
        rows.last().unwrap().warning,
        Some("covers every future turn as well: its range runs past the last turn")
    );
    assert!(
        h.text().contains("⚠ covers every future turn"),
        "{}",
        h.text()
    );
}

/// `A` beside a real jp: a second process takes jp's lock as jp does
/// (flock, its pid in the file), renames the new events.json into place,
/// and only then lets go, deleting the lock file. The file event comes
/// while the lock is held; automatic compaction must still fire once jp
/// has let go, not wait for a change that never comes.
#[test]
fn a_fires_after_jp_lets_go_of_its_lock() {
    let mut h = Harness::new(160, 40, false);
    h.set_window("64k");
    h.char('A');
    assert!(h.state.settings.auto_run);
    let before = h.compactions_on_disk().len();

    let dir = h.dir().to_path_buf();
    let id = jp_inspect::core::ops::jp_files::id_of_dir(&dir).unwrap();
    let (lock, _) = jp_inspect::core::ops::jp_files::lock_paths(&dir, id);
    let mut events: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("events.json")).unwrap()).unwrap();
    events.push(json!({"timestamp": "2026-11-13 09:00:00.0", "type": "turn_start"}));
    events.push(
        json!({"timestamp": "2026-11-13 09:00:01.0", "type": "chat_request",
                       "content": "Cut the release notes. ".repeat(300)}),
    );
    std::fs::write(
        dir.join("next.json"),
        serde_json::to_string_pretty(&events).unwrap() + "\n",
    )
    .unwrap();
    // jp: lock, write its pid, rename the file into place, say so, wait to
    // be told, then close and delete the lock file.
    let script = r#"
import fcntl, json, os, sys
lock, d = sys.argv[1], sys.argv[2]
os.makedirs(os.path.dirname(lock), exist_ok=True)
f = open(lock, "a+")
fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
f.truncate(0); f.write(json.dumps({"pid": os.getpid(), "acquired_at": "now"})); f.flush()
os.rename(os.path.join(d, "next.json"), os.path.join(d, "events.json"))
print("written", flush=True)
sys.stdin.readline()
f.close()
os.remove(lock)
"#;
    let mut jp = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&lock)
        .arg(&dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 plays jp");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(jp.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "written");

    // The file changed while jp holds its lock: nothing is written yet.
    h.act(jp_inspect::tui::msg::Msg::FilesChanged);
    assert_eq!(h.state.inspection.as_ref().unwrap().conv.turn_count, 33);
    assert_eq!(
        h.compactions_on_disk().len(),
        before,
        "wrote under jp's lock"
    );
    assert!(h.state.settings.auto_waiting);

    // jp lets go; the next tick finds the boundary.
    {
        use std::io::Write as _;
        writeln!(jp.stdin.as_mut().unwrap()).unwrap();
    }
    assert!(jp.wait().unwrap().success());
    h.act(jp_inspect::tui::msg::Msg::Tick);
    let on_disk = h.compactions_on_disk();
    assert!(on_disk.len() > before, "A never fired after jp let go");
    assert!(!h.state.settings.auto_waiting);
    let (text, _) = h.state.status.message.clone().unwrap();
    assert!(text.starts_with("automatic compaction fired:"), "{text}");
}

/// A control character or bidirectional mark in a drawn cell.
fn obeyed(h: &Harness) -> Option<(u16, u16, String)> {
    let term = h.screen();
    let buf = term.backend().buffer();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            let s = buf[(x, y)].symbol();
            if s.chars().any(|c| {
                c.is_control()
                    || matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
            }) {
                return Some((x, y, s.escape_unicode().to_string()));
            }
        }
    }
    None
}

/// Every view, drawn with hostile tool names and texts, holds no
/// character a terminal would obey.
#[test]
fn every_view_draws_hostile_names_as_visible_text() {
    let evil = "ev\u{1b}]0;pwned\u{7}il\u{9b}2J\u{202e}\u{61c}";
    for (w, hgt) in [(80, 24), (200, 50)] {
        let mut h = Harness::prepared(w, hgt, true, |dir| {
            common::edit_events(dir, |ev| {
                for e in ev.iter_mut() {
                    if e["type"] == "tool_call_request" {
                        e["name"] = json!(format!("{evil}{}", e["name"].as_str().unwrap()));
                    }
                    if e["type"] == "chat_request" {
                        e["content"] = json!(format!("{evil} asked"));
                    }
                }
            })
        });
        let check = |h: &mut Harness, keys: &[&str], what: &str| {
            for k in keys {
                match *k {
                    "Enter" => h.key(KeyCode::Enter),
                    "Esc" => h.key(KeyCode::Esc),
                    k => h.typed(k),
                }
            }
            if let Some((x, y, s)) = obeyed(h) {
                panic!("{what} at {w}x{hgt}: {s} at ({x}, {y})\n{}", h.text());
            }
        };
        check(&mut h, &[], "the panes");
        check(&mut h, &["jjjjj", "Enter"], "the detail");
        check(&mut h, &["Esc", "T"], "the tools view");
        check(&mut h, &["a"], "the hint question");
        check(&mut h, &["n", "j"], "the next tool");
        check(&mut h, &["Enter"], "a tool's calls");
        check(&mut h, &["Esc", "Esc", "L"], "the largest items");
        check(&mut h, &["Esc", "s"], "the simulation");
        check(&mut h, &["Esc", "?"], "the help");
        check(&mut h, &["Esc", "p", "s:2..4", "Enter"], "a preview");
    }
}
