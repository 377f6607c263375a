//! `digest`: the built-in, offline, deterministic summarizer.
//!
//! An extractive summary a model can work from: what the user asked, what
//! the assistant concluded, the files and paths touched, the tools used with
//! their counts and errors, and what was left open, within a size budget.

use super::lines::{CONCLUSION_LIMIT, clip_line, one_line};
use super::paths::{action_of, add_path};
use super::turn_read::{EventRead, TurnReads, What};
use super::{Request, SummarizeError, Summarizer, Summary, transcript};
use crate::core::facts::{Fact, FactKind};
use crate::core::model::TurnRange;
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Bounds of the digest's size, in characters.
const MIN_BUDGET: usize = 1_200;
const MAX_BUDGET: usize = 8_000;
/// A range over 20k tokens: its digest stays within a quarter of it.
const LARGE_RANGE: u64 = 80_000;

#[derive(Debug, Clone, Default)]
pub struct Digest {
    /// Fixed budget in characters; by default a tenth of the range, clamped.
    pub budget: Option<usize>,
    /// What it read of each turn, for the next summary of the same turns.
    reads: Arc<TurnReads>,
}

impl Summarizer for Digest {
    fn name(&self) -> &str {
        "digest"
    }

    fn summarize(&self, request: &Request<'_>) -> Result<Summary, SummarizeError> {
        let conv = request.conversation;
        let input_chars: u64 = conv
            .events_of_turns(request.range.from, request.range.to)
            .map(|i| conv.events[i].chars)
            .sum();
        let checklist = crate::core::facts::checklist(conv, request.range);
        let f = gather(conv, request.range, &self.reads);
        // Every fact: what the digest lists until it must cut them.
        let all_facts = facts_section(&checklist, 0);
        // Room for the range's facts and its answers whole where the range
        // allows (the answers never more than a tenth of it), never more
        // than a quarter of a large range.
        let budget = self.budget.unwrap_or_else(|| {
            let base = ((input_chars / 10) as usize).clamp(MIN_BUDGET, MAX_BUDGET);
            let answers = conclusions_chars(&f).min((input_chars / 10) as usize);
            let facts = all_facts.chars().count() + 400 + answers;
            let room = base.max(facts);
            if input_chars > LARGE_RANGE {
                room.min((input_chars / 4) as usize)
            } else {
                room
            }
        });
        Ok(Summary {
            text: digest_with(&f, request.range, budget, &checklist, &all_facts),
            input_chars,
        })
    }
}

#[derive(Default)]
struct ToolStats {
    calls: usize,
    errors: usize,
}

