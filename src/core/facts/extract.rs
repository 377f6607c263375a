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

use super::calls::{self, ToolClass};
use super::links::{attachments, discussed};
use super::per_event::{self, Found};
use super::{Fact, FactKind, asks};
use crate::core::model::TurnRange;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use crate::core::parallel;

use std::collections::HashMap;

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
    // An endless range (`to` at usize::MAX) ends nowhere: no wrap.
    let (first, last) = (range.from.saturating_add(1), range.to.saturating_add(1));
    let start = all.partition_point(|f| f.turn < first);
    let mut out: Vec<(usize, Fact)> = Vec::new();
    // Hashed fast: every run of a simulation selects its range's facts.
    let mut seen: foldhash::HashMap<(FactKind, &str), usize> = foldhash::HashMap::default();
    for (k, f) in all.iter().enumerate().skip(start) {
        if f.turn > last {
            break;
        }
        match seen.get(&(f.kind, f.key.as_str())) {
            Some(&at) => {
                let first = &mut out[at].1;
                if f.failed == Some(true) {
                    first.failed = Some(true);
                }
                merge_into(first, f);
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

/// What a later occurrence of the same fact adds to the first: a file's
/// other operations (`fs.rs (read, changed)`), a command's later outcomes.
fn merge_into(first: &mut Fact, later: &Fact) {
    match first.kind {
        FactKind::File => {
            let ops = |t: &str| -> Vec<String> {
                t.rsplit_once(" (")
                    .map(|(_, rest)| rest.trim_end_matches(')'))
                    .unwrap_or("")
                    .split(", ")
                    .filter(|o| !o.is_empty() && !o.starts_with("lines "))
                    .map(str::to_string)
                    .collect()
            };
            let mut all = ops(&first.text);
            for op in ops(&later.text) {
                if !all.contains(&op) {
                    all.push(op);
                }
            }
            let lines = first
                .text
                .rsplit_once(", lines ")
                .map(|(_, l)| format!(", lines {}", l.trim_end_matches(')')))
                .unwrap_or_default();
            first.text = format!("{} ({}{lines})", first.key, all.join(", "));
        }
        FactKind::Command => {
            let how = |t: &str| t.split_once(" → ").map(|(_, h)| h.to_string());
            if let Some(later_how) = how(&later.text)
                && !first.text.contains(&later_how)
            {
                first.text = calls::clip(&format!("{}; then {later_how}", first.text), 600);
            }
        }
        _ => {}
    }
}

/// Every occurrence of a fact among `events` (indices of `conv`, in stream
/// order): a command each time it runs, with how it ended; an error with
/// the turn something later succeeded at what failed. Each event is read
/// on its own on every core ([`per_event`]); what links them is done here,
/// in order.
pub fn occurrences(conv: &Conversation, events: impl Iterator<Item = usize>) -> Vec<Fact> {
    let events: Vec<usize> = events.collect();
    let mut found = parallel::map(&events, |&i| per_event::found(conv, i));
    read_results(conv, &events, &mut found);
    let mut out: Vec<Fact> = Vec::new();
    // The base config's attachments are there from the first turn on.
    if events.first() == Some(&0) {
        for url in attachments(&conv.base_config) {
            let turn = conv.events[0].turn + 1;
            let text = format!("attached: {url}");
            out.push(Fact::new(FactKind::Url, text, url, turn, 0));
        }
    }
    // Each call by id: its tool, class, target and command fact.
    let mut calls: HashMap<String, Call> = HashMap::new();
    // Errors not fixed yet, by what failed (tool, target).
    let mut open: HashMap<(String, Option<String>), Vec<usize>> = HashMap::new();
    // The assistant's messages: a pasted list's links are facts only where
    // the conversation discusses them (read again only if there is one).
    let mut messages: Vec<usize> = Vec::new();
    let mut listed_links: Vec<Fact> = Vec::new();
    for (&i, found) in events.iter().zip(found) {
        let turn = conv.events[i].turn + 1;
        let fact = |kind, text: String, key: String| Fact::new(kind, text, key, turn, i);
        match found {
            Found::Call(c) => {
                let command = c.command.map(|k| out.len() + k);
                out.extend(c.said.facts);
                listed_links.extend(c.said.listed);
                let call = Call {
                    tool: c.tool,
                    target: c.target,
                    command,
                };
                calls.insert(c.id, call);
            }
            Found::Result(r) => {
                let Some(call) = calls.get(&r.id).cloned() else {
                    continue;
                };
                for (place, line) in r.pinned {
                    out.push(fact(FactKind::Number, format!("{place}: {line}"), place));
                }
                if let Some(k) = call.command
                    && let Some(f) = out.get_mut(k)
                {
                    if let Some(how) = &r.how {
                        f.text = calls::clip(&format!("{} → {how}", f.text), 480);
                    }
                    f.failed = Some(r.is_error || !r.failed.is_empty());
                    // What a run counted (tests, changes) is a figure later
                    // work rests on.
                    let how = r.how.unwrap_or_default();
                    for n in r.counted {
                        out.push(fact(FactKind::Number, how.clone(), n));
                    }
                }
                if r.failed.is_empty() {
                    // A later success at what failed fixes it.
                    for k in open.remove(&(call.tool, call.target)).unwrap_or_default() {
                        out[k].fixed_turn = Some(turn);
                    }
                    continue;
                }
                let errors = open.entry((call.tool.clone(), call.target)).or_default();
                for line in r.failed {
                    errors.push(out.len());
                    out.push(Fact {
                        fixed: Some(false),
                        ..fact(FactKind::Error, format!("{}: {line}", call.tool), line)
                    });
                }
            }
            Found::Request { said, approves } => {
                // "yes" to "Want me to write the fix?" asks for the fix.
                if let Some(text) = approves
                    && let Some(offer) = messages
                        .last()
                        .and_then(|&m| asks::closing_question(&conv.text(m)))
                {
                    let said = format!("{text} (to: {offer})");
                    out.push(Fact {
                        key: offer,
                        ..per_event::sentence_fact(FactKind::Instruction, &said, turn, i)
                    });
                }
                out.extend(said.facts);
                listed_links.extend(said.listed);
            }
            Found::Message(said) => {
                messages.push(i);
                out.extend(said.facts);
                listed_links.extend(said.listed);
            }
            Found::Said(said) => {
                out.extend(said.facts);
                listed_links.extend(said.listed);
            }
            Found::Nothing => {}
        }
    }
    if !listed_links.is_empty() {
        let said: String = messages
            .iter()
            .map(|&i| conv.text(i).to_lowercase() + "\n")
            .collect();
        let keys: Vec<&str> = listed_links.iter().map(|f| f.key.as_str()).collect();
        let named = discussed(&keys, &said);
        out.extend(
            listed_links
                .into_iter()
                .zip(named)
                .filter_map(|(f, named)| named.then_some(f)),
        );
        out.sort_by_key(|f| f.event);
    }
    out
}

/// Reads each result of `events` whose call came before it (the latest
/// call of its id), on every core, into `found`.
fn read_results(conv: &Conversation, events: &[usize], found: &mut [Found]) {
    let mut calls: HashMap<&str, (&str, ToolClass)> = HashMap::new();
    let mut asked: Vec<(usize, usize, String, ToolClass)> = Vec::new();
    for (k, &i) in events.iter().enumerate() {
        match (&conv.events[i].kind, &found[k]) {
            (_, Found::Call(c)) => {
                calls.insert(&c.id, (&c.tool, c.class));
            }
            (Kind::ToolCallResponse { id, .. }, _) => {
                if let Some(&(tool, class)) = calls.get(&**id) {
                    asked.push((k, i, tool.to_string(), class));
                }
            }
            _ => {}
        }
    }
    let read = parallel::map(&asked, |(_, i, tool, class)| {
        per_event::result(conv, *i, tool, *class)
    });
    for ((k, ..), r) in asked.iter().zip(read) {
        found[*k] = Found::Result(r);
    }
}

/// A tool call, for its result.
#[derive(Debug, Clone)]
struct Call {
    tool: String,
    target: Option<String>,
    /// Its command fact, by index.
    command: Option<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::facts::call_args::{command_of, files_of, operation, pinpointed};
    use crate::core::facts::scan::{figures, urls};

    #[test]
    fn commands_as_they_were_made_and_of_shells() {
        let args = serde_json::json!({"args": ["--", "--nocapture"], "package": "csvq"});
        let (shown, matched) = command_of("cargo_test", &args);
        assert_eq!(shown, "cargo_test args=--, --nocapture package=csvq");
        assert_eq!(matched, "cargo_test --, --nocapture csvq");
        let shell = command_of("shell", &serde_json::json!({"command": "ls -la\nrm x"}));
        assert_eq!(shell, ("shell: ls -la".into(), "ls -la".into()));
    }

    #[test]
    fn a_later_run_adds_its_outcome_and_a_later_operation_its_name() {
        let fact = Fact::sample;
        let mut f = fact(FactKind::File, "src/fs.rs (read, lines 1-9)", "src/fs.rs");
        merge_into(
            &mut f,
            &fact(FactKind::File, "src/fs.rs (changed)", "src/fs.rs"),
        );
        assert_eq!(f.text, "src/fs.rs (read, changed, lines 1-9)");
        let mut c = fact(
            FactKind::Command,
            "cargo_test → Ran 2/2, 1 failed",
            "cargo_test",
        );
        merge_into(
            &mut c,
            &fact(
                FactKind::Command,
                "cargo_test → Ran 2/2, 0 failed",
                "cargo_test",
            ),
        );
        assert_eq!(
            c.text,
            "cargo_test → Ran 2/2, 1 failed; then Ran 2/2, 0 failed"
        );
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
    fn counts_with_a_word_between_and_short_sentences_whole() {
        let found =
            figures("All 18 existing tests pass unchanged. Added 6 new tests for FTS mode.");
        let names: Vec<&str> = found.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(names, ["18 existing tests", "6 new tests"]);
        assert_eq!(found[0].1, "All 18 existing tests pass unchanged.");
        assert!(figures("the 18 existing parsers stay").is_empty());
    }

    #[test]
    fn links_and_figures() {
        let t = "See https://docs.rs/csv/latest/csv/. A 2 GB file in 11 s with 14 MB, \
                 61.0KiB packed; tagged v0.1.0 on Rust 1.74, 3 tests failed.";
        assert_eq!(urls(t), ["https://docs.rs/csv/latest/csv/"]);
        let found: Vec<String> = figures(t).into_iter().map(|(f, _)| f).collect();
        assert_eq!(
            found,
            [
                "2 GB", "11 s", "14 MB", "61.0KiB", "v0.1.0", "1.74", "3 tests"
            ]
        );
        assert!(figures("I read 3 of them at 10 past").is_empty());
        let ids: Vec<String> =
            figures("Committed as `6a1c50a0` (#598); Ran 253/253 at lib.rs:326 now.")
                .into_iter()
                .map(|(f, _)| f)
                .collect();
        assert_eq!(ids, ["6a1c50a0", "253/253", "lib.rs:326"]);
        let more: Vec<String> = figures(
            "It uses `rusqlite` 0.37 (we're on 0.38), about ~50MB and 20-90MB models, \
             a limit (default: 50) with k = 60 now.",
        )
        .into_iter()
        .map(|(f, _)| f)
        .collect();
        assert_eq!(more, ["0.37", "0.38", "50MB", "20-90MB", "50", "60"]);
        let (_, around) = &figures("On a 375px phone, this leaves the table small")[0];
        assert!(around.starts_with("On a 375px phone"), "{around}");
    }

    #[test]
    fn figures_that_name_approximate_or_end_a_sentence() {
        let found: Vec<String> = figures(
            "For a few hundred notes this is fast (<50ms). Add a `limit` field (default: 50). \
             If Bear has 5,000+ notes the index is slow. It caps titles at 200-ish characters. \
             One stale reference at line 406 of RFD 032, and L12 is rank 113. \
             The 512-dimension embeddings beat 384-dim ones. Do step 3 and try 4 things.",
        )
        .into_iter()
        .map(|(f, _)| f)
        .collect();
        assert_eq!(
            found,
            [
                "50ms",
                "50",
                "5,000+ notes",
                "200-ish characters",
                "line 406",
                "RFD 032",
                "rank 113",
                "512-dimension",
                "384-dim"
            ]
        );
    }

    #[test]
    fn a_search_with_few_hits_pins_its_places() {
        let one = "crates/jp_config/src/util_tests.rs:283:fn test_load() {\n";
        assert_eq!(
            pinpointed(one),
            [(
                "crates/jp_config/src/util_tests.rs:283".to_string(),
                "fn test_load() {".to_string()
            )]
        );
        // Context lines (`path-117-`) are no hits.
        let with_context = "src/util.rs-120-/// Can error.\nsrc/util.rs:121:pub fn load(\n";
        assert_eq!(pinpointed(with_context).len(), 1);
        let survey: String = (1..=4).map(|n| format!("src/a.rs:{n}:use x;\n")).collect();
        assert!(pinpointed(&survey).is_empty(), "four hits are a survey");
        assert!(pinpointed("No matches found.").is_empty());
    }
}
