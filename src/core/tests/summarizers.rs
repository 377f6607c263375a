//! The summarizers against real parts: commands as real processes, and the
//! HTTP ones (OpenAI-compatible and Anthropic) against a real server on
//! 127.0.0.1 — success, the provider's error text, timeouts, empty answers,
//! and nothing written when a summary can't be made.

use crate::common;

use common::json;

use jp_inspect::core::model::TurnRange;
use jp_inspect::core::store::load;
use jp_inspect::core::summarize::{self, Summarizer, anthropic, command, openai};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

fn run(args: &[&str]) -> Output {
    common::run_anywhere(args)
}

fn config_file(dir: &Path, summarizer: &str) -> PathBuf {
    let path = dir.join("auto.toml");
    fs::write(
        &path,
        format!(
            "[conversation.compaction.auto]\nmode = \"staged\"\nsoft_ratio = 0.1\nhard_ratio = 0.2\n\
             [conversation.compaction.auto.summarizer]\n{summarizer}\n"
        ),
    )
    .unwrap();
    path
}

fn auto_with(dir: &Path, config: &Path) -> Output {
    run(&[
        "auto",
        dir.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--json",
    ])
}

/// The variable the summarizers under test read their key from: one cargo
/// sets for every test process, so no test sets the environment of a
/// process whose other threads read it (the tests share one binary).
const KEY_VARIABLE: &str = "CARGO_PKG_NAME";

/// The key the summarizers send: that variable's value.
fn key() -> String {
    std::env::var(KEY_VARIABLE).expect("cargo sets CARGO_PKG_NAME for its tests")
}

#[test]
fn command_summarizer_writes_its_output() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let config = config_file(
        tmp.path(),
        "kind = \"command\"\ncommand = \"grep -c '^\\\\[user\\\\]' | sed 's/^/user turns summarised: /'\"\ntimeout_secs = 20",
    );
    let v = json(&auto_with(&dir, &config));
    let summary = v["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "summary")
        .expect("a summary fired");
    let text = summary["summary"]["summary"].as_str().unwrap();
    let range = summary["to_turn"].as_u64().unwrap() - summary["from_turn"].as_u64().unwrap() + 1;
    assert_eq!(text, format!("user turns summarised: {range}"));
}

#[test]
fn failing_hanging_or_silent_commands_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let before = fs::read(dir.join("events.json")).unwrap();
    let cases = [
        (
            "command = \"echo broken >&2; exit 3\"",
            "exited with status 3: broken",
        ),
        (
            "command = \"sleep 30\"\ntimeout_secs = 1",
            "timed out after 1",
        ),
        ("command = \"cat > /dev/null\"", "printed nothing"),
    ];
    for (settings, want) in cases {
        let config = config_file(tmp.path(), &format!("kind = \"command\"\n{settings}"));
        // The timeout's own words show it fired; the time is not judged.
        let out = auto_with(&dir, &config);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{settings}: {err}");
        assert!(err.contains(want), "{settings}: {err}");
        assert_eq!(
            fs::read(dir.join("events.json")).unwrap(),
            before,
            "{settings}"
        );
    }
}

/// A chat-completions server on 127.0.0.1 that records `Authorization`.
fn server<F>(respond: F) -> (String, std::thread::JoinHandle<Vec<(String, String)>>)
where
    F: Fn(&Value) -> Option<(u16, String)> + Send + 'static,
{
    server_seeing(&["Authorization"], respond)
}

/// A model server on 127.0.0.1: answers one request with `respond(body)`
/// and records its path and the `headers` asked for (joined by " | ");
/// returns its base URL, ending in `/v1`.
fn server_seeing<F>(
    headers: &'static [&'static str],
    respond: F,
) -> (String, std::thread::JoinHandle<Vec<(String, String)>>)
where
    F: Fn(&Value) -> Option<(u16, String)> + Send + 'static,
{
    let srv = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = srv.server_addr().to_ip().unwrap().port();
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        // One request per test: answer it and stop.
        if let Ok(Some(mut req)) = srv.recv_timeout(Duration::from_secs(10)) {
            let mut body = String::new();
            req.as_reader().read_to_string(&mut body).unwrap();
            let values: Vec<String> = headers
                .iter()
                .map(|name| {
                    req.headers()
                        .iter()
                        .find(|h| h.field.equiv(name))
                        .map(|h| h.value.to_string())
                        .unwrap_or_default()
                })
                .collect();
            seen.push((req.url().to_string(), values.join(" | ")));
            let v: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            match respond(&v) {
                Some((code, text)) => {
                    let _ =
                        req.respond(tiny_http::Response::from_string(text).with_status_code(code));
                }
                // Never answer, and never close: only the client's own
                // timeout can end its call.
                None => std::mem::forget(req),
            }
        }
        seen
    });
    (format!("http://127.0.0.1:{port}/v1"), handle)
}

