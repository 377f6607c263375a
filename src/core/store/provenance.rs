//! What jp-inspect remembers of the compactions it wrote, beside the
//! conversation: which were automatic and which `over` bound they carry.
//!
//! jp rewrites a conversation through its own types on every query and
//! drops the fields it doesn't know, a compaction's `source` and
//! `tool_calls.over` among them (format.md). So jp-inspect keeps a record
//! of each compaction it writes with either, keyed by what jp keeps of the
//! event (its timestamp as a value, not as text, and its range), in
//! `<storage>/jp-inspect/<ID>.json`: keyed by the conversation's id, so it
//! survives the folder being renamed. A compaction with no record and no
//! `source` of its own is manual, as D50 says.

use crate::core::error::{Error, Result};
use crate::core::model::compaction::{Compaction, Source, ToolCalls};
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use crate::core::model::id::ConversationId;
use crate::core::model::timestamp::{self, Timestamp};
use crate::core::store::safe_fs;
use serde_json::{Value, json};
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// What is remembered of one compaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub timestamp: Timestamp,
    pub from_turn: usize,
    pub to_turn: usize,
    pub source: Source,
    pub over: Option<u64>,
    /// Which summarizer wrote its summary.
    pub summarizer: Option<String>,
    /// Its summary is a person's text (jp before #932 drops the mark).
    pub authored: bool,
}

impl Record {
    /// The record of `c`, if it carries anything jp would drop.
    pub fn of(c: &Compaction) -> Option<Record> {
        let over = c.tool_calls.and_then(ToolCalls::over);
        let summarizer = c.summary.as_ref().and(c.summarizer.clone());
        let authored = c.summary.is_some() && c.authored;
        let keep = c.source == Source::Auto || over.is_some() || summarizer.is_some() || authored;
        keep.then_some(Record {
            timestamp: c.timestamp,
            from_turn: c.from_turn,
            to_turn: c.to_turn,
            source: c.source,
            over,
            summarizer,
            authored,
        })
    }

    fn matches(&self, c: &Compaction) -> bool {
        self.timestamp == c.timestamp && self.from_turn == c.from_turn && self.to_turn == c.to_turn
    }

    fn to_json(&self) -> Value {
        let mut v = json!({
            "timestamp": timestamp::format(&self.timestamp),
            "from_turn": self.from_turn,
            "to_turn": self.to_turn,
            "source": self.source.as_str(),
        });
        if let Some(over) = self.over {
            v["over"] = json!(over);
        }
        if let Some(by) = &self.summarizer {
            v["summarizer"] = json!(by);
        }
        if self.authored {
            v["authored"] = json!(true);
        }
        v
    }

    fn from_json(v: &Value) -> Option<Record> {
        Some(Record {
            timestamp: timestamp::parse(v.get("timestamp")?.as_str()?)?,
            from_turn: usize::try_from(v.get("from_turn")?.as_u64()?).ok()?,
            to_turn: usize::try_from(v.get("to_turn")?.as_u64()?).ok()?,
            source: match v.get("source")?.as_str()? {
                "auto" => Source::Auto,
                _ => Source::Manual,
            },
            over: v.get("over").and_then(Value::as_u64),
            summarizer: v
                .get("summarizer")
                .and_then(Value::as_str)
                .filter(|s| matches!(*s, "digest" | "command" | "openai" | "anthropic"))
                .map(str::to_owned),
            authored: v.get("authored").and_then(Value::as_bool).unwrap_or(false),
        })
    }
}

/// Where the records of the conversation in `dir` live: beside the
/// `conversations` folder, named by the conversation's id (or, for a
/// directory not named like one, inside it).
pub fn path_for(dir: &Path) -> PathBuf {
    let parent = dir.parent();
    match (ConversationId::of_dir(dir).map(u64::from), parent) {
        (Some(id), Some(p)) if p.file_name().is_some_and(|n| n == "conversations") => p
            .parent()
            .unwrap_or(p)
            .join("jp-inspect")
            .join(format!("{id}.json")),
        _ => dir.join(".jp-inspect.json"),
    }
}

