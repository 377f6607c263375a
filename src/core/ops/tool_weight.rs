//! What each tool's calls weigh in a conversation (tokens now and over
//! the session, calls repeated, results named or quoted later) and the
//! hint its shape suggests: the measuring half of `tools`, apart from the
//! replay that prices each hint.

use crate::core::compact::estimate;
use crate::core::compact::fate::Projected;
use crate::core::compact::pairing::Pairing;
use crate::core::compact::projection;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use std::collections::{BTreeMap, HashMap};

/// What a tool's calls weigh in one conversation, before any hint.
#[derive(Debug, Default, Clone)]
pub(super) struct Weight {
    pub(super) calls: usize,
    pub(super) errors: usize,
    pub(super) refetched: usize,
    pub(super) request_chars: u64,
    pub(super) response_chars: u64,
    pub(super) now_chars: u64,
    pub(super) session_chars: u128,
    /// A later message names what it returned (a path, an identifier).
    pub(super) referred: usize,
    /// Results whose figures an answer soon after restates (`11.4 s` of
    /// `real 0m11.402s`): what the conversation went on to rely on.
    pub(super) quoted: usize,
}

/// How many answers after a result are read for its figures: what a
/// result is relied on for is said soon after it.
const QUOTED_WITHIN: usize = 3;

/// The numbers written in `text`, as written (`11.402`, `4182233`): at
/// most a few dozen, the first found.
fn numbers(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() && out.len() < 60 {
        if !bytes[at].is_ascii_digit() {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && bytes[at].is_ascii_digit() {
            at += 1;
        }
        if at + 1 < bytes.len() && bytes[at] == b'.' && bytes[at + 1].is_ascii_digit() {
            at += 1;
            while at < bytes.len() && bytes[at].is_ascii_digit() {
                at += 1;
            }
        }
        out.push(&text[start..at]);
    }
    out
}

/// Whether `said` (a number an answer writes) restates one of `figures`
/// (a result's), rounded as it is written: `11.4` tells `11.402`. Only a
/// number that could not be chance counts: one with decimals, or of three
/// digits or more.
fn restates(said: &str, figures: &[f64]) -> bool {
    let decimals = said.split_once('.').map_or(0, |(_, d)| d.len());
    if decimals == 0 && said.len() < 3 {
        return false;
    }
    let Ok(value) = said.parse::<f64>() else {
        return false;
    };
    let scale = 10f64.powi(decimals as i32);
    figures
        .iter()
        .any(|f| ((f * scale).round() - value * scale).abs() < 0.5)
}

/// Names of state a session keeps coming back to: a plan, a memory.
const STATEFUL: [&str; 5] = ["plan", "todo", "memory", "note", "task"];

pub(super) fn weigh(conv: &Conversation) -> (BTreeMap<String, Weight>, u128) {
    let events = &conv.events;
    let pairing = Pairing::of(events);
    let p = projection::of(conv);
    let mut by: BTreeMap<String, Weight> = BTreeMap::new();
    // The projected characters of each raw event now.
    let mut now = vec![0u64; events.len()];
    for e in &p.events {
        if let Projected::Raw { index, .. } = e {
            now[*index] = p.chars(events, e);
        }
    }
    // Requests in stream order, for the session's share: an event is in
    // every request after it, raw until the compaction that decided it
    // was appended, then as it is sent now.
    let requests: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.kind, Kind::ChatRequest | Kind::ToolCallResponse { .. }))
        .map(|(i, _)| i + 1)
        .collect();
    let after = |i: usize| requests.len() - requests.partition_point(|&r| r <= i);
    let appended: Vec<usize> = conv.compactions().map(|c| c.event).collect();
    let overlay_at: Vec<usize> = p
        .overlays
        .iter()
        .map(|o| appended.get(o.position).copied().unwrap_or(events.len()))
        .collect();
    let mut session_total: u128 = 0;
    let mut seen: HashMap<(String, String), String> = HashMap::new();
    let mut request_key: HashMap<usize, (String, String)> = HashMap::new();
    let mut answers: Vec<(usize, String)> = Vec::new();
    let mut results: Vec<(usize, String, Vec<f64>)> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if estimate::Category::of(&e.kind).is_none() {
            continue;
        }
        let sent = match p.fates.get(i).and_then(|f| f.by) {
            Some(k) => {
                let from = overlay_at.get(k).copied().unwrap_or(events.len());
                let raw_for = after(i) - after(from.max(i));
                raw_for as u128 * e.chars as u128 + after(from.max(i)) as u128 * now[i] as u128
            }
            None => after(i) as u128 * now[i] as u128,
        };
        session_total += sent;
        let name = match &e.kind {
            Kind::ToolCallRequest { name, .. } => name.to_string(),
            Kind::ToolCallResponse { .. } => pairing.name(events, i).to_string(),
            Kind::ChatResponse(_) | Kind::ChatRequest => {
                answers.push((i, conv.text(i)));
                continue;
            }
            _ => continue,
        };
        let w = by.entry(name.clone()).or_default();
        w.now_chars += now[i];
        w.session_chars += sent;
        match &e.kind {
            Kind::ToolCallRequest { .. } => {
                w.calls += 1;
                w.request_chars += e.chars;
                let plain = conv.plain(i);
                let args = plain
                    .get("arguments")
                    .map(|a| a.to_string())
                    .unwrap_or_default();
                request_key.insert(i, (name, args));
            }
            Kind::ToolCallResponse { is_error, .. } => {
                w.response_chars += e.chars;
                w.errors += usize::from(*is_error);
                let Some(req) = pairing.partner(i, events.len()) else {
                    continue;
                };
                let Some(key) = request_key.get(&req) else {
                    continue;
                };
                let content = conv.text(i);
                // What it told that was not asked: a figure of its own.
                let asked = numbers(&key.1);
                let told: Vec<f64> = numbers(&content)
                    .into_iter()
                    .filter(|n| !asked.contains(n))
                    .filter_map(|n| n.parse().ok())
                    .collect();
                if !told.is_empty() {
                    results.push((i, name.clone(), told));
                }
                if seen.get(key).is_some_and(|c| *c == content) {
                    w.refetched += 1;
                }
                seen.insert(key.clone(), content);
            }
            _ => {}
        }
    }
    // A tool referred to again: a later message names a target of it.
    for (name, args) in seen.keys() {
        let targets: Vec<&str> = args
            .split(|c: char| c == '"' || c.is_whitespace())
            .filter(|t| t.len() >= 6 && t.contains(['/', '.', '_']))
            .collect();
        if targets.is_empty() {
            continue;
        }
        if answers
            .iter()
            .any(|(_, text)| targets.iter().any(|t| text.contains(t)))
            && let Some(w) = by.get_mut(name)
        {
            w.referred += 1;
        }
    }
    // A result quoted: an answer soon after it repeats one of its figures.
    let replies: Vec<&(usize, String)> = answers
        .iter()
        .filter(|(i, _)| matches!(events[*i].kind, Kind::ChatResponse(_)))
        .collect();
    for (i, name, told) in &results {
        let from = replies.partition_point(|(k, _)| k < i);
        let quoted = replies[from..]
            .iter()
            .take(QUOTED_WITHIN)
            .any(|(_, text)| numbers(text).into_iter().any(|n| restates(n, told)));
        if quoted && let Some(w) = by.get_mut(name) {
            w.quoted += 1;
        }
    }
    (by, session_total)
}

