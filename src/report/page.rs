//! The report's content, once, as plain text in blocks: the HTML and the
//! Markdown writers lay out the same blocks, so the two formats can't say
//! different things. Every text of the conversation goes through the
//! [`Cleaner`] here; the writers escape.

use super::clean::Cleaner;
use crate::core::fmt::{count, thousands};
use crate::core::model::conversation::Conversation;
use crate::core::ops::review::Review;
use crate::core::ops::stats::WindowOrigin;
use crate::core::ops::stats_compactions::CompactionEntry;

/// One block of the page.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A heading of `level` (2 or 3), with an anchor.
    Heading(u8, String, String),
    Para(String),
    /// Labelled figures: a definition list.
    Facts(Vec<(String, String)>),
    /// A table; `numeric[k]` right-aligns column `k`.
    Table {
        head: Vec<String>,
        numeric: Vec<bool>,
        rows: Vec<Vec<String>>,
    },
    /// A list; an item marked `true` is emphasised (a grave loss).
    List(Vec<(bool, String)>),
    /// Text kept as written (a summary).
    Pre(String),
    /// A chart: its file name beside a Markdown report, its SVG, its
    /// description.
    Chart {
        name: String,
        svg: String,
        alt: String,
    },
    /// Small print.
    Note(String),
}

/// The whole report.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub title: String,
    pub subtitle: String,
    pub blocks: Vec<Block>,
}

/// The page of `review`, the charts named after `stem`
/// (`report-context.svg`).
pub fn build(conv: &Conversation, review: &Review, clean: &Cleaner, stem: &str) -> Page {
    let title = clean.line(conv.title.as_deref().unwrap_or("(untitled)"));
    let mut blocks = vec![Block::Facts(header(conv, review, clean))];
    blocks.extend(overview(review));
    blocks.extend(curve(conv, review, (&title, clean), stem));
    blocks.extend(super::page_compactions::blocks(review, clean));
    blocks.extend(totals(review));
    blocks.extend(super::page_compactions::tools(review, clean));
    if let Some(c) = &review.comparison {
        blocks.extend(super::page_compactions::comparison(c));
    }
    // Every text once more through the cleaner, whichever field it came
    // from (a compaction's tool names, a folder's name, a model id): what
    // was cleaned already is left as it was, and anything a builder above
    // forgot still reaches the page visible and redacted, and counted in
    // the note below.
    for b in &mut blocks {
        clean_block(b, clean);
    }
    blocks.push(Block::Heading(
        2,
        "About this report".into(),
        "about".into(),
    ));
    blocks.push(Block::Note(about(clean)));
    Page {
        subtitle: format!(
            "{}: what its compactions did",
            clean.line(&conv.display_id())
        ),
        title,
        blocks,
    }
}

/// `b`'s texts through `clean` (a chart's SVG is written by its own
/// escaping writer from cleaned texts).
fn clean_block(b: &mut Block, clean: &Cleaner) {
    let line = |s: &mut String| *s = clean.line(s);
    match b {
        Block::Heading(_, text, anchor) => {
            line(text);
            line(anchor);
        }
        Block::Para(text) | Block::Note(text) | Block::Pre(text) => *text = clean.block(text),
        Block::Facts(rows) => rows.iter_mut().for_each(|(k, v)| {
            line(k);
            line(v);
        }),
        Block::Table { head, rows, .. } => {
            head.iter_mut().for_each(line);
            rows.iter_mut().flatten().for_each(line);
        }
        Block::List(items) => items.iter_mut().for_each(|(_, t)| line(t)),
        Block::Chart { name, alt, .. } => {
            line(name);
            line(alt);
        }
    }
}

