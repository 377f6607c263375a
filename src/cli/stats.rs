//! `stats`: raw and projected token figures, the window, the thresholds and
//! the compactions with what each one saves.

use super::Context;
use super::args::StatsArgs;
use super::output::{print_json, print_lines};
use crate::core::fmt::{change, thousands};
use crate::core::ops::Category;
use crate::core::ops::Measure;
use crate::core::ops::View;
use crate::core::ops::{self, stats::Stats, stats::WindowOrigin};
use crate::core::{model::conversation::Conversation, model::timestamp};

pub fn run(ctx: &Context, args: StatsArgs) -> anyhow::Result<()> {
    let (conv, report) = report(ctx, &args, args.json)?;
    let printed = if args.json {
        print_json(&report)
    } else {
        print_lines(lines(&conv, &report))
    };
    super::output::free_at_exit((conv, report));
    printed
}

/// The conversation `args` names and its report (with the loss ledger when
/// `ledger`).
fn report(ctx: &Context, args: &StatsArgs, ledger: bool) -> anyhow::Result<(Conversation, Stats)> {
    let (conv, auto) = ctx.to_read(
        args.conv.as_deref(),
        args.config.as_deref(),
        args.window.window,
    )?;
    let report = ops::stats::stats(
        &conv,
        &auto,
        args.window.window,
        super::show::view(args.as_jp),
        ledger,
        &crate::user_file::prices()?,
    );
    Ok((conv, report))
}

fn lines(conv: &Conversation, r: &Stats) -> Vec<String> {
    let mut out = vec![format!(
        "{}  {}  ({})",
        conv.display_id(),
        crate::core::visible::visible_line(conv.title.as_deref().unwrap_or("(untitled)")),
        crate::core::fmt::count(conv.turn_count as u64, "turn")
    )];
    out.extend(
        crate::core::ops::stats::ConversationRef::copies_line(conv)
            .map(|l| crate::core::visible::visible_line(&l).into_owned()),
    );
    let model = match (&r.model, &r.model_resolved) {
        (Some(m), Some(real)) => format!("{m} (the alias of {real})"),
        (Some(m), None) => m.clone(),
        (None, _) => "unknown".to_string(),
    };
    out.push(format!("model: {model}   window: {}", window(r)));
    out.push(String::new());
    categories(&mut out, r);
    context(&mut out, r);
    out.push(String::new());
    out.push(ratio(r));
    if !r.headroom.is_empty() {
        out.push(crate::core::ops::stats::next_compaction(
            &r.headroom,
            r.auto_enabled,
        ));
    }
    out.push(estimate(r));
    out.push(String::new());
    if r.compactions.is_empty() {
        // The settings and the rest are said all the same.
        out.push("no compactions".into());
    } else {
        compactions(&mut out, r);
    }
    tail(&mut out, r);
    out
}

/// A figure, or `-` when there is none.
fn n(v: Option<u64>) -> String {
    v.map(thousands).unwrap_or_else(|| "-".into())
}

/// The window and where it comes from, less the reserve.
fn window(r: &Stats) -> String {
    let Some(w) = &r.window else {
        return "unknown (set one with --window)".to_string();
    };
    format!(
        "{} tokens ({}) - reserve {} ({}) = usable {}",
        thousands(w.tokens),
        match &w.source {
            WindowOrigin::Override => "--window".to_string(),
            WindowOrigin::Provider {
                model,
                provider,
                fetched_at,
            } => format!("{model} as {provider}'s models endpoint listed it, {fetched_at}"),
            WindowOrigin::Table { model } => format!("the table's figure for {model}"),
        },
        thousands(w.reserve),
        w.reserve_source,
        n(w.usable),
    )
}

/// Raw and projected tokens by category, and their totals.
fn categories(out: &mut Vec<String>, r: &Stats) {
    out.push(format!("{:<14} {:>10} {:>10}", "", "raw", "projected"));
    for c in Category::ALL {
        out.push(format!(
            "{:<14} {:>10} {:>10}",
            c.label(),
            thousands(r.raw.0.tokens(c)),
            thousands(r.projected.0.tokens(c))
        ));
    }
    let (raw_t, proj_t) = (r.raw.0.total_tokens(), r.projected.0.total_tokens());
    out.push(format!(
        "{:<14} {:>10} {:>10}  ({})",
        "total",
        thousands(raw_t),
        thousands(proj_t),
        change(raw_t, proj_t)
    ));
}

