//! Reading a conversation directory into a [`Conversation`].
//!
//! The file is read once; each event keeps its original text as a slice of
//! that buffer (so untouched events are written back byte for byte) and a
//! small typed view beside it. Nothing is decoded twice and nothing is kept
//! that the raw text already holds.

use crate::core::error::{Error, Place, Result, Warning};
use crate::core::model::config::delta_of;
use crate::core::model::conversation::{
    BASE_CONFIG_FILE, Conversation, EVENTS_FILE, Format, METADATA_FILE,
};
use crate::core::model::event::{Event, Kind, Span};
use crate::core::model::event_read;
use crate::core::model::id::ConversationId;
use crate::core::model::turns;
use crate::core::store::PARALLEL_FROM;
use serde_json::Value;
use serde_json::value::RawValue;
use std::fs;
use std::io::ErrorKind;
use std::path::Path;

/// The bytes of a conversation's files, read but not yet understood.
#[derive(Debug, Clone, Default)]
pub struct Files {
    pub events: Vec<u8>,
    pub base_config: Option<Vec<u8>>,
    pub metadata: Option<Vec<u8>>,
}

/// Reads a conversation directory, with what jp-inspect remembers of its
/// compactions (`provenance`).
pub fn load(dir: &Path) -> Result<Conversation> {
    // Of jp's two copies, the one jp reads.
    let copies = super::copies::of(dir);
    let files = read_files(&copies.read)?;
    let mut conv = parse(&copies.read, files)?;
    conv.twin = copies.other;
    remember(&mut conv);
    Ok(conv)
}

/// Recalls the compactions' provenance; an unreadable record file is a
/// warning, never a reason not to open the conversation.
pub fn remember(conv: &mut Conversation) -> Vec<super::provenance::Record> {
    let places = super::provenance::places(&conv.dir, conv.twin.as_deref());
    match super::provenance::read_at(&places) {
        Ok(records) => {
            super::provenance::recall(conv, &records);
            records
        }
        Err(e) => {
            conv.warnings.push(Warning {
                path: super::provenance::path_for(&conv.dir),
                place: None,
                event: None,
                message: format!("jp-inspect's compaction records are unreadable, ignored: {e}"),
            });
            Vec::new()
        }
    }
}

/// Reads the files of a conversation directory without interpreting them.
/// A file's bytes. A large one is read into memory the kernel is asked to
/// back with huge pages: a 100 MB conversation otherwise spends a third of
/// `show`'s time faulting in and zeroing 4 KiB pages.
fn read_whole(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Seek;
    const HUGE: usize = 2 << 20;
    let mut file = super::bounded::open_regular(path, true)?;
    let len = file.metadata().map_or(0, |m| m.len());
    if len > super::safe_fs::EVENTS_LIMIT {
        return Err(std::io::Error::new(
            ErrorKind::InvalidData,
            format!(
                "{len} bytes, more than a conversation can be ({} at most), so not read",
                super::safe_fs::EVENTS_LIMIT
            ),
        ));
    }
    let limit = super::safe_fs::EVENTS_LIMIT;
    let len = len as usize;
    if len < 4 * HUGE {
        let mut v = Vec::with_capacity(len);
        populate(&mut v);
        super::bounded::read_limited(file, limit, &mut v)?;
        return Ok(v);
    }
    // Zeroed by the allocator's fresh mapping: no page is touched yet.
    let mut v: Vec<u8> = vec![0; len];
    #[cfg(target_os = "linux")]
    advise(&mut v, HUGE, libc::MADV_HUGEPAGE);
    read_halves(&file, &mut v, len)?;
    // Anything written past the length seen, as `read_to_end` would, to
    // the limit.
    file.seek(std::io::SeekFrom::Start(v.len() as u64))?;
    let past = limit.saturating_sub(v.len() as u64);
    super::bounded::read_limited(file, past, &mut v)?;
    Ok(v)
}