/// `call`'s error, from a call only its own timeout can end: waited for
/// with a liveness bound that says so, never timed.
fn timed_out(call: impl FnOnce() -> String + Send + 'static) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(call());
    });
    rx.recv_timeout(Duration::from_secs(120))
        .expect("the call never timed out")
}

fn request_of(
    conv: &jp_inspect::core::model::conversation::Conversation,
) -> summarize::Request<'_> {
    summarize::Request {
        conversation: conv,
        range: TurnRange { from: 1, to: 3 },
        instructions: "Summarise.",
    }
}

#[test]
fn openai_summarizer_against_a_local_server() {
    let (url, handle) = server(|body| {
        assert_eq!(body["model"], "tiny-model");
        assert_eq!(body["messages"][0]["role"], "system");
        // The instructions, and the range's facts as the summary's checklist.
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert!(
            system.starts_with("Summarise.\n\nThe summary must name"),
            "{system}"
        );
        assert!(system.contains("- file: src/parser.rs"), "{system}");
        let user = body["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains("## Turn 2"), "{user}");
        Some((200, r#"{"choices":[{"message":{"role":"assistant","content":"  SUMMARY FROM SERVER \n"}}]}"#.into()))
    });
    let s = openai::OpenAi {
        base_url: url,
        model: "tiny-model".into(),
        api_key_env: Some(KEY_VARIABLE.into()),
        timeout: Duration::from_secs(5),
    };
    let demo = common::demo();
    let conv = load::load(&demo).unwrap();
    let out = s.summarize(&request_of(&conv)).unwrap();
    assert_eq!(out.text, "SUMMARY FROM SERVER");
    assert!(out.input_chars > 100);
    drop(s);
    let seen = handle.join().unwrap();
    assert_eq!(
        seen,
        vec![(
            "/v1/chat/completions".to_string(),
            format!("Bearer {}", key())
        )]
    );
}

#[test]
fn openai_summarizer_errors_are_clear() {
    let demo = common::demo();
    let conv = load::load(&demo).unwrap();
    let client = |url: String, timeout| openai::OpenAi {
        base_url: url,
        model: "m".into(),
        api_key_env: None,
        timeout,
    };
    let (url, h) = server(|_| Some((500, "upstream exploded".into())));
    let e = client(url, Duration::from_secs(5))
        .summarize(&request_of(&conv))
        .unwrap_err();
    assert!(e.to_string().contains("HTTP 500: upstream exploded"), "{e}");
    h.join().unwrap();

    let (url, h) = server(|_| Some((200, r#"{"choices":[]}"#.into())));
    let e = client(url, Duration::from_secs(5))
        .summarize(&request_of(&conv))
        .unwrap_err();
    assert!(e.to_string().contains("holds no summary"), "{e}");
    h.join().unwrap();

    let (url, h) = server(|_| None);
    let e = timed_out(move || {
        let conv = load::load(&common::demo()).unwrap();
        client(url, Duration::from_secs(1))
            .summarize(&request_of(&conv))
            .unwrap_err()
            .to_string()
    });
    assert!(e.contains("request failed"), "{e}");
    h.join().unwrap();

    let e = openai::OpenAi {
        base_url: "http://127.0.0.1:9".into(),
        model: "m".into(),
        api_key_env: Some("JP_INSPECT_SURELY_UNSET_VAR".into()),
        timeout: Duration::from_secs(1),
    }
    .summarize(&request_of(&conv))
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("`JP_INSPECT_SURELY_UNSET_VAR` is not set"),
        "{e}"
    );
}

#[test]
fn openai_summarizer_through_auto_writes_the_servers_summary() {
    let (url, handle) = server(|_| {
        Some((
            200,
            r#"{"choices":[{"message":{"content":"Server summary."}}]}"#.into(),
        ))
    });
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let config = config_file(
        tmp.path(),
        &format!("kind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"local\"\ntimeout_secs = 5"),
    );
    let v = json(&auto_with(&dir, &config));
    let summary = v["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "summary")
        .unwrap();
    assert_eq!(summary["summary"]["summary"], "Server summary.");
    let written = load::load(&dir).unwrap();
    assert!(
        written
            .valid_compactions()
            .iter()
            .any(|c| c.summary.as_deref() == Some("Server summary."))
    );
    handle.join().unwrap();
}

#[test]
fn a_500_through_auto_leaves_the_file_untouched() {
    let (url, handle) = server(|_| Some((500, "no".into())));
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let before = fs::read(dir.join("events.json")).unwrap();
    let config = config_file(
        tmp.path(),
        &format!("kind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"local\"\ntimeout_secs = 5"),
    );
    let out = auto_with(&dir, &config);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("HTTP 500"));
    assert_eq!(fs::read(dir.join("events.json")).unwrap(), before);
    handle.join().unwrap();
}

#[test]
fn command_summarizer_reads_the_raw_range() {
    let demo = common::demo();
    let conv = load::load(&demo).unwrap();
    let s = command::CommandSummarizer {
        command: "cat".into(),
        timeout: Duration::from_secs(10),
        directory: None,
    };
    let out = s.summarize(&request_of(&conv)).unwrap();
    // Instructions first, then the raw turns 2..4, reasoning included.
    assert!(out.text.starts_with("Summarise."));
    assert!(out.text.contains("## Turn 2"));
    assert!(out.text.contains("## Turn 4"));
    assert!(!out.text.contains("## Turn 5"));
    assert!(out.text.contains("[assistant reasoning] Reproduce first"));
}

fn demo_conversation() -> jp_inspect::core::model::conversation::Conversation {
    load::load(&common::demo()).unwrap()
}

/// An Anthropic client of the server at `url` (which ends in `/v1`, a path
/// the Messages API adds itself).
fn claude(url: &str, key_env: &str, timeout: Duration) -> anthropic::Anthropic {
    anthropic::Anthropic {
        base_url: url.trim_end_matches("/v1").to_string(),
        model: "claude-test".into(),
        api_key_env: key_env.into(),
        max_tokens: 300,
        timeout,
    }
}

#[test]
fn anthropic_summarizer_speaks_the_messages_api() {
    let (url, handle) = server_seeing(&["x-api-key", "anthropic-version"], |body| {
        assert_eq!(body["model"], "claude-test");
        assert_eq!(body["max_tokens"], 300);
        let system = body["system"].as_str().unwrap();
        assert!(
            system.starts_with("Summarise.\n\nThe summary must name"),
            "{system}"
        );
        assert!(system.contains("- command: cargo_test"), "{system}");
        assert_eq!(body["messages"].as_array().unwrap().len(), 1);
        assert_eq!(body["messages"][0]["role"], "user");
        let user = body["messages"][0]["content"].as_str().unwrap();
        assert!(
            user.contains("## Turn 2") && !user.contains("## Turn 5"),
            "{user}"
        );
        Some((
            200,
            r#"{"id":"msg_1","type":"message","role":"assistant","stop_reason":"end_turn",
                "content":[{"type":"thinking","thinking":"not this"},
                           {"type":"text","text":"  CLAUDE SUMMARY\n"}]}"#
                .into(),
        ))
    });
    let conv = demo_conversation();
    let out = claude(&url, KEY_VARIABLE, Duration::from_secs(5))
        .summarize(&request_of(&conv))
        .unwrap();
    assert_eq!(out.text, "CLAUDE SUMMARY");
    assert!(out.input_chars > 100);
    assert_eq!(
        handle.join().unwrap(),
        vec![(
            "/v1/messages".to_string(),
            format!("{} | {}", key(), anthropic::API_VERSION)
        )]
    );
}

#[test]
fn anthropic_summarizer_errors_are_the_providers_own() {
    let key = KEY_VARIABLE;
    let conv = demo_conversation();
    let cases: [(u16, &str, &str); 5] = [
        (
            401,
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
            "HTTP 401: invalid x-api-key (authentication_error)",
        ),
        (
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            "HTTP 529: Overloaded (overloaded_error)",
        ),
        (
            500,
            "<html>bad gateway</html>",
            "HTTP 500: <html>bad gateway</html>",
        ),
        (
            200,
            r#"{"content":[],"stop_reason":"end_turn"}"#,
            "holds no summary",
        ),
        (
            200,
            r#"{"content":[{"type":"text","text":"half a sum"}],"stop_reason":"max_tokens"}"#,
            "cut off at max_tokens = 300",
        ),
    ];
    for (code, body, want) in cases {
        let (url, h) = server(move |_| Some((code, body.to_string())));
        let e = claude(&url, key, Duration::from_secs(5))
            .summarize(&request_of(&conv))
            .unwrap_err();
        assert!(e.to_string().contains(want), "{code}: {e}");
        assert!(e.to_string().starts_with("summarizer `anthropic`"), "{e}");
        h.join().unwrap();
    }

    let (url, h) = server(|_| None);
    let e = timed_out(move || {
        let conv = load::load(&common::demo()).unwrap();
        claude(&url, key, Duration::from_secs(1))
            .summarize(&request_of(&conv))
            .unwrap_err()
            .to_string()
    });
    assert!(e.contains("request failed"), "{e}");
    h.join().unwrap();

    let e = claude(
        "http://127.0.0.1:9",
        "JP_INSPECT_SURELY_UNSET_VAR",
        Duration::from_secs(1),
    )
    .summarize(&request_of(&conv))
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("`JP_INSPECT_SURELY_UNSET_VAR` is not set"),
        "{e}"
    );
}

fn anthropic_config(url: &str) -> String {
    format!(
        "kind = \"anthropic\"\nbase_url = \"{}\"\napi_key_env = \"HOME\"\n\
         model = \"claude-local\"\nmax_tokens = 111\ntimeout_secs = 5",
        url.trim_end_matches("/v1")
    )
}

#[test]
fn anthropic_summarizer_through_auto_writes_the_servers_summary() {
    let (url, handle) = server(|body| {
        assert_eq!(body["model"], "claude-local");
        assert_eq!(body["max_tokens"], 111);
        Some((
            200,
            r#"{"content":[{"type":"text","text":"Claude's summary."}],"stop_reason":"end_turn"}"#
                .into(),
        ))
    });
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let config = config_file(tmp.path(), &anthropic_config(&url));
    let v = json(&auto_with(&dir, &config));
    handle.join().unwrap();
    let written = load::load(&dir).unwrap();
    assert!(
        written
            .valid_compactions()
            .iter()
            .any(|c| c.summary.as_deref() == Some("Claude's summary.")),
        "{v:#}"
    );
}

#[test]
fn an_anthropic_error_through_auto_leaves_the_file_untouched() {
    let (url, handle) = server(|_| {
        Some((
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}"#
                .into(),
        ))
    });
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    let before = fs::read(dir.join("events.json")).unwrap();
    let config = config_file(tmp.path(), &anthropic_config(&url));
    let out = auto_with(&dir, &config);
    handle.join().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("HTTP 400: prompt is too long (invalid_request_error)"),
        "{err}"
    );
    assert_eq!(fs::read(dir.join("events.json")).unwrap(), before);
}

#[test]
fn anthropic_settings_are_checked_and_default_sensibly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    for (settings, want) in [
        (
            "kind = \"anthropic\"\nmax_tokens = 0",
            "max_tokens`: must be at least 1",
        ),
        (
            "kind = \"openai\"\nmodel = \"m\"\nmax_tokens = 5",
            "only the anthropic summarizer",
        ),
        ("kind = \"anthropic\"\nmax_tokens = \"many\"", "max_tokens"),
    ] {
        let config = config_file(tmp.path(), settings);
        let out = auto_with(&dir, &config);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{settings}: {err}");
        assert!(err.contains(want), "{settings}: {err}");
    }
}