struct Facts {
    requests: Vec<(usize, String)>,
    /// Each turn's last answer, by paragraph (its code left out).
    conclusions: Vec<(usize, Vec<String>)>,
    errors: Vec<(usize, String)>,
    /// path -> (first seen order, actions)
    paths: Vec<(String, Vec<&'static str>)>,
    tools: BTreeMap<String, ToolStats>,
    open: Vec<String>,
    structured: usize,
    first: Option<String>,
    last: Option<String>,
}

fn gather(conv: &Conversation, range: TurnRange, reads: &TurnReads) -> Facts {
    let mut f = Facts {
        requests: Vec::new(),
        conclusions: Vec::new(),
        errors: Vec::new(),
        paths: Vec::new(),
        tools: BTreeMap::new(),
        open: Vec::new(),
        structured: 0,
        first: None,
        last: None,
    };
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut pending_tools: Vec<(usize, &str)> = Vec::new();
    let mut pending_inquiries = 0usize;
    let mut last_message: Option<(usize, &EventRead)> = None;
    let mut last_turn_answered = BTreeMap::<usize, bool>::new();

    let turns = turns_read(conv, range, reads);
    let (mut first, mut last) = (None, None);
    for (start, read) in &turns {
        for (k, r) in read.iter().enumerate() {
            // Formatted at the end: a range's first and last are all it shows.
            if let Some(t) = r.timestamp {
                first.get_or_insert(t);
                last = Some(t);
            }
            let turn = conv.events[start + k].turn + 1;
            let mention = |paths: &mut Vec<_>, mentioned: &[String]| {
                for p in mentioned {
                    add_path(paths, p.clone(), "mentioned");
                }
            };
            match &r.what {
                What::Request { line, mentioned } => {
                    mention(&mut f.paths, mentioned);
                    f.requests.push((turn, line.clone()));
                    last_turn_answered.insert(turn, false);
                }
                What::Message { mentioned, .. } => {
                    mention(&mut f.paths, mentioned);
                    last_message = Some((turn, r));
                    last_turn_answered.insert(turn, true);
                }
                What::Data => {
                    f.structured += 1;
                    last_turn_answered.insert(turn, true);
                }
                What::Call { id, name, paths } => {
                    names.insert(id, name);
                    f.tools.entry(name.to_string()).or_default().calls += 1;
                    pending_tools.push((turn, id));
                    let action = action_of(name);
                    for p in paths {
                        add_path(&mut f.paths, p.clone(), action);
                    }
                }
                What::Result { id, failed } => {
                    pending_tools.retain(|(_, p)| p != id);
                    let name = names.get(id.as_str()).copied().unwrap_or("unknown");
                    if let Some(line) = failed {
                        f.tools.entry(name.to_string()).or_default().errors += 1;
                        f.errors.push((turn, format!("{name}: {line}")));
                    }
                }
                What::InquiryRequest => pending_inquiries += 1,
                What::InquiryResponse => {
                    pending_inquiries = pending_inquiries.saturating_sub(1);
                }
                What::Other => {}
            }
            // Each turn's conclusion is its last assistant message.
            if let Some((t, _)) = &last_message
                && *t != turn
                && let Some((t, m)) = last_message.take()
            {
                f.conclusions.push((t, paragraphs_of(m)));
            }
        }
    }
    if let Some((t, m)) = last_message.take() {
        if let What::Message {
            asked: Some(asked), ..
        } = &m.what
        {
            f.open
                .push(format!("turn {t}: the assistant asked: {asked}"));
        }
        f.conclusions.push((t, paragraphs_of(m)));
    }
    for (turn, id) in pending_tools {
        let name = names.get(id).copied().unwrap_or_default();
        f.open.push(format!(
            "turn {turn}: tool call {name} ({id}) has no result"
        ));
    }
    if pending_inquiries > 0 {
        f.open.push(format!(
            "{pending_inquiries} question(s) to the user left unanswered"
        ));
    }
    if let Some((&turn, false)) = last_turn_answered.iter().next_back() {
        f.open
            .push(format!("turn {turn}: the request had no answer yet"));
    }
    f.first = first.map(|t| timestamp::short(&t));
    f.last = last.map(|t| timestamp::short(&t));
    f
}

/// The reads of each turn of `range`, with the index of its first event.
fn turns_read(
    conv: &Conversation,
    range: TurnRange,
    reads: &TurnReads,
) -> Vec<(usize, Arc<[EventRead]>)> {
    let events = conv.events_of_turns(range.from, range.to);
    let (mut start, end) = (events.start, events.end);
    let mut out = Vec::new();
    while start < end {
        let turn = conv.events[start].turn;
        let stop = start + conv.events[start..end].partition_point(|e| e.turn == turn);
        out.push((start, reads.turn(conv, start, stop)));
        start = stop;
    }
    out
}

fn paragraphs_of(m: &EventRead) -> Vec<String> {
    match &m.what {
        What::Message { paragraphs, .. } => paragraphs.clone(),
        _ => Vec::new(),
    }
}

/// The digest text of `range`, at most about `budget` characters: the
/// range's facts first (the user's instructions, errors, files, commands,
/// decisions, links and figures: what a reader needs to carry on), then
/// what was asked and concluded, shortened first when it must be.
fn digest_with(
    f: &Facts,
    range: TurnRange,
    budget: usize,
    checklist: &[Fact],
    all_facts: &str,
) -> String {
    let fits = |text: &String| text.chars().count() <= budget;
    // Made once: the conclusions are shown only while the decisions are
    // listed too (levels past 0 keep none of them).
    let told = unlisted_conclusions(f, checklist);
    let render = |item_len, keep, facts: &str| render(f, facts, &told, range, item_len, keep);
    // Longer items first; shorten until the whole fits.
    for item_len in [CONCLUSION_LIMIT, 400, 240, 160, 100, 60] {
        let text = render(item_len, usize::MAX, all_facts);
        if fits(&text) {
            return text;
        }
    }
    // Still too long: keep the most recent requests and conclusions.
    for keep in [12, 8, 5, 3, 2, 1, 0] {
        let text = render(60, keep, all_facts);
        if fits(&text) {
            return text;
        }
    }
    // Then the facts a reader needs least.
    let mut text = String::new();
    for level in 1..=FACT_LEVELS {
        text = render(60, 0, &facts_section(checklist, level));
        if fits(&text) {
            return text;
        }
    }
    transcript::clip(&text, budget)
}

/// The characters the conclusions take at their fullest.
fn conclusions_chars(f: &Facts) -> usize {
    f.conclusions
        .iter()
        .map(|(_, paragraphs)| prose_chars(paragraphs).min(CONCLUSION_LIMIT) + 16)
        .sum()
}

fn prose_chars(paragraphs: &[String]) -> usize {
    paragraphs.iter().map(|p| p.chars().count() + 1).sum()
}

/// Each turn's answer without the points the facts already list as its
/// decisions: the room a conclusion has goes to what the digest does not
/// already say.
fn unlisted_conclusions(f: &Facts, checklist: &[Fact]) -> Vec<(usize, String)> {
    f.conclusions
        .iter()
        .map(|(turn, paragraphs)| {
            let listed = |p: &String| {
                checklist.iter().any(|d| {
                    d.kind == FactKind::Decision && d.turn == *turn && p.contains(opening(&d.key))
                })
            };
            let rest: Vec<&str> = paragraphs
                .iter()
                .filter(|p| !listed(p))
                .map(String::as_str)
                .collect();
            (*turn, one_line(&rest.join(" ")))
        })
        .filter(|(_, text)| !text.is_empty())
        .collect()
}

/// The start of a decision's text, which the paragraph it came from holds
/// verbatim (its later sentences may have been left out of the point).
fn opening(key: &str) -> &str {
    let end = key.char_indices().nth(40).map_or(key.len(), |(at, _)| at);
    let first = key.find(". ").map_or(end, |at| at.min(end));
    &key[..first]
}

/// How far the facts are cut: 0 all of them; 1 without figures and
/// links; 2 without decisions; 3 at most 30 files and commands; 4 at most
/// 10.
const FACT_LEVELS: usize = 4;

fn facts_section(checklist: &[Fact], level: usize) -> String {
    let mut out = String::new();
    let of = |k: FactKind| checklist.iter().filter(move |f| f.kind == k);
    let most = match level {
        0..=2 => usize::MAX,
        3 => 30,
        _ => 10,
    };
    let list = |out: &mut String, title: &str, items: Vec<String>| {
        if items.is_empty() {
            return;
        }
        out.push_str(&format!("\n{title}:\n"));
        let more = items.len().saturating_sub(most);
        for i in items.into_iter().take(most) {
            out.push_str(&format!("- {i}\n"));
        }
        if more > 0 {
            out.push_str(&format!("- and {more} more\n"));
        }
    };
    let sentence = |f: &Fact| {
        format!(
            "turn {}: {}",
            f.turn,
            one_line(&f.key) // whole: over budget, the rest is cut first
        )
    };
    list(
        &mut out,
        "Instructions from the user",
        of(FactKind::Instruction).map(sentence).collect(),
    );
    list(
        &mut out,
        "Errors",
        of(FactKind::Error)
            .map(|f| {
                format!(
                    "turn {}: {}{}",
                    f.turn,
                    f.text,
                    if f.fixed == Some(true) {
                        " (fixed later)"
                    } else {
                        " (not fixed)"
                    }
                )
            })
            .collect(),
    );
    list(
        &mut out,
        "Files",
        of(FactKind::File).map(|f| f.text.clone()).collect(),
    );
    list(
        &mut out,
        "Commands run",
        of(FactKind::Command)
            .map(|f| {
                format!(
                    "{}{}",
                    f.text,
                    if f.failed == Some(true) {
                        " (failed)"
                    } else {
                        ""
                    }
                )
            })
            .collect(),
    );
    if level < 2 {
        list(
            &mut out,
            "Decisions",
            of(FactKind::Decision).map(sentence).collect(),
        );
    }
    if level < 1 {
        let urls: Vec<String> = of(FactKind::Url).map(|f| f.text.clone()).collect();
        if !urls.is_empty() {
            out.push_str(&format!("\nLinks: {}\n", urls.join(" ")));
        }
        let figures: Vec<String> = of(FactKind::Number).map(|f| f.text.clone()).collect();
        if !figures.is_empty() {
            out.push_str(&format!("\nFigures: {}\n", figures.join("; ")));
        }
    }
    out
}

fn render(
    f: &Facts,
    facts: &str,
    conclusions: &[(usize, String)],
    range: TurnRange,
    item_len: usize,
    keep: usize,
) -> String {
    let mut out = String::new();
    let span = match (&f.first, &f.last) {
        (Some(a), Some(b)) if a != b => format!(", {a} to {b}"),
        (Some(a), _) => format!(", {a}"),
        _ => String::new(),
    };
    out.push_str(&format!(
        "Digest of turns {}-{} ({}{span}).\n",
        range.from + 1,
        range.to.saturating_add(1),
        crate::core::fmt::count(range.turns() as u64, "turn")
    ));
    let list = |out: &mut String, title: &str, items: &[(usize, String)]| {
        if items.is_empty() || keep == 0 {
            return;
        }
        out.push_str(&format!("\n{title}:\n"));
        let skip = items.len().saturating_sub(keep);
        if skip > 0 {
            out.push_str(&format!("- ({skip} earlier omitted)\n"));
        }
        for (turn, text) in &items[skip..] {
            out.push_str(&format!("- turn {turn}: {}\n", clip_line(text, item_len)));
        }
    };
    out.push_str(facts);
    list(&mut out, "User requests", &f.requests);
    list(&mut out, "Assistant conclusions", conclusions);
    // Paths named in prose, beside the files the checklist lists.
    if keep > 0 && !f.paths.is_empty() {
        let max_paths = if keep == usize::MAX { 40 } else { keep * 3 };
        let shown: Vec<String> = f
            .paths
            .iter()
            .take(max_paths)
            .map(|(p, actions)| {
                let mut a = actions.clone();
                a.dedup();
                format!("{p} ({})", a.join(", "))
            })
            .collect();
        let more = f.paths.len().saturating_sub(max_paths);
        out.push_str(&format!("\nFiles and paths: {}", shown.join("; ")));
        if more > 0 {
            out.push_str(&format!("; and {more} more"));
        }
        out.push('\n');
    }
    if !f.tools.is_empty() {
        let tools: Vec<String> = f
            .tools
            .iter()
            .map(|(name, s)| match s.errors {
                0 => format!("{name} x{}", s.calls),
                n => format!("{name} x{} ({n} failed)", s.calls),
            })
            .collect();
        out.push_str(&format!("\nTools used: {}\n", tools.join(", ")));
    }
    list(&mut out, "Errors", &f.errors);
    if f.structured > 0 {
        out.push_str(&format!(
            "\n{} structured (JSON) response(s) were given.\n",
            f.structured
        ));
    }
    if !f.open.is_empty() {
        out.push_str("\nOpen threads:\n");
        for o in &f.open {
            out.push_str(&format!("- {}\n", clip_line(o, item_len)));
        }
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conclusion_gives_what_the_decisions_do_not_already_say() {
        let answer = "The fix belongs in the loader, because the guard rejects a missing folder.\n\n\
                      Extra note on the tests added in this turn and what they pin down for later.";
        let events = serde_json::json!([
            {"type":"turn_start","timestamp":"2026-01-01 00:00:00"},
            {"type":"chat_request","timestamp":"2026-01-01 00:00:00","content":"why?"},
            {"type":"chat_response","timestamp":"2026-01-01 00:00:01","message":answer}
        ]);
        let conv = crate::core::store::load::of_events(events.to_string());
        let range = TurnRange { from: 0, to: 0 };
        let text = Digest::default()
            .summarize(&Request {
                conversation: &conv,
                range,
                instructions: "",
            })
            .unwrap()
            .text;
        let decision = "The fix belongs in the loader";
        assert_eq!(text.matches(decision).count(), 1, "said once: {text}");
        let conclusions = text.split("Assistant conclusions:").nth(1).expect(&text);
        assert!(!conclusions.contains(decision), "{text}");
        assert!(conclusions.contains("Extra note on the tests"), "{text}");
    }

    #[test]
    fn a_digest_that_read_other_ranges_and_conversations_writes_what_a_fresh_one_does() {
        let demo = crate::demo::materialize().unwrap();
        let conv = crate::core::store::load::load(&demo.conversation_dir).unwrap();
        // The same events but the last turn's message: another conversation
        // whose turns sit at the same event indices.
        let mut events: Vec<serde_json::Value> = serde_json::from_str(
            &std::fs::read_to_string(demo.conversation_dir.join("events.json")).unwrap(),
        )
        .unwrap();
        let last = events
            .iter_mut()
            .rev()
            .find(|e| e["type"] == "chat_response" && e.get("message").is_some())
            .unwrap();
        last["message"] = "Moved the parser to src/other.rs. Should I also add a test?".into();
        let other =
            crate::core::store::load::of_events(serde_json::Value::Array(events).to_string());
        let shared = Digest::default();
        let n = conv.turn_count;
        assert!(n >= 4, "the demo has turns to summarise");
        for c in [&conv, &other, &conv] {
            for len in 1..=n {
                for from in 0..=(n - len) {
                    let request = Request {
                        conversation: c,
                        range: TurnRange {
                            from,
                            to: from + len - 1,
                        },
                        instructions: "",
                    };
                    let fresh = Digest::default().summarize(&request).unwrap().text;
                    assert_eq!(
                        shared.summarize(&request).unwrap().text,
                        fresh,
                        "{from}+{len}"
                    );
                }
            }
        }
        let whole = |c| {
            let request = Request {
                conversation: c,
                range: TurnRange { from: 0, to: n - 1 },
                instructions: "",
            };
            shared.summarize(&request).unwrap().text
        };
        assert_ne!(
            whole(&conv),
            whole(&other),
            "each conversation's own reading"
        );
    }

    #[test]
    fn clip_line_marks_the_cut() {
        assert_eq!(clip_line("abcdef", 4), "abc…");
        assert_eq!(clip_line("abc", 4), "abc");
    }
}
