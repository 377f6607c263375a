//! Finding the facts of a range, kind by kind:
//!
//! - `file`: every path a tool call read, searched, created or changed
//!   (its argument keys), with the operation and a call's line range;
//! - `command`: every command a tool ran (`cargo_*`, `git_*`, and shell
//!   tools' `command`/`cmd`), as run, and whether it failed;
//! - `error`: each failing result's telling line, and whether a later call
//!   of the range (same tool, same target) succeeded;
//! - `instruction`: the user's constraint sentences (always, never, must,
//!   don't, make sure, avoid, only …), wherever they stand in a message;
//! - `decision`: the assistant's conclusions and choices (I'll, let's,
//!   instead of, rather than, decided, the fix is, root cause …);
//! - `url` and `number`: links, versions and measured figures with their
//!   unit, named in messages.

pub use super::scan::{error_line, figures, sentences, urls};
use super::{Fact, FactKind};
use crate::core::model::conversation::Conversation;
use crate::core::model::event::{Kind, ResponseKind};
use crate::core::model::turns::TurnRange;
use serde_json::Value;
use std::collections::HashMap;

/// Argument keys naming a file or folder a call works on.
const PATH_KEYS: [&str; 9] = [
    "path",
    "paths",
    "file",
    "files",
    "file_path",
    "filename",
    "filepath",
    "old_path",
    "new_path",
];

/// Argument keys holding a command line.
const COMMAND_KEYS: [&str; 4] = ["command", "cmd", "script", "commandline"];

/// Words that make a user's sentence a constraint.
const INSTRUCTION_MARKS: [&str; 16] = [
    "always",
    "never",
    "must",
    "don't",
    "do not",
    "dont",
    "make sure",
    "avoid",
    "only use",
    "should not",
    "shouldn't",
    "no need to",
    "remember to",
    "be sure to",
    "stop ",
    "from now on",
];

/// Words that make an assistant's sentence a conclusion or a choice.
const DECISION_MARKS: [&str; 16] = [
    "i'll ",
    "i will ",
    "let's ",
    "we'll ",
    "i decided",
    "decided to",
    "instead of",
    "rather than",
    "the fix is",
    "root cause",
    "the cause is",
    "the problem is",
    "is wrong",
    "are wrong",
    "i chose",
    "going with",
];

/// The facts of `range` of `conv`, in stream order, each once.
pub fn of_range(conv: &Conversation, range: TurnRange) -> Vec<Fact> {
    select(
        &occurrences(conv, conv.events_of_turns(range.from, range.to)),
        range,
    )
}

/// The facts of `range` among `all` (every occurrence, in stream order, as
/// [`occurrences`] finds them), each once: a command failed if any run of
/// it in the range did; an error is fixed if what failed succeeded later
/// in the range.
pub fn select(all: &[Fact], range: TurnRange) -> Vec<Fact> {
    select_indexed(all, range)
        .into_iter()
        .map(|(_, f)| f)
        .collect()
}

/// [`select`], each fact with the index in `all` of the occurrence it is.
pub fn select_indexed(all: &[Fact], range: TurnRange) -> Vec<(usize, Fact)> {
    let (first, last) = (range.from + 1, range.to + 1);
    let start = all.partition_point(|f| f.turn < first);
    let mut out: Vec<(usize, Fact)> = Vec::new();
    let mut seen: HashMap<(FactKind, &str), usize> = HashMap::new();
    for (k, f) in all.iter().enumerate().skip(start) {
        if f.turn > last {
            break;
        }
        match seen.get(&(f.kind, f.key.as_str())) {
            Some(&at) => {
                if f.failed == Some(true) {
                    out[at].1.failed = Some(true);
                }
            }
            None => {
                seen.insert((f.kind, f.key.as_str()), out.len());
                let mut f = f.clone();
                if f.kind == FactKind::Error {
                    f.fixed = Some(f.fixed_turn.is_some_and(|t| t <= last));
                }
                out.push((k, f));
            }
        }
    }
    out
}

