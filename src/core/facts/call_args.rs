//! What a tool call's arguments say: the paths it works on, what it does
//! to them, the command it runs, the prose it writes; and the places a
//! search's result pins down. One reading for the facts and the digest,
//! so both say the same of what a call touched.

use super::calls;
use serde_json::Value;

/// Argument keys naming a file or folder a call works on: one list for
/// the facts and the digest, so both say the same of what a call touched.
const PATH_KEYS: [&str; 13] = [
    "path",
    "paths",
    "file",
    "files",
    "file_path",
    "filename",
    "filepath",
    "old_path",
    "new_path",
    "dir",
    "directory",
    "target",
    "source",
];

/// Argument keys holding a command line.
const COMMAND_KEYS: [&str; 4] = ["command", "cmd", "script", "commandline"];

/// The places a search pinned down: with at most [`FEW_HITS`] hits, each
/// `path:line` is where the thing sought stands, a place later work goes
/// back to. More hits are a survey, not an answer.
pub fn pinpointed(result: &str) -> Vec<(String, String)> {
    let hits: Vec<(String, String)> = result
        .lines()
        .filter_map(|l| {
            let (path, rest) = l.split_once(':')?;
            let (line, found) = rest.split_once(':')?;
            let place = !path.contains(char::is_whitespace)
                && path.contains('.')
                && !line.is_empty()
                && line.bytes().all(|c| c.is_ascii_digit());
            place.then(|| (format!("{path}:{line}"), calls::clip(found.trim(), 120)))
        })
        .take(FEW_HITS + 1)
        .collect();
    if hits.len() > FEW_HITS {
        Vec::new()
    } else {
        hits
    }
}

/// The most hits of a search whose places are each a fact.
const FEW_HITS: usize = 3;

/// Files whose text is prose a person reads, not code.
const PROSE_FILES: [&str; 7] = [".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".org"];

/// The text a call writes into a prose file: a new file's content, or
/// what a change puts in (each pattern's replacement).
pub fn written_prose(tool: &str, args: &Value) -> Option<String> {
    if !matches!(operation(tool), "created" | "changed") {
        return None;
    }
    let path = paths_of(args).into_iter().next()?.to_lowercase();
    if !PROSE_FILES.iter().any(|e| path.ends_with(e)) {
        return None;
    }
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(c) = s(args, "content").or_else(|| s(args, "new_content")) {
        return Some(c);
    }
    let new: Vec<String> = args
        .get("patterns")
        .and_then(Value::as_array)?
        .iter()
        .filter_map(|p| s(p, "new").or_else(|| s(p, "replacement")))
        .collect();
    (!new.is_empty()).then(|| new.join("\n\n"))
}

/// The paths a call's arguments name, with a line range where it has one.
pub fn files_of(args: &Value) -> Vec<(String, Option<String>)> {
    let lines = line_range(args);
    paths_of(args)
        .into_iter()
        .map(|p| (p, lines.clone()))
        .collect()
}

/// The paths a call's arguments name, as written (`./` left off).
pub fn paths_of(args: &Value) -> Vec<String> {
    let Some(o) = args.as_object() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for k in PATH_KEYS {
        match o.get(k) {
            Some(Value::String(s)) if looks_like_path(s) => out.push(clean_path(s)),
            Some(Value::Array(a)) => out.extend(
                a.iter()
                    .filter_map(Value::as_str)
                    .filter(|s| looks_like_path(s))
                    .map(clean_path),
            ),
            _ => {}
        }
    }
    out
}

fn clean_path(s: &str) -> String {
    s.trim().trim_start_matches("./").to_string()
}

fn looks_like_path(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty() && s != "." && s.len() < 300 && !s.contains('\n')
}

/// `12-40` from a call's start/end line arguments.
fn line_range(args: &Value) -> Option<String> {
    let o = args.as_object()?;
    let n = |keys: &[&str]| keys.iter().find_map(|k| o.get(*k)?.as_u64());
    let start = n(&["start_line", "line_start", "from_line", "offset"]);
    let end = n(&["end_line", "line_end", "to_line"]);
    match (start, end) {
        (Some(a), Some(b)) => Some(format!("{a}-{b}")),
        (Some(a), None) => Some(format!("{a}-")),
        (None, Some(b)) => Some(format!("1-{b}")),
        (None, None) => None,
    }
}

/// What a tool does to a path, by its name.
pub fn operation(tool: &str) -> &'static str {
    let t = tool.to_ascii_lowercase();
    let has = |w: &[&str]| w.iter().any(|w| t.contains(w));
    if has(&["modify", "edit", "patch", "replace", "write", "update"]) {
        "changed"
    } else if has(&["create", "new", "touch"]) {
        "created"
    } else if has(&["delete", "remove", "rm"]) {
        "deleted"
    } else if has(&["grep", "search", "find", "list", "glob"]) {
        "searched"
    } else if has(&["read", "cat", "view", "open", "show"]) {
        "read"
    } else {
        "used"
    }
}

/// A command as shown and as matched: a shell tool's command line as it
/// ran, else the call as it was made (tool and arguments), matched by the
/// tool and the arguments' values.
pub fn command_of(tool: &str, args: &Value) -> (String, String) {
    let line = args.as_object().and_then(|o| {
        COMMAND_KEYS.iter().find_map(|k| match o.get(*k)? {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
            Value::Array(a) if !a.is_empty() => Some(
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            _ => None,
        })
    });
    match line {
        Some(cmd) => {
            let line = calls::clip(cmd.lines().next().unwrap_or(""), 200);
            (format!("{tool}: {line}"), line)
        }
        None => (calls::as_made(tool, args), calls::key_of(tool, args)),
    }
}