fn header(conv: &Conversation, review: &Review, clean: &Cleaner) -> Vec<(String, String)> {
    let s = &review.stats;
    let model = match (&s.model, &s.model_resolved) {
        (Some(m), Some(real)) => format!("{} (the alias of {})", clean.line(m), clean.line(real)),
        (Some(m), None) => clean.line(m),
        (None, _) => "unknown".into(),
    };
    let window = match &s.window {
        None => "unknown: no ratio, thresholds or overflows".to_string(),
        Some(w) => format!(
            "{} − {} reserved = usable {}, {}",
            thousands(w.tokens),
            thousands(w.reserve),
            w.usable.map(thousands).unwrap_or_else(|| "-".into()),
            match &w.source {
                WindowOrigin::Override => "as asked (--window)".to_string(),
                WindowOrigin::Provider {
                    model,
                    provider,
                    fetched_at,
                } => format!(
                    "{} as {}'s models endpoint listed it, {}",
                    clean.line(model),
                    clean.line(provider),
                    clean.line(fetched_at)
                ),
                WindowOrigin::Table { model } =>
                    format!("the table's figure for {}", clean.line(model)),
            }
        ),
    };
    let c = &review.config;
    let policy = match c.mode {
        crate::core::ops::Mode::Staged => format!(
            "staged: elide tool output at {:.0} %, summarise at {:.0} %",
            c.soft_ratio * 100.0,
            c.hard_ratio * 100.0
        ),
        crate::core::ops::Mode::Single => {
            format!("single (D50): trigger at {:.0} %", c.trigger_ratio * 100.0)
        }
    } + if c.enabled {
        ", automatic compaction on"
    } else {
        ", automatic compaction off"
    };
    let first = review.history.first().and_then(|p| p.timestamp);
    let last = review.history.last().and_then(|p| p.timestamp);
    let when = match (first, last) {
        (Some(a), Some(b)) => format!(
            "{} to {}",
            a.format("%Y-%m-%d %H:%M UTC"),
            b.format("%Y-%m-%d %H:%M UTC")
        ),
        _ => "no timed request".into(),
    };
    vec![
        ("Conversation".into(), conv.display_id()),
        (
            "Turns".into(),
            format!(
                "{}, {}",
                thousands(conv.turn_count as u64),
                count(review.history.len() as u64, "request")
            ),
        ),
        ("Model".into(), model),
        ("Window".into(), window),
        ("Policy in force".into(), policy),
        ("Session".into(), when),
        ("Billed".into(), clean.line(&s.billing)),
    ]
}

/// The page's first lines: the figures a reader came for.
fn overview(review: &Review) -> Vec<Block> {
    let cost = &review.cost;
    let bare = &review.uncompacted;
    let compactions = review.stats.compactions.len();
    let overflows = review
        .history
        .iter()
        .filter(|p| p.usable.is_some_and(|u| p.context > u))
        .count();
    let peak = |p: Option<f64>| p.map_or_else(|| "-".into(), |r| format!("{:.1} %", r * 100.0));
    let kept = review.session_knows.total();
    vec![Block::Table {
        head: vec![
            "".into(),
            "as it ran".into(),
            "without any compaction".into(),
        ],
        numeric: vec![false, true, true],
        rows: vec![
            vec![
                "compactions".into(),
                thousands(compactions as u64),
                "0".into(),
            ],
            vec!["billed".into(), bill(cost), bare_bill(cost, bare)],
            vec![
                "peak context".into(),
                peak(crate::core::ops::review::peak(&review.history)),
                peak(review.uncompacted_peak),
            ],
            vec![
                "requests over the window".into(),
                thousands(overflows as u64),
                thousands(bare.tokens.refused as u64),
            ],
            vec![
                "facts the model still knows".into(),
                format!("{} of {}", kept.kept, kept.total),
                format!("{} of {}", kept.total, kept.total),
            ],
        ],
    }]
}

/// The bill without any compaction beside the one as it ran: a run with
/// requests the API would have refused never happened as simulated, so
/// its smaller figure is no saving; it is said not to compare, and why.
pub fn bare_bill(
    cost: &crate::core::ops::cost::SessionCost,
    bare: &crate::core::ops::cost::SessionCost,
) -> String {
    match (cost.tokens.refused, bare.tokens.refused) {
        (0, 0) => bill(bare),
        (_, 0) => format!(
            "not comparable: {} as it ran went over the window",
            count(cost.tokens.refused as u64, "request")
        ),
        (_, n) => format!(
            "not comparable: {} would have been refused",
            count(n as u64, "request")
        ),
    }
}

/// `$12.16`, with the requests the API would have refused said.
pub fn bill(cost: &crate::core::ops::cost::SessionCost) -> String {
    let total = cost.unit.format(cost.total);
    match cost.tokens.refused {
        0 => total,
        n => format!("{total} ({n} refused: not billed)"),
    }
}

