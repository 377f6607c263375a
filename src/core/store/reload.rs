//! Reading a conversation again after jp wrote it, paying for what jp
//! appended rather than for the whole file. jp rewrites `events.json`
//! whole at every write, so the new file is compared with the text already
//! held (a compare, not a parse); when it starts with it, only the events
//! after it are parsed and the rest is kept. Anything else (a compaction
//! inserted, an older generation, a truncated file, another config) is a
//! full load, and says why.
//!
//! The new file is compared a slice at a time and only what follows the
//! held text is kept, beside it: the text read before is shared, never
//! held twice, so following a conversation of any size costs what jp
//! appended, not the file.

use super::load;
use crate::core::error::{Place, Result};
use crate::core::model::conversation::{Conversation, EVENTS_FILE, Format};
use crate::core::model::turns;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// How a reload went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reloaded {
    /// The file held what was read before and `n` events more: only those
    /// were parsed.
    Appended(usize),
    /// Read whole, and why.
    Whole(&'static str),
}

impl std::fmt::Display for Reloaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reloaded::Appended(n) => {
                write!(f, "{}", crate::core::fmt::count(*n as u64, "event"))?;
                f.write_str(" added")
            }
            Reloaded::Whole(why) => write!(f, "reloaded: {why}"),
        }
    }
}

/// The conversation in `dir` as it is now, given `before`, the same
/// conversation as read earlier.
pub fn reload(dir: &Path, before: &Conversation) -> Result<(Conversation, Reloaded)> {
    let copies = super::copies::of(dir);
    // jp writes its two copies with the same text, a moment apart, and
    // reads the newer: the copy read may change between two of its writes
    // with nothing to say. Extended when the copy read now begins with the
    // text held, whichever it is; said only when it doesn't.
    let mut conv = match extend(before, &copies.read) {
        Ok((conv, n)) => (conv, Reloaded::Appended(n)),
        Err(why) => {
            let conv = load::parse(&copies.read, load::read_files(&copies.read)?)?;
            let why = if copies.read != before.dir {
                "jp switched to its other copy of the file (it keeps two and reads the newer)"
            } else {
                why
            };
            (conv, Reloaded::Whole(why))
        }
    };
    conv.0.twin = copies.other;
    load::remember(&mut conv.0);
    Ok(conv)
}

/// How much of the held text is compared at a time.
const SLICE: usize = 1 << 20;

/// `before` with the events the file in `dir` holds after the text held,
/// and how many; or why it can't be extended (then the files are read
/// whole, and any error is reported by that read).
fn extend(
    before: &Conversation,
    dir: &Path,
) -> std::result::Result<(Conversation, usize), &'static str> {
    if before.format != Format::Current || before.prelude.is_some() {
        return Err("a file of jp's older format is read whole");
    }
    // Warnings are said once, by a whole read.
    if !before.warnings.is_empty() {
        return Err("the file had warnings");
    }
    let Some(last) = before.events.last() else {
        return Err("the file held no events");
    };
    let Ok((base_config, metadata)) = load::read_side_files(dir) else {
        return Err("a file beside it is unreadable");
    };
    let Some(base_config) = base_config
        .as_deref()
        .and_then(|b| serde_json::from_slice::<Value>(b).ok())
        .filter(|c| *c == before.base_config)
    else {
        return Err("its base config was rewritten");
    };
    let metadata = match metadata {
        Some(b) => {
            Some(serde_json::from_slice::<Value>(&b).map_err(|_| "its metadata is unreadable")?)
        }
        None => None,
    };
    let held = last.span.end;
    let events_path = dir.join(EVENTS_FILE);
    let rest = read_past(&events_path, before, held)?;
    let raws: Vec<&str> = super::split::after_element(&rest)
        .ok_or("the file was rewritten")?
        .into_iter()
        .map(|(a, b)| &rest[a..b])
        .collect();
    let mut new = Vec::with_capacity(raws.len());
    for parsed in load::parse_events(&rest, &raws) {
        match parsed {
            // A config delta with no time is one only a whole read judges.
            Ok((event, None))
                if event.kind == crate::core::model::event::Kind::ConfigDelta
                    && event.timestamp.is_none() =>
            {
                return Err("a new event has something to say");
            }
            Ok((mut event, None)) => {
                event.span.start += held;
                event.span.end += held;
                new.push(event);
            }
            _ => return Err("a new event has something to say"),
        }
    }
    drop(raws);
    let source = before.source.with_rest(held, rest);
    let n = before.events.len();
    let mut events = Vec::with_capacity(n + new.len());
    events.extend_from_slice(&before.events);
    events.extend(new);
    let turn_count = turns::assign(&mut events);
    let mut warnings = Vec::new();
    let place_of = |o: usize| -> Place { source.place_of(o) };
    super::stream_check::check_stream(&events_path, &place_of, &events, &mut warnings);
    if !warnings.is_empty() {
        return Err("a new event has something to say");
    }
    let title = load::title_of(metadata.as_ref());
    let added = events.len() - n;
    Ok((
        Conversation {
            dir: dir.to_path_buf(),
            id: before.id,
            title,
            format: Format::Current,
            base_config,
            metadata,
            source,
            prelude: None,
            events,
            turn_count,
            warnings,
            twin: None,
            merged: Default::default(),
            facts_memo: Default::default(),
        },
        added,
    ))
}

/// The text of the file at `path` past its first `held` bytes, when those
/// are `before`'s: compared a slice at a time, so only the new part is
/// ever in memory beside the held text.
fn read_past(
    path: &Path,
    before: &Conversation,
    held: usize,
) -> std::result::Result<String, &'static str> {
    let unreadable = "the file is unreadable";
    let mut file = super::bounded::open_regular(path, true).map_err(|_| unreadable)?;
    let len = file.metadata().map_err(|_| unreadable)?.len();
    if len > super::safe_fs::EVENTS_LIMIT {
        return Err("the file is larger than a conversation can be");
    }
    if (len as usize) < held {
        return Err("the file is shorter than before");
    }
    let mut slice = vec![0; SLICE.min(held)];
    let mut at = 0;
    while at < held {
        let n = slice.len().min(held - at);
        file.read_exact(&mut slice[..n])
            .map_err(|_| "the file is shorter than before")?;
        if !before.source.matches_at(at, &slice[..n]) {
            return Err("the file was rewritten");
        }
        at += n;
    }
    drop(slice);
    let mut rest = Vec::with_capacity(len as usize - held);
    let limit = super::safe_fs::EVENTS_LIMIT - held as u64;
    super::bounded::read_limited(file, limit, &mut rest)
        .map_err(|_| "the file is larger than a conversation can be, or unreadable")?;
    String::from_utf8(rest).map_err(|_| "the file is not text")
}
