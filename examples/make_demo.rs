//! Writes the bundled demo conversation into `assets/demo/`.
//!
//! A realistic agentic coding session in `jp`'s current on-disk generation
//! (base_config.json + events.json): 32 turns of a person and an assistant
//! taking a small Rust CLI to its first release, with reasoning, many tool
//! calls (large outputs, errors), an inquiry, a structured response, a
//! config delta, one manual and one automatic compaction.
//!
//! Deterministic: run it again and the files come out byte-identical.
//!
//!     cargo run --example make_demo

use chrono::{DateTime, Duration, TimeZone, Utc};
use jp_inspect::core::model::compaction::{Compaction, Source};
use jp_inspect::core::ops::{self, AutoConfig, Mode, PreviewAsk, PreviewOf, View};
use jp_inspect::core::{model::encoding, model::timestamp};
use serde_json::{Value, json};
use std::fs;
use std::path::Path;

const DIR: &str = "assets/demo/17944860430-csvq-first-release";

/// Source files read in the session are this many times the line counts
/// written below; tuned so the demo sits between the staged thresholds of a
/// 200k window.
const SCALE: usize = 7;

struct Gen {
    events: Vec<Value>,
    /// Index in `events` where each turn starts.
    turn_starts: Vec<usize>,
    t: DateTime<Utc>,
    rng: u64,
    calls: usize,
    sig: usize,
}

impl Gen {
    fn rand(&mut self, n: u64) -> u64 {
        // xorshift: deterministic, good enough for varying filler.
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng % n.max(1)
    }

    fn tick(&mut self, min_ms: i64, max_ms: i64) -> String {
        let span = (max_ms - min_ms).max(1) as u64;
        let ms = min_ms + self.rand(span) as i64;
        let micros = self.rand(1000) as i64;
        self.t += Duration::milliseconds(ms) + Duration::microseconds(micros);
        timestamp::format(&self.t)
    }

    fn push(&mut self, mut v: Value) {
        encoding::encode_event(&mut v);
        self.events.push(v);
    }

    fn turn(&mut self, request: &str) {
        self.turn_starts.push(self.events.len());
        let ts = self.tick(60_000, 420_000);
        self.push(json!({"timestamp": ts, "type": "turn_start"}));
        let ts = self.tick(1, 5);
        self.push(json!({"timestamp": ts, "type": "chat_request", "content": request}));
    }

    fn turn_with_schema(&mut self, request: &str, schema: Value) {
        self.turn_starts.push(self.events.len());
        let ts = self.tick(60_000, 300_000);
        self.push(json!({"timestamp": ts, "type": "turn_start"}));
        let ts = self.tick(1, 5);
        self.push(
            json!({"timestamp": ts, "type": "chat_request", "content": request, "schema": schema}),
        );
    }

    fn think(&mut self, text: &str) {
        self.sig += 1;
        let ts = self.tick(2_000, 9_000);
        let sig = format!(
            "EqQBCkYIBhgCKkDemoSignature{:04}Rk9yIGRlbW8gb25seQ",
            self.sig
        );
        self.push(json!({
            "timestamp": ts, "type": "chat_response", "reasoning": text,
            "metadata": {"anthropic_thinking_signature": sig}
        }));
    }

    fn say(&mut self, text: &str) {
        let ts = self.tick(1_500, 12_000);
        self.push(json!({"timestamp": ts, "type": "chat_response", "message": text}));
    }

    fn data(&mut self, v: Value) {
        let ts = self.tick(4_000, 15_000);
        self.push(json!({"timestamp": ts, "type": "chat_response", "data": v}));
    }

    fn call_id(&mut self) -> String {
        self.calls += 1;
        let alphabet = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789";
        let tail: String = (0..18)
            .map(|_| alphabet[self.rand(alphabet.len() as u64) as usize] as char)
            .collect();
        format!("toolu_01{tail}")
    }

    /// One tool call answered at once.
    fn tool(&mut self, name: &str, args: Value, output: &str, is_error: bool) {
        self.tools(vec![(name, args, output.to_string(), is_error)]);
    }

    /// Parallel tool calls: all requests, then all responses.
    fn tools(&mut self, calls: Vec<(&str, Value, String, bool)>) {
        let mut ids = Vec::new();
        for (name, args, _, _) in &calls {
            let id = self.call_id();
            let ts = self.tick(80, 900);
            self.push(json!({
                "timestamp": ts, "type": "tool_call_request",
                "id": id, "name": name, "arguments": args
            }));
            ids.push(id);
        }
        for ((_, _, output, is_error), id) in calls.into_iter().zip(ids) {
            let ts = self.tick(300, 30_000);
            self.push(json!({
                "timestamp": ts, "type": "tool_call_response",
                "id": id, "content": output, "is_error": is_error
            }));
        }
    }

    /// A patch the user is asked to approve before it is applied.
    fn patch(&mut self, path: &str, old: &str, new: &str, approved: bool) {
        let id = self.call_id();
        let ts = self.tick(200, 1_500);
        self.push(json!({
            "timestamp": ts, "type": "tool_call_request", "id": id, "name": "fs_modify_file",
            "arguments": {"path": path, "patterns": [{"old": old, "new": new}]}
        }));
        let ts = self.tick(50, 200);
        let diff = unified_diff(path, old, new);
        self.push(json!({
            "timestamp": ts, "type": "inquiry_request", "id": format!("{id}.apply_changes"),
            "source": {"source": "tool", "name": "fs_modify_file"},
            "question": {"text": format!("Do you want to apply the following patch?\n\n```diff\n{diff}```"),
                          "answer_type": {"type": "boolean"}, "default": true}
        }));
        let ts = self.tick(2_000, 20_000);
        self.push(json!({
            "timestamp": ts, "type": "inquiry_response",
            "id": format!("{id}.apply_changes"), "answer": approved
        }));
        let ts = self.tick(30, 300);
        let content = if approved {
            format!("1/1 patterns applied.\n\nFile modified successfully:\n\n```diff\n{diff}```")
        } else {
            "The user rejected the patch; the file was not changed.".to_string()
        };
        self.push(json!({
            "timestamp": ts, "type": "tool_call_response", "id": id,
            "content": content, "is_error": !approved
        }));
    }

    fn config_delta(&mut self, delta: Value) {
        let ts = self.tick(5_000, 30_000);
        self.events
            .push(json!({"type": "config_delta", "timestamp": ts, "delta": delta}));
    }

    fn compaction(&mut self, c: Compaction) {
        self.events.push(c.to_json());
    }

    fn now(&self) -> DateTime<Utc> {
        self.t
    }

    /// A plausible Rust source file of about `lines` lines (times the
    /// demo's scale: agents read whole files).
    fn rust_file(&mut self, module: &str, lines: usize) -> String {
        let lines = lines * SCALE;
        let nouns = [
            "row",
            "column",
            "field",
            "record",
            "header",
            "token",
            "span",
            "query",
            "filter",
            "order",
            "group",
            "cursor",
            "buffer",
            "schema",
            "value",
            "cell",
            "predicate",
        ];
        let verbs = [
            "parse",
            "read",
            "split",
            "apply",
            "resolve",
            "compare",
            "collect",
            "emit",
            "check",
            "normalize",
            "project",
            "scan",
            "merge",
            "render",
        ];
        let mut out = format!(
            "```rs\n//! {module}: part of csvq, a small SQL-ish query tool for CSV files.\n\nuse std::io::{{self, BufRead}};\n\nuse crate::error::{{Error, Result}};\nuse crate::value::Value;\n\n"
        );
        let mut n = 0;
        while n < lines {
            let verb = verbs[self.rand(verbs.len() as u64) as usize];
            let noun = nouns[self.rand(nouns.len() as u64) as usize];
            let other = nouns[self.rand(nouns.len() as u64) as usize];
            let arms = 2 + self.rand(4) as usize;
            out.push_str(&format!(
                "/// {} the {noun} against the current {other}.\n///\n/// Returns `Error::{}` when the {noun} is malformed.\npub fn {verb}_{noun}(input: &str, {other}: &{}) -> Result<{}> {{\n    let trimmed = input.trim();\n    if trimmed.is_empty() {{\n        return Err(Error::Empty(\"{noun}\"));\n    }}\n    match trimmed.as_bytes()[0] {{\n",
                capitalize(verb),
                capitalize(noun),
                capitalize(other),
                capitalize(noun)
            ));
            for a in 0..arms {
                out.push_str(&format!(
                    "        b'{}' => {{\n            let rest = &trimmed[1..];\n            {}::from_str(rest).map_err(|e| Error::at({}, e))\n        }}\n",
                    (b'a' + a as u8) as char,
                    capitalize(noun),
                    self.rand(80)
                ));
            }
            out.push_str(&format!(
                "        _ => {}::new(trimmed, {other}.width()),\n    }}\n}}\n\n",
                capitalize(noun)
            ));
            n += 10 + arms * 4;
        }
        out.push_str("```\n");
        out
    }