/// Every occurrence of a fact among `events` (indices of `conv`, in stream
/// order): a command each time it runs, an error with the turn something
/// later succeeded at what failed.
pub fn occurrences(conv: &Conversation, events: impl Iterator<Item = usize>) -> Vec<Fact> {
    let mut out: Vec<Fact> = Vec::new();
    let mut push = |out: &mut Vec<Fact>, f: Fact| out.push(f);
    // Each call by id: its tool, target and command fact, for its result.
    let mut calls: HashMap<String, (String, Option<String>, Option<usize>)> = HashMap::new();
    // Errors not fixed yet, by what failed (tool, target).
    let mut open: HashMap<(String, Option<String>), Vec<usize>> = HashMap::new();
    for i in events {
        let e = &conv.events[i];
        let turn = e.turn + 1;
        match &e.kind {
            Kind::ToolCallRequest { id, name } => {
                let plain = conv.plain(i);
                let args = plain.get("arguments").cloned().unwrap_or(Value::Null);
                let target = paths_of(&args).into_iter().next();
                for (path, lines) in files_of(&args) {
                    let op = operation(name);
                    let text = match &lines {
                        Some(l) => format!("{path} ({op}, lines {l})"),
                        None => format!("{path} ({op})"),
                    };
                    push(
                        &mut out,
                        Fact {
                            kind: FactKind::File,
                            text,
                            turn,
                            key: path,
                            event: i,
                            fixed: None,
                            fixed_turn: None,
                            failed: None,
                        },
                    );
                }
                let mut command_fact = None;
                if let Some((shown, cmd)) = command_of(name, &args) {
                    command_fact = Some(out.len());
                    push(
                        &mut out,
                        Fact {
                            kind: FactKind::Command,
                            text: shown,
                            turn,
                            key: cmd,
                            event: i,
                            fixed: None,
                            fixed_turn: None,
                            failed: Some(false),
                        },
                    );
                }
                calls.insert(id.to_string(), (name.to_string(), target, command_fact));
            }
            Kind::ToolCallResponse { id, is_error } => {
                let Some((tool, target, command)) = calls.get(&**id).cloned() else {
                    continue;
                };
                if !*is_error {
                    // A later success at what failed fixes it.
                    for k in open.remove(&(tool, target)).unwrap_or_default() {
                        out[k].fixed_turn = Some(turn);
                    }
                    continue;
                }
                if let Some(k) = command
                    && let Some(f) = out.get_mut(k)
                    && f.kind == FactKind::Command
                {
                    f.failed = Some(true);
                }
                let Some(line) = error_line(&conv.text(i)) else {
                    continue;
                };
                open.entry((tool.clone(), target))
                    .or_default()
                    .push(out.len());
                push(
                    &mut out,
                    Fact {
                        kind: FactKind::Error,
                        text: format!("{tool}: {line}"),
                        turn,
                        key: line,
                        event: i,
                        fixed: Some(false),
                        fixed_turn: None,
                        failed: None,
                    },
                );
            }
            Kind::ChatRequest => {
                let text = conv.text(i);
                for s in sentences(&text) {
                    if marked(&s, &INSTRUCTION_MARKS) {
                        push(&mut out, sentence_fact(FactKind::Instruction, &s, turn, i));
                    }
                }
                prose_facts(&text, turn, i, &mut out, &mut push);
            }
            Kind::ChatResponse(ResponseKind::Message) => {
                let text = conv.text(i);
                for s in sentences(&text) {
                    if marked(&s, &DECISION_MARKS) {
                        push(&mut out, sentence_fact(FactKind::Decision, &s, turn, i));
                    }
                }
                prose_facts(&text, turn, i, &mut out, &mut push);
            }
            _ => {}
        }
    }
    out
}

/// The links and figures of a message.
fn prose_facts(
    text: &str,
    turn: usize,
    event: usize,
    out: &mut Vec<Fact>,
    push: &mut impl FnMut(&mut Vec<Fact>, Fact),
) {
    for url in urls(text) {
        push(
            out,
            Fact {
                kind: FactKind::Url,
                text: url.clone(),
                turn,
                key: url,
                event,
                fixed: None,
                fixed_turn: None,
                failed: None,
            },
        );
    }
    for n in figures(text) {
        push(
            out,
            Fact {
                kind: FactKind::Number,
                text: n.clone(),
                turn,
                key: n,
                event,
                fixed: None,
                fixed_turn: None,
                failed: None,
            },
        );
    }
}

fn sentence_fact(kind: FactKind, sentence: &str, turn: usize, event: usize) -> Fact {
    let text: String = sentence.chars().take(200).collect();
    Fact {
        kind,
        key: sentence.to_string(),
        text,
        turn,
        event,
        fixed: None,
        fixed_turn: None,
        failed: None,
    }
}

fn marked(sentence: &str, marks: &[&str]) -> bool {
    let s = format!("{} ", sentence.to_lowercase().replace('’', "'"));
    marks.iter().any(|m| {
        s.match_indices(m).any(|(at, _)| {
            // A mark starts a word.
            at == 0 || !s[..at].chars().last().is_some_and(char::is_alphanumeric)
        })
    })
}

/// The paths a call's arguments name, with a line range where it has one.
fn files_of(args: &Value) -> Vec<(String, Option<String>)> {
    let lines = line_range(args);
    paths_of(args)
        .into_iter()
        .map(|p| (p, lines.clone()))
        .collect()
}

