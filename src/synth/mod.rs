//! Deterministic synthetic conversations for tests and benchmarks: any
//! number of turns, any size, written in `jp`'s current on-disk format.

pub mod live;

use crate::core::model::encoding;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The shape of a generated conversation. Sizes are in characters.
#[derive(Debug, Clone)]
pub struct Spec {
    pub turns: usize,
    pub request_chars: usize,
    pub reasoning_chars: usize,
    pub message_chars: usize,
    pub tool_calls_per_turn: usize,
    pub tool_output_chars: usize,
    /// Every n-th tool call fails (0: none).
    pub error_every: usize,
    pub model: String,
    pub seed: u64,
    /// Automatic compactions appended between turns, spread evenly and
    /// overlapping (a long session a trigger kept firing in).
    pub compactions: usize,
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            turns: 20,
            request_chars: 400,
            reasoning_chars: 600,
            message_chars: 1_200,
            tool_calls_per_turn: 2,
            tool_output_chars: 8_000,
            error_every: 7,
            model: "anthropic/claude-sonnet-4-5".into(),
            seed: 42,
            compactions: 0,
        }
    }
}

impl Spec {
    /// A spec whose `events.json` is roughly `bytes` long.
    pub fn of_size(bytes: usize) -> Spec {
        let per_turn = 400 + 600 + 1_200 + 2 * (8_000 * 4 / 3 + 300) + 1_000;
        Spec {
            turns: (bytes / per_turn).max(1),
            ..Spec::default()
        }
    }

    /// Events per turn: turn_start, request, reasoning, the calls and their
    /// results, the message.
    pub fn events_per_turn(&self) -> usize {
        4 + 2 * self.tool_calls_per_turn
    }
}

const WORDS: &[&str] = &[
    "the",
    "parser",
    "returns",
    "an",
    "error",
    "when",
    "input",
    "is",
    "empty",
    "so",
    "we",
    "check",
    "length",
    "first",
    "then",
    "split",
    "on",
    "commas",
    "and",
    "trim",
    "each",
    "field",
    "before",
    "matching",
    "against",
    "schema",
    "config",
    "file",
    "path",
    "src/lib.rs",
    "tests",
    "pass",
    "fail",
    "because",
    "value",
    "was",
    "None",
    "instead",
    "of",
    "Some",
    "fn",
    "let",
    "match",
    "struct",
    "impl",
    "cargo",
    "build",
    "release",
    "module",
    "import",
    "buffer",
    "stream",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn text(&mut self, chars: usize) -> String {
        let mut s = String::with_capacity(chars + 16);
        while s.len() < chars {
            let w = WORDS[(self.next() % WORDS.len() as u64) as usize];
            s.push_str(w);
            s.push(if self.next().is_multiple_of(12) {
                '\n'
            } else {
                ' '
            });
        }
        s.truncate(chars);
        s
    }
}

fn ts(seconds: u64) -> String {
    let t = chrono::DateTime::from_timestamp(1_790_000_000 + seconds as i64, 0).unwrap_or_default();
    crate::core::model::timestamp::format(&t)
}

/// Writes the `events.json` of `spec` to `out`, streaming (a 100 MB file
/// never sits in memory twice).
pub fn write_events(spec: &Spec, out: &mut dyn Write) -> io::Result<()> {
    let mut rng = Rng(spec.seed.max(1));
    let mut clock = 0u64;
    let mut first = true;
    let mut call = 0usize;
    let mut placed = 0usize;
    out.write_all(b"[")?;
    let mut emit = |out: &mut dyn Write, mut v: Value| -> io::Result<()> {
        encoding::encode_event(&mut v);
        let text = crate::core::ops::jp_files::pretty_element(&v);
        if !first {
            out.write_all(b",")?;
        }
        first = false;
        out.write_all(b"\n  ")?;
        out.write_all(text.as_bytes())
    };
    for turn in 0..spec.turns {
        clock += 60;
        emit(out, json!({"timestamp": ts(clock), "type": "turn_start"}))?;
        clock += 1;
        let mut request = format!("Turn {}: ", turn + 1);
        request.push_str(&rng.text(spec.request_chars.saturating_sub(request.len())));
        emit(
            out,
            json!({"timestamp": ts(clock), "type": "chat_request", "content": request}),
        )?;
        if spec.reasoning_chars > 0 {
            clock += 2;
            emit(
                out,
                json!({"timestamp": ts(clock), "type": "chat_response",
                       "reasoning": rng.text(spec.reasoning_chars),
                       "metadata": {"signature": format!("sig-{turn}")}}),
            )?;
        }
        for k in 0..spec.tool_calls_per_turn {
            call += 1;
            let id = format!("call_{call:06}");
            clock += 1;
            emit(
                out,
                json!({"timestamp": ts(clock), "type": "tool_call_request", "id": id,
                       "name": if k % 2 == 0 { "fs_read_file" } else { "cargo_test" },
                       "arguments": {"path": format!("src/module_{}.rs", (call * 7) % 50)}}),
            )?;
            clock += 2;
            let is_error = spec.error_every > 0 && call.is_multiple_of(spec.error_every);
            emit(
                out,
                json!({"timestamp": ts(clock), "type": "tool_call_response", "id": id,
                       "content": rng.text(spec.tool_output_chars), "is_error": is_error}),
            )?;
        }
        clock += 3;
        emit(
            out,
            json!({"timestamp": ts(clock), "type": "chat_response",
                   "message": rng.text(spec.message_chars)}),
        )?;
        while placed < spec.compactions && placed * spec.turns < (turn + 1) * spec.compactions {
            clock += 1;
            emit(out, compaction(&mut rng, placed, turn + 1, clock))?;
            placed += 1;
        }
    }
    out.write_all(b"\n]\n")
}

