//! `models --refresh` and `count` against real HTTP servers on 127.0.0.1
//! in each provider's documented shape: success, pagination, the
//! provider's own errors (401, 429, 529), a timeout, a model the provider
//! doesn't list; and nothing kept of a failure. The endpoint and key come
//! from the user's own jp config only.

use crate::common;

use common::server::{Reply, Seen, Server};
use common::{demo_copy, stderr};
use serde_json::{Value, json};
use std::fs;
use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

const ID: &str = "jp-c17944860430";

struct Setup {
    tmp: tempfile::TempDir,
}

impl Setup {
    /// The demo in a workspace, a user config pointing `providers` at the
    /// given servers (with the key variable `TEST_KEY`), an empty data dir.
    fn new(servers: &[(&str, &Server)]) -> Setup {
        let urls: Vec<(&str, String)> = servers.iter().map(|(p, s)| (*p, s.url())).collect();
        let urls: Vec<(&str, &str)> = urls.iter().map(|(p, u)| (*p, u.as_str())).collect();
        Setup::with_urls(&urls)
    }

    /// [`Setup::new`] with each provider at the address given.
    fn with_urls(servers: &[(&str, &str)]) -> Setup {
        let tmp = tempfile::tempdir().unwrap();
        demo_copy(tmp.path());
        let mut cfg = String::new();
        for (provider, url) in servers {
            let base = match *provider {
                "google" => format!("{url}/v1beta"),
                _ => url.to_string(),
            };
            cfg.push_str(&format!(
                "[providers.llm.{provider}]\nbase_url = \"{base}\"\napi_key_env = \"TEST_KEY\"\n"
            ));
        }
        fs::create_dir_all(tmp.path().join("xdg/jp")).unwrap();
        fs::write(tmp.path().join("xdg/jp/config.toml"), cfg).unwrap();
        Setup { tmp }
    }

