//! A turn written the way jp writes it while a query runs: the lock taken
//! for the whole query, and the whole `events.json` written again (a temp
//! file renamed over it) at the turn's end or, as jp's branch
//! `turn-midflight-persistence` does, after every finished content block
//! and every tool call request. Tests, benchmarks and measurements use it
//! to play jp beside the inspector.

use super::{Rng, Spec, ts};
use crate::core::model::encoding;
use crate::core::ops::jp_files::pretty_element;
use serde_json::{Value, json};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Seconds past the generated conversations' start: a year and two hours
/// on (the screen shows a turn's time of day).
const LATER: u64 = 365 * 24 * 3600 + 2 * 3600;

/// One jp process's query on one conversation: holds jp's lock from
/// [`Query::start`] until it is dropped, as jp holds it for a query.
pub struct Query {
    dir: PathBuf,
    lock: Option<(File, PathBuf)>,
    /// The file's text up to its closing bracket, and what follows it.
    head: String,
    tail: String,
}

impl Query {
    /// Takes jp's lock on the conversation in `dir` (waiting while another
    /// process holds it) and reads the file as jp holds it in memory.
    pub fn start(dir: &Path) -> io::Result<Query> {
        let path = crate::core::ops::jp_files::lock_path(dir).map_err(io::Error::other)?;
        fs::create_dir_all(path.parent().unwrap_or(dir))?;
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        file.lock()?;
        // Whoever held it last may have left words in it: jp's are whole.
        file.set_len(0)?;
        let mut diag = &file;
        diag.write_all(json!({"pid": std::process::id()}).to_string().as_bytes())?;
        let text = fs::read_to_string(dir.join("events.json"))?;
        let close = text
            .rfind(']')
            .ok_or_else(|| io::Error::other("events.json is not an array"))?;
        Ok(Query {
            dir: dir.to_path_buf(),
            lock: Some((file, path)),
            head: text[..close].trim_end().to_string(),
            tail: text[close..].to_string(),
        })
    }

    /// Appends `events` (plain, jp's storage encoding is added) and writes
    /// the whole file again, as one of jp's flushes.
    pub fn write(&mut self, events: &[Value]) -> io::Result<()> {
        for e in events {
            let mut e = e.clone();
            encoding::encode_event(&mut e);
            if !self.head.ends_with('[') {
                self.head.push(',');
            }
            self.head.push_str("\n  ");
            self.head.push_str(&pretty_element(&e));
        }
        let temp = self.dir.join(".events.json.jp-tmp");
        let mut f = File::create(&temp)?;
        f.write_all(self.head.as_bytes())?;
        f.write_all(b"\n")?;
        f.write_all(self.tail.as_bytes())?;
        f.sync_all()?;
        fs::rename(&temp, self.dir.join("events.json"))
    }
}

impl Drop for Query {
    /// jp releases its lock and deletes the lock file.
    fn drop(&mut self) {
        if let Some((file, path)) = self.lock.take() {
            let _ = file.unlock();
            drop(file);
            let _ = fs::remove_file(path);
        }
    }
}

/// The events of turn `turn` (0-based) shaped by `spec`, grouped by jp's
/// flushes: the request with the turn's start, then the reasoning, each
/// tool call request, each result, and the closing message. Deterministic
/// for a turn.
pub fn turn_blocks(spec: &Spec, turn: usize) -> Vec<Vec<Value>> {
    let mut rng = Rng((spec.seed ^ (turn as u64).wrapping_mul(0x9e37_79b9)).max(1));
    // Later than any conversation it is appended to (the demo's and the
    // generated ones end in 2026), so its turns never seem to go back.
    let mut clock = LATER + 60 * (turn as u64 + 1);
    let mut tick = |s: u64| {
        clock += s;
        ts(clock)
    };
    let mut blocks = vec![vec![
        json!({"timestamp": tick(0), "type": "turn_start"}),
        json!({"timestamp": tick(1), "type": "chat_request",
               "content": format!("Turn {}: {}", turn + 1, rng.text(spec.request_chars))}),
    ]];
    if spec.reasoning_chars > 0 {
        blocks.push(vec![json!({"timestamp": tick(2), "type": "chat_response",
                                "reasoning": rng.text(spec.reasoning_chars)})]);
    }
    for k in 0..spec.tool_calls_per_turn {
        let id = format!("live_{turn}_{k}");
        blocks.push(vec![
            json!({"timestamp": tick(1), "type": "tool_call_request",
                                "id": id, "name": "fs_read_file",
                                "arguments": {"path": format!("src/live_{k}.rs")}}),
        ]);
        blocks.push(vec![
            json!({"timestamp": tick(2), "type": "tool_call_response",
                                "id": id, "content": rng.text(spec.tool_output_chars),
                                "is_error": false}),
        ]);
    }
    blocks.push(vec![json!({"timestamp": tick(3), "type": "chat_response",
                            "message": rng.text(spec.message_chars)})]);
    blocks
}

/// Appends turn `turn` to the conversation in `dir` as one jp query:
/// written once at its end (`midflight` false) or after every block.
pub fn append_turn(dir: &Path, spec: &Spec, turn: usize, midflight: bool) -> io::Result<()> {
    let mut q = Query::start(dir)?;
    let blocks = turn_blocks(spec, turn);
    if midflight {
        for b in &blocks {
            q.write(b)?;
        }
        Ok(())
    } else {
        q.write(&blocks.concat())
    }
}