/// The `k`-th automatic compaction, appended once `turns` turns are done:
/// a recent stretch of them, by one of the policies the staged trigger
/// writes (a summary, tool elision over a size, reasoning stripped).
fn compaction(rng: &mut Rng, k: usize, turns: usize, clock: u64) -> Value {
    let to = turns.saturating_sub(2);
    let span = 20 + (rng.next() % 100) as usize;
    let mut c = json!({"type": "compaction", "timestamp": ts(clock),
                       "from_turn": to.saturating_sub(span), "to_turn": to});
    match k % 4 {
        0 => {
            c["summary"] = json!({"summary": rng.text(300)});
            c["reasoning"] = json!("strip");
            c["summarizer"] = json!("digest");
        }
        1 => {
            c["tool_calls"] = json!({"policy": "strip", "request": false, "response": true,
                                     "over": "1KB"});
        }
        2 => {
            c["tool_calls"] = json!({"policy": "strip", "request": true, "response": true});
            c["reasoning"] = json!({"policy": "strip", "over": "512B"});
        }
        _ => c["reasoning"] = json!("strip"),
    }
    c["source"] = json!("auto");
    c
}

/// The `events.json` text of `spec`.
pub fn events_json(spec: &Spec) -> String {
    let mut buf = Vec::new();
    write_events(spec, &mut buf).expect("writing to memory");
    String::from_utf8(buf).expect("generated JSON is UTF-8")
}

/// Writes a conversation directory `<parent>/<id>-synthetic` and returns it.
pub fn write_conversation(parent: &Path, id: u64, spec: &Spec) -> io::Result<PathBuf> {
    let dir = parent.join(format!("{id}-synthetic"));
    fs::create_dir_all(&dir)?;
    let file = fs::File::create(dir.join("events.json"))?;
    let mut w = io::BufWriter::with_capacity(1 << 20, file);
    write_events(spec, &mut w)?;
    w.flush()?;
    write_side_files(&dir, spec)?;
    Ok(dir)
}

/// The conversation's `base_config.json` and `metadata.json`, cheap to
/// write again where the events are kept from an earlier run.
pub fn write_side_files(dir: &Path, spec: &Spec) -> io::Result<()> {
    // jp refuses a stream whose configuration leaves a tool's `run`
    // unset, so the generated one says it as a jp user's would.
    let base = json!({"assistant": {"system_prompt": "You are a test assistant.",
                                    "model": {"id": spec.model}},
                      "conversation": {"tools": {"*": {"run": "ask"}}}});
    fs::write(
        dir.join("base_config.json"),
        serde_json::to_string_pretty(&base)? + "\n",
    )?;
    let mut meta = String::new();
    let _ = write!(
        meta,
        "{{\n  \"title\": \"Synthetic {} turns\",\n  \"last_activated_at\": \"{}\"\n}}\n",
        spec.turns,
        ts(0)
    );
    fs::write(dir.join("metadata.json"), meta)
}

/// Writes a workspace configuration shaped like jp's own (a `.jp/config.toml`
/// whose `extends` reaches a persona and `tools` tool definitions of about
/// 2 KB each, grouped in folders by eights) into the storage folder
/// `jp_dir`. Deterministic; rewritten files keep their text.
pub fn write_config_tree(jp_dir: &Path, tools: usize) -> io::Result<()> {
    let mut rng = Rng(7);
    // What jp needs to run any command (a model, the tools' run policy),
    // and jp-inspect's settings where jp keeps them.
    let config = "extends = [\n    \"config/personas/default.toml\",\n    \"mcp/tools/**/*.toml\",\n]\n\n\
                  [assistant.model.id]\nprovider = \"anthropic\"\nname = \"claude-sonnet-4-5\"\n\n\
                  [conversation.tools.\"*\"]\nrun = \"ask\"\n\n\
                  [conversation.compaction]\nrules = [{ keep_first = 2, keep_last = 1, reasoning = \"strip\" }]\n\n\
                  [plugins.command.inspect]\nrun = \"unattended\"\n\n\
                  [plugins.command.inspect.options.auto]\nsoft_ratio = 0.55\n";
    let persona = format!(
        "[assistant]\nname = \"Developer\"\nsystem_prompt = \"\"\"\n{}\n\"\"\"\n",
        rng.text(3_000)
    );
    let files = [
        (jp_dir.join("config.toml"), config.to_string()),
        (jp_dir.join("config/personas/default.toml"), persona),
    ];
    let tool_files = (0..tools).map(|k| {
        let name = format!("tool_{k}");
        let text = format!(
            "[conversation.tools.{name}]\nenable = \"explicit\"\nrun = \"unattended\"\n\
             style.inline_results = \"off\"\nsource = \"local\"\n\
             command = \"just serve-tools {{{{context}}}} {{{{tool}}}}\"\n\
             summary = \"{}\"\ndescription = \"\"\"\n{}\n\"\"\"\n\
             examples = \"\"\"\n```json\n{{\"paths\": [\"src/lib.rs\"]}}\n```\n\"\"\"\n\n\
             [conversation.tools.{name}.parameters.paths]\ntype = \"array\"\nrequired = true\n\
             items.type = \"string\"\nsummary = \"{}\"\n",
            rng.text(80).replace('\n', " "),
            rng.text(1_200),
            rng.text(60).replace('\n', " ")
        );
        let path = jp_dir.join(format!("mcp/tools/group_{}/{name}.toml", k / 8));
        (path, text)
    });
    for (path, text) in files.into_iter().chain(tool_files) {
        if fs::read_to_string(&path).is_ok_and(|t| t == text) {
            continue;
        }
        fs::create_dir_all(path.parent().unwrap_or(jp_dir))?;
        fs::write(&path, text)?;
    }
    Ok(())
}
