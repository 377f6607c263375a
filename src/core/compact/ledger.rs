//! What each compaction hid (the loss ledger): the tool calls it stripped,
//! omitted or summarised, by tool, with what identifies each (the path,
//! command, pattern or URL of its arguments), which were errors, the
//! reasoning and messages it took out, and their tokens; and the calls the
//! model made again after it (same tool, same arguments) — going back for
//! what it lost. What the model no longer knows of it is `core::facts`'.

use super::estimate;
use super::fate::Fate;
use super::projection::Projection;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::{Kind, ResponseKind};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// One tool call a compaction hid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HiddenItem {
    /// 1-based.
    pub turn: usize,
    pub tool: String,
    /// What it was about: a path, a command, a pattern, a URL.
    pub target: Option<String>,
    /// Tokens the model no longer gets of the call and its result.
    pub tokens: u64,
    pub error: bool,
    pub fate: &'static str,
}

/// What one compaction hid.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Hidden {
    pub tool_calls: usize,
    pub tool_results: usize,
    pub errors: usize,
    pub reasoning: usize,
    pub messages: usize,
    pub tokens: u64,
    pub items: Vec<HiddenItem>,
}

/// A call made after the compaction that repeats one it hid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refetch {
    /// 1-based.
    pub turn: usize,
    pub tool: String,
    pub target: Option<String>,
    /// Tokens its result cost again.
    pub tokens: u64,
}

/// The ledger of one compaction (by its 0-based position).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LedgerEntry {
    pub position: usize,
    pub hidden: Hidden,
    pub fetched_again: Vec<Refetch>,
}

impl LedgerEntry {
    /// What it hid, counted: "7 tool calls, 7 results (1 error), …: 23,313
    /// tok". What it hid is not what it saves (the summary and the stubs
    /// sent in their place count against it), and the two figures stand
    /// side by side in the list, the detail and the report: said here once.
    pub fn hid(&self) -> String {
        use crate::core::fmt::{count, thousands};
        let h = &self.hidden;
        format!(
            "{}, {} ({}), {}, {}: {} tok (it saves a request this less what is sent in their place)",
            count(h.tool_calls as u64, "tool call"),
            count(h.tool_results as u64, "result"),
            count(h.errors as u64, "error"),
            count(h.reasoning as u64, "reasoning block"),
            count(h.messages as u64, "message"),
            thousands(h.tokens)
        )
    }

    /// The ledger in lines, as `lost` and the inspector's compaction detail
    /// say it: the count, each call hidden, what a summary still names,
    /// what was fetched again.
    pub fn lines(&self) -> Vec<String> {
        use crate::core::fmt::{count, thousands};
        let v = |s: &str| crate::core::visible::visible_line(s).into_owned();
        let h = &self.hidden;
        let mut out = vec![format!("hid {}", self.hid())];
        for i in &h.items {
            // The fixed-width figures first, the names after: a narrow screen
            // wraps only the end of a line.
            out.push(
                format!(
                    "    turn {:<4} {:>8} tok  {:<10} {}{} {}",
                    i.turn,
                    thousands(i.tokens),
                    i.fate,
                    v(&i.tool),
                    if i.error { " (error)" } else { "" },
                    v(i.target.as_deref().unwrap_or(""))
                )
                .trim_end()
                .to_string(),
            );
        }
        if !self.fetched_again.is_empty() {
            let tokens: u64 = self.fetched_again.iter().map(|r| r.tokens).sum();
            out.push(format!(
                "fetched again after it: {} ({} tok)",
                count(self.fetched_again.len() as u64, "call"),
                thousands(tokens)
            ));
            for r in &self.fetched_again {
                out.push(
                    format!(
                        "    turn {:<4} {:>8} tok  {} {}",
                        r.turn,
                        thousands(r.tokens),
                        v(&r.tool),
                        v(r.target.as_deref().unwrap_or(""))
                    )
                    .trim_end()
                    .to_string(),
                );
            }
        }
        out
    }
}

/// The argument keys that say what a call was about, most telling first.
const TARGET_KEYS: [&str; 9] = [
    "path", "paths", "file", "command", "cmd", "pattern", "query", "url", "prefixes",
];

