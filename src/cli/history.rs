//! `history`: the session's real context curve, request by request.

use super::Context;
use super::args::HistoryArgs;
use super::output::{conversation_json, print_json, print_lines};
use crate::core::fmt::thousands;
use crate::core::model::timestamp;
use crate::core::ops;

pub fn run(ctx: &Context, args: HistoryArgs) -> anyhow::Result<()> {
    let (conv, config) = ctx.to_read(
        args.conv.as_deref(),
        args.config.as_deref(),
        args.window.window,
    )?;
    let session = ops::session::session(
        &conv,
        &config,
        args.window.window,
        &crate::user_file::prices()?,
    );
    let (points, budget) = (&session.points, &session.budget);
    if let Some(file) = &args.svg {
        let heading = crate::chart::heading(&conv);
        crate::chart::save(
            file,
            &crate::chart::context::chart(&conv, &heading, &config, budget, points)?,
        )?;
        super::output::say_err(&format!("wrote {}", file.display()));
    }
    if args.json {
        return print_json(&json_result(&conv, &config, &session));
    }
    print_lines(text_lines(&conv, &session))
}

/// A request's context against its usable window.
fn ratio(context: u64, usable: Option<u64>) -> Option<f64> {
    usable.map(|u| context as f64 / u as f64)
}

/// What `history --json` prints.
fn json_result(
    conv: &crate::core::model::conversation::Conversation,
    config: &ops::AutoConfig,
    session: &ops::session::Session,
) -> serde_json::Value {
    let (points, cost) = (&session.points, &session.cost);
    let requests: Vec<_> = points
        .iter()
        .zip(&cost.bills)
        .map(|(p, b)| RequestJson {
            raw_index: p.raw_index,
            turn: p.turn,
            time: p.timestamp.map(|t| timestamp::format(&t)),
            context: p.context,
            usable: p.usable,
            ratio: ratio(p.context, p.usable),
            overflow: p.usable.is_some_and(|u| p.context > u),
            compactions_since: p.compactions_since.iter().map(|c| c + 1).collect(),
            cache: CacheJson {
                read: b.read,
                written: b.written,
                uncached: b.uncached,
            },
            cache_broke: b.broke,
            output: b.output,
            cost: b.cost,
            refused: b.refused,
        })
        .collect();
    serde_json::to_value(HistoryJson {
        conversation: conversation_json(conv),
        thresholds: ThresholdsJson {
            soft: config.soft_ratio,
            hard: config.hard_ratio,
            trigger: config.trigger_ratio,
        },
        requests,
        cost,
        billing: cost.billing.describe(),
        price: &cost.billing.price,
        summaries_priced_at: &cost.summary_pricing.of,
    })
    .unwrap_or_default()
}

/// What `history --json` prints: every request, what it was billed, and
/// the session's cost.
#[derive(serde::Serialize)]
struct HistoryJson<'a, C, P, B> {
    conversation: serde_json::Value,
    thresholds: ThresholdsJson,
    requests: Vec<RequestJson<B>>,
    cost: &'a C,
    billing: String,
    price: &'a P,
    summaries_priced_at: &'a str,
}

#[derive(serde::Serialize)]
struct ThresholdsJson {
    soft: f64,
    hard: f64,
    trigger: f64,
}

/// One request: its context against the window, and its bill.
#[derive(serde::Serialize)]
struct RequestJson<B> {
    raw_index: usize,
    turn: usize,
    time: Option<String>,
    context: u64,
    usable: Option<u64>,
    ratio: Option<f64>,
    overflow: bool,
    compactions_since: Vec<usize>,
    cache: CacheJson,
    cache_broke: Option<B>,
    output: u64,
    cost: f64,
    refused: bool,
}

#[derive(serde::Serialize)]
struct CacheJson {
    read: u64,
    written: u64,
    uncached: u64,
}

