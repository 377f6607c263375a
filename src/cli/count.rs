//! `count`: the request jp would send, counted by its provider (or
//! offline) beside D50's estimate.

use super::Context;
use super::args::CountArgs;
use super::output::{conversation_json, print_json, print_lines, print_warnings};
use crate::core::fmt::thousands;
use crate::core::ops::count::{self, Count, CountRequest};

/// What `count --json` prints: the provider's count beside the estimate.
#[derive(serde::Serialize)]
struct MeasuredJson<'a, P, C, E> {
    conversation: serde_json::Value,
    provider: P,
    model: &'a str,
    measured: &'a C,
    estimated: &'a E,
    ratio: f64,
    kept_in: String,
}

/// What `count --offline --json` prints: each part, o200k beside the
/// estimate.
#[derive(serde::Serialize)]
struct OfflineJson {
    conversation: serde_json::Value,
    tokenizer: &'static str,
    parts: Vec<PartJson>,
}

#[derive(serde::Serialize)]
struct PartJson {
    part: &'static str,
    chars: u64,
    estimated: u64,
    tokens: u64,
    ratio: f64,
}

pub fn run(ctx: &Context, args: CountArgs) -> anyhow::Result<()> {
    let conv = ctx.load(args.conv.as_deref())?;
    print_warnings(&conv);
    let counted = count::count(
        &conv,
        CountRequest {
            turn: at_turn(&conv, args.at)?,
            offline: args.offline,
            timeout: args.timeout,
        },
    )?;
    let at = match args.at {
        Some(t) => format!("the request of turn {t}"),
        None => "the next request".to_string(),
    };
    let (m, kept) = match counted {
        Count::Measured {
            measurement,
            kept_in,
        } => (measurement, kept_in),
        Count::Offline {
            rows,
            unknown_tools: unknown,
        } => return offline(&conv, &at, &rows, &unknown, args.json),
    };
    if args.json {
        return print_json(&MeasuredJson {
            conversation: conversation_json(&conv),
            ratio: m.ratio(),
            provider: m.provider,
            model: &m.model,
            measured: &m.measured,
            estimated: &m.estimated,
            kept_in: kept.display().to_string(),
        });
    }
    let row = |part: &str, measured: u64, estimated: u64| {
        format!(
            "{part:<14} {:>10} {:>10} {:>6.2}×",
            thousands(measured),
            thousands(estimated),
            measured as f64 / estimated.max(1) as f64
        )
    };
    print_lines(vec![
        format!(
            "{}: {at}, counted by {}'s token-counting endpoint for {}",
            conv.display_id(),
            m.provider,
            m.model
        ),
        format!(
            "{:<14} {:>10} {:>10} {:>7}",
            "", "measured", "estimate", "ratio"
        ),
        row(
            "system prompt",
            m.measured.system_prompt,
            m.estimated.system_prompt,
        ),
        row("tools", m.measured.tools, m.estimated.tools),
        row("events", m.measured.events, m.estimated.events),
        row("total", m.measured.total, m.estimated.total),
        format!(
            "measured {:.2}× the estimate; kept in {} (stats shows it; `estimate = \"measured\"` lets the trigger use it)",
            m.ratio(),
            kept.display()
        ),
    ])
}

/// `count --offline`: the request's content by kind, o200k tokens beside
/// the estimate.
fn offline(
    conv: &crate::core::model::conversation::Conversation,
    at: &str,
    rows: &[count::OfflineRow],
    unknown: &[String],
    json: bool,
) -> anyhow::Result<()> {
    if json {
        return print_json(&OfflineJson {
            conversation: conversation_json(conv),
            tokenizer: "o200k_base",
            parts: rows
                .iter()
                .map(|r| PartJson {
                    part: r.part,
                    chars: r.chars,
                    estimated: r.estimated,
                    tokens: r.tokens,
                    ratio: r.ratio(),
                })
                .collect(),
        });
    }
    let mut lines = vec![format!(
        "{}: {at}, counted offline with OpenAI's o200k_base tokenizer (exact for OpenAI's current models' text; an indication for others)",
        conv.display_id()
    )];
    lines.push(format!(
        "{:<14} {:>10} {:>12} {:>10} {:>7}",
        "", "chars", "chars / 4", "o200k", "ratio"
    ));
    for r in rows {
        lines.push(format!(
            "{:<14} {:>10} {:>12} {:>10} {:>6.2}×",
            r.part,
            thousands(r.chars),
            thousands(r.estimated),
            thousands(r.tokens),
            r.ratio()
        ));
    }
    let (est, tok) = rows
        .iter()
        .fold((0, 0), |(e, t), r| (e + r.estimated, t + r.tokens));
    lines.push(format!(
        "{:<14} {:>10} {:>12} {:>10} {:>6.2}×",
        "total",
        "",
        thousands(est),
        thousands(tok),
        tok as f64 / est.max(1) as f64
    ));
    if !unknown.is_empty() {
        lines.push(format!(
            "tools: {} unknown, counted by name and description only, as stats counts them",
            crate::core::fmt::count(unknown.len() as u64, "MCP schema")
        ));
    }
    print_lines(lines)
}

/// `--at TURN` (1-based) as a 0-based turn of `conv`, or a usage error.
pub(super) fn at_turn(
    conv: &crate::core::model::conversation::Conversation,
    at: Option<usize>,
) -> anyhow::Result<Option<usize>> {
    match at {
        Some(0) => Err(super::UsageError("--at counts turns from 1".into()).into()),
        Some(t) if t > conv.turn_count => Err(super::UsageError(format!(
            "--at {t}: the conversation has {}",
            crate::core::fmt::count(conv.turn_count as u64, "turn")
        ))
        .into()),
        t => Ok(t.map(|t| t - 1)),
    }
}
