//! The report's sections of detail: each compaction (what it hid, saved,
//! cost and lost, and its summary), the tools that fill the context, and
//! the policies compared on this session.

use super::clean::Cleaner;
use super::page::{Block, entry_title};
use crate::core::fmt::human_tokens;
use crate::core::fmt::{count, thousands};
use crate::core::ops::Judged;
use crate::core::ops::review::{Comparison, Review};
use crate::core::ops::stats_compactions::CompactionEntry;
use std::collections::BTreeMap;

pub fn blocks(review: &Review, clean: &Cleaner) -> Vec<Block> {
    let mut out = vec![Block::Heading(
        2,
        "Compactions".into(),
        "compactions".into(),
    )];
    if review.stats.compactions.is_empty() {
        out.push(Block::Para(
            "No compaction: the model was sent every event.".into(),
        ));
        return out;
    }
    for c in &review.stats.compactions {
        out.extend(one(c, review, clean));
    }
    out
}

fn one(c: &CompactionEntry, review: &Review, clean: &Cleaner) -> Vec<Block> {
    let anchor = format!("compaction-{}", c.position + 1);
    let mut out = vec![Block::Heading(3, entry_title(c), anchor)];
    let f = match &c.facts {
        Ok(f) => f,
        Err(why) => {
            out.push(Block::Para(format!(
                "Left out of the projection: {}",
                clean.line(why)
            )));
            return out;
        }
    };
    let mut facts = vec![
        (
            "Appended".to_string(),
            crate::core::model::timestamp::format(&f.timestamp),
        ),
        (
            "Saves".into(),
            format!(
                "{} tokens a request",
                crate::core::fmt::signed_thousands(f.saved)
            ),
        ),
    ];
    if let Some((_, text)) = &c.payback {
        facts.push(("With the prompt cache".into(), text.clone()));
    }
    if let Some(d) = &f.jp_differs {
        facts.push(("Today's jp".into(), d.clone()));
    }
    if let Some(w) = f.warning {
        facts.push(("Warning".into(), w.to_string()));
    }
    if let Some(l) = &c.ledger {
        facts.push(("Hid".into(), l.hid()));
        if !l.fetched_again.is_empty() {
            facts.push((
                "Fetched again after it".into(),
                format!(
                    "{}, {} tokens",
                    count(l.fetched_again.len() as u64, "call"),
                    thousands(l.fetched_again.iter().map(|r| r.tokens).sum())
                ),
            ));
        }
    }
    out.push(Block::Facts(facts));
    if let Some(l) = &c.ledger {
        out.extend(hidden_by_tool(&l.hidden.items, clean));
    }
    if let (Some(k), Some(survival)) = (&c.knows, &c.survival) {
        out.extend(lost(k, survival, clean));
        if c.left_out > 0 {
            out.push(Block::Note(format!(
                "{} more facts of its range are left out to keep this page bounded; \
                 `jp-inspect lost {} --compaction {} --json` lists them whole.",
                c.left_out,
                clean.line(&review.stats.conversation.id),
                c.position + 1
            )));
        }
    }
    if let Some(s) = review.summaries.iter().find(|s| s.position == c.position) {
        out.push(Block::Para(format!("Its summary ({}):", clean.line(&s.by))));
        out.push(Block::Pre(clean.block(&s.text)));
    }
    out
}

/// What it hid, a row per tool and fate, the heaviest first.
fn hidden_by_tool(items: &[crate::core::ops::HiddenItem], clean: &Cleaner) -> Vec<Block> {
    if items.is_empty() {
        return Vec::new();
    }
    let mut by: BTreeMap<(String, &str), (usize, usize, u64)> = BTreeMap::new();
    for i in items {
        let e = by.entry((i.tool.clone(), i.fate)).or_default();
        e.0 += 1;
        e.1 += usize::from(i.error);
        e.2 += i.tokens;
    }
    let mut rows: Vec<_> = by.into_iter().collect();
    rows.sort_by(|a, b| b.1.2.cmp(&a.1.2).then_with(|| a.0.cmp(&b.0)));
    vec![Block::Table {
        head: vec![
            "tool".into(),
            "what became of it".into(),
            "calls".into(),
            "errors".into(),
            "tokens".into(),
        ],
        numeric: vec![false, false, true, true, true],
        rows: rows
            .into_iter()
            .map(|((tool, fate), (calls, errors, tok))| {
                vec![
                    clean.line(&tool),
                    fate.to_string(),
                    thousands(calls as u64),
                    thousands(errors as u64),
                    thousands(tok),
                ]
            })
            .collect(),
    }]
}