fn paths_of(args: &Value) -> Vec<String> {
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
fn operation(tool: &str) -> &'static str {
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

/// The command line a call ran, as shown and as matched: a shell tool's
/// command, or `cargo SUB` / `git SUB` for jp's cargo_* and git_* tools,
/// shown with its options (`--package csvq`) and matched by its values (a
/// reader writes `cargo test -p csvq` as readily).
fn command_of(tool: &str, args: &Value) -> Option<(String, String)> {
    let o = args.as_object();
    if let Some(cmd) = o.and_then(|o| {
        COMMAND_KEYS.iter().find_map(|k| match o.get(*k)? {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
            Value::Array(a) if !a.is_empty() => Some(words(a)),
            _ => None,
        })
    }) {
        let line: String = cmd.lines().next().unwrap_or("").chars().take(200).collect();
        return Some((line.clone(), line));
    }
    let (program, sub) = tool.split_once('_')?;
    if !matches!(program, "cargo" | "git" | "npm" | "go" | "make" | "docker") {
        return None;
    }
    let head = format!("{program} {}", sub.replace('_', "-"));
    let (mut shown, mut matched) = (head.clone(), head);
    let mut add = |shown_part: String, matched_part: String| {
        if !shown_part.is_empty() {
            shown.push(' ');
            shown.push_str(&shown_part);
        }
        if !matched_part.is_empty() {
            matched.push(' ');
            matched.push_str(&matched_part);
        }
    };
    if let Some(o) = o {
        for (k, v) in o {
            let flag = format!("--{}", k.replace('_', "-"));
            match v {
                Value::Array(a) if k == "args" => add(words(a), words(a)),
                Value::Array(a) => add(format!("{flag} {}", words(a)), words(a)),
                Value::String(s) if !s.is_empty() => add(format!("{flag} {s}"), s.clone()),
                Value::Bool(true) => add(flag.clone(), flag),
                Value::Number(n) => add(format!("{flag} {n}"), n.to_string()),
                _ => {}
            }
        }
    }
    let clip = |s: String| s.chars().take(200).collect::<String>();
    Some((clip(shown), clip(matched)))
}

fn words(a: &[Value]) -> String {
    a.iter()
        .filter_map(Value::as_str)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraint_sentences_are_found_wherever_they_stand() {
        let text = "Thanks for the fix. Please look at the parser next, and always run \
                    cargo fmt before you commit. The tests are slow.";
        let s: Vec<String> = sentences(text)
            .into_iter()
            .filter(|s| marked(s, &INSTRUCTION_MARKS))
            .collect();
        assert_eq!(
            s,
            ["Please look at the parser next, and always run cargo fmt before you commit."]
        );
        assert!(!marked("Hallways are long here", &INSTRUCTION_MARKS));
        assert!(marked("Don't touch the lockfile.", &INSTRUCTION_MARKS));
    }

    #[test]
    fn decisions_are_the_assistants_choices() {
        for s in [
            "I'll store it as a u64 instead.",
            "The tests are wrong: they expect the old order.",
            "Use BufReader instead of reading the whole file.",
        ] {
            assert!(marked(s, &DECISION_MARKS), "{s}");
        }
        assert!(!marked("Here is the file you asked for.", &DECISION_MARKS));
    }

    #[test]
    fn commands_of_jps_tools_and_of_shells() {
        let args = serde_json::json!({"args": ["--", "--nocapture"], "package": "csvq"});
        let (shown, matched) = command_of("cargo_test", &args).unwrap();
        assert_eq!(shown, "cargo test -- --nocapture --package csvq");
        assert_eq!(matched, "cargo test -- --nocapture csvq");
        let shell = command_of("shell", &serde_json::json!({"command": "ls -la\nrm x"}));
        assert_eq!(shell, Some(("ls -la".into(), "ls -la".into())));
        assert_eq!(
            command_of("fs_read_file", &serde_json::json!({"path": "x"})),
            None
        );
        let git = command_of("git_show_ref", &serde_json::json!({"ref": "v0.1.0"})).unwrap();
        assert_eq!(git.0, "git show-ref --ref v0.1.0");
        assert_eq!(git.1, "git show-ref v0.1.0");
    }

    #[test]
    fn files_with_operation_and_lines() {
        let args =
            serde_json::json!({"path": "./src/parser.rs", "start_line": 180, "end_line": 260});
        assert_eq!(
            files_of(&args),
            [("src/parser.rs".to_string(), Some("180-260".to_string()))]
        );
        assert_eq!(operation("fs_modify_file"), "changed");
        assert_eq!(operation("fs_grep_files"), "searched");
        assert_eq!(operation("fs_read_file"), "read");
    }

    #[test]
    fn links_and_figures() {
        let t = "See https://docs.rs/csv/latest/csv/. A 2 GB file in 11 s with 14 MB, \
                 61.0KiB packed; tagged v0.1.0 on Rust 1.74, 3 tests failed.";
        assert_eq!(urls(t), ["https://docs.rs/csv/latest/csv/"]);
        assert_eq!(
            figures(t),
            [
                "2 GB", "11 s", "14 MB", "61.0KiB", "v0.1.0", "1.74", "3 tests"
            ]
        );
        assert!(figures("I read 3 of them at 10 past").is_empty());
    }

    #[test]
    fn an_errors_telling_line() {
        let out = "   Compiling csvq\nerror[E0308]: mismatched types\n  --> src/a.rs:3";
        assert_eq!(
            error_line(out).as_deref(),
            Some("error[E0308]: mismatched types")
        );
        assert_eq!(error_line("\n\n").as_deref(), None);
    }
}