/// The hint a tool's shape suggests, and why, from all its calls.
pub(super) fn suggest(name: &str, w: &Weight) -> Option<(&'static str, String)> {
    if w.calls == 0 {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    if STATEFUL.iter().any(|s| lower.contains(s)) {
        return Some((
            "keep",
            format!("`{name}` keeps state the session returns to"),
        ));
    }
    let (req, res) = (
        w.request_chars / w.calls as u64,
        w.response_chars / w.calls as u64,
    );
    // What the conversation quoted from its results it went on to rely
    // on: no hint that drops them, whatever their size.
    if w.quoted > 0 {
        return None;
    }
    if w.refetched * 2 >= w.calls && w.calls >= 4 {
        return Some((
            "omit",
            format!(
                "{} of {} calls repeated one with the same answer",
                w.refetched, w.calls
            ),
        ));
    }
    if res >= 1_024 && res >= 4 * req.max(1) {
        return Some((
            "strip-responses",
            format!(
                "a short request ({} chars) brings back bulk ({} chars a call)",
                crate::core::fmt::thousands(req),
                crate::core::fmt::thousands(res)
            ),
        ));
    }
    if req >= 1_024 && req >= 4 * res.max(1) {
        return Some((
            "strip-requests",
            format!(
                "bulk sent ({} chars a call) for a short answer ({} chars)",
                crate::core::fmt::thousands(req),
                crate::core::fmt::thousands(res)
            ),
        ));
    }
    // What later messages name from most of its calls, a read rather
    // than a write (whose target is named because it was changed).
    if w.referred * 2 >= w.calls && res >= 256 && w.response_chars > w.request_chars {
        return Some((
            "keep",
            format!("later messages name what {} of its calls found", w.referred),
        ));
    }
    if req + res < 200 && w.calls >= 4 {
        return Some((
            "omit",
            format!("{} calls of under 200 chars each: noise", w.calls),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_restating_a_figure_as_rounded_quotes_it() {
        let told: Vec<f64> = numbers("count\n4182233\nreal\t0m11.402s\nmax 14.2 MB")
            .into_iter()
            .filter_map(|n| n.parse().ok())
            .collect();
        let quotes = |answer: &str| numbers(answer).into_iter().any(|n| restates(n, &told));
        assert!(quotes("On your 2 GB export: 11.4 s and 14 MB peak"));
        assert!(quotes("it counted 4182233 rows"));
        // A small integer could be anything; other figures are not it.
        assert!(!quotes("14 MB and 2 tests"));
        assert!(!quotes("it took 12.5 s"));
    }
}