    fn test_output(&mut self, passed: usize, failures: &[(&str, &str)]) -> String {
        let mut out = String::from(
            "   Compiling csvq v0.1.0-dev (/home/mara/src/csvq)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 6.84s\n     Running unittests src/lib.rs (target/debug/deps/csvq-3f1c2b9a7d0e4411)\n\n",
        );
        let total = passed + failures.len();
        out.push_str(&format!("running {total} tests\n"));
        let groups = [
            "parser", "lexer", "query", "reader", "value", "output", "group",
        ];
        for i in 0..passed {
            let g = groups[i % groups.len()];
            out.push_str(&format!(
                "test {g}::tests::case_{:03}_{} ... ok\n",
                i,
                [
                    "basic",
                    "quoted",
                    "unicode",
                    "empty",
                    "nested",
                    "precedence"
                ][self.rand(6) as usize]
            ));
        }
        for (name, _) in failures {
            out.push_str(&format!("test {name} ... FAILED\n"));
        }
        if !failures.is_empty() {
            out.push_str("\nfailures:\n\n");
            for (name, why) in failures {
                out.push_str(&format!(
                    "---- {name} stdout ----\n\nthread '{name}' panicked at tests/parser.rs:{}:5:\n{why}\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n",
                    40 + self.rand(200)
                ));
            }
            out.push_str("\nfailures:\n");
            for (name, _) in failures {
                out.push_str(&format!("    {name}\n"));
            }
        }
        let status = if failures.is_empty() { "ok" } else { "FAILED" };
        out.push_str(&format!(
            "\ntest result: {status}. {passed} passed; {} failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.{:02}s\n",
            failures.len(),
            self.rand(90) + 10
        ));
        out
    }

    fn bench_output(&mut self, benches: &[(&str, f64)]) -> String {
        let mut out = String::from(
            "   Compiling csvq v0.1.0-dev (/home/mara/src/csvq)\n    Finished `bench` profile [optimized] target(s) in 41.02s\n     Running benches/parser.rs (target/release/deps/parser-8a2b7c1d9e3f5a60)\nGnuplot not found, using plotters backend\n",
        );
        for (name, us) in benches {
            let lo = us * 0.97;
            let hi = us * 1.04;
            out.push_str(&format!(
                "{name:<40} time:   [{lo:.3} µs {us:.3} µs {hi:.3} µs]\n                        thrpt:  [{:.2} MiB/s {:.2} MiB/s {:.2} MiB/s]\nFound {} outliers among 100 measurements ({}.00%)\n  {} (1.00%) high mild\n  {} (1.00%) high severe\n",
                812.0 / hi,
                812.0 / us,
                812.0 / lo,
                self.rand(6) + 1,
                self.rand(6) + 1,
                self.rand(3) + 1,
                self.rand(2) + 1
            ));
        }
        out
    }

    fn clippy_output(&mut self, warnings: &[(&str, &str, &str)]) -> String {
        let mut out = String::from("    Checking csvq v0.1.0-dev (/home/mara/src/csvq)\n");
        for (lint, file, help) in warnings {
            let line = 10 + self.rand(400);
            out.push_str(&format!(
                "warning: {help}\n  --> {file}:{line}:{}\n   |\n{line:>3} |     let width = cells.iter().map(|c| c.len()).fold(0, |a, b| a.max(b));\n   |                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n   |\n   = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#{lint}\n   = note: `#[warn(clippy::{lint})]` on by default\n\n",
                5 + self.rand(30)
            ));
        }
        out.push_str(&format!(
            "warning: `csvq` (lib) generated {} warnings\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 2.31s\n",
            warnings.len()
        ));
        out
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let mut out = format!(
        "--- {path}\n+++ {path}\n@@ -1,{} +1,{} @@\n",
        old.lines().count(),
        new.lines().count()
    );
    for l in old.lines() {
        out.push_str(&format!("-{l}\n"));
    }
    for l in new.lines() {
        out.push_str(&format!("+{l}\n"));
    }
    out
}

fn main() {
    let start = Utc.with_ymd_and_hms(2026, 11, 12, 12, 20, 43).unwrap();
    let mut g = Gen {
        events: Vec::new(),
        turn_starts: Vec::new(),
        t: start,
        rng: 0x9E37_79B9_7F4A_7C15,
        calls: 0,
        sig: 0,
    };
    story(&mut g);
    add_auto_compaction(&mut g);

    let dir = Path::new(DIR);
    fs::create_dir_all(dir).unwrap();
    let mut events = serde_json::to_string_pretty(&Value::Array(g.events)).unwrap();
    events.push('\n');
    fs::write(dir.join("events.json"), events).unwrap();
    let mut base = serde_json::to_string_pretty(&base_config()).unwrap();
    base.push('\n');
    fs::write(dir.join("base_config.json"), base).unwrap();
    let meta = json!({
        "title": "csvq: first release",
        "last_activated_at": timestamp::format(&g.t),
    });
    let mut meta = serde_json::to_string_pretty(&meta).unwrap();
    meta.push('\n');
    fs::write(dir.join("metadata.json"), meta).unwrap();
    eprintln!("wrote {DIR}");
}

fn to_text(events: &[Value]) -> String {
    let mut text = serde_json::to_string_pretty(&Value::Array(events.to_vec())).unwrap();
    text.push('\n');
    text
}

/// Replays the session through the staged policy (the model's 200k window
/// less its 16k output reserve, the system prompt and tools counted) and
/// inserts the automatic compaction where the policy first fires, exactly
/// as it would have: the demo's auto compaction is the real thing.
fn add_auto_compaction(g: &mut Gen) {
    let base = serde_json::to_vec(&base_config()).unwrap();
    let mut config = AutoConfig {
        enabled: true,
        mode: Mode::Staged,
        ..AutoConfig::default()
    };
    config.summarizer = ops::SummarizerConfig::Digest;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(Path::new(DIR).file_name().unwrap());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("base_config.json"), &base).unwrap();
    for b in 1..g.turn_starts.len() {
        let cut = g.turn_starts[b];
        std::fs::write(dir.join("events.json"), to_text(&g.events[..cut])).unwrap();
        let conv = ops::read::whole(&dir).unwrap();
        let last = conv
            .events
            .iter()
            .filter_map(|e| e.timestamp)
            .max()
            .unwrap();
        // What `A` previews at this boundary: the staged policy with the
        // digest, over the events alone.
        let plan = ops::preview(
            &conv,
            &PreviewAsk {
                of: PreviewOf::Auto,
                config: &config,
                budget: &ops::budget_of(&conv.base_config, None, &config),
                now: last + Duration::seconds(4),
                view: View::Inspect,
                call_summarizer: true,
            },
        )
        .unwrap();
        if !plan.is_empty() {
            let notes: Vec<String> = plan.notes.iter().map(ToString::to_string).collect();
            eprintln!("staged policy fires after turn {b}: {}", notes.join("; "));
            for (i, c) in plan.compactions().iter().enumerate() {
                g.events.insert(cut + i, c.to_json());
            }
            return;
        }
    }
    panic!("the staged policy never fires on the demo: make it bigger");
}

fn base_config() -> Value {
    json!({
        "inherit": false,
        "config_load_paths": [".jp/config"],
        "assistant": {
            "name": "Pair",
            "system_prompt": "You are a careful Rust pair programmer working in the user's repository. Read before you write, keep changes small and tested, run the tests after every change, and say plainly what you did and what is left.",
            "system_prompt_sections": [
                {"content": "The project is csvq, a command-line tool that runs SQL-ish queries over CSV files. It targets Rust 1.74 and has no unsafe code.", "tag": "project", "position": 0}
            ],
            "model": {
                "id": {"provider": "anthropic", "name": "claude-opus-4-5"},
                "parameters": {
                    "max_tokens": 16000,
                    "reasoning": {"effort": "medium", "exclude": false}
                }
            }
        },
        "conversation": {
            "tools": tools()
        },
        "providers": {
            "llm": {"aliases": {"opus": {"provider": "anthropic", "name": "claude-opus-4-5"}}}
        }
    })
}

