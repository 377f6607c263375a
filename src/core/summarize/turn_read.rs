//! What the digest reads of each event, by turn, kept for the digest's
//! life: a simulation summarises every turn once per window and policy,
//! and reading a turn's events again (decoding them, finding the paths
//! their prose names) was most of what each summary cost.

use super::paths::mentioned;
use crate::core::facts::call_args::paths_of;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::{Kind, ResponseKind};
use crate::core::model::timestamp::Timestamp;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The most of a line the digest ever shows, plus one character: a line
/// cut to this shows the same once clipped to any length the digest
/// clips to.
pub(super) const LINE_KEPT: usize = super::lines::CONCLUSION_LIMIT + 1;

/// What the digest needs of one event.
#[derive(Debug, Clone)]
pub(super) struct EventRead {
    pub timestamp: Option<Timestamp>,
    pub what: What,
}

#[derive(Debug, Clone)]
pub(super) enum What {
    /// The user's message on one line, and the paths its prose names.
    Request {
        line: String,
        mentioned: Vec<String>,
    },
    /// The assistant's message: its paragraphs (a turn's last is its
    /// conclusion), the question it closes on, the paths it names.
    Message {
        paragraphs: Vec<String>,
        asked: Option<String>,
        mentioned: Vec<String>,
    },
    Data,
    /// A tool call and the paths its arguments name.
    Call {
        id: String,
        name: String,
        paths: Vec<String>,
    },
    /// A tool's result; of a failure, its text on one line.
    Result {
        id: String,
        failed: Option<String>,
    },
    InquiryRequest,
    InquiryResponse,
    Other,
}

/// Each turn's reads, by the conversation and the turn's events.
#[derive(Debug, Default)]
pub(super) struct TurnReads {
    kept: Mutex<Kept>,
}

type Key = (usize, usize, usize);

#[derive(Debug, Default)]
struct Kept {
    turns: HashMap<Key, Arc<[EventRead]>>,
    bytes: usize,
}

/// Past this many bytes of reads, those kept are let go: a simulation of
/// a conversation of hundreds of megabytes keeps no more.
const KEPT_BYTES: usize = 64 << 20;

impl TurnReads {
    /// The reads of the events `start..end` of `conv`, one turn's.
    pub(super) fn turn(&self, conv: &Conversation, start: usize, end: usize) -> Arc<[EventRead]> {
        // The conversation by address: a digest lives no longer than the
        // conversations it is asked to read (one request, one simulation).
        let key = (std::ptr::from_ref(conv) as usize, start, end);
        let lock = || self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = lock().turns.get(&key) {
            return r.clone();
        }
        let read: Arc<[EventRead]> = (start..end).map(|i| read(conv, i)).collect();
        let bytes = read.iter().map(EventRead::bytes).sum::<usize>();
        let mut kept = lock();
        if kept.bytes + bytes > KEPT_BYTES {
            *kept = Kept::default();
        }
        kept.bytes += bytes;
        kept.turns.insert(key, read.clone());
        read
    }
}

impl EventRead {
    fn bytes(&self) -> usize {
        let all = |v: &[String]| v.iter().map(String::len).sum::<usize>();
        64 + match &self.what {
            What::Request { line, mentioned } => line.len() + all(mentioned),
            What::Message {
                paragraphs,
                asked,
                mentioned,
            } => all(paragraphs) + asked.as_ref().map_or(0, String::len) + all(mentioned),
            What::Call { id, name, paths } => id.len() + name.len() + all(paths),
            What::Result { id, failed } => id.len() + failed.as_ref().map_or(0, String::len),
            _ => 0,
        }
    }
}

/// What the digest reads of event `i`.
pub(super) fn read(conv: &Conversation, i: usize) -> EventRead {
    let e = &conv.events[i];
    let what = match &e.kind {
        Kind::ChatRequest => {
            let text = conv.text(i);
            What::Request {
                line: line_of(&text),
                mentioned: mentioned(&text),
            }
        }
        Kind::ChatResponse(ResponseKind::Message) => {
            let text = conv.text(i);
            What::Message {
                paragraphs: crate::core::facts::prose::paragraphs(&text),
                asked: super::lines::open_question(&text),
                mentioned: mentioned(&text),
            }
        }
        Kind::ChatResponse(ResponseKind::Data) => What::Data,
        Kind::ToolCallRequest { id, name } => What::Call {
            id: id.to_string(),
            name: name.to_string(),
            paths: serde_json::from_str::<Value>(&conv.text(i))
                .map(|args| paths_of(&args))
                .unwrap_or_default(),
        },
        Kind::ToolCallResponse { id, is_error } => What::Result {
            id: id.to_string(),
            failed: is_error.then(|| line_of(&conv.text(i))),
        },
        Kind::InquiryRequest => What::InquiryRequest,
        Kind::InquiryResponse => What::InquiryResponse,
        _ => What::Other,
    };
    EventRead {
        timestamp: e.timestamp,
        what,
    }
}

/// A message's prose on one line, no longer than the digest ever shows.
fn line_of(text: &str) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        if chars >= LINE_KEPT {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
            chars += 1;
        }
        out.push_str(word);
        chars += word.chars().count();
    }
    match out.char_indices().nth(LINE_KEPT) {
        Some((at, _)) => out[..at].to_string(),
        None => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_cut_where_no_clip_can_tell() {
        let long = "word ".repeat(400);
        let line = line_of(&long);
        assert_eq!(line.chars().count(), LINE_KEPT);
        let whole = long.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(whole.starts_with(&line));
        assert_eq!(line_of("a  b\n\tc"), "a b c");
    }
}