/// What the model no longer knows of its range: the count by kind, then
/// each lost fact, the grave ones (instructions, errors nothing fixed)
/// first.
fn lost(judged: &[Judged], survival: &crate::core::ops::Survival, clean: &Cleaner) -> Vec<Block> {
    let mut out = vec![Block::Para(format!(
        "What the model still knows of its range: {}.",
        survival.describe()
    ))];
    let mut gone: Vec<&Judged> = judged.iter().filter(|j| !j.kept).collect();
    if gone.is_empty() {
        return out;
    }
    gone.sort_by_key(|j| (!j.is_grave(), j.fact.kind, j.fact.turn));
    out.push(Block::List(
        gone.iter()
            .map(|j| {
                let named = if j.at == Some(crate::core::ops::Where::Named) {
                    " (named, contents gone)"
                } else {
                    ""
                };
                (
                    j.is_grave(),
                    format!(
                        "{} · turn {} · {}{named}",
                        j.fact.kind.as_str(),
                        j.fact.turn,
                        clean.line(&j.fact.shown())
                    ),
                )
            })
            .collect(),
    ));
    out
}

/// The tools that fill the context, the heaviest first (at most twelve).
pub fn tools(review: &Review, clean: &Cleaner) -> Vec<Block> {
    let t = &review.tools;
    let mut out = vec![Block::Heading(
        2,
        "The tools that fill the context".into(),
        "tools".into(),
    )];
    if t.tools.is_empty() {
        out.push(Block::Para("No tool was called.".into()));
        return out;
    }
    const SHOWN: usize = 12;
    out.push(Block::Table {
        head: vec![
            "tool".into(),
            "calls".into(),
            "errors".into(),
            "request tok".into(),
            "response tok".into(),
            "of the session".into(),
            "hint".into(),
        ],
        numeric: vec![false, true, true, true, true, true, false],
        rows: t
            .tools
            .iter()
            .take(SHOWN)
            .map(|r| {
                vec![
                    clean.line(&r.name),
                    thousands(r.calls as u64),
                    thousands(r.errors as u64),
                    thousands(r.request_tokens),
                    thousands(r.response_tokens),
                    format!("{:.1} %", r.share_session * 100.0),
                    r.hint.clone().unwrap_or_default(),
                ]
            })
            .collect(),
    });
    if t.tools.len() > SHOWN {
        out.push(Block::Note(format!(
            "{} more tools; `jp-inspect tools` lists them all.",
            t.tools.len() - SHOWN
        )));
    }
    out
}

/// `simulate`'s table for this session.
pub fn comparison(c: &Comparison) -> Vec<Block> {
    vec![
        Block::Heading(
            2,
            "The policies compared on this session".into(),
            "simulation".into(),
        ),
        Block::Para(format!(
            "Each policy replayed from turn 1 at each window, the conversation's own compactions \
             ignored, summaries by the {} summarizer: what `jp-inspect simulate` reports.",
            c.summarizer
        )),
        Block::Table {
            head: vec![
                "policy".into(),
                "window / usable".into(),
                "peak".into(),
                "over".into(),
                "requests".into(),
                "elisions".into(),
                "summaries".into(),
                "billed".into(),
                "facts kept".into(),
            ],
            numeric: vec![false, true, true, true, true, true, true, true, true],
            rows: c
                .runs
                .iter()
                .zip(&c.known)
                .map(|(r, k)| {
                    let known = k.total();
                    vec![
                        r.policy.as_str().to_string(),
                        format!("{} / {}", human_tokens(r.window), human_tokens(r.usable)),
                        format!("{:.0} %", r.peak_ratio * 100.0),
                        thousands(r.overflows as u64),
                        thousands(r.requests as u64),
                        thousands(r.elisions as u64),
                        thousands(r.summaries as u64),
                        match &r.billed {
                            Some(b) if b.refused > 0 => {
                                format!("— ({} refused: not billed)", b.refused)
                            }
                            Some(b) => b.unit.format(b.total),
                            None => "-".into(),
                        },
                        if known.total == 0 {
                            "-".into()
                        } else {
                            format!("{} of {}", known.kept, known.total)
                        },
                    ]
                })
                .collect(),
        },
    ]
}