/// Asks the kernel to fault in `v`'s spare capacity in one call rather
/// than a page at a time as the read reaches it: a quarter less time for a
/// 1.6 MB file where a page fault costs microseconds (virtual machines).
/// Advice only; a kernel without it (before 5.14) reads the same.
fn populate(v: &mut Vec<u8>) {
    const PAGE: usize = 4096;
    #[cfg(target_os = "linux")]
    if v.capacity() >= 16 * PAGE {
        advise(v, PAGE, libc::MADV_POPULATE_WRITE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (v, PAGE);
}

/// Gives the kernel `advice` for the whole `unit`-sized pages of `v`'s
/// allocation: only advice that changes how memory is backed, never what
/// it holds (huge pages, populating). Without it a read is the same, only
/// slower.
#[cfg(target_os = "linux")]
fn advise(v: &mut Vec<u8>, unit: usize, advice: libc::c_int) {
    let start = v.as_mut_ptr() as usize;
    let first = start.next_multiple_of(unit);
    let end = (start + v.capacity()) / unit * unit;
    if end > first {
        // SAFETY: the range lies inside `v`'s allocation, which outlives
        // the call, and the advice given leaves every byte as it was.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, advice);
        }
    }
}

/// Fills `v` (`len` zeroed bytes, not yet touched) with the file's first `len`
/// bytes, the two halves read at once: on a small machine the kernel's
/// copy into fresh memory is as slow as parsing. A file that got shorter
/// meanwhile ends where it ends.
fn read_halves(file: &fs::File, v: &mut Vec<u8>, len: usize) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let half = len / 2;
    let (a, b) = v.split_at_mut(half);
    let fill = |buf: &mut [u8], at: u64| -> std::io::Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            match file.read_at(&mut buf[done..], at + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(done)
    };
    let (first, second) = std::thread::scope(|s| {
        let second = s.spawn(|| fill(b, half as u64));
        (fill(a, 0), second.join())
    });
    let first = first?;
    let second = second.unwrap_or_else(|_| Err(std::io::Error::other("a reader panicked")))?;
    let kept = if first < half { first } else { half + second };
    v.truncate(kept);
    Ok(())
}

pub fn read_files(dir: &Path) -> Result<Files> {
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(Error::invalid(dir, "not a directory")),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Err(Error::invalid(dir, "no such conversation directory"));
        }
        Err(e) => return Err(Error::io(dir, e)),
    }
    let events_path = dir.join(EVENTS_FILE);
    let events = match read_whole(&events_path) {
        Ok(b) => b,
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Err(Error::invalid(
                &events_path,
                "missing: this directory holds no jp conversation",
            ));
        }
        Err(e) => return Err(Error::io(&events_path, e)),
    };
    let (base_config, metadata) = read_side_files(dir)?;
    Ok(Files {
        events,
        base_config,
        metadata,
    })
}

/// `base_config.json` and `metadata.json`, each when it is there.
pub(super) type SideFiles = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Reads the small files beside `events.json`.
pub(super) fn read_side_files(dir: &Path) -> Result<SideFiles> {
    let optional = |name: &str, limit: u64| -> Result<Option<Vec<u8>>> {
        let path = dir.join(name);
        match super::bounded::read_regular(&path, limit, true) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(&path, e)),
        }
    };
    Ok((
        optional(BASE_CONFIG_FILE, super::safe_fs::BASE_CONFIG_LIMIT)?,
        optional(METADATA_FILE, super::safe_fs::METADATA_LIMIT)?,
    ))
}

/// A conversation of `events` (a JSON array) and no other file, as the
/// unit tests build one.
#[cfg(test)]
pub(crate) fn of_events(events: impl Into<Vec<u8>>) -> Conversation {
    let files = Files {
        events: events.into(),
        base_config: None,
        metadata: None,
    };
    parse(Path::new("17000000000-x"), files).unwrap()
}