/// What a tool call's `arguments` were about.
fn target_of(arguments: &Value) -> Option<String> {
    let o = arguments.as_object()?;
    TARGET_KEYS.iter().find_map(|k| match o.get(*k)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Array(a) if !a.is_empty() => Some(
            a.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    })
}

/// What a tool call is about and its identity for "fetched again" (its
/// tool and its arguments), from one decoding of request `i`.
fn call_of(conv: &Conversation, i: usize) -> Option<(Option<String>, (String, String))> {
    let Kind::ToolCallRequest { name, .. } = &conv.events[i].kind else {
        return None;
    };
    let plain = conv.plain(i);
    let arguments = plain.get("arguments").unwrap_or(&Value::Null);
    Some((
        target_of(arguments),
        (name.to_string(), arguments.to_string()),
    ))
}

/// The ledger of every compaction in force in `p` (previews included).
pub fn of(conv: &Conversation, p: &Projection) -> Vec<LedgerEntry> {
    let mut entries: Vec<LedgerEntry> = p
        .overlays
        .iter()
        .map(|o| LedgerEntry {
            position: o.position,
            hidden: Hidden::default(),
            fetched_again: Vec::new(),
        })
        .collect();
    // Calls hidden, by their request, per overlay.
    let mut items: HashMap<(usize, usize), HiddenItem> = HashMap::new();
    let mut hidden_calls: Vec<(usize, (String, String), usize)> = Vec::new();
    for (i, e) in conv.events.iter().enumerate() {
        let f = p.fates.get(i).copied().unwrap_or_default();
        let Some(by) =
            f.by.filter(|_| !matches!(f.fate, Fate::Kept | Fate::Overlay))
        else {
            continue;
        };
        let Some(entry) = entries.get_mut(by) else {
            continue;
        };
        let left = p
            .position_of_raw
            .get(i)
            .copied()
            .flatten()
            .map_or(0, |k| p.chars(&conv.events, &p.events[k]));
        let tokens = estimate::tokens(e.chars.saturating_sub(left));
        entry.hidden.tokens += tokens;
        match &e.kind {
            Kind::ToolCallRequest { name, .. } => {
                entry.hidden.tool_calls += 1;
                let (target, key) = call_of(conv, i).unwrap_or_default();
                hidden_calls.push((by, key, i));
                let item = items.entry((by, i)).or_insert_with(|| HiddenItem {
                    turn: e.turn + 1,
                    tool: name.to_string(),
                    target: None,
                    tokens: 0,
                    error: false,
                    fate: f.fate.as_str(),
                });
                item.target = target;
                item.tokens += tokens;
            }
            Kind::ToolCallResponse { is_error, .. } => {
                entry.hidden.tool_results += 1;
                if *is_error {
                    entry.hidden.errors += 1;
                }
                let request = p.request_of(&conv.events, i);
                // A result stripped alone still says what its call was
                // about (its request decoded only then).
                let item = items
                    .entry((by, request.unwrap_or(i)))
                    .or_insert_with(|| HiddenItem {
                        turn: e.turn + 1,
                        tool: p.tool_name(&conv.events, i).to_string(),
                        target: request.and_then(|r| call_of(conv, r)).and_then(|c| c.0),
                        tokens: 0,
                        error: false,
                        fate: f.fate.as_str(),
                    });
                item.tokens += tokens;
                item.error |= *is_error;
            }
            Kind::ChatResponse(ResponseKind::Reasoning) => entry.hidden.reasoning += 1,
            Kind::ChatRequest | Kind::ChatResponse(_) => entry.hidden.messages += 1,
            _ => {}
        }
    }
    let mut items: Vec<((usize, usize), HiddenItem)> = items.into_iter().collect();
    items.sort_by_key(|((by, i), _)| (*by, *i));
    for ((by, _), item) in items {
        entries[by].hidden.items.push(item);
    }
    refetched(conv, p, &mut entries, &hidden_calls);
    entries
}