/// What a request carries besides the events, and the whole context.
fn context(out: &mut Vec<String>, r: &Stats) {
    let ctx = &r.context;
    if ctx.measure == Measure::Events {
        out.push(
            "context: the projected events only (context = \"events\", D50's literal estimate)"
                .into(),
        );
        return;
    }
    out.push(format!(
        "{:<14} {:>10}  (sent with every request)",
        "system prompt",
        thousands(ctx.system_prompt)
    ));
    let unknown = ctx.tools_unknown.len();
    out.push(format!(
        "{:<14} {:>10}  ({}{})",
        "tools",
        thousands(ctx.tools),
        crate::core::fmt::count(ctx.tools_enabled as u64, "enabled tool definition"),
        if unknown > 0 {
            format!(
                "; {} unknown, counted by name only",
                crate::core::fmt::count(unknown as u64, "MCP schema")
            )
        } else {
            String::new()
        }
    ));
    out.push(format!(
        "{:<14} {:>10}  (system prompt + tools + projected events)",
        "context",
        thousands(ctx.tokens)
    ));
}

/// The context against the usable window and the thresholds.
fn ratio(r: &Stats) -> String {
    let Some(ratio) = r.ratio else {
        return "context: window unknown, so no ratio or thresholds".into();
    };
    let t = &r.thresholds;
    let marks = [t.soft.ratio, t.hard.ratio, t.trigger.ratio];
    format!(
        "context: {}% of the usable window   soft {:.0}% = {}   hard {:.0}% = {}   single trigger {:.0}% = {}   (mode {})",
        crate::core::fmt::percent_beside(ratio, &marks, 1),
        t.soft.ratio * 100.0,
        n(t.soft.tokens),
        t.hard.ratio * 100.0,
        n(t.hard.tokens),
        t.trigger.ratio * 100.0,
        n(t.trigger.tokens),
        t.mode.as_str()
    )
}

/// How the tokens are estimated, and what a measure said of it.
fn estimate(r: &Stats) -> String {
    let e = &r.estimate;
    match &e.measured {
        Some(m) => format!(
            "estimate: characters / 4, measured {:.2}× the estimate ({}, {}){}",
            m.ratio,
            m.model,
            m.at.get(..10).unwrap_or("?"),
            if e.applied.is_some() {
                "; the thresholds account for it (estimate = \"measured\")"
            } else {
                ""
            }
        ),
        None => "estimate: characters / 4, not measured (jp-inspect count measures it)".into(),
    }
}

/// The compactions' table: each with what it saves, what it costs with the
/// prompt cache, and where today's jp would differ.
fn compactions(out: &mut Vec<String>, r: &Stats) {
    out.push(format!(
        "{:>3}  {:<7} {:<9} {:<32} {:<27} {:>8}",
        "#", "source", "turns", "policies", "time", "saved"
    ));
    for c in &r.compactions {
        let f = match &c.facts {
            Ok(f) => f,
            Err(why) => {
                out.push(format!("{:>3}  INVALID, left out: {why}", c.position + 1));
                continue;
            }
        };
        out.push(format!(
            "{:>3}  {:<7} {:<9} {:<32} {:<27} {:>8}",
            c.position + 1,
            f.source.as_str(),
            format!(
                "{}..{}",
                f.range.from.saturating_add(1),
                f.range.to.saturating_add(1)
            ),
            f.policies,
            timestamp::format(&f.timestamp),
            crate::core::fmt::signed_thousands(f.saved)
        ));
        if let Some((_, text)) = &c.payback {
            out.push(format!("     {text}"));
        }
        if let Some(d) = &f.jp_differs {
            out.push(format!("     {d}"));
        }
        if let Some(w) = &f.warning {
            out.push(format!("     warning: {w}"));
        }
    }
}

/// How it is billed, the settings not at their defaults with where each
/// came from, and how it was projected.
fn tail(out: &mut Vec<String>, r: &Stats) {
    out.push(format!("billed: {}", r.billing));
    if !r.settings.is_empty() {
        out.push(String::new());
        out.push("settings not at their defaults, and where they came from:".into());
        for (key, origin) in &r.settings {
            out.push(format!(
                "  {key}  <-  {}",
                crate::core::visible::visible_line(origin)
            ));
        }
    }
    if r.view == View::Jp {
        out.push("projected as today's jp does: over bounds ignored (--as-jp)".into());
    }
}