    fn data(&self) -> PathBuf {
        self.tmp.path().join("data")
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn command(&self, args: &[&str]) -> std::process::Command {
        let mut c = common::binary();
        c.args(args)
            .current_dir(self.tmp.path())
            .env("XDG_CONFIG_HOME", self.tmp.path().join("xdg"))
            .env_remove("JP_GLOBAL_CONFIG_DIR")
            .env_remove("JP_GLOBAL_CONFIG_FILE")
            .env("JP_USER_DATA_DIR", self.tmp.path().join("no-user-data"))
            .env("JP_INSPECT_DATA_DIR", self.data())
            .env("TEST_KEY", "sk-test-key");
        c
    }

    fn models_cache(&self) -> Option<Value> {
        fs::read(self.data().join("models.json"))
            .ok()
            .map(|b| serde_json::from_slice(&b).unwrap())
    }
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        stderr(out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn anthropic_model(id: &str, window: u64, output: u64) -> Value {
    json!({"type": "model", "id": id, "display_name": id, "created_at": "2026-01-01T00:00:00Z",
           "max_input_tokens": window, "max_tokens": output})
}

/// Anthropic's models endpoint in two pages.
fn anthropic_pages(s: &Seen) -> Reply {
    if s.url.contains("after_id=claude-first-page-last") {
        Reply::json(
            200,
            json!({
                "data": [anthropic_model("claude-opus-4-5-20251101", 123_456, 7_000)],
                "has_more": false, "first_id": "claude-opus-4-5-20251101", "last_id": "claude-opus-4-5-20251101"
            }),
        )
    } else {
        Reply::json(
            200,
            json!({
                "data": [anthropic_model("claude-opus-4-8", 1_000_000, 128_000),
                         anthropic_model("claude-first-page-last", 200_000, 64_000)],
                "has_more": true, "first_id": "claude-opus-4-8", "last_id": "claude-first-page-last"
            }),
        )
    }
}

#[test]
fn anthropic_models_are_paged_kept_and_win_over_the_table() {
    let server = Server::start(anthropic_pages);
    let s = Setup::new(&[("anthropic", &server)]);
    let out = s.run(&["models", "--refresh", "--provider", "anthropic"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let seen = server.requests();
    assert_eq!(seen.len(), 2, "{seen:?}");
    for r in &seen {
        assert_eq!(r.method, "GET");
        assert!(r.url.starts_with("/v1/models"), "{}", r.url);
        assert_eq!(r.header("x-api-key"), Some("sk-test-key"));
        assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    }
    assert!(seen[1].url.contains("after_id=claude-first-page-last"));
    let cache = s.models_cache().expect("kept");
    let models = cache["providers"]["anthropic"]["models"]
        .as_array()
        .unwrap();
    assert_eq!(models.len(), 3);
    assert!(
        cache["providers"]["anthropic"]["fetched_at"]
            .as_str()
            .unwrap()
            .starts_with("20")
    );

    // The demo's claude-opus-4-5 is the dated release the provider lists.
    let v = json_of(&s.run(&["stats", ID, "--json"]));
    assert_eq!(v["window"]["source"], "provider", "{:#}", v["window"]);
    assert_eq!(v["window"]["tokens"], 123_456);
    assert_eq!(v["window"]["provider"], "anthropic");
    // The demo configures max_tokens, which jp sends, so that stays.
    assert_eq!(v["window"]["reserve"], 16_000);
    let text = String::from_utf8_lossy(&s.run(&["stats", ID]).stdout).to_string();
    assert!(
        text.contains("as anthropic's models endpoint listed it"),
        "{text}"
    );
    // `models` without --refresh lists what is known, from where, offline.
    let listed = String::from_utf8_lossy(&s.run(&["models"]).stdout).to_string();
    assert!(listed.contains("claude-opus-4-5-20251101") && listed.contains("bundled table"));
    assert_eq!(
        server.requests().len(),
        2,
        "only --refresh calls the provider"
    );
}

#[test]
fn a_model_the_provider_does_not_list_keeps_the_tables_window() {
    let server = Server::start(|_| {
        Reply::json(
            200,
            json!({"data": [anthropic_model("claude-opus-4-8", 1_000_000, 128_000)],
                                 "has_more": false, "last_id": "claude-opus-4-8"}),
        )
    });
    let s = Setup::new(&[("anthropic", &server)]);
    assert!(s.run(&["models", "--refresh"]).status.success());
    let v = json_of(&s.run(&["stats", ID, "--json"]));
    assert_eq!(v["window"]["source"], "table");
    assert_eq!(v["window"]["tokens"], 200_000);
}

#[test]
fn google_and_openai_listings() {
    let google = Server::start(|s| {
        assert_eq!(s.header("x-goog-api-key"), Some("sk-test-key"));
        if s.url.contains("pageToken=next") {
            Reply::json(
                200,
                json!({"models": [
                {"name": "models/gemini-2.5-pro", "inputTokenLimit": 1_048_576, "outputTokenLimit": 65_536}]}),
            )
        } else {
            Reply::json(
                200,
                json!({"models": [
                {"name": "models/gemini-3-flash-preview", "inputTokenLimit": 1_048_576, "outputTokenLimit": 65_536}],
                "nextPageToken": "next"}),
            )
        }
    });
    let openai = Server::start(|s| {
        assert_eq!(s.header("authorization"), Some("Bearer sk-test-key"));
        Reply::json(
            200,
            json!({"object": "list", "data": [{"id": "gpt-5", "object": "model"}]}),
        )
    });
    let s = Setup::new(&[("google", &google), ("openai", &openai)]);
    let out = s.run(&[
        "models",
        "--refresh",
        "--provider",
        "google,openai",
        "--json",
    ]);
    let v = json_of(&out);
    let ids: Vec<&str> = v["providers"]["google"]["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["gemini-3-flash-preview", "gemini-2.5-pro"]);
    assert!(google.requests()[0].url.starts_with("/v1beta/models"));
    assert_eq!(v["providers"]["openai"]["models"][0]["id"], "gpt-5");
    assert_eq!(v["providers"]["openai"]["models"][0]["window"], Value::Null);
}

/// An earlier cache, to see that a failure leaves it as it was.
fn with_old_cache(s: &Setup) -> Vec<u8> {
    fs::create_dir_all(s.data()).unwrap();
    let old = json!({"providers": {"anthropic": {"fetched_at": "2026-11-01T00:00:00Z",
        "base_url": "http://old", "models": [{"id": "claude-opus-4-5", "window": 111_111, "output": 1}]}}});
    let bytes = serde_json::to_vec_pretty(&old).unwrap();
    fs::write(s.data().join("models.json"), &bytes).unwrap();
    bytes
}

#[test]
fn provider_errors_are_said_in_its_words_and_nothing_is_kept() {
    for (status, body, words) in [
        (
            401,
            json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
            "HTTP 401: invalid x-api-key (authentication_error)",
        ),
        (
            429,
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "Number of requests has exceeded your rate limit"}}),
            "HTTP 429: Number of requests has exceeded your rate limit (rate_limit_error)",
        ),
        (
            529,
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
            "HTTP 529: Overloaded (overloaded_error)",
        ),
    ] {
        let server = Server::start(move |_| Reply::json(status, body.clone()));
        let s = Setup::new(&[("anthropic", &server)]);
        let before = with_old_cache(&s);
        let out = s.run(&["models", "--refresh", "--provider", "anthropic"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains(words), "{}", stderr(&out));
        assert!(
            !stderr(&out).contains("sk-test-key"),
            "the key is never printed"
        );
        assert_eq!(fs::read(s.data().join("models.json")).unwrap(), before);
        // The earlier answer still stands for the window.
        let v = json_of(&s.run(&["stats", ID, "--json"]));
        assert_eq!(v["window"]["tokens"], 111_111);
    }
}

#[test]
fn a_provider_that_does_not_answer_in_time_is_an_error() {
    // A provider that takes the request and never answers: only the
    // client's own timeout can end the call.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let held = std::thread::spawn(move || {
        let mut open = Vec::new();
        for c in silent.incoming().flatten() {
            open.push(c);
        }
    });
    let server_url = format!("http://127.0.0.1:{port}");
    let s = Setup::with_urls(&[("anthropic", server_url.as_str())]);
    let mut child = s
        .command(&[
            "models",
            "--refresh",
            "--provider",
            "anthropic",
            "--timeout",
            "300ms",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A liveness bound: without its timeout the call would wait for ever.
    use wait_timeout::ChildExt;
    let status = child
        .wait_timeout(Duration::from_secs(120))
        .unwrap()
        .unwrap_or_else(|| {
            let _ = child.kill();
            panic!("the call never timed out")
        });
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("request failed"), "{err}");
    assert!(s.models_cache().is_none());
    drop(held);
}

#[test]
fn a_missing_key_skips_the_provider_unless_it_was_named() {
    let s = Setup::new(&[]);
    let out = common::binary()
        .args(["models", "--refresh", "--provider", "anthropic"])
        .current_dir(s.tmp.path())
        .env("XDG_CONFIG_HOME", s.tmp.path().join("xdg"))
        .env("JP_INSPECT_DATA_DIR", s.data())
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("`ANTHROPIC_API_KEY` is not set"),
        "{}",
        stderr(&out)
    );
    assert!(s.models_cache().is_none());
}

#[test]
fn a_workspace_cannot_redirect_the_users_key() {
    let users = Server::start(anthropic_pages);
    let planted = Server::start(anthropic_pages);
    let s = Setup::new(&[("anthropic", &users)]);
    fs::write(
        s.tmp.path().join(".jp/config.toml"),
        format!(
            "[providers.llm.anthropic]\nbase_url = \"{}\"\napi_key_env = \"TEST_KEY\"\n",
            planted.url()
        ),
    )
    .unwrap();
    assert!(
        s.run(&["models", "--refresh", "--provider", "anthropic"])
            .status
            .success()
    );
    assert!(!users.requests().is_empty());
    assert!(
        planted.requests().is_empty(),
        "the workspace's endpoint was called"
    );
}

/// Anthropic's count_tokens: 700 for the events, 200 more with the system
/// prompt, 100 more with the tools.
fn anthropic_counts(s: &Seen) -> Reply {
    assert_eq!(s.url, "/v1/messages/count_tokens");
    let body = s.json();
    assert_eq!(body["model"], "claude-opus-4-5");
    assert_eq!(body["messages"][0]["role"], "user");
    let mut n = 700;
    if body.get("system").is_some() {
        n += 200;
    }
    if body.get("tools").is_some() {
        assert!(body["tools"][0]["input_schema"]["type"] == "object");
        n += 100;
    }
    Reply::json(200, json!({"input_tokens": n}))
}

#[test]
fn count_measures_each_part_keeps_the_ratio_and_stats_shows_it() {
    let server = Server::start(anthropic_counts);
    let s = Setup::new(&[("anthropic", &server)]);
    let v = json_of(&s.run(&["count", ID, "--json"]));
    assert_eq!(
        v["measured"],
        json!({"total": 1000, "system_prompt": 200, "tools": 100, "events": 700})
    );
    let estimated = v["estimated"]["total"].as_u64().unwrap();
    assert_eq!(
        estimated,
        json_of(&s.run(&["stats", ID, "--json"]))["context"]["tokens"]
            .as_u64()
            .unwrap(),
        "count estimates the same request stats does"
    );
    let ratio = v["ratio"].as_f64().unwrap();
    assert!((ratio - 1000.0 / estimated as f64).abs() < 1e-9);
    let seen = server.requests();
    assert_eq!(seen.len(), 3);
    assert!(
        seen.iter()
            .all(|r| r.header("x-api-key") == Some("sk-test-key"))
    );
    // The messages alternate and every tool result answers a tool use.
    let body = seen[0].json();
    let msgs = body["messages"].as_array().unwrap();
    assert!(msgs.windows(2).all(|w| w[0]["role"] != w[1]["role"]));

    let stats = json_of(&s.run(&["stats", ID, "--json"]));
    assert_eq!(stats["estimate"]["measured"]["measured"], 1000);
    assert_eq!(
        stats["estimate"]["applied"],
        Value::Null,
        "not applied unless asked"
    );
    let text = String::from_utf8_lossy(&s.run(&["stats", ID]).stdout).to_string();
    assert!(
        text.contains(&format!("measured {ratio:.2}× the estimate")),
        "{text}"
    );

    // `estimate = "measured"`: the thresholds account for the ratio.
    let cfg = s.tmp.path().join("xdg/jp/config.toml");
    let mut text = fs::read_to_string(&cfg).unwrap();
    text.push_str("[conversation.compaction.auto]\nestimate = \"measured\"\n");
    fs::write(&cfg, text).unwrap();
    let measured = json_of(&s.run(&["stats", ID, "--json"]));
    assert_eq!(measured["estimate"]["applied"].as_f64(), Some(ratio));
    let usable = |v: &Value| v["window"]["usable"].as_u64().unwrap() as f64;
    assert!((usable(&measured) - usable(&stats) / ratio).abs() <= 1.0);

    // A cloned workspace reusing the id is another conversation: it neither
    // sees the measurement nor feeds one of its own into this one.
    let clone = s.tmp.path().join("clone");
    demo_copy(&clone);
    let there = common::binary()
        .args(["stats", ID, "--json"])
        .current_dir(&clone)
        .env("XDG_CONFIG_HOME", s.tmp.path().join("xdg"))
        .env_remove("JP_GLOBAL_CONFIG_DIR")
        .env_remove("JP_GLOBAL_CONFIG_FILE")
        .env("JP_USER_DATA_DIR", s.tmp.path().join("no-user-data"))
        .env("JP_INSPECT_DATA_DIR", s.data())
        .output()
        .unwrap();
    let there = json_of(&there);
    assert_eq!(there["estimate"]["measured"], Value::Null, "{there:#}");
    assert_eq!(there["estimate"]["applied"], Value::Null);
}

#[test]
fn a_failed_count_keeps_nothing() {
    let server = Server::start(|_| {
        Reply::json(
            401,
            json!({"error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
        )
    });
    let s = Setup::new(&[("anthropic", &server)]);
    let out = s.run(&["count", ID]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("invalid x-api-key"),
        "{}",
        stderr(&out)
    );
    assert!(!s.data().join("measured.json").exists());
}

#[test]
fn openai_and_google_count_in_their_own_shapes() {
    let openai = Server::start(|s| {
        assert_eq!(s.url, "/v1/responses/input_tokens");
        let b = s.json();
        assert!(
            b["input"]
                .as_array()
                .unwrap()
                .iter()
                .any(|i| i["type"] == "function_call")
        );
        Reply::json(
            200,
            json!({"object": "response.input_tokens", "input_tokens": 5}),
        )
    });
    let google = Server::start(|s| {
        assert!(
            s.url
                .starts_with("/v1beta/models/gemini-2.5-pro:countTokens"),
            "{}",
            s.url
        );
        let b = s.json();
        assert!(b["generateContentRequest"]["contents"][0]["parts"].is_array());
        Reply::json(200, json!({"totalTokens": 7}))
    });
    for (model, provider, server, want) in [
        ("gpt-5", "openai", &openai, 5),
        ("gemini-2.5-pro", "google", &google, 7),
    ] {
        let s = Setup::new(&[(provider, server)]);
        let base = s
            .tmp
            .path()
            .join(".jp/conversations")
            .join(jp_inspect::demo::DIR_NAME)
            .join("base_config.json");
        let text = fs::read_to_string(&base)
            .unwrap()
            .replacen(
                "\"provider\": \"anthropic\"",
                &format!("\"provider\": \"{provider}\""),
                1,
            )
            .replacen("\"claude-opus-4-5\"", &format!("\"{model}\""), 1);
        fs::write(&base, text).unwrap();
        let v = json_of(&s.run(&["count", ID, "--json"]));
        assert_eq!(v["measured"]["total"], want, "{provider}");
    }
}

#[test]
fn offline_counts_each_kind_of_content_without_a_key() {
    let s = Setup::new(&[]);
    let v = json_of(&s.run(&["count", ID, "--offline", "--json"]));
    let parts = v["parts"].as_array().unwrap();
    let names: Vec<&str> = parts.iter().map(|p| p["part"].as_str().unwrap()).collect();
    for want in ["system prompt", "tools", "user", "tool results"] {
        assert!(names.contains(&want), "{names:?}");
    }
    for p in parts {
        let (chars, est, tok) = (
            p["chars"].as_u64().unwrap(),
            p["estimated"].as_u64().unwrap(),
            p["tokens"].as_u64().unwrap(),
        );
        // The events' parts are shares of their whole: each within a
        // token of its own estimate.
        assert!(est.abs_diff(chars / 4) <= 1, "{p}");
        assert!(tok > 0 && tok < chars, "{p}");
    }
    assert!(
        !s.data().join("measured.json").exists(),
        "offline keeps nothing"
    );
}

/// `count --at TURN` counts the request of that turn (fewer events than the
/// next request), and a turn that isn't there is a usage error.
#[test]
fn count_at_a_turn_counts_that_request() {
    let s = Setup::new(&[]);
    let total = |v: &Value| {
        v["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["estimated"].as_u64().unwrap())
            .sum::<u64>()
    };
    let next = json_of(&s.run(&["count", ID, "--offline", "--json"]));
    let early = json_of(&s.run(&["count", ID, "--offline", "--json", "--at", "3"]));
    assert!(
        total(&early) < total(&next) / 2,
        "{} vs {}",
        total(&early),
        total(&next)
    );
    for bad in ["0", "33"] {
        let out = s.run(&["count", ID, "--offline", "--at", bad]);
        assert_eq!(out.status.code(), Some(2), "--at {bad}: {}", stderr(&out));
    }
}

#[test]
fn a_model_name_never_changes_googles_url() {
    let google = Server::start(|_| Reply::json(200, json!({"totalTokens": 7})));
    for model in ["x/../../../../steal", "x?key=leak#frag", "..", "a b"] {
        let s = Setup::new(&[("google", &google)]);
        let base = s
            .tmp
            .path()
            .join(".jp/conversations")
            .join(jp_inspect::demo::DIR_NAME)
            .join("base_config.json");
        let mut config: Value = serde_json::from_slice(&fs::read(&base).unwrap()).unwrap();
        config["assistant"]["model"]["id"] = json!({"provider": "google", "name": model});
        fs::write(&base, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
        let out = s.run(&["count", ID]);
        assert_eq!(out.status.code(), Some(1), "{model}");
        assert!(
            stderr(&out).contains("not sent"),
            "{model}: {}",
            stderr(&out)
        );
    }
    assert!(
        google.requests().is_empty(),
        "{:?}",
        google.requests().len()
    );
}