/// The table of requests, what the ratio is of, the session's cost and the
/// legend.
fn text_lines(
    conv: &crate::core::model::conversation::Conversation,
    session: &ops::session::Session,
) -> Vec<String> {
    let (points, cost, budget) = (&session.points, &session.cost, &session.budget);
    let mut lines = vec![
        format!(
            "{}  {}  ({} requests)",
            conv.display_id(),
            crate::core::visible::visible_line(conv.title.as_deref().unwrap_or("(untitled)")),
            points.len()
        ),
        format!(
            "{:>4} {:>5} {:>6} {:>8}  {:>10} {:>7} {:>10} {:>10} {:>10}  compactions appended since the request before",
            "#", "turn", "event", "time", "context", "ratio", "cached", "new", "cost"
        ),
    ];
    // What the ratio is of, with a reserve capped at half the window said.
    if let Some(w) = &budget.window {
        use crate::core::fmt::human_tokens;
        lines.insert(
            1,
            format!(
                "ratio: of the usable window, {} = window {} − {} reserved{}",
                human_tokens(w.usable()),
                human_tokens(w.tokens),
                human_tokens(w.reserve),
                w.capped_note()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default()
            ),
        );
    }
    let all: Vec<_> = conv.compactions().collect();
    for (k, (p, b)) in points.iter().zip(&cost.bills).enumerate() {
        let r = ratio(p.context, p.usable);
        let since: Vec<String> = p
            .compactions_since
            .iter()
            .map(|&c| {
                format!(
                    "{} {}",
                    crate::chart::context::label(&all, c),
                    policy(&all, c)
                )
                .trim_end()
                .to_string()
            })
            .collect();
        let broke = match b.broke {
            Some(crate::core::ops::Break::Expired) => "cache expired",
            Some(crate::core::ops::Break::Changed) => "cache broken",
            None => "",
        };
        let since = if broke.is_empty() {
            since.join("; ")
        } else {
            std::iter::once(broke.to_string())
                .chain(since)
                .collect::<Vec<_>>()
                .join("; ")
        };
        lines.push(format!(
            "{:>4} {:>5} {:>6} {:>8}  {:>10} {:>7}{}{:>10} {:>10} {:>10}  {}",
            k + 1,
            p.turn + 1,
            p.raw_index,
            p.timestamp
                .map(|t| t.format("%H:%M").to_string())
                .unwrap_or_default(),
            thousands(p.context),
            r.map(|r| format!("{:.1}%", r * 100.0))
                .unwrap_or_else(|| "-".into()),
            if r.is_some_and(|r| r > 1.0) { "!" } else { " " },
            thousands(b.read),
            thousands(b.written + b.uncached),
            if b.refused {
                "refused".to_string()
            } else {
                cost.unit.format(b.cost)
            },
            since
        ));
    }
    lines.push(String::new());
    lines.extend(cost_lines(cost));
    lines.push(
        "context: system prompt + tools + the projected events the request was sent (only the \
         compactions appended before it); ratio: of the usable window then; ! overflow; cached: \
         read from the prompt cache; new: the rest, written to the cache (Anthropic) or sent \
         uncached; cost: the request with its answer. Turns 1-based."
            .into(),
    );
    lines
}

/// Its policies, for the table (nothing for an invalid one).
fn policy(all: &[crate::core::model::conversation::CompactionRef<'_>], c: usize) -> String {
    all.get(c)
        .and_then(|c| c.parsed.ok())
        .map(|x| x.policy_label())
        .unwrap_or_default()
}

/// The session's bill in words.
fn cost_lines(cost: &ops::cost::SessionCost) -> Vec<String> {
    let u = cost.unit;
    let t = &cost.tokens;
    let mut lines = vec![
        format!("billed: {}", cost.billing.describe()),
        format!(
            "cost: {} ({} read from cache, {} written, {} uncached, {} output); without the cache {}",
            u.format(cost.total),
            thousands(t.read),
            thousands(t.written),
            thousands(t.uncached),
            thousands(t.output),
            u.format(cost.without_cache),
        ),
    ];
    if t.refused > 0 {
        lines.push(format!(
            "{} over the usable window would have been refused by the API: not billed, and \
             the session could not have gone on as it did",
            crate::core::fmt::count(t.refused as u64, "request")
        ));
    }
    if cost.summary_count > 0 {
        let kinds: Vec<String> = cost
            .summary_kinds
            .iter()
            .map(|(k, n)| {
                let how = match k.as_str() {
                    "authored" => "a person's: no model call",
                    "digest" => "offline: no bill",
                    "command" if cost.summary_pricing.command_per_call.is_some() => {
                        "at the command's declared cost"
                    }
                    "command" => "a command that declares no cost: counted as free",
                    "openai" | "anthropic" => "at its model's prices",
                    _ => "no record says: priced as an LLM call at the conversation's model",
                };
                format!("{n} {k}, {how}")
            })
            .collect();
        lines.push(format!(
            "summaries: {} for {} ({})",
            u.format(cost.summaries),
            crate::core::fmt::count(cost.summary_count as u64, "summary"),
            kinds.join("; ")
        ));
    }
    lines.push(String::new());
    lines
}