fn curve(
    conv: &Conversation,
    review: &Review,
    (title, clean): (&str, &Cleaner),
    stem: &str,
) -> Vec<Block> {
    let mut out = vec![Block::Heading(
        2,
        "Context over the session".into(),
        "context".into(),
    )];
    let model = review.stats.model.as_deref().unwrap_or("model unknown");
    let heading = crate::chart::Heading {
        title: title.to_string(),
        model: clean.line(model),
        id: clean.line(&conv.display_id()),
    };
    match crate::chart::context::chart(
        conv,
        &heading,
        &review.config,
        &review.budget,
        &review.history,
    ) {
        Ok(doc) => out.push(Block::Chart {
            name: format!("{stem}-context.svg"),
            svg: doc.to_string(),
            alt: format!(
                "context per request, % of the usable window, {} requests, each compaction marked where it was appended",
                review.history.len()
            ),
        }),
        Err(why) => out.push(Block::Para(format!("No curve: {why}"))),
    }
    out
}

fn totals(review: &Review) -> Vec<Block> {
    let cost = &review.cost;
    let t = &cost.tokens;
    let u = cost.unit;
    let mut rows = vec![
        vec![
            "requests, as billed".into(),
            u.format(cost.total - cost.summaries),
        ],
        vec!["the summaries' calls".into(), u.format(cost.summaries)],
        vec!["in all".into(), bill(cost)],
        vec![
            "in all, without the prompt cache".into(),
            u.format(cost.without_cache),
        ],
        vec![
            "without any compaction".into(),
            bare_bill(cost, &review.uncompacted),
        ],
        vec![
            "tokens read from the cache / written / uncached / output".into(),
            format!(
                "{} / {} / {} / {}",
                thousands(t.read),
                thousands(t.written),
                thousands(t.uncached),
                thousands(t.output)
            ),
        ],
    ];
    let bare = &review.uncompacted;
    let saved = bare.total - cost.total;
    rows.push(vec![
        "compaction saved".into(),
        if bare.tokens.refused > 0 {
            // The bill without compaction stops at the window: what it
            // would have cost to go on isn't known, so nothing compares.
            format!(
                "not comparable: without it {} would have been refused",
                count(bare.tokens.refused as u64, "request")
            )
        } else if saved >= 0.0 {
            u.format(saved)
        } else {
            format!("−{} (it cost more)", u.format(-saved))
        },
    ]);
    vec![
        Block::Heading(2, "The session's totals".into(), "totals".into()),
        Block::Table {
            head: vec!["".into(), "billed".into()],
            numeric: vec![false, true],
            rows,
        },
        Block::Para(format!(
            "What the model still knows: {}.",
            review.session_knows.describe()
        )),
    ]
}

fn about(clean: &Cleaner) -> String {
    let redacted = clean.redacted();
    let n: usize = redacted.values().sum();
    let secrets = if !clean.redacting() {
        "Secrets were not looked for (--no-redact): every text is as the conversation holds it."
            .to_string()
    } else if n == 0 {
        "No likely secret was found in the conversation's texts shown here.".to_string()
    } else {
        format!(
            "{} replaced by [redacted: KIND] ({}).",
            count(n as u64, "likely secret"),
            redacted
                .iter()
                .map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let home = match clean.shortened() {
        0 => String::new(),
        n => format!(
            " The user's home folder is shown as ~ ({}).",
            count(n as u64, "place")
        ),
    };
    format!(
        "Written by jp-inspect {} from the conversation's files: the figures are those of \
         `jp-inspect history`, `stats`, `lost`, `tools` and `simulate`. Token figures are D50's \
         estimate (characters / 4). {secrets}{home}",
        env!("CARGO_PKG_VERSION")
    )
}

/// "#2 auto turns 6..8": a compaction's heading.
pub fn entry_title(c: &CompactionEntry) -> String {
    match &c.facts {
        Ok(f) => format!(
            "#{} {} · turns {} · {}",
            c.position + 1,
            f.source.as_str(),
            f.range.human(),
            f.policies
        ),
        Err(_) => format!("#{} (invalid)", c.position + 1),
    }
}