/// The calls after each compaction was appended that repeat one it hid.
fn refetched(
    conv: &Conversation,
    p: &Projection,
    entries: &mut [LedgerEntry],
    hidden: &[(usize, (String, String), usize)],
) {
    let appended: HashMap<usize, usize> =
        conv.compactions().map(|c| (c.position, c.event)).collect();
    let mut responses: HashMap<&str, usize> = HashMap::new();
    for (i, e) in conv.events.iter().enumerate() {
        if let Kind::ToolCallResponse { id, .. } = &e.kind {
            responses.insert(id, i);
        }
    }
    for (by, entry) in entries.iter_mut().enumerate() {
        let Some(&after) = appended.get(&p.overlays[by].position) else {
            continue;
        };
        let keys: Vec<&(String, String)> = hidden
            .iter()
            .filter(|(b, _, _)| *b == by)
            .map(|(_, k, _)| k)
            .collect();
        if keys.is_empty() {
            continue;
        }
        for i in after + 1..conv.events.len() {
            // Only a call to a tool it hid can repeat one.
            let Kind::ToolCallRequest { id, name } = &conv.events[i].kind else {
                continue;
            };
            if !keys.iter().any(|k| *k.0 == **name) {
                continue;
            }
            let Some((target, key)) = call_of(conv, i) else {
                continue;
            };
            if !keys.contains(&&key) {
                continue;
            }
            // The same call with another answer (a test run again after a
            // fix) brought something new: no re-fetch of what was hidden.
            let answer = |request: usize| match &conv.events[request].kind {
                Kind::ToolCallRequest { id, .. } => responses.get(&**id).map(|&r| conv.text(r)),
                _ => None,
            };
            let now = answer(i);
            let same_answer = hidden
                .iter()
                .filter(|(b, k, _)| *b == by && *k == key)
                .any(|(_, _, earlier)| answer(*earlier) == now);
            if !same_answer {
                continue;
            }
            let tokens = responses
                .get(&**id)
                .map_or(0, |&r| estimate::tokens(conv.events[r].chars));
            entry.fetched_again.push(Refetch {
                turn: conv.events[i].turn + 1,
                tool: key.0.clone(),
                target,
                tokens,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_target_is_what_the_arguments_point_at() {
        assert_eq!(
            target_of(&json!({"path": "src/a.rs"})).as_deref(),
            Some("src/a.rs")
        );
        assert_eq!(
            target_of(&json!({"prefixes": ["src", "tests"]})).as_deref(),
            Some("src tests")
        );
        assert_eq!(target_of(&json!({"package": "csvq"})), None);
    }

    /// A call made again after a compaction hid it is a re-fetch when its
    /// answer is the one hidden, not when the answer is new (a test run
    /// again after a fix).
    #[test]
    fn the_same_answer_again_is_a_refetch_a_new_one_is_not() {
        use crate::core::compact::projection;
        use crate::core::store::load;
        let call = |id: &str, tool: &str, turn_text: &str| {
            vec![
                json!({"type": "turn_start", "timestamp": "2026-01-01 00:00:00.0"}),
                json!({"type": "chat_request", "timestamp": "2026-01-01 00:00:01.0", "content": turn_text}),
                json!({"type": "tool_call_request", "timestamp": "2026-01-01 00:00:02.0", "id": id,
                       "name": tool, "arguments": {"path": "src/lib.rs"}}),
            ]
        };
        let answer = |id: &str, text: &str| {
            json!({"type": "tool_call_response", "timestamp": "2026-01-01 00:00:03.0", "id": id,
                   "content": text, "is_error": false})
        };
        let done =
            json!({"type": "chat_response", "timestamp": "2026-01-01 00:00:04.0", "message": "ok"});
        let run = |later: &str| {
            let mut events = Vec::new();
            events.extend(call("a", "cargo_test", "one"));
            events.push(answer("a", "test result: FAILED. 1 failed"));
            events.push(done.clone());
            events.push(
                json!({"type": "compaction", "timestamp": "2026-01-01 00:00:05.0",
                "from_turn": 0, "to_turn": 0,
                "tool_calls": {"policy": "strip", "request": true, "response": true}}),
            );
            events.extend(call("b", "cargo_test", "two"));
            events.push(answer("b", later));
            events.push(done.clone());
            let conv = load::of_events(serde_json::to_vec(&events).unwrap());
            let p = projection::of(&conv);
            of(&conv, &p).remove(0).fetched_again.len()
        };
        assert_eq!(run("test result: FAILED. 1 failed"), 1);
        assert_eq!(run("test result: ok. 1 passed"), 0);
    }
}
