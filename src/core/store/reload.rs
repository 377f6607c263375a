//! Reading a conversation again after jp wrote it, paying for what jp
//! appended rather than for the whole file. jp rewrites `events.json`
//! whole at every write, so the new file is compared with the text already
//! held (a compare, not a parse); when it starts with it, only the events
//! after it are parsed and the rest is kept. Anything else (a compaction
//! inserted, an older generation, a truncated file, another config) is a
//! full load, and says why.

use super::load::{self, Files};
use crate::core::error::Result;
use crate::core::model::conversation::{Conversation, EVENTS_FILE, Format};
use crate::core::model::turns;
use serde_json::Value;
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
    if copies.read != before.dir {
        let conv = load::load(dir)?;
        return Ok((conv, Reloaded::Whole("jp reads another copy now")));
    }
    let files = load::read_files(&copies.read)?;
    let mut conv = match extend(before, files) {
        Ok((conv, n)) => (conv, Reloaded::Appended(n)),
        Err((why, files)) => (load::parse(&copies.read, files)?, Reloaded::Whole(why)),
    };
    conv.0.twin = copies.other;
    load::remember(&mut conv.0);
    Ok(conv)
}

/// Why a file is read whole, and the files back to read.
type Whole = (&'static str, Files);

/// `before` with the events `files` holds after it, or why it can't be
/// extended, with the files (then they are read whole). The new text is
/// the one copy held besides `before`'s.
fn extend(
    before: &Conversation,
    mut files: Files,
) -> std::result::Result<(Conversation, usize), Whole> {
    macro_rules! whole {
        ($why:expr) => {
            return Err(($why, files))
        };
    }
    if before.format != Format::Current || before.prelude.is_some() {
        whole!("a file of jp's older format is read whole");
    }
    // Warnings are said once, by a whole read.
    if !before.warnings.is_empty() {
        whole!("the file had warnings");
    }
    let Some(last) = before.events.last() else {
        whole!("the file held no events");
    };
    let Some(base_config) = files
        .base_config
        .as_deref()
        .and_then(|b| serde_json::from_slice::<Value>(b).ok())
        .filter(|c| *c == before.base_config)
    else {
        whole!("its base config was rewritten");
    };
    let held = last.span.end;
    if files.events.len() < held {
        whole!("the file is shorter than before");
    }
    if files.events[..held] != before.source.as_bytes()[..held] {
        whole!("the file was rewritten");
    }
    let metadata = match &files.metadata {
        Some(b) => match serde_json::from_slice::<Value>(b) {
            Ok(v) => Some(v),
            Err(_) => whole!("its metadata is unreadable"),
        },
        None => None,
    };
    let events_path = before.dir.join(EVENTS_FILE);
    let source = match load::into_text(&events_path, std::mem::take(&mut files.events)) {
        Ok(s) => s,
        Err(_) => whole!("the file is not text"),
    };
    // From here a failure gives the text back as the bytes it was.
    let back = |source: String, files: Files| Files {
        events: source.into_bytes(),
        ..files
    };
    let n = before.events.len();
    let parsed = match load::parse_array(&events_path, &source) {
        Ok(raws) => {
            let ends_at = |r: &str| r.as_ptr() as usize - source.as_ptr() as usize + r.len();
            if raws.len() < n || ends_at(raws[n - 1]) != held {
                None
            } else {
                load::parse_events(&source, &raws[n..])
                    .into_iter()
                    .map(|p| match p {
                        Ok((event, None)) => Some(event),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()
            }
        }
        Err(_) => None,
    };
    let Some(new) = parsed else {
        return Err(("the file was rewritten", back(source, files)));
    };
    let mut events = before.events.clone();
    events.extend(new);
    let turn_count = turns::assign(&mut events);
    let mut warnings = Vec::new();
    load::check_stream(&events_path, &source, &events, &mut warnings);
    if !warnings.is_empty() {
        return Err(("a new event has something to say", back(source, files)));
    }
    let title = load::title_of(metadata.as_ref());
    let added = events.len() - n;
    Ok((
        Conversation {
            dir: before.dir.clone(),
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
