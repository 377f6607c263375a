//! What a tool call is to a reader, by its tool's class, and how it went.
//!
//! - a **file tool** (jp's `fs_*`, or a tool named for reading, listing,
//!   searching, creating, changing or deleting files) gives file facts;
//! - a **remote look-up** (`github_*`, `gitlab_*`, `web_*`, a fetch, or a
//!   call with a `url`) gives a url fact: where it looked;
//! - **any other tool acts** (builds, tests, git, jp's recipe tools such as
//!   `rfd_draft`, an MCP server's commands) and gives a command fact: the
//!   call as it was made, tool and arguments, and the line of its result
//!   that says how it ended.
//!
//! A result says it failed in more ways than `is_error`: a patch that
//! applied partly (`8/9 patterns applied`), a test run with failures
//! (`Ran 12/12 tests, of which 1 failed`), a compiler's errors and
//! warnings, a tool's own refusal (`Cannot …`, `Error: …`). Those lines
//! are its errors, decoded.

use serde_json::Value;

/// What a tool is to a reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolClass {
    File,
    Remote,
    Acts,
}

/// Words in a tool's name that make it a file tool.
const FILE_WORDS: [&str; 10] = [
    "read_file",
    "write_file",
    "list_files",
    "list_dir",
    "grep",
    "modify_file",
    "create_file",
    "delete_file",
    "edit_file",
    "move_file",
];

/// Prefixes of the tools that look something up elsewhere.
const REMOTE_PREFIXES: [&str; 7] = [
    "github_", "gitlab_", "web_", "http", "fetch", "browse", "url_",
];

pub fn class(tool: &str, args: &Value) -> ToolClass {
    let t = tool.to_ascii_lowercase();
    if REMOTE_PREFIXES.iter().any(|p| t.starts_with(p)) || args.get("url").is_some() {
        ToolClass::Remote
    } else if t.starts_with("fs_") || FILE_WORDS.iter().any(|w| t.contains(w)) {
        ToolClass::File
    } else {
        ToolClass::Acts
    }
}

/// The most of a call's text kept.
const CALL_LIMIT: usize = 300;

/// A call as it was made: the tool, then each argument as `key=value`
/// (a list's items joined with `, `, an object as compact JSON), in the
/// order the model wrote them.
pub fn as_made(tool: &str, args: &Value) -> String {
    let mut out = tool.to_string();
    if let Some(o) = args.as_object() {
        for (k, v) in o {
            let value = value_text(v);
            if !value.is_empty() {
                out.push(' ');
                out.push_str(k);
                out.push('=');
                out.push_str(&value);
            }
        }
    } else if !args.is_null() {
        out.push(' ');
        out.push_str(&value_text(args));
    }
    clip(&out, CALL_LIMIT)
}

/// What a reader repeats of a call: its tool and its arguments' values.
pub fn key_of(tool: &str, args: &Value) -> String {
    let mut out = tool.to_string();
    if let Some(o) = args.as_object() {
        for v in o.values() {
            let value = value_text(v);
            if !value.is_empty() {
                out.push(' ');
                out.push_str(&value);
            }
        }
    }
    clip(&out, CALL_LIMIT)
}

fn value_text(v: &Value) -> String {
    let s = match v {
        Value::Null | Value::Bool(false) => String::new(),
        Value::String(s) => s.lines().next().unwrap_or("").trim().to_string(),
        Value::Array(a) => a
            .iter()
            .map(value_text)
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    };
    clip(&s, 160)
}

/// `s` cut to at most `limit` bytes on a character's boundary, `…` marking
/// the cut.
pub fn clip(s: &str, limit: usize) -> String {
    crate::core::cut::clip_bytes(s, limit)
}

/// A result's text as a reader sees it: a result that is itself JSON (an
/// MCP server's content blocks, an encoded string) read as its strings,
/// one per line.
pub fn decoded(text: &str) -> String {
    let t = text.trim_start();
    if !(t.starts_with('{') || t.starts_with('[') || t.starts_with('"')) {
        return text.to_string();
    }
    match serde_json::from_str::<Value>(t) {
        Ok(v) => {
            let mut out = Vec::new();
            strings(&v, &mut out);
            out.join("\n")
        }
        Err(_) => text.to_string(),
    }
}

fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// The most errors one result gives, and the most warnings of a result
/// without errors: a build's roll-up of forty pedantic lints is one
/// thing to fix, its first warnings say which.
const ERRORS_PER_RESULT: usize = 6;
const WARNINGS_PER_RESULT: usize = 3;

/// The errors of a result (decoded): each line that says something
/// failed, with the lines under it that say where and why (`-->`,
/// `Caused by:`, `help:`, the patterns not found), at most 300 bytes each.
/// `class` narrows what is read: a file's content or a page looked up
/// holds `error:` lines that are no failure of the call, so only the
/// outcome lines of those tools count. A result marked `is_error` fails
/// whatever it says: without such a line, its opening is its error.
pub fn failures(text: &str, class: ToolClass, is_error: bool) -> Vec<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let first = lines.iter().position(|l| !l.is_empty());
    // Whether the nearest line that isn't blank before (after) each line
    // opens a cause, found in one pass each way: a cause says why the
    // error above it failed, so it is that error.
    let cause = |l: &&str| l.eq_ignore_ascii_case("caused by:");
    let mut after_cause = vec![false; lines.len()];
    let mut before_cause = vec![false; lines.len()];
    for k in 1..lines.len() {
        after_cause[k] = if lines[k - 1].is_empty() {
            after_cause[k - 1]
        } else {
            cause(&lines[k - 1])
        };
    }
    for k in (0..lines.len()).rev() {
        before_cause[k] = match lines.get(k + 1) {
            Some(&"") => before_cause[k + 1],
            Some(next) => cause(next),
            None => false,
        };
    }
    let caused = |k: usize| after_cause[k];
    let mut starts: Vec<(usize, bool)> = lines
        .iter()
        .enumerate()
        .filter(|&(k, line)| {
            outcome_failure(line)
                || (class == ToolClass::Acts && diagnostic(line) && !caused(k))
                || (Some(k) == first && refusal(line))
        })
        .map(|(k, line)| (k, line.to_ascii_lowercase().starts_with("warning")))
        .collect();
    // A failing test's panic says more than its `... FAILED` line, and
    // than the run's roll-up (`test result: FAILED. 46 passed; 2 failed`,
    // `Ran 74/74 tests, of which 1 failed`), which names no failure of its
    // own.
    let panics = lines.iter().any(|l| l.contains("panicked at"));
    starts.retain(|&(k, _)| !(panics && (lines[k].ends_with("... FAILED") || roll_up(lines[k]))));
    let errors = starts.iter().any(|&(_, warning)| !warning);
    let mut picked: Vec<usize> = if errors {
        starts
            .iter()
            .filter(|s| !s.1)
            .map(|s| s.0)
            .take(ERRORS_PER_RESULT)
            .collect()
    } else {
        starts
            .iter()
            .map(|s| s.0)
            .take(WARNINGS_PER_RESULT)
            .collect()
    };
    if picked.is_empty() && is_error {
        picked.extend(first);
    }
    // By line, not searched: a block may run over many lines (source
    // snippets are skipped), each asking.
    let mut start_at = vec![false; lines.len()];
    for &(k, _) in &starts {
        start_at[k] = true;
    }
    let is_start = |k: usize| start_at[k];
    let mut out: Vec<(Option<&str>, String)> = Vec::new();
    for k in picked {
        // The lines under it, blank lines between them aside, to the next
        // error.
        // error, a blank line straight under it aside.
        let mut block = lines[k].to_string();
        let mut joined = 0;
        // A chain of causes ends in the one that tells (`No such file`).
        let mut limit = 300;
        for (n, next) in lines.iter().enumerate().skip(k + 1) {
            let before_cause = next.is_empty() && before_cause[n];
            if next.is_empty() && ((joined == 0 && n == k + 1) || before_cause) {
                limit = if before_cause { 600 } else { limit };
                continue;
            }
            let most = if limit > 300 { 8 } else { 4 };
            if next.is_empty() || is_start(n) || joined == most || block.len() >= limit {
                break;
            }
            if source_snippet(next) {
                continue;
            }
            block.push(' ');
            block.push_str(next);
            joined += 1;
        }
        let block = clip(&block, limit);
        // Diagnostics of one kind (`error[E0432]`, one lint's message) are
        // one thing to fix: one error, naming each place.
        let kind = diagnostic_kind(lines[k]);
        let same = kind.and_then(|kind| out.iter().position(|(o, _)| *o == Some(kind)));
        match same {
            Some(at) => {
                // What this one adds: its message and place, notes aside.
                // The block may be cut shorter than its kind (a long
                // message with no place): then it adds nothing.
                let rest = block
                    .get(kind.unwrap_or_default().len()..)
                    .unwrap_or_default()
                    .trim_start_matches(':');
                let rest = [" help:", " = note:", " = help:"]
                    .iter()
                    .filter_map(|m| rest.find(m))
                    .min()
                    .map_or(rest, |end| &rest[..end])
                    .trim();
                let first = &mut out[at].1;
                if !first.contains(rest) {
                    *first = clip(&format!("{first}; also {}", clip(rest, 160)), 480);
                }
            }
            None if !out.iter().any(|(_, b)| *b == block) => out.push((kind, block)),
            None => {}
        }
    }
    out.into_iter().map(|(_, b)| b).collect()
}

