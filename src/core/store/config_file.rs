//! One jp config file read safely: bounded in size and depth, parsed by its
//! extension, and its errors said without repeating what the file holds.

use crate::core::error::{Error, Place};
use serde_json::Value;
use std::path::Path;

pub(super) fn error(path: &Path, message: impl Into<String>) -> Error {
    Error::invalid(path, message)
}

/// The most config files one conversation's settings may come from.
pub const MAX_FILES: usize = 512;

/// The largest config file read: jp's are a few kilobytes, and a bound
/// keeps a workspace from pointing `extends` at a device or a huge file.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The most all the config files of one tree may hold together: jp's own
/// workspace, which extends 66 files of personas, skills and tools, holds
/// 134 KB. A bound on the whole, checked before each file is read, keeps a
/// cloned workspace from making every command read and keep hundreds of
/// megabytes (`MAX_FILES` files of up to `MAX_CONFIG_BYTES` each).
pub const MAX_TREE_BYTES: u64 = 8 << 20;

/// The deepest nesting of arrays and tables accepted, in any format: jp's
/// configs nest a handful of levels, and some parsers take quadratic time
/// (YAML) or the stack (JSON5) on deep input.
pub const MAX_DEPTH: usize = 128;

/// Reads and parses `path` by its extension (TOML when it has none).
///
/// A file `extends` names may be any file a workspace points at (an
/// `.env`, `/proc/self/environ`), so no message here repeats its text:
/// a mistake is told by file, line and column, and the parser's words
/// with anything they quote from the file taken out.
pub fn parse_file(path: &Path) -> Result<Value, Error> {
    let text = read_bounded(path)?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("toml");
    let kind = match ext {
        "json" => "JSON",
        "json5" => "JSON5",
        "yaml" | "yml" => "YAML",
        _ => "TOML",
    };
    if let Some(offset) = too_deep(&text, MAX_DEPTH) {
        return Err(Error::Syntax {
            path: path.to_path_buf(),
            place: Place::of_offset(&text, offset),
            message: format!("not read: nested more than {MAX_DEPTH} levels deep"),
        });
    }
    let syntax = |place: Option<Place>, what: &str| {
        let what = content_free(what);
        let message = if what.is_empty() {
            format!("not valid {kind}")
        } else {
            format!("not valid {kind}: {what}")
        };
        match place {
            Some(place) => Error::Syntax {
                path: path.to_path_buf(),
                place,
                message,
            },
            None => error(path, message),
        }
    };
    match kind {
        "JSON" => serde_json::from_str(&text).map_err(|e| {
            syntax(
                Some(Place {
                    line: e.line(),
                    column: e.column(),
                }),
                &e.to_string(),
            )
        }),
        "JSON5" => serde_json5::from_str(&text).map_err(|e| {
            // Its message quotes the offending line: only the place is said.
            let serde_json5::Error::Message { location, .. } = &e;
            syntax(
                location.as_ref().map(|l| Place {
                    line: l.line,
                    column: l.column,
                }),
                "",
            )
        }),
        "YAML" => serde_yaml_ng::from_str(&text).map_err(|e| {
            // Its message starts with the path of keys it was at, which are
            // the file's text: only the place is said.
            syntax(
                e.location().map(|l| Place {
                    line: l.line(),
                    column: l.column(),
                }),
                "",
            )
        }),
        _ => {
            // Straight into the JSON tree every reader takes, not through
            // toml's own tree first (a third of reading a workspace that
            // extends dozens of files).
            toml::from_str::<Value>(&text).map_err(|e| {
                syntax(
                    e.span().map(|s| Place::of_offset(&text, s.start)),
                    e.message(),
                )
            })
        }
    }
}

/// The text of a config file, refused when it is not a regular file or is
/// larger than [`MAX_CONFIG_BYTES`].
fn read_bounded(path: &Path) -> Result<String, Error> {
    match super::bounded::read_text(path, MAX_CONFIG_BYTES, true) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            Err(error(path, format!("{e}; a config must be a regular file")))
        }
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Err(error(
            path,
            format!("{e}; a config is text of at most {MAX_CONFIG_BYTES} bytes"),
        )),
        Err(e) => Err(error(path, format!("cannot read: {e}"))),
    }
}

/// The byte offset where `text` first opens more than `limit` brackets at
/// once. Counted without regard to quoting, so it can only overcount: a
/// file it passes nests no deeper than `limit` in any format.
pub fn too_deep(text: &str, limit: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// A parser's message without what it quotes from the file: the first
/// line only, without its " at line …" (the place is said apart), and any
/// quoted part holding a letter or digit taken out (grammar tokens such
/// as `=` stay).
pub fn content_free(message: &str) -> String {
    let first = message.lines().next().unwrap_or("").trim();
    let first = first.split(" at line ").next().unwrap_or(first);
    let mut out = String::with_capacity(first.len());
    let mut chars = first.chars().peekable();
    while let Some(c) = chars.next() {
        if matches!(c, '`' | '"' | '\'') {
            let quoted: String = chars.clone().take_while(|&q| q != c).collect();
            let closed = chars.clone().nth(quoted.chars().count()) == Some(c);
            if closed {
                for _ in 0..=quoted.chars().count() {
                    chars.next();
                }
                if quoted.chars().any(char::is_alphanumeric) || quoted.chars().count() > 3 {
                    out.push_str("(…)");
                } else {
                    out.push(c);
                    out.push_str(&quoted);
                    out.push(c);
                }
                continue;
            }
            // An unclosed quote: the rest may be the file's text.
            out.push_str("(…)");
            break;
        }
        out.push(c);
    }
    out.trim().to_string()
}