/// Interprets a conversation's files. Pure: the directory is only used to
/// name files in errors and to derive the id.
pub fn parse(dir: &Path, files: Files) -> Result<Conversation> {
    let events_path = dir.join(EVENTS_FILE);
    let source = into_text(&events_path, files.events)?;
    let raws = parse_array(&events_path, &source)?;

    let mut warnings = Vec::new();
    let mut events = Vec::with_capacity(raws.len());
    for (index, parsed) in parse_events(&source, &raws).into_iter().enumerate() {
        match parsed {
            Ok((event, warning)) => {
                if let Some(message) = warning {
                    warnings.push(Warning {
                        path: events_path.clone(),
                        place: Some(Place::of_offset(&source, event.span.start)),
                        event: Some(index),
                        message,
                    });
                }
                events.push(event);
            }
            Err(e) if e.syntax => {
                // Malformed JSON inside an element: the whole-array parse
                // names the exact place.
                if let Err(se) = serde_json::from_str::<Vec<&RawValue>>(&source) {
                    return Err(syntax(&events_path, &se));
                }
                return Err(Error::Event {
                    path: events_path,
                    index,
                    place: Place::of_offset(&source, e.offset),
                    message: e.message,
                });
            }
            Err(e) => {
                return Err(Error::Event {
                    path: events_path,
                    index,
                    place: Place::of_offset(&source, e.offset),
                    message: e.message,
                });
            }
        }
    }
    drop(raws);
    // A config delta with no time is a legacy file's base config, first of
    // all; anywhere else it is as broken as any event without one.
    let legacy = files.base_config.is_none();
    if let Some((index, e)) = events
        .iter()
        .enumerate()
        .find(|(i, e)| e.kind == Kind::ConfigDelta && e.timestamp.is_none() && !(legacy && *i == 0))
    {
        return Err(Error::Event {
            path: events_path,
            index,
            place: Place::of_offset(&source, e.span.start),
            message: "`config_delta` event without a `timestamp`".into(),
        });
    }

    let (format, base_config, prelude) = match files.base_config {
        Some(bytes) => {
            let path = dir.join(BASE_CONFIG_FILE);
            let text = into_text(&path, bytes)?;
            let value: Value = serde_json::from_str(&text).map_err(|e| syntax(&path, &e))?;
            if !value.is_object() {
                return Err(Error::invalid(
                    &path,
                    "expected the base config object, found another JSON value",
                ));
            }
            (Format::Current, value, None)
        }
        None => legacy_base(&events_path, &source, &mut events, &mut warnings)?,
    };
    // Event indices in warnings so far count the prelude; shift them.
    if prelude.is_some() {
        for w in &mut warnings {
            w.event = w.event.and_then(|i| i.checked_sub(1));
        }
    }

    let turn_count = turns::assign(&mut events);
    super::stream_check::check_stream(
        &events_path,
        &|o| Place::of_offset(&source, o),
        &events,
        &mut warnings,
    );

    let metadata = files.metadata.and_then(|bytes| {
        let path = dir.join(METADATA_FILE);
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(v) => Some(v),
            Err(e) => {
                warnings.push(Warning {
                    path,
                    place: Some(Place {
                        line: e.line(),
                        column: e.column(),
                    }),
                    event: None,
                    message: format!("unreadable, title unknown: {e}"),
                });
                None
            }
        }
    });
    let title = title_of(metadata.as_ref());

    Ok(Conversation {
        dir: dir.to_path_buf(),
        id: id_of_dir(dir),
        title,
        format,
        base_config,
        metadata,
        source: crate::core::model::text::Text::whole(source),
        prelude,
        events,
        turn_count,
        warnings,
        twin: None,
        merged: Default::default(),
        facts_memo: Default::default(),
    })
}