/// Where the records of a conversation with copies in `dir` and `twin`
/// may be, the one written first: jp's user-local copy is the durable
/// one, and either copy must find the same record.
pub fn places(dir: &Path, twin: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs: Vec<&Path> = std::iter::once(dir).chain(twin).collect();
    dirs.sort_by_key(|d| {
        !matches!(
            crate::core::store::copies::root_of(d),
            Some((crate::core::store::copies::Root::User, _))
        )
    });
    let mut out: Vec<PathBuf> = Vec::new();
    for d in dirs {
        let p = path_for(d);
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// The records kept at any of `places`, each once.
pub fn read_at(places: &[PathBuf]) -> Result<Vec<Record>> {
    let mut out: Vec<Record> = Vec::new();
    for path in places {
        for r in read_one(path)? {
            if !out.contains(&r) {
                out.push(r);
            }
        }
    }
    Ok(out)
}

fn read_one(path: &Path) -> Result<Vec<Record>> {
    let path = path.to_path_buf();
    // Never through a linked records folder: it could be another
    // workspace's.
    if let Some(parent) = path.parent()
        && fs::symlink_metadata(parent).is_ok_and(|m| m.file_type().is_symlink())
    {
        return Err(Error::invalid(
            parent,
            "is a symbolic link; jp-inspect keeps its records in a real folder, and reads \
             none through a link (remove the link)",
        ));
    }
    let Some(bytes) = safe_fs::read_no_follow(&path)? else {
        return Ok(Vec::new());
    };
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| Error::Syntax {
        path: path.clone(),
        place: crate::core::error::Place {
            line: e.line(),
            column: e.column(),
        },
        message: e.to_string(),
    })?;
    Ok(v.get("compactions")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Record::from_json).collect())
        .unwrap_or_default())
}

/// Gives each compaction of `conv` that lost its `source` or `over` (jp
/// rewrote the file) what its record remembers. A compaction that still
/// carries the field keeps its own.
pub fn recall(conv: &mut Conversation, records: &[Record]) {
    if records.is_empty() {
        return;
    }
    let indices: Vec<usize> = conv.compactions().map(|c| c.event).collect();
    for i in indices {
        let raw: Value = match serde_json::from_str(conv.raw(i)) {
            Ok(v) => v,
            Err(_) => continue,
        };
        let Kind::Compaction(Ok(c)) = &mut conv.events[i].kind else {
            continue;
        };
        let Some(r) = records.iter().find(|r| r.matches(c)) else {
            continue;
        };
        if raw.get("source").is_none() {
            c.source = r.source;
        }
        if raw.get("summarizer").is_none() && c.summary.is_some() {
            c.summarizer = r.summarizer.clone();
        }
        if raw.pointer("/summary/source").is_none() && c.summary.is_some() && r.authored {
            c.authored = true;
        }
        let has_over = raw.pointer("/tool_calls/over").is_some();
        if let (false, Some(over), Some(tc)) = (has_over, r.over, c.tool_calls) {
            c.tool_calls = Some(tc.with_over(Some(over)));
        }
    }
}

/// The records to keep once `conv` is what is on disk: every remembered
/// compaction that is still there (recalled or carrying its fields).
pub fn records_of(conv: &Conversation) -> Vec<Record> {
    conv.valid_compactions()
        .iter()
        .filter_map(Record::of)
        .collect()
}

/// Writes the records for the conversation in `dir` atomically; removes the
/// file when there is nothing to remember. Called under jp's lock.
pub fn write(dir: &Path, records: &[Record]) -> Result<()> {
    let twin = crate::core::store::copies::twin_of(dir);
    write_at(&places(dir, twin.as_deref()), records)
}

/// Writes the records at the first of `places` and removes them from the
/// others, so one record answers for every copy.
pub fn write_at(places: &[PathBuf], records: &[Record]) -> Result<()> {
    let Some((path, others)) = places.split_first() else {
        return Ok(());
    };
    for other in others {
        remove(other)?;
    }
    if records.is_empty() {
        return remove(path);
    }
    write_one(path, records)
}

/// Removes a record file, never through a linked folder.
fn remove(path: &Path) -> Result<()> {
    let Some(parent) = path.parent() else {
        return Ok(());
    };
    match fs::symlink_metadata(parent) {
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(parent, e)),
        Ok(m) if m.file_type().is_symlink() => {
            return Err(Error::invalid(
                parent,
                "is a symbolic link; jp-inspect removes no record through a link (remove the \
                 link)",
            ));
        }
        Ok(_) => {}
    }
    match fs::remove_file(path) {
        Err(e) if e.kind() != ErrorKind::NotFound => Err(Error::io(path, e)),
        _ => Ok(()),
    }
}

fn write_one(path: &Path, records: &[Record]) -> Result<()> {
    let path = path.to_path_buf();
    if let Some(parent) = path.parent() {
        safe_fs::real_dir(parent)?;
        safe_fs::ignore_in_git(parent);
    }
    let doc = json!({
        "about": "compactions jp-inspect wrote with fields jp drops when it rewrites the conversation",
        "compactions": records.iter().map(Record::to_json).collect::<Vec<_>>(),
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    let temp = safe_fs::write_temp(&path, text.as_bytes(), None)?;
    safe_fs::commit(&temp, &path)
}