/// What makes diagnostics one kind: a compiler's code (`error[E0432]`),
/// else the message of a `warning:`/`error:` line before its place.
fn diagnostic_kind(line: &str) -> Option<&str> {
    let l = line.to_ascii_lowercase();
    if (l.starts_with("error[") || l.starts_with("warning["))
        && let Some(end) = line.find(']')
    {
        return Some(&line[..=end]);
    }
    if l.starts_with("error:") || l.starts_with("warning:") {
        return Some(line.split(" --> ").next().unwrap_or(line).trim_end());
    }
    None
}

/// A compiler's quote of the source under its message (`12 |  let x`,
/// `|     ^^^`): where is said by its `-->` line already.
fn source_snippet(line: &str) -> bool {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    line.starts_with('|')
        || (digits > 0 && line[digits..].trim_start().starts_with('|'))
        || line.chars().all(|c| matches!(c, '^' | '-' | ' ' | '~'))
}

/// A tool's own word that it failed: a partial patch, a test run with
/// failures.
fn outcome_failure(line: &str) -> bool {
    if let Some((applied, of)) = ratio_before(line, " patterns applied") {
        return applied < of;
    }
    if line.starts_with("Ran ")
        && let Some(at) = line.find("of which ")
    {
        let n: String = line[at + 9..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        return n.parse::<u64>().is_ok_and(|n| n > 0);
    }
    line.starts_with("test result: FAILED") || line.ends_with("... FAILED")
}

/// A test run's count of its failures.
fn roll_up(line: &str) -> bool {
    line.starts_with("test result: FAILED")
        || (line.starts_with("Ran ") && line.contains("of which "))
}

/// `N/M` just before `suffix` in `line`.
fn ratio_before(line: &str, suffix: &str) -> Option<(u64, u64)> {
    let at = line.find(suffix)?;
    let head = &line[..at];
    let start = crate::core::cut::after_last(head, |c| !(c.is_ascii_digit() || c == '/'));
    let (a, b) = head[start..].split_once('/')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// A compiler's, a linter's or a test harness's report of a failure; not
/// its roll-up (`could not compile … due to 2 previous errors`, `N
/// warnings emitted`), which names no failure of its own.
fn diagnostic(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    if l.contains("could not compile") || l.contains("warnings emitted") || l.contains("generated ")
    {
        return false;
    }
    (l.starts_with("error") && (l.starts_with("error:") || l.starts_with("error[")))
        || l.starts_with("warning:") && !l.starts_with("warning: build failed, waiting")
        || l.contains("panicked at")
        || l.starts_with("fatal:")
        || l.starts_with("cargo command failed")
        || l.starts_with("failed to ")
}

/// A tool refusing, as the first thing it says.
fn refusal(line: &str) -> bool {
    [
        "Cannot ",
        "cannot ",
        "Error:",
        "error:",
        "Error ",
        "Failed",
        "failed",
        "No such file",
        "No structured data",
        "Permission denied",
    ]
    .iter()
    .any(|p| line.starts_with(p))
}

/// The line of a result that says how a call ended: the first that reads
/// as an outcome (a test run's result, a check, a patch, a commit), else
/// its first failure, else its first line; at most 160 bytes.
pub fn outcome(text: &str, class: ToolClass) -> Option<String> {
    // A line that is only markup (`<git_commit>`) says nothing. Each line
    // is lowered once for every word sought.
    let lines: Vec<(&str, String)> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !markup_only(l))
        .map(|l| (l, l.to_ascii_lowercase()))
        .collect();
    // The most telling first: a test run's count before a build's end.
    let line = [
        "test result",
        "ran ",
        "tests run",
        "passed",
        "succeeded",
        "applied",
        "committed",
        "no files",
        "created",
        "no matches",
        "not found",
        "finished",
    ]
    .iter()
    .find_map(|w| lines.iter().find(|(_, lower)| lower.contains(w)))
    .or_else(|| lines.iter().find(|(l, _)| commit_header(l)))
    .map(|(l, _)| l.to_string())
    .or_else(|| failures(text, class, false).into_iter().next())
    .or_else(|| lines.first().map(|(l, _)| l.to_string()))?;
    // What a commit changed, beside what it was.
    let changed = lines.iter().find(|(_, l)| {
        l.contains(" changed, ") && (l.contains("insertion") || l.contains("deletion"))
    });
    let line = match changed {
        Some((c, _)) if !line.contains(c) => format!("{line}; {c}"),
        _ => line,
    };
    Some(clip(&line, 240))
}

/// A line that is one tag and nothing else: `<git_commit>`.
fn markup_only(l: &str) -> bool {
    l.starts_with('<') && l.ends_with('>') && !l[1..].contains('<')
}

/// git's line for a new commit: `[main 6a1c50a0] fix: …`.
fn commit_header(line: &str) -> bool {
    let Some((head, _)) = line.strip_prefix('[').and_then(|l| l.split_once(']')) else {
        return false;
    };
    head.split_whitespace()
        .last()
        .is_some_and(|h| (7..=40).contains(&h.len()) && h.bytes().all(|c| c.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_by_class() {
        let none = json!({});
        assert_eq!(class("fs_modify_file", &none), ToolClass::File);
        assert_eq!(class("read_file", &none), ToolClass::File);
        assert_eq!(class("github_code_search", &none), ToolClass::Remote);
        assert_eq!(class("anything", &json!({"url": "x"})), ToolClass::Remote);
        for acts in [
            "cargo_test",
            "git_stage_patch",
            "rfd_draft",
            "agentic_shepherd_run",
        ] {
            assert_eq!(class(acts, &none), ToolClass::Acts, "{acts}");
        }
    }

    #[test]
    fn a_call_as_it_was_made() {
        let args = json!({"package": "jp_config", "testname": "load_", "all": true, "n": null});
        assert_eq!(
            as_made("cargo_test", &args),
            "cargo_test package=jp_config testname=load_ all=true"
        );
        assert_eq!(
            key_of("cargo_test", &args),
            "cargo_test jp_config load_ true"
        );
        let patches = json!({"patches": [{"path": "a.rs", "ids": ["c9"]}]});
        assert_eq!(
            as_made("git_stage_patch", &patches),
            r#"git_stage_patch patches={"path":"a.rs","ids":["c9"]}"#
        );
    }

    #[test]
    fn failures_a_successful_result_reports() {
        let acts = ToolClass::Acts;
        let f = |t: &str, c| failures(t, c, false);
        assert_eq!(
            f(
                "8/9 patterns applied.\nPatterns not found:\n#1: `x`",
                ToolClass::File
            ),
            ["8/9 patterns applied. Patterns not found: #1: `x`"]
        );
        assert!(f("9/9 patterns applied.", ToolClass::File).is_empty());
        assert_eq!(
            f(
                "Ran 12/12 tests, of which 1 failed.\n\nfailures: parser",
                acts
            ),
            ["Ran 12/12 tests, of which 1 failed. failures: parser"]
        );
        assert!(f("Ran 12/12 tests, of which 0 failed.", acts).is_empty());
        assert_eq!(
            f(
                "warning: redundant closure\n  --> src/a.rs:3:9\n   |\n 3 |  x.map(|c| f(c))\n\nmore",
                acts
            ),
            ["warning: redundant closure --> src/a.rs:3:9"]
        );
        // Errors first: the warnings beside them, and the roll-up, are not.
        assert_eq!(
            f(
                "warning: unused\n\nerror[E0433]: failed to resolve\n --> a.rs:1:2\n\n\
                 error: could not compile `x` due to 1 previous error",
                acts
            ),
            ["error[E0433]: failed to resolve --> a.rs:1:2"]
        );
        assert_eq!(f("Cannot run on a bare repository", acts).len(), 1);
        // A file's content holds such lines without the read failing.
        assert!(f("fn f() {}\nerror: not this", ToolClass::File).is_empty());
        assert!(f("Check succeeded. No warnings or errors found.", acts).is_empty());
        // Marked failed, its opening says how.
        assert_eq!(
            failures(
                "An error occurred.\nfile does not exist",
                ToolClass::Remote,
                true
            ),
            ["An error occurred. file does not exist"]
        );
    }

    #[test]
    fn a_cause_is_its_error_and_one_kind_is_one_error() {
        let acts = ToolClass::Acts;
        let chain = "error: failed to load manifest for workspace member `a/*`\n\
                     referenced by workspace at `Cargo.toml`\n\nCaused by:\n  \
                     failed to read `a/*/Cargo.toml`\n\nCaused by:\n  No such file or directory";
        assert_eq!(
            failures(chain, acts, true),
            [
                "error: failed to load manifest for workspace member `a/*` referenced by \
              workspace at `Cargo.toml` Caused by: failed to read `a/*/Cargo.toml` Caused by: \
              No such file or directory"
            ]
        );
        let same = "error[E0432]: unresolved import `crate::Result`\n --> src/note.rs:3:5\n\
                    help: consider importing\n\n\
                    error[E0432]: unresolved import `crate::Error`\n --> src/schema.rs:3:5\n\n\
                    error[E0425]: cannot find value `x`\n --> src/a.rs:1:1";
        assert_eq!(
            failures(same, acts, true),
            [
                "error[E0432]: unresolved import `crate::Result` --> src/note.rs:3:5 help: \
                 consider importing; also unresolved import `crate::Error` --> src/schema.rs:3:5",
                "error[E0425]: cannot find value `x` --> src/a.rs:1:1",
            ]
        );
        // A message past the block's length, twice: cut, never sliced
        // past its end.
        let long = format!(
            "warning: {}é\n\nwarning: {}é",
            "x".repeat(400),
            "x".repeat(400)
        );
        assert_eq!(failures(&long, acts, false).len(), 1);
        // Blank lines by the thousand cost one pass, not one per line.
        let blank = format!("error: x\n{}Caused by:\n y", "\n".repeat(200_000));
        assert_eq!(failures(&blank, acts, true), ["error: x Caused by: y"]);
    }

    #[test]
    fn a_commit_ends_in_what_it_is_and_what_it_changed() {
        let text = "<git_commit>\n[prr260 6a1c50a0] fix(config): Honor `create_if_missing`\n \
                    2 files changed, 54 insertions(+), 2 deletions(-)\n</git_commit>";
        assert_eq!(
            outcome(text, ToolClass::Acts).as_deref(),
            Some(
                "[prr260 6a1c50a0] fix(config): Honor `create_if_missing`; \
                 2 files changed, 54 insertions(+), 2 deletions(-)"
            )
        );
        assert_eq!(
            outcome("<x>\nsomething else\n</x>", ToolClass::Acts).as_deref(),
            Some("something else")
        );
    }

    #[test]
    fn json_results_are_read_as_their_text() {
        assert_eq!(
            decoded(r#"{"content":[{"type":"text","text":"Error: dispatch\nfailed"}]}"#),
            "text\nError: dispatch\nfailed"
        );
        assert_eq!(decoded("plain\ntext"), "plain\ntext");
    }

    #[test]
    fn how_a_call_ended() {
        let acts = ToolClass::Acts;
        assert_eq!(
            outcome("Compiling x\nRan 3/3 tests, of which 0 failed.", acts).as_deref(),
            Some("Ran 3/3 tests, of which 0 failed.")
        );
        assert_eq!(outcome("", acts), None);
    }
}