/// The title `metadata.json` gives, if any.
pub(super) fn title_of(metadata: Option<&Value>) -> Option<String> {
    metadata
        .and_then(|m| m.get("title"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The typed view of every event, in order.
pub(super) fn parse_events(
    source: &str,
    raws: &[&str],
) -> Vec<Result<(Event, Option<String>), event_read::FieldError>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    if source.len() < PARALLEL_FROM || threads < 2 || raws.len() < 2 * threads {
        return raws.iter().map(|r| event_read::parse(source, r)).collect();
    }
    // Chunks of about equal bytes, not equal counts: a few huge tool
    // results would otherwise leave one thread doing all the work.
    let per = source.len() / threads + 1;
    let mut bounds = vec![0];
    let mut acc = 0;
    for (i, r) in raws.iter().enumerate() {
        acc += r.len();
        if acc >= per * bounds.len() && i + 1 < raws.len() {
            bounds.push(i + 1);
        }
    }
    bounds.push(raws.len());
    std::thread::scope(|s| {
        let handles: Vec<_> = bounds
            .windows(2)
            .map(|w| {
                let chunk = &raws[w[0]..w[1]];
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|r| event_read::parse(source, r))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("event parsing does not panic"))
            .collect()
    })
}

/// The numeric id of a directory named `<ID>` or `<ID>-<slug>`.
pub fn id_of_dir(dir: &Path) -> Option<u64> {
    ConversationId::of_dir(dir).map(u64::from)
}

pub(super) fn into_text(path: &Path, bytes: Vec<u8>) -> Result<String> {
    if bytes.len() >= PARALLEL_FROM && valid_in_halves(&bytes) {
        // SAFETY: `valid_in_halves` found both halves, cut at a character
        // boundary, valid UTF-8, so the whole is.
        return Ok(unsafe { String::from_utf8_unchecked(bytes) });
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        // Valid up to `at`, so the prefix is text we can count lines in.
        let prefix = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
        Error::Syntax {
            path: path.to_path_buf(),
            place: Place::of_offset(prefix, at),
            message: format!("invalid UTF-8 (byte offset {at})"),
        }
    })
}

/// Whether `bytes` is UTF-8, checked as two halves at once (cut where no
/// character continues, so the whole is valid exactly when both are): on
/// 100 MB the check is a tenth of the load, on one core.
fn valid_in_halves(bytes: &[u8]) -> bool {
    let mut cut = bytes.len() / 2;
    while cut < bytes.len() && (bytes[cut] & 0xC0) == 0x80 {
        cut += 1;
    }
    let (a, b) = bytes.split_at(cut);
    std::thread::scope(|s| {
        let second = s.spawn(|| std::str::from_utf8(b).is_ok());
        std::str::from_utf8(a).is_ok() && second.join().unwrap_or(false)
    })
}

fn syntax(path: &Path, e: &serde_json::Error) -> Error {
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    Error::Syntax {
        path: path.to_path_buf(),
        place: Place {
            line: e.line(),
            column: e.column(),
        },
        message,
    }
}

pub(super) fn parse_array<'a>(path: &Path, source: &'a str) -> Result<Vec<&'a str>> {
    if source.starts_with('\u{feff}') {
        return Err(Error::Syntax {
            path: path.to_path_buf(),
            place: Place { line: 1, column: 1 },
            message: "the file starts with a byte order mark, which JSON does not allow; \
                      expected a JSON array of events"
                .into(),
        });
    }
    let first = source.trim_start().as_bytes().first().copied();
    match first {
        Some(b'[') => {}
        None => {
            return Err(Error::Syntax {
                path: path.to_path_buf(),
                place: Place::of_offset(source, source.len()),
                message: "empty file; expected a JSON array of events".into(),
            });
        }
        Some(_) => {
            let at = source.len() - source.trim_start().len();
            // Parse anyway so a JSON syntax error is reported as such.
            if let Err(e) = serde_json::from_str::<&RawValue>(source) {
                return Err(syntax(path, &e));
            }
            return Err(Error::Syntax {
                path: path.to_path_buf(),
                place: Place::of_offset(source, at),
                message: "expected a JSON array of events, found another JSON value".into(),
            });
        }
    }
    match crate::core::store::split::elements(source) {
        Some(ranges) => Ok(ranges.into_iter().map(|(a, b)| &source[a..b]).collect()),
        // Something is off: serde says exactly what and where.
        None => serde_json::from_str::<Vec<&RawValue>>(source)
            .map(|raws| raws.into_iter().map(RawValue::get).collect())
            .map_err(|e| syntax(path, &e)),
    }
}