/// The tools the session uses, enabled and defined as jp's config holds
/// them: their definitions are sent with every request.
fn tools() -> Value {
    let path = json!({"type": "string", "required": true, "summary": "Path relative to the workspace root."});
    let cargo = |what: &str| {
        json!({
            "enable": true, "source": "local", "run": "unattended",
            "summary": format!("Run `cargo {what}` in the workspace and return its output."),
            "description": "Runs in the workspace root with the user's toolchain. Output longer than 4000 lines is truncated from the middle; the exit status is reported.",
            "parameters": {
                "package": {"type": "string", "required": false, "summary": "Limit to one package of the workspace."},
                "args": {"type": "array", "required": false, "summary": "Extra arguments, passed after the subcommand.", "items": {"type": "string"}}
            }
        })
    };
    json!({
        "*": {"run": "ask", "result": "unattended"},
        "fs_read_file": {
            "enable": true, "source": "local", "run": "unattended",
            "summary": "Read a file of the workspace, optionally a range of its lines.",
            "description": "Returns the content in a fenced code block named after the file's language. Binary files are refused. Use start_line and end_line for large files.",
            "parameters": {"path": path, "start_line": {"type": "integer", "required": false, "summary": "First line, 1-based."}, "end_line": {"type": "integer", "required": false, "summary": "Last line, inclusive."}}
        },
        "fs_list_files": {
            "enable": true, "source": "local", "run": "unattended",
            "summary": "List the files of the workspace under some prefixes.",
            "description": "Honours .gitignore. Returns one path per line, sorted.",
            "parameters": {"prefixes": {"type": "array", "required": false, "items": {"type": "string"}}, "extensions": {"type": "array", "required": false, "items": {"type": "string"}}}
        },
        "fs_grep_files": {
            "enable": true, "source": "local", "run": "unattended",
            "summary": "Search the workspace's files for a pattern.",
            "description": "A regular expression, matched line by line; returns path:line:text for every match, at most 200.",
            "parameters": {"pattern": {"type": "string", "required": true}, "paths": {"type": "array", "required": false, "items": {"type": "string"}}, "context": {"type": "integer", "required": false}}
        },
        "fs_create_file": {
            "enable": true, "source": "local",
            "summary": "Create a new file with the given content.",
            "parameters": {"path": path, "content": {"type": "string", "required": true}}
        },
        "fs_modify_file": {
            "enable": true, "source": "local",
            "summary": "Replace one exact string of a file with another.",
            "description": "The string must occur exactly once. Shows the user a diff before writing.",
            "parameters": {"path": path, "string_to_replace": {"type": "string", "required": true}, "new_string": {"type": "string", "required": true}}
        },
        "cargo_check": cargo("check"),
        "cargo_test": cargo("test"),
        "cargo_run": cargo("run"),
        "cargo_clippy": cargo("clippy"),
        "cargo_bench": cargo("bench"),
        "cargo_doc": cargo("doc"),
        "cargo_msrv": cargo("msrv"),
        "cargo_publish": cargo("publish --dry-run"),
        "git_show_ref": {
            "enable": true, "source": "local", "run": "unattended",
            "summary": "Show the commit a ref points at.",
            "parameters": {"ref": {"type": "string", "required": true}}
        },
        "web_search": {"enable": "explicit", "source": "mcp.search", "summary": "Search the web."}
    })
}

#[allow(clippy::too_many_lines)]
fn story(g: &mut Gen) {
    // 1
    g.turn("I've started a small Rust CLI called csvq that runs SQL-ish queries over CSV files (`csvq 'SELECT name, price FROM items.csv WHERE price > 10'`). Can you read the repo and tell me what's missing before a first release?");
    g.think("Start by looking at the layout, the manifest and the two biggest modules: main.rs for the CLI surface, parser.rs for the query language.");
    g.say("Let me look around the repository first.");
    let listing = "Cargo.toml\nCargo.lock\nREADME.md\nsrc/main.rs\nsrc/lib.rs\nsrc/lexer.rs\nsrc/parser.rs\nsrc/query.rs\nsrc/reader.rs\nsrc/value.rs\nsrc/error.rs\ntests/parser.rs\ntests/query.rs\ntests/data/items.csv\ntests/data/quoted.csv\n".to_string();
    let main_rs = g.rust_file("main", 160);
    let parser_rs = g.rust_file("parser", 420);
    g.tools(vec![
        ("fs_list_files", json!({"prefixes": ["."], "extensions": []}), listing, false),
        ("fs_read_file", json!({"path": "Cargo.toml"}), "```toml\n[package]\nname = \"csvq\"\nversion = \"0.1.0-dev\"\nedition = \"2021\"\nrust-version = \"1.74\"\n\n[dependencies]\nclap = { version = \"4\", features = [\"derive\"] }\ncsv = \"1.3\"\nthiserror = \"1\"\n```\n".into(), false),
        ("fs_read_file", json!({"path": "src/main.rs"}), main_rs, false),
        ("fs_read_file", json!({"path": "src/parser.rs"}), parser_rs, false),
    ]);
    g.think("The parser is a hand-written recursive descent with a single precedence level for boolean operators, so AND and OR bind equally. No ORDER BY, no GROUP BY, no output formats, no benchmarks, no CI.");
    g.say("Here's where csvq stands:\n\n**Works**: `SELECT` with column lists, `FROM <file>`, `WHERE` with comparisons, `AND`/`OR`.\n\n**Missing before a first release**\n1. `AND` and `OR` share one precedence level in `src/parser.rs`, so `a OR b AND c` parses as `(a OR b) AND c`.\n2. No `ORDER BY`, `GROUP BY`, `LIMIT`.\n3. The reader loads the whole file into memory (`src/reader.rs`).\n4. Only one output format; scripts will want JSON.\n5. No benchmarks, no CI, no changelog, and the README has no usage section.\n\nI'd start with the precedence bug: it silently returns wrong rows.");

    // 2
    g.turn("Start with the parser: `csvq 'SELECT name FROM items.csv WHERE stock = 0 OR price > 10 AND name = \"ruler\"'` should list pen and stapler (out of stock) plus ruler, but I only get ruler.");
    g.think("Reproduce first, then read the boolean part of the parser. If AND and OR are folded by the same loop, the fix is to split it into parse_or -> parse_and -> parse_comparison.");
    let snippet = g.rust_file("parser (lines 180-260)", 80);
    g.tools(vec![
        ("fs_read_file", json!({"path": "src/parser.rs", "start_line": 180, "end_line": 260}), snippet, false),
        ("cargo_run", json!({"args": ["--", "SELECT name FROM tests/data/items.csv WHERE stock = 0 OR price > 10 AND name = \"ruler\""]}), "name\nruler\n".into(), false),
    ]);
    g.say("Reproduced: only `ruler` comes back. `parse_binary` in `src/parser.rs` folds `AND` and `OR` in one loop, left to right, so your query is read as `(stock = 0 OR price > 10) AND name = \"ruler\"`. SQL gives `AND` the higher precedence: `stock = 0 OR (price > 10 AND name = \"ruler\")`, which is pen, stapler and ruler.\n\nThe fix is to split the loop into `parse_or` → `parse_and` → `parse_comparison`, so `AND` binds tighter.");

    // 3
    g.turn("Ok, good catch. Fix it.");
    g.think("Smallest change: introduce parse_and between parse_or and parse_comparison. Tests that encode the old left-to-right behaviour will fail; that's expected.");
    g.patch(
        "src/parser.rs",
        "fn parse_binary(&mut self) -> Result<Expr> {\n    let mut lhs = self.parse_comparison()?;\n    while let Some(op) = self.eat_bool_op() {\n        let rhs = self.parse_comparison()?;\n        lhs = Expr::binary(op, lhs, rhs);\n    }\n    Ok(lhs)\n}",
        "fn parse_or(&mut self) -> Result<Expr> {\n    let mut lhs = self.parse_and()?;\n    while self.eat_keyword(Keyword::Or) {\n        let rhs = self.parse_and()?;\n        lhs = Expr::binary(BoolOp::Or, lhs, rhs);\n    }\n    Ok(lhs)\n}\n\nfn parse_and(&mut self) -> Result<Expr> {\n    let mut lhs = self.parse_comparison()?;\n    while self.eat_keyword(Keyword::And) {\n        let rhs = self.parse_comparison()?;\n        lhs = Expr::binary(BoolOp::And, lhs, rhs);\n    }\n    Ok(lhs)\n}",
        true,
    );
    let out = g.test_output(
        46,
        &[
            ("parser::or_then_and_is_left_to_right", "assertion `left == right` failed\n  left: Or(Cmp(a), And(Cmp(b), Cmp(c)))\n right: And(Or(Cmp(a), Cmp(b)), Cmp(c))"),
            ("parser::mixed_chain_roundtrips", "assertion `left == right` failed\n  left: \"a OR (b AND c)\"\n right: \"(a OR b) AND c\""),
        ],
    );
    g.tool("cargo_test", json!({"package": "csvq"}), &out, true);
    g.say("Done: `AND` now binds tighter than `OR`. Two tests fail, both in `tests/parser.rs`, and both assert the old left-to-right grouping.");

    // 4
    g.turn("Why do the two tests fail exactly? Are they wrong or is the fix wrong?");
    let tests_rs = g.rust_file("tests/parser.rs", 260);
    g.tool(
        "fs_read_file",
        json!({"path": "tests/parser.rs"}),
        &tests_rs,
        false,
    );
    g.think("Both tests were written against the buggy behaviour: their expected ASTs group OR before AND. They were snapshots of what the parser did, not of SQL semantics.");
    g.say("The tests are wrong. `or_then_and_is_left_to_right` expects `(a OR b) AND c` for `a OR b AND c`, which is the bug we just fixed, and `mixed_chain_roundtrips` prints that same grouping back. Both were recorded from the old parser's output rather than from SQL's rules. I'll update them to expect `a OR (b AND c)` and add one case where explicit parentheses override precedence.");

    // 5
    g.turn("Update the tests then.");
    g.patch(
        "tests/parser.rs",
        "assert_eq!(parse(\"a OR b AND c\"), and(or(a, b), c));",
        "assert_eq!(parse(\"a OR b AND c\"), or(a, and(b, c)));\nassert_eq!(parse(\"(a OR b) AND c\"), and(or(a, b), c));",
        true,
    );
    let out = g.test_output(49, &[]);
    g.tool("cargo_test", json!({"package": "csvq"}), &out, false);
    g.say("All 49 tests pass, including the new parenthesised case.");

    // 6
    g.turn("Next: ORDER BY, with ASC/DESC and multiple keys.");
    g.think("ORDER BY goes after WHERE. Sorting needs a comparator over Value that treats numbers numerically and strings lexically; mixed types compare numbers first. Use a stable sort so ties keep file order.");
    let query_rs = g.rust_file("query", 300);
    g.tool(
        "fs_read_file",
        json!({"path": "src/query.rs"}),
        &query_rs,
        false,
    );
    g.tools(vec![
        ("fs_modify_file", json!({"path": "src/parser.rs", "patterns": [{"old": "let filter = self.parse_where()?;", "new": "let filter = self.parse_where()?;\nlet order = self.parse_order_by()?;"}]}), "1/1 patterns applied.".into(), false),
        ("fs_modify_file", json!({"path": "src/query.rs", "patterns": [{"old": "Ok(rows)", "new": "sort_rows(&mut rows, &self.order);\nOk(rows)"}]}), "1/1 patterns applied.".into(), false),
    ]);
    g.tool("cargo_check", json!({}), "    Checking csvq v0.1.0-dev (/home/mara/src/csvq)\nerror[E0425]: cannot find function `sort_rows` in this scope\n   --> src/query.rs:118:9\n    |\n118 |         sort_rows(&mut rows, &self.order);\n    |         ^^^^^^^^^ not found in this scope\n\nerror[E0609]: no field `order` on type `&Query`\n   --> src/query.rs:118:36\n    |\n118 |         sort_rows(&mut rows, &self.order);\n    |                                    ^^^^^ unknown field\n    |\n    = note: available fields are: `columns`, `source`, `filter`\n\nFor more information about an error, try `rustc --explain E0425`.\nerror: could not compile `csvq` (lib) due to 2 previous errors\n", true);
    g.tools(vec![
        ("fs_modify_file", json!({"path": "src/query.rs", "patterns": [{"old": "pub filter: Option<Expr>,", "new": "pub filter: Option<Expr>,\n    pub order: Vec<OrderKey>,"}]}), "1/1 patterns applied.".into(), false),
        ("fs_create_file", json!({"path": "src/order.rs", "content": "//! ORDER BY: stable multi-key sorting.\n\nuse std::cmp::Ordering;\n\nuse crate::value::Value;\n\npub struct OrderKey { pub column: usize, pub descending: bool }\n\npub fn sort_rows(rows: &mut [Vec<Value>], keys: &[OrderKey]) {\n    rows.sort_by(|a, b| {\n        for k in keys {\n            let o = a[k.column].total_cmp(&b[k.column]);\n            let o = if k.descending { o.reverse() } else { o };\n            if o != Ordering::Equal { return o; }\n        }\n        Ordering::Equal\n    });\n}\n"}), "File created: src/order.rs (19 lines)".into(), false),
    ]);
    g.tool("cargo_check", json!({}), "    Checking csvq v0.1.0-dev (/home/mara/src/csvq)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 1.12s\n", false);
    g.say("`ORDER BY a, b DESC` works: keys are applied left to right with a stable sort, numbers compare numerically, strings lexically, and numbers sort before strings when a column mixes them. The comparator lives in the new `src/order.rs`.");

    // 7
    g.turn("Add a criterion benchmark for the parser so we can watch it.");
    g.tool("fs_create_file", json!({"path": "benches/parser.rs", "content": "use criterion::{criterion_group, criterion_main, Criterion, Throughput};\n\nfn bench(c: &mut Criterion) {\n    let q = \"SELECT name, price FROM items.csv WHERE price > 10 AND (name = 'pen' OR stock = 0) ORDER BY price DESC\";\n    let mut g = c.benchmark_group(\"parser\");\n    g.throughput(Throughput::Bytes(q.len() as u64));\n    g.bench_function(\"parse/typical\", |b| b.iter(|| csvq::parse(q).unwrap()));\n    g.finish();\n}\n\ncriterion_group!(benches, bench);\ncriterion_main!(benches);\n"}), "File created: benches/parser.rs (13 lines)", false);
    let out = g.bench_output(&[
        ("parser/parse/typical", 1.842),
        ("parser/parse/long_where", 9.310),
        ("parser/parse/order_by_3_keys", 2.604),
    ]);
    g.tool("cargo_bench", json!({"bench": "parser"}), &out, false);
    g.say("Benchmark added (`cargo bench --bench parser`). A typical query parses in about 1.8 µs; a 40-clause `WHERE` takes 9.3 µs. Parsing is not where time goes: reading the file will dominate.");

    // 8
    g.turn("Speaking of which: reading a 2 GB export takes forever and eats all my RAM.");
    g.think("reader.rs probably calls read_to_string. Options: stream records with csv::Reader over a BufReader and filter as we go, or mmap. Streaming keeps memory flat and works on stdin too; mmap is faster for random access we don't need. Ask before choosing.");
    let reader_rs = g.rust_file("reader", 220);
    g.tools(vec![
        ("fs_grep_files", json!({"pattern": "read_to_string|BufReader", "paths": ["src"]}), "src/reader.rs:41:    let text = std::fs::read_to_string(path)?;\nsrc/reader.rs:88:    let rows: Vec<_> = text.lines().map(parse_line).collect();\nsrc/main.rs:67:    let input = io::BufReader::new(io::stdin());\n".into(), false),
        ("fs_read_file", json!({"path": "src/reader.rs"}), reader_rs, false),
    ]);
    g.say("Found it: `src/reader.rs:41` reads the whole file with `read_to_string`, then `:88` collects every row into a `Vec` before filtering. Memory is about 3× the file.\n\nTwo ways out:\n- **Streaming**: a `csv::Reader` over a `BufReader`, filtering and projecting row by row. Flat memory, works for stdin, `ORDER BY` still has to buffer the matching rows.\n- **mmap**: fastest for files, but not for stdin, and `unsafe`.\n\nShould I go with streaming?");

    // 9
    g.turn("Streaming, no mmap. We said no unsafe.");
    g.patch(
        "src/reader.rs",
        "let text = std::fs::read_to_string(path)?;\nlet rows: Vec<_> = text.lines().map(parse_line).collect();",
        "let file = std::fs::File::open(path)?;\nlet mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(io::BufReader::with_capacity(1 << 20, file));\nfor record in rdr.records() {\n    let record = record?;\n    if filter.matches(&record)? {\n        sink.push(project(&record, columns)?)?;\n    }\n}",
        true,
    );
    let out = g.test_output(52, &[]);
    g.tool("cargo_test", json!({"package": "csvq"}), &out, false);
    g.tool("cargo_run", json!({"args": ["--release", "--", "SELECT count(*) FROM /data/export-2gb.csv WHERE region = 'EU'"], "time": true}), "count\n4182233\n\nreal\t0m11.402s\nuser\t0m9.871s\nsys\t0m1.204s\nmax resident set size: 14.2 MB\n", false);
    g.say("Streaming is in. On your 2 GB export: 11.4 s and 14 MB peak memory (was killed by the OOM killer before). `ORDER BY` still buffers the matching rows, which is unavoidable without an external sort.");

    // 10
    g.turn("Run clippy, pedantic please.");
    let out = g.clippy_output(&[
        ("needless_range_loop", "src/output.rs", "the loop variable `i` is used to index `widths`"),
        ("redundant_clone", "src/query.rs", "redundant clone"),
        ("manual_let_else", "src/parser.rs", "this could be rewritten as `let...else`"),
        ("uninlined_format_args", "src/error.rs", "variables can be used directly in the `format!` string"),
        ("cast_possible_truncation", "src/value.rs", "casting `i64` to `i32` may truncate the value"),
        ("must_use_candidate", "src/lexer.rs", "this method could have a `#[must_use]` attribute"),
        ("needless_pass_by_value", "src/order.rs", "this argument is passed by value, but not consumed in the function body"),
        ("missing_errors_doc", "src/reader.rs", "docs for function returning `Result` missing `# Errors` section"),
        ("too_many_lines", "src/parser.rs", "this function has too many lines (143/100)"),
        ("similar_names", "src/query.rs", "binding's name is too similar to existing binding"),
        ("match_same_arms", "src/lexer.rs", "this match arm has an identical body to another arm"),
        ("unnested_or_patterns", "src/lexer.rs", "unnested or-patterns"),
        ("explicit_iter_loop", "src/output.rs", "it is more concise to loop over references to containers instead of using explicit iteration methods"),
        ("semicolon_if_nothing_returned", "src/main.rs", "consider adding a `;` to the last statement for consistent formatting"),
    ]);
    g.tool(
        "cargo_clippy",
        json!({"args": ["--", "-W", "clippy::pedantic"]}),
        &out,
        false,
    );
    g.say("14 pedantic warnings, none of them bugs. Worth fixing: `cast_possible_truncation` in `src/value.rs` (an `i64` column narrowed to `i32` would silently wrap), `redundant_clone` in the query loop (a clone per row), and the missing `# Errors` docs. The rest is style.");

    // 11
    g.turn("Fix them all, but leave too_many_lines for the parser, I'll split it later.");
    g.tools(vec![
        ("fs_modify_file", json!({"path": "src/value.rs", "patterns": [{"old": "Value::Int(n as i32)", "new": "Value::Int(n)"}]}), "1/1 patterns applied.".into(), false),
        ("fs_modify_file", json!({"path": "src/query.rs", "patterns": [{"old": "let row = row.clone();", "new": ""}]}), "1/1 patterns applied.".into(), false),
        ("fs_modify_file", json!({"path": "src/output.rs", "patterns": [{"old": "for i in 0..widths.len() {", "new": "for (i, width) in widths.iter_mut().enumerate() {"}]}), "1/1 patterns applied.".into(), false),
        ("fs_modify_file", json!({"path": "src/parser.rs", "patterns": [{"old": "#![warn(clippy::pedantic)]", "new": "#![warn(clippy::pedantic)]\n#![allow(clippy::too_many_lines)] // split planned, see CHANGELOG"}]}), "1/1 patterns applied.".into(), false),
    ]);
    g.tool("cargo_clippy", json!({"args": ["--", "-W", "clippy::pedantic"]}), "    Checking csvq v0.1.0-dev (/home/mara/src/csvq)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 2.02s\n", false);
    g.say("Clippy is clean with `-W clippy::pedantic`; `too_many_lines` is allowed in `src/parser.rs` with a note pointing at the planned split. The `i32` narrowing was a real bug for IDs above 2^31.");

    // Manual compaction, made after turn 11: the person summarised the
    // precedence-bug detour (turns 2..5) by hand while reviewing.
    let t = g.now() + Duration::seconds(40);
    g.compaction(Compaction {
        timestamp: t,
        from_turn: 1,
        to_turn: 4,
        summary: Some(
            "Turns 2-5 fixed operator precedence in src/parser.rs: parse_binary folded AND and OR \
             left to right, so `a OR b AND c` parsed as `(a OR b) AND c`. It was split into \
             parse_or -> parse_and -> parse_comparison so AND binds tighter. Two tests in \
             tests/parser.rs (or_then_and_is_left_to_right, mixed_chain_roundtrips) encoded the \
             old grouping; they were corrected and a parenthesised case was added. All 49 tests \
             pass."
                .into(),
        ),
        strip_reasoning: false,
        reasoning_over: None,
        tool_calls: None,
        source: Source::Manual,
        summarizer: None,
        authored: true,
        tool_overrides: Default::default(),
    });

    // 12: structured response
    g.turn_with_schema(
        "For the docs site: give me csvq's public API as JSON, one entry per item.",
        json!({"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}, "kind": {"type": "string"}, "summary": {"type": "string"}}}}}}),
    );
    g.data(json!({"items": [
        {"path": "csvq::parse", "kind": "fn", "summary": "Parses a query string into a Query."},
        {"path": "csvq::Query", "kind": "struct", "summary": "A parsed query: columns, source, filter, order."},
        {"path": "csvq::Query::run", "kind": "fn", "summary": "Streams the source and writes matching rows to a sink."},
        {"path": "csvq::OrderKey", "kind": "struct", "summary": "One ORDER BY key: column and direction."},
        {"path": "csvq::Value", "kind": "enum", "summary": "A cell: Null, Int, Float or Text."},
        {"path": "csvq::Error", "kind": "enum", "summary": "Every failure, with the byte position for parse errors."}
    ]}));

    // The person stops the confirmations for cargo test: a config delta.
    g.config_delta(json!({"conversation": {"tools": {"cargo_test": {"run": "unattended"}}}}));

    // 13
    g.turn("I turned off the confirmation for cargo test. Now GROUP BY with COUNT, SUM and AVG.");
    g.think("Aggregation needs a hash map from group key to accumulators. AVG over ints should return a float. Columns in SELECT must be either grouped or aggregated; reject others with a clear error.");
    let query_rs = g.rust_file("query (after ORDER BY)", 320);
    g.tool(
        "fs_read_file",
        json!({"path": "src/query.rs"}),
        &query_rs,
        false,
    );
    g.tools(vec![
        ("fs_create_file", json!({"path": "src/group.rs", "content": "//! GROUP BY with COUNT, SUM, AVG.\n\nuse std::collections::HashMap;\n\nuse crate::value::Value;\n\n#[derive(Default)]\npub struct Acc { count: u64, sum: f64 }\n\npub fn group(rows: impl Iterator<Item = Vec<Value>>, key: &[usize]) -> HashMap<Vec<Value>, Acc> {\n    let mut groups: HashMap<Vec<Value>, Acc> = HashMap::new();\n    for row in rows {\n        let k = key.iter().map(|&i| row[i].clone()).collect();\n        let acc = groups.entry(k).or_default();\n        acc.count += 1;\n    }\n    groups\n}\n"}), "File created: src/group.rs (18 lines)".into(), false),
        ("fs_modify_file", json!({"path": "src/parser.rs", "patterns": [{"old": "let order = self.parse_order_by()?;", "new": "let group = self.parse_group_by()?;\nlet order = self.parse_order_by()?;"}]}), "1/1 patterns applied.".into(), false),
    ]);
    let out = g.test_output(
        55,
        &[(
            "group::avg_of_ints_is_float",
            "assertion `left == right` failed\n  left: Int(2)\n right: Float(2.5)",
        )],
    );
    g.tool("cargo_test", json!({"package": "csvq"}), &out, true);
    g.tool("fs_modify_file", json!({"path": "src/group.rs", "patterns": [{"old": "Value::Int((acc.sum / acc.count as f64) as i64)", "new": "Value::Float(acc.sum / acc.count as f64)"}]}), "1/1 patterns applied.", false);
    let out = g.test_output(56, &[]);
    g.tool("cargo_test", json!({"package": "csvq"}), &out, false);
    g.say("`GROUP BY` works with `COUNT(*)`, `COUNT(col)`, `SUM` and `AVG`. `AVG` always returns a float (the first version truncated it, the new test caught that). Selecting a column that is neither grouped nor aggregated is an error that names the column.");

    // 14
    g.turn("Quoted fields with embedded newlines break the reader, see tests/data/quoted.csv.");
    g.tool("fs_read_file", json!({"path": "tests/data/quoted.csv"}), "```csv\nid,name,notes\n1,pen,\"blue, fine tip\"\n2,ruler,\"30 cm\nmetal\"\n3,stapler,\"\"\"heavy duty\"\"\"\n```\n", false);
    g.think("With the csv crate's reader this should already work... unless the line counter for error positions splits on \\n before parsing. Check reader.rs for lines().");
    g.tool("fs_grep_files", json!({"pattern": "\\.lines\\(\\)", "paths": ["src"]}), "src/reader.rs:133:        let line_no = text[..pos].lines().count();\nsrc/lexer.rs:22:    for (n, line) in src.lines().enumerate() {\n", false);
    g.tool("fs_modify_file", json!({"path": "src/reader.rs", "patterns": [{"old": "let line_no = text[..pos].lines().count();", "new": "let line_no = record.position().map_or(0, |p| p.line());"}]}), "1/1 patterns applied.", false);
    let out = g.test_output(57, &[]);
    g.tool("cargo_test", json!({"package": "csvq"}), &out, false);
    g.say("Fixed: records themselves were parsed correctly, but error reporting counted lines of raw text, which misplaced every error after a quoted newline and panicked on the last record. Positions now come from the csv crate's record positions. Added `quoted.csv` to the tests.");

    // 15
    g.turn("Add `--output json` (one object per row, JSON Lines).");
    let main_rs = g.rust_file("main (CLI)", 150);
    g.tool(
        "fs_read_file",
        json!({"path": "src/main.rs"}),
        &main_rs,
        false,
    );
    g.tool("fs_modify_file", json!({"path": "src/main.rs", "patterns": [{"old": "#[arg(long)]\n    header: bool,", "new": "#[arg(long)]\n    header: bool,\n    /// Output format.\n    #[arg(long, value_enum, default_value_t = Format::Csv)]\n    output: Format,"}]}), "1/1 patterns applied.", false);
    g.tool("cargo_run", json!({"args": ["--", "--output", "json", "SELECT name, price FROM tests/data/items.csv WHERE price > 10"]}), "{\"name\":\"ruler\",\"price\":12}\n{\"name\":\"stapler\",\"price\":25}\n{\"name\":\"scissors\",\"price\":14.5}\n", false);
    g.say("`--output json` prints JSON Lines, one object per row, numbers as numbers and empty cells as `null`.");

    // 16
    g.turn("And `--output table` with aligned columns for humans.");
    g.tool("fs_create_file", json!({"path": "src/output/table.rs", "content": "//! Aligned text tables.\n\npub fn render(header: &[String], rows: &[Vec<String>]) -> String {\n    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();\n    for r in rows { for (w, c) in widths.iter_mut().zip(r) { *w = (*w).max(c.chars().count()); } }\n    let line = |cells: &[String]| cells.iter().zip(&widths).map(|(c, w)| format!(\"{c:<w$}\")).collect::<Vec<_>>().join(\"  \");\n    let mut out = line(header);\n    for r in rows { out.push('\\n'); out.push_str(&line(r)); }\n    out\n}\n"}), "File created: src/output/table.rs (10 lines)", false);
    g.tool("cargo_run", json!({"args": ["--", "--output", "table", "SELECT name, price, stock FROM tests/data/items.csv ORDER BY price DESC"]}), "name      price  stock\nstapler   25     0\nscissors  14.5   7\nruler     12     3\npen       5      0\neraser    1.2    40\n", false);
    g.say("`--output table` aligns columns by character width (so `ü` counts as one). Numbers are left-aligned like text for now; right-aligning numeric columns is a small follow-up if you want it.");

    // 17
    g.turn("Write the README usage section.");
    g.tool(
        "fs_read_file",
        json!({"path": "README.md"}),
        "```md\n# csvq\n\nSQL-ish queries over CSV files.\n\nTODO: usage\n```\n",
        false,
    );
    g.tool("fs_modify_file", json!({"path": "README.md", "patterns": [{"old": "TODO: usage", "new": "## Usage\n\n```sh\ncsvq 'SELECT name, price FROM items.csv WHERE price > 10 ORDER BY price DESC'\ncsvq --output json 'SELECT region, COUNT(*) FROM sales.csv GROUP BY region'\ncat items.csv | csvq 'SELECT * FROM - LIMIT 5'\n```\n\nSupported: SELECT, FROM (a path or `-` for stdin), WHERE with AND/OR/NOT and comparisons, GROUP BY with COUNT/SUM/AVG, ORDER BY with ASC/DESC, LIMIT/OFFSET.\nOutput: csv (default), json (JSON Lines), table."}]}), "1/1 patterns applied.", false);
    g.say("README now has a usage section with three examples and the supported grammar. I listed `LIMIT` and stdin as supported, which we haven't built yet; I'll keep them on the list so the README becomes true.");

    // 18
    g.turn("Add a CHANGELOG in keep-a-changelog format.");
    g.tool("fs_create_file", json!({"path": "CHANGELOG.md", "content": "# Changelog\n\n## [Unreleased]\n\n### Added\n- ORDER BY with multiple keys and ASC/DESC.\n- GROUP BY with COUNT, SUM, AVG.\n- `--output json` and `--output table`.\n- Parser benchmark.\n\n### Fixed\n- AND binds tighter than OR.\n- Error positions after quoted newlines.\n- Integer columns above 2^31 no longer wrap.\n\n### Changed\n- The reader streams records instead of loading the whole file.\n"}), "File created: CHANGELOG.md (17 lines)", false);
    g.say("CHANGELOG.md created with everything since the start of this session under Unreleased.");

    // 19
    g.turn("Set up CI on GitHub Actions: test on Linux, macOS and Windows, plus clippy and fmt.");
    g.tool("fs_create_file", json!({"path": ".github/workflows/ci.yml", "content": "name: CI\non: [push, pull_request]\njobs:\n  test:\n    strategy:\n      matrix:\n        os: [ubuntu-latest, macos-latest, windows-latest]\n    runs-on: ${{ matrix.os }}\n    steps:\n      - uses: actions/checkout@v4\n      - uses: dtolnay/rust-toolchain@stable\n      - run: cargo test --locked\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: dtolnay/rust-toolchain@stable\n        with: { components: 'clippy, rustfmt' }\n      - run: cargo fmt --check\n      - run: cargo clippy --all-targets -- -D warnings\n"}), "File created: .github/workflows/ci.yml (20 lines)", false);
    g.say("CI added: tests on three OSes, plus fmt and clippy with warnings as errors.");

    // 20
    g.turn("CI fails on Windows. Can you look at the run? https://github.com/mara/csvq/actions/runs/11840213377");
    g.tool(
        "web_fetch",
        json!({"url": "https://github.com/mara/csvq/actions/runs/11840213377/job/33012"}),
        "error: 403 Forbidden: the job log requires authentication",
        true,
    );
    g.say("I can't read the log: GitHub wants authentication for job logs. Could you paste the failing part of the Windows job here?");

    // 21
    let mut log = String::from(
        "Run cargo test --locked\n   Compiling csvq v0.1.0-dev (D:\\a\\csvq\\csvq)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 38.21s\n     Running tests\\query.rs (target\\debug\\deps\\query-5b0e2a1c.exe)\n\nrunning 21 tests\n",
    );
    for i in 0..19 {
        log.push_str(&format!("test query::case_{i:02} ... ok\n"));
    }
    log.push_str("test query::reads_relative_path ... FAILED\ntest query::error_names_the_file ... FAILED\n\nfailures:\n\n---- query::reads_relative_path stdout ----\nError: Io { path: \"tests/data\\\\items.csv\", source: Os { code: 3, kind: NotFound, message: \"The system cannot find the path specified.\" } }\n\n---- query::error_names_the_file stdout ----\nthread 'query::error_names_the_file' panicked at tests\\query.rs:212:5:\nassertion `left == right` failed\n  left: \"tests\\\\data\\\\missing.csv: not found\"\n right: \"tests/data/missing.csv: not found\"\n\ntest result: FAILED. 19 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.41s\nError: Process completed with exit code 1.\n");
    g.turn(&format!("Here's the log:\n\n```\n{log}```"));
    g.think("Two separate issues: a test joins paths with a hard-coded '/' before a backslash, and another compares error text containing a path with forward slashes. Use Path::join in the test, and compare Path values rather than strings.");
    let tests_query = g.rust_file("tests/query.rs", 260);
    g.tool(
        "fs_read_file",
        json!({"path": "tests/query.rs"}),
        &tests_query,
        false,
    );
    g.tool("fs_grep_files", json!({"pattern": "tests/data", "paths": ["tests"]}), "tests/query.rs:31:    let path = format!(\"{}/items.csv\", DATA);\ntests/query.rs:205:    let missing = \"tests/data/missing.csv\";\ntests/query.rs:212:    assert_eq!(err.to_string(), format!(\"{missing}: not found\"));\n", false);
    g.tool("fs_modify_file", json!({"path": "tests/query.rs", "patterns": [{"old": "let path = format!(\"{}/items.csv\", DATA);", "new": "let path = Path::new(DATA).join(\"items.csv\");"}, {"old": "assert_eq!(err.to_string(), format!(\"{missing}: not found\"));", "new": "assert_eq!(err.path(), Some(Path::new(missing)));"}]}), "2/2 patterns applied.", false);
    g.say("Both failures were the tests, not csvq: one built a path with a literal `/`, the other compared error text containing a path. They now use `Path::join` and compare `Path` values. Push and the Windows job should pass.");

    // 22
    g.turn("Let's fuzz the parser for a bit.");
    g.tool("fs_create_file", json!({"path": "fuzz/fuzz_targets/parse.rs", "content": "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\nfuzz_target!(|data: &[u8]| {\n    if let Ok(s) = std::str::from_utf8(data) {\n        let _ = csvq::parse(s);\n    }\n});\n"}), "File created: fuzz/fuzz_targets/parse.rs (8 lines)", false);
    let mut fuzz = String::from(
        "INFO: Running with entropic power schedule (0xFF, 100).\nINFO: Seed: 2812390143\nINFO: Loaded 1 modules   (31280 inline 8-bit counters)\nINFO: -max_len is not provided; libFuzzer will not generate inputs larger than 4096 bytes\n",
    );
    let mut execs = 2u64;
    for i in 0..60 {
        execs = execs * 2 + g.rand(500);
        fuzz.push_str(&format!(
            "#{execs}\tNEW    cov: {} ft: {} corp: {}/{}b lim: {} exec/s: {} rss: {}Mb L: {}/{} MS: 2 ChangeByte-InsertByte-\n",
            1200 + i * 17,
            2300 + i * 41,
            20 + i,
            300 + i * 23,
            4 + i,
            40_000 + g.rand(20_000),
            38 + i / 4,
            1 + g.rand(40),
            40 + i
        ));
        if execs > 10_000_000 {
            break;
        }
    }
    fuzz.push_str("thread '<unnamed>' panicked at src/lexer.rs:88:31:\nbyte index 1 is out of range of `\"`\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n==41177== ERROR: libFuzzer: deadly signal\nMS: 1 EraseBytes-; base unit: 5e2a1f...\n0x22,\n\"\\\"\"\nartifact_prefix='./'; Test unit written to ./crash-3f8e8a2c5b\n");
    g.tool(
        "cargo_fuzz",
        json!({"target": "parse", "max_total_time": 120}),
        &fuzz,
        true,
    );
    g.say("The fuzzer found a crash within two minutes: a query consisting of a single `\"` panics in `src/lexer.rs:88` with a byte index out of range, when the lexer looks past an unterminated string. Want me to fix it?");

    // 23
    g.turn("Yes, fix the crash and add the input as a regression test.");
    let lexer_rs = g.rust_file("lexer", 240);
    g.tool(
        "fs_read_file",
        json!({"path": "src/lexer.rs"}),
        &lexer_rs,
        false,
    );
    g.think("An unterminated string should be a parse error with its position, not a slice past the end. Return Error::Unterminated { at } when the closing quote is missing.");
    g.tool("fs_modify_file", json!({"path": "src/lexer.rs", "patterns": [{"old": "let end = start + 1 + rest[1..].find('\"').unwrap();", "new": "let Some(len) = rest.get(1..).and_then(|r| r.find('\"')) else {\n    return Err(Error::Unterminated { at: start });\n};\nlet end = start + 1 + len;"}]}), "1/1 patterns applied.", false);
    let out = g.test_output(59, &[]);
    g.tool("cargo_test", json!({"package": "csvq"}), &out, false);
    g.say("Fixed: an unterminated string is now `Error::Unterminated { at }` (\"unterminated string starting at column 1\"). The crash input is a regression test in `tests/parser.rs`, and the fuzzer ran another 10 minutes without findings.");

    // 24
    g.turn("Did any of this slow the parser down? Bench again.");
    let out = g.bench_output(&[
        ("parser/parse/typical", 1.791),
        ("parser/parse/long_where", 9.644),
        ("parser/parse/order_by_3_keys", 2.652),
        ("parser/parse/group_by", 2.913),
    ]);
    g.tool("cargo_bench", json!({"bench": "parser"}), &out, false);
    g.say("No regression worth the name: typical 1.79 µs (was 1.84), long WHERE 9.64 µs (+3.6%, within noise), ORDER BY with three keys 2.65 µs. The new GROUP BY case is 2.9 µs.");

    // 25
    g.turn("LIMIT and OFFSET, and make the README true.");
    let query_rs = g.rust_file("query (after GROUP BY)", 330);
    g.tool(
        "fs_read_file",
        json!({"path": "src/query.rs"}),
        &query_rs,
        false,
    );
    g.tools(vec![
        ("fs_modify_file", json!({"path": "src/parser.rs", "patterns": [{"old": "let order = self.parse_order_by()?;", "new": "let order = self.parse_order_by()?;\nlet (limit, offset) = self.parse_limit()?;"}]}), "1/1 patterns applied.".into(), false),
        ("fs_modify_file", json!({"path": "src/query.rs", "patterns": [{"old": "sort_rows(&mut rows, &self.order);", "new": "sort_rows(&mut rows, &self.order);\nlet rows = rows.into_iter().skip(self.offset).take(self.limit.unwrap_or(usize::MAX));"}]}), "1/1 patterns applied.".into(), false),
    ]);
    let out = g.test_output(63, &[]);
    g.tool("cargo_test", json!({"package": "csvq"}), &out, false);
    g.say("`LIMIT n` and `OFFSET m` work; without ORDER BY they stop reading the file as soon as the limit is reached, so `LIMIT 5` on the 2 GB export returns instantly.");

    // 26
    g.turn("And `-` for stdin.");
    let reader_rs = g.rust_file("reader (streaming)", 230);
    g.tool(
        "fs_read_file",
        json!({"path": "src/reader.rs"}),
        &reader_rs,
        false,
    );
    g.tool("fs_modify_file", json!({"path": "src/reader.rs", "patterns": [{"old": "let file = std::fs::File::open(path)?;", "new": "let input: Box<dyn io::Read> = if path == Path::new(\"-\") {\n    Box::new(io::stdin().lock())\n} else {\n    Box::new(std::fs::File::open(path)?)\n};"}]}), "1/1 patterns applied.", false);
    g.tool("cargo_run", json!({"args": ["--", "SELECT name FROM - WHERE price < 10"], "stdin": "tests/data/items.csv"}), "name\npen\neraser\n", false);
    g.say("`FROM -` reads stdin. The README examples are all true now.");

    // 27
    g.turn("Docs: make sure every public item has rustdoc and `cargo doc` is warning-free.");
    let mut doc = String::from(" Documenting csvq v0.1.0-dev (/home/mara/src/csvq)\n");
    for (item, file) in [
        ("Query::run", "src/query.rs"),
        ("OrderKey", "src/order.rs"),
        ("Value::total_cmp", "src/value.rs"),
        ("Acc", "src/group.rs"),
        ("Format", "src/main.rs"),
        ("render", "src/output/table.rs"),
        ("Error::Unterminated", "src/error.rs"),
        ("parse", "src/lib.rs"),
    ] {
        doc.push_str(&format!(
            "warning: missing documentation for {}\n  --> {file}:{}:1\n   |\n{} | pub {} {item}\n   | ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n   |\n   = note: requested on the command line with `-W missing-docs`\n\n",
            if item.contains("::") { "a method" } else { "a public item" },
            10 + g.rand(200),
            10 + g.rand(200),
            if item.chars().next().is_some_and(char::is_uppercase) { "struct" } else { "fn" }
        ));
    }
    doc.push_str("warning: unresolved link to `Value::Text`\n --> src/value.rs:3:25\n  |\n3 | //! Cells are [`Value::Text`] unless they parse as numbers.\n  |                 ^^^^^^^^^^^ no item named `Text` in `Value`\n\nwarning: `csvq` (lib doc) generated 9 warnings\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 3.90s\n   Generated /home/mara/src/csvq/target/doc/csvq/index.html\n");
    g.tool(
        "cargo_doc",
        json!({"args": ["--no-deps"], "env": {"RUSTDOCFLAGS": "-W missing-docs"}}),
        &doc,
        false,
    );
    g.tools(vec![
        ("fs_modify_file", json!({"path": "src/value.rs", "patterns": [{"old": "//! Cells are [`Value::Text`]", "new": "//! Cells are [`Value::Str`]"}]}), "1/1 patterns applied.".into(), false),
        ("fs_modify_file", json!({"path": "src/query.rs", "patterns": [{"old": "pub fn run(", "new": "/// Streams the source, applying the filter, grouping, order and limit,\n/// and writes each resulting row to `sink`.\n///\n/// # Errors\n///\n/// Fails on unreadable input or a row that does not fit the query.\npub fn run("}]}), "1/1 patterns applied.".into(), false),
    ]);
    g.tool("cargo_doc", json!({"args": ["--no-deps"], "env": {"RUSTDOCFLAGS": "-D warnings -W missing-docs"}}), " Documenting csvq v0.1.0-dev (/home/mara/src/csvq)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 3.41s\n", false);
    g.say("Every public item is documented and `cargo doc` passes with `-D warnings -W missing-docs`. One real doc bug: a broken link to `Value::Text`, which is called `Value::Str`.");

    // 28
    g.turn("Check that we still build on our MSRV, 1.74.");
    let value_rs = g.rust_file("value", 160);
    g.tool(
        "fs_read_file",
        json!({"path": "src/value.rs"}),
        &value_rs,
        false,
    );
    g.tool("cargo_msrv", json!({"args": ["verify", "--rust-version", "1.74"]}), "error[E0658]: `let...else` statements are unstable in this position\n... (cargo-msrv) Check for toolchain '1.74.1-x86_64-unknown-linux-gnu' failed with:\nerror[E0658]: use of unstable library feature `is_none_or`\n   --> src/query.rs:77:28\n    |\n77  |         if self.limit.is_none_or(|l| n < l) {\n    |                       ^^^^^^^^^^\n    |\n    = note: see issue #126383 <https://github.com/rust-lang/rust/issues/126383> for more information\n\nerror: could not compile `csvq` (lib) due to 1 previous error\n", true);
    g.tool("fs_modify_file", json!({"path": "src/query.rs", "patterns": [{"old": "if self.limit.is_none_or(|l| n < l) {", "new": "if self.limit.map_or(true, |l| n < l) {"}]}), "1/1 patterns applied.", false);
    g.tool(
        "cargo_msrv",
        json!({"args": ["verify", "--rust-version", "1.74"]}),
        "Check for toolchain '1.74.1-x86_64-unknown-linux-gnu' succeeded\n",
        false,
    );
    g.say("We'd slipped: `Option::is_none_or` is newer than 1.74. Replaced with `map_or(true, ..)`; `cargo msrv verify` passes on 1.74.1. Adding an MSRV job to CI would catch this next time.");

    // 29
    g.turn("Draft release notes for 0.1.0 from the git log.");
    let mut gitlog = String::new();
    for (i, msg) in [
        "parser: AND binds tighter than OR",
        "tests: expect SQL precedence",
        "query: ORDER BY with multiple keys",
        "bench: criterion benchmark for the parser",
        "reader: stream records instead of reading the whole file",
        "clippy: pedantic fixes; fix i32 narrowing",
        "query: GROUP BY with COUNT, SUM, AVG",
        "group: AVG returns a float",
        "reader: error positions from csv records",
        "cli: --output json",
        "cli: --output table",
        "docs: README usage",
        "docs: CHANGELOG",
        "ci: test on three OSes, fmt, clippy",
        "tests: portable paths",
        "fuzz: parser target",
        "lexer: unterminated strings are errors, not panics",
        "query: LIMIT and OFFSET",
        "reader: FROM - reads stdin",
        "docs: rustdoc for every public item",
        "query: build on Rust 1.74 again",
    ]
    .iter()
    .enumerate()
    {
        gitlog.push_str(&format!(
            "commit {:040x}\nAuthor: Mara Lind <mara@example.org>\nDate:   Thu Nov 12 {:02}:{:02}:{:02} 2026 +0100\n\n    {msg}\n\n",
            0x5eed_0000_u64 * (i as u64 + 3) + g.rand(1 << 30),
            13 + i / 4,
            (i * 7) % 60,
            (i * 13) % 60
        ));
    }
    g.tool(
        "git_log",
        json!({"args": ["--since", "2026-11-12"]}),
        &gitlog,
        false,
    );
    g.say("Draft:\n\n## csvq 0.1.0\n\nFirst release. Query CSV files with SQL: `SELECT`, `WHERE` (with correct `AND`/`OR` precedence), `GROUP BY` with `COUNT`/`SUM`/`AVG`, `ORDER BY`, `LIMIT`/`OFFSET`, from files or stdin.\n\n- Streams input: a 2 GB file in 11 s with 14 MB of memory.\n- Output as CSV, JSON Lines or an aligned table.\n- Fuzzed parser; unterminated strings are errors with positions.\n- Tested on Linux, macOS and Windows; builds on Rust 1.74.");

    // 30
    g.turn("Good. Bump to 0.1.0 and tag it.");
    g.tool("fs_modify_file", json!({"path": "Cargo.toml", "patterns": [{"old": "version = \"0.1.0-dev\"", "new": "version = \"0.1.0\""}]}), "1/1 patterns applied.", false);
    g.tool(
        "git_tag",
        json!({"name": "v0.1.0", "message": "csvq 0.1.0"}),
        "fatal: tag 'v0.1.0' already exists",
        true,
    );
    g.tool("git_show_ref", json!({"ref": "v0.1.0"}), "9d1c0e2b7a55f1e0c3b8d6a4f2e1c0b9a8d7e6f5 refs/tags/v0.1.0\n(tag points at a commit from 2026-10-30: \"wip: first parser\")\n", false);
    g.say("Cargo.toml is at 0.1.0, but a tag `v0.1.0` already exists and points at an old WIP commit from October 30. I didn't touch it. Delete and recreate it (`git tag -d v0.1.0 && git tag -a v0.1.0`), or tag this as 0.1.1?");

    // 31
    g.turn("Delete the old tag, it was never pushed. Then do a publish dry-run.");
    g.tool(
        "git_tag",
        json!({"delete": "v0.1.0"}),
        "Deleted tag 'v0.1.0' (was 9d1c0e2)",
        false,
    );
    g.tool(
        "git_tag",
        json!({"name": "v0.1.0", "message": "csvq 0.1.0"}),
        "",
        false,
    );
    g.tool("cargo_publish", json!({"args": ["--dry-run"]}), "    Updating crates.io index\nwarning: manifest has no license, license-file, description, homepage, repository.\nSee https://doc.rust-lang.org/cargo/reference/manifest.html#package-metadata for more info.\n   Packaging csvq v0.1.0 (/home/mara/src/csvq)\n    Updating crates.io index\n    Packaged 24 files, 61.0KiB (16.8KiB compressed)\n   Verifying csvq v0.1.0 (/home/mara/src/csvq)\n   Compiling csvq v0.1.0 (/home/mara/src/csvq/target/package/csvq-0.1.0)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 12.77s\n   Uploading csvq v0.1.0 (/home/mara/src/csvq)\nerror: crates.io requires a `license` or `license-file` field\n", true);
    g.tool("fs_modify_file", json!({"path": "Cargo.toml", "patterns": [{"old": "rust-version = \"1.74\"", "new": "rust-version = \"1.74\"\ndescription = \"SQL-ish queries over CSV files\"\nlicense = \"MIT OR Apache-2.0\"\nrepository = \"https://github.com/mara/csvq\""}]}), "1/1 patterns applied.", false);
    g.tool("cargo_publish", json!({"args": ["--dry-run"]}), "    Updating crates.io index\n   Packaging csvq v0.1.0 (/home/mara/src/csvq)\n    Packaged 24 files, 61.2KiB (16.9KiB compressed)\n   Verifying csvq v0.1.0 (/home/mara/src/csvq)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 11.02s\n   Uploading csvq v0.1.0 (/home/mara/src/csvq)\nwarning: aborting upload due to dry run\n", false);
    g.say("Old tag deleted and `v0.1.0` recreated on the current commit (not pushed). The dry run first failed for a missing `license`; I added `description`, `license = \"MIT OR Apache-2.0\"` and `repository` to Cargo.toml, and the dry run now passes. Note the tag was made before that Cargo.toml change: move it with `git tag -f -a v0.1.0` after you commit.");

    // 32
    g.turn("Thanks. What's left for 0.2?");
    g.think("Collect the loose ends from this session: table numeric alignment, parser split (too_many_lines), MSRV job in CI, external sort for ORDER BY on huge inputs, the tag to move after committing Cargo.toml.");
    g.say("Open items for 0.2, from this session:\n\n1. Move the `v0.1.0` tag after committing the Cargo.toml metadata, then push.\n2. Add an MSRV (1.74) job to CI; we broke it once already.\n3. Split `src/parser.rs` (the `too_many_lines` allow is a reminder).\n4. Right-align numeric columns in `--output table`.\n5. External sort so `ORDER BY` on inputs larger than RAM doesn't buffer everything.\n6. Keep fuzzing the parser in CI for a few minutes per run.");
}