/// A legacy file's first element is a config delta holding the base config,
/// either under `delta` or (one real file) inline.
fn legacy_base(
    path: &Path,
    source: &str,
    events: &mut Vec<Event>,
    warnings: &mut Vec<Warning>,
) -> Result<(Format, Value, Option<Span>)> {
    match events.first() {
        Some(first) if first.kind == Kind::ConfigDelta => {
            let span = first.span;
            let value: Value = serde_json::from_str(&source[span.start..span.end])
                .map_err(|e| syntax(path, &e))?;
            let base = delta_of(&value);
            events.remove(0);
            Ok((Format::Legacy, base, Some(span)))
        }
        Some(_) => {
            warnings.push(Warning {
                path: path.to_path_buf(),
                place: None,
                event: None,
                message: "no base_config.json and no leading config delta: base config is empty"
                    .into(),
            });
            Ok((Format::Legacy, Value::Object(Default::default()), None))
        }
        None => Ok((Format::Legacy, Value::Object(Default::default()), None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_file_is_read_whole_in_two_halves() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("events.json");
        // Past the size read in halves, odd so the halves differ.
        let bytes: Vec<u8> = (0..9_437_185u32).map(|i| (i * 7 % 251) as u8).collect();
        fs::write(&path, &bytes).unwrap();
        assert_eq!(read_whole(&path).unwrap(), bytes);
        // A file shorter than the length asked for ends where it ends.
        let file = fs::File::open(&path).unwrap();
        let mut v = vec![0; bytes.len() + 4096];
        let len = v.len();
        read_halves(&file, &mut v, len).unwrap();
        assert_eq!(v, bytes);
    }

    #[test]
    fn utf8_is_checked_in_halves_cut_between_characters() {
        // "é" is two bytes: put one across the middle.
        let mut text = "a".repeat(PARALLEL_FROM / 2 - 1);
        text.push('é');
        text.push_str(&"b".repeat(PARALLEL_FROM / 2));
        assert!(valid_in_halves(text.as_bytes()));
        assert_eq!(
            into_text(Path::new("e.json"), text.clone().into_bytes()).unwrap(),
            text
        );
        // A broken sequence in either half is found, with its place.
        for at in [10, text.len() - 10] {
            let mut bad = text.clone().into_bytes();
            bad[at] = 0xFF;
            assert!(!valid_in_halves(&bad));
            let e = into_text(Path::new("e.json"), bad).unwrap_err().to_string();
            assert!(e.contains(&format!("byte offset {at}")), "{e}");
        }
    }

    fn files(events: &str) -> Files {
        Files {
            events: events.as_bytes().to_vec(),
            base_config: Some(b"{}".to_vec()),
            metadata: None,
        }
    }

    fn err(events: &str) -> String {
        parse(Path::new("/c/17000000000-x"), files(events))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn not_json_names_file_line_and_column() {
        let e = err("[\n  {\"type\": \"turn_start\",\n  oops\n]");
        assert!(e.starts_with("/c/17000000000-x/events.json:3:"), "{e}");
    }

    #[test]
    fn truncated_file_is_a_syntax_error() {
        let e = err("[\n  {\"type\": \"turn_start\", \"timestamp\": \"2026-01");
        assert!(e.contains("events.json:2:"), "{e}");
        assert!(e.contains("EOF"), "{e}");
    }

    #[test]
    fn element_that_is_not_an_object() {
        let e = err(
            "[\n  {\"type\": \"turn_start\", \"timestamp\": \"2026-01-01 00:00:00\"},\n  42\n]",
        );
        assert!(e.contains("events.json:3:3: event 1"), "{e}");
        assert!(e.contains("a number"), "{e}");
    }

    #[test]
    fn top_level_not_an_array() {
        let e = err("{\"type\": \"turn_start\"}");
        assert!(e.contains("expected a JSON array"), "{e}");
    }

    #[test]
    fn invalid_utf8_is_reported_with_its_place() {
        let mut f = files("");
        f.events = b"[\n  \"\xff\"]".to_vec();
        let e = parse(Path::new("/c/x"), f).unwrap_err().to_string();
        assert!(e.contains("events.json:2:4: invalid UTF-8"), "{e}");
    }

    #[test]
    fn id_comes_from_the_directory_name() {
        assert_eq!(
            id_of_dir(Path::new("/a/17758406187-missing-date")),
            Some(17758406187)
        );
        assert_eq!(id_of_dir(Path::new("/a/17758406187")), Some(17758406187));
        assert_eq!(id_of_dir(Path::new("/a/notes")), None);
    }

    #[test]
    fn legacy_inline_base_config() {
        let events = r#"[
  {"type":"config_delta","timestamp":"2026-01-01 00:00:00.0","assistant":{"model":{"id":"flash"}}},
  {"timestamp":"2026-01-01 00:00:01.0","type":"chat_request","content":"hi"}
]"#;
        let f = Files {
            events: events.as_bytes().to_vec(),
            base_config: None,
            metadata: None,
        };
        let c = parse(Path::new("/c/1"), f).unwrap();
        assert_eq!(c.format, Format::Legacy);
        assert_eq!(c.base_config["assistant"]["model"]["id"], "flash");
        assert_eq!(c.events.len(), 1);
        assert_eq!(c.turn_count, 1);
    }

    #[test]
    fn malformed_compaction_is_a_warning() {
        let events = r#"[
  {"timestamp":"2026-01-01 00:00:01.0","type":"chat_request","content":"hi"},
  {"type":"compaction","timestamp":"2026-01-01 00:00:02.0","from_turn":0}
]"#;
        let c = parse(Path::new("/c/1"), files(events)).unwrap();
        assert_eq!(c.events.len(), 2);
        assert_eq!(c.warnings.len(), 1);
        let w = c.warnings[0].to_string();
        assert!(
            w.contains("events.json:3:3: event 1: compaction #1 is invalid"),
            "{w}"
        );
        assert!(w.contains("missing `to_turn`"), "{w}");
    }
}
