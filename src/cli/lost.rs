//! `lost`: what each compaction hid, from the loss ledger.

use super::Context;
use super::args::StatsArgs;
use super::output::{print_json, print_lines, print_warnings, thousands};
use crate::core::compact::ledger;
use crate::core::fmt::count;
use crate::core::ops::{self, stats::CompactionEntry};
use crate::core::visible::visible_line;
use serde_json::json;

pub fn run(ctx: &Context, args: StatsArgs) -> anyhow::Result<()> {
    let (conv, auto) = ops::open(&ctx.resolve(args.conv.as_deref())?, args.config.as_deref())?;
    print_warnings(&conv);
    let auto = auto?;
    super::check_window(&conv, &auto, args.window.window)?;
    let report = ops::stats::stats(
        &conv,
        &auto,
        args.window.window,
        super::show::view(args.as_jp),
    );
    if args.json {
        return print_json(&json!({
            "conversation": super::output::conversation_json(&conv),
            "compactions": report.compactions,
        }));
    }
    let mut lines = vec![format!(
        "{}  {}  what each compaction hid",
        conv.display_id(),
        visible_line(conv.title.as_deref().unwrap_or("(untitled)"))
    )];
    if report.compactions.is_empty() {
        lines.push("no compaction: nothing is hidden".into());
    }
    for c in &report.compactions {
        lines.push(String::new());
        lines.extend(entry_lines(c));
    }
    print_lines(lines)
}

fn entry_lines(c: &CompactionEntry) -> Vec<String> {
    let f = match &c.facts {
        Ok(f) => f,
        Err(why) => {
            return vec![format!(
                "#{}  left out of the projection: {why}",
                c.position + 1
            )];
        }
    };
    let mut out = Vec::new();
    let Some(l) = &c.ledger else {
        out.push(format!("#{}  not in force in this view", c.position + 1));
        return out;
    };
    let h = &l.hidden;
    out.push(format!(
        "#{}  {} turns {}  {}: {}, {} ({}), {}, {}; {} tok",
        c.position + 1,
        f.source.as_str(),
        f.range.human(),
        f.policies,
        count(h.tool_calls as u64, "tool call"),
        count(h.tool_results as u64, "result"),
        count(h.errors as u64, "error"),
        count(h.reasoning as u64, "reasoning block"),
        count(h.messages as u64, "message"),
        thousands(h.tokens)
    ));
    for i in &h.items {
        out.push(format!(
            "    turn {:<4} {:<18} {:<40} {:>8} tok  {}{}",
            i.turn,
            visible_line(&i.tool),
            visible_line(i.target.as_deref().unwrap_or("")),
            thousands(i.tokens),
            i.fate,
            if i.error { "  error" } else { "" }
        ));
    }
    if let Some(k) = &l.kept {
        out.push(format!(
            "    the summary names {} of the {} facts of its range{}",
            k.in_summary.len(),
            k.total,
            if k.missing.is_empty() {
                String::new()
            } else {
                "; not:".into()
            }
        ));
        for m in &k.missing {
            out.push(format!("      - {}", visible_line(m)));
        }
    }
    out.extend(refetch_lines(&l.fetched_again));
    out
}

fn refetch_lines(again: &[ledger::Refetch]) -> Vec<String> {
    if again.is_empty() {
        return Vec::new();
    }
    let tokens: u64 = again.iter().map(|r| r.tokens).sum();
    let mut out = vec![format!(
        "    fetched again after it: {} ({} tok)",
        count(again.len() as u64, "call"),
        thousands(tokens)
    )];
    for r in again {
        out.push(format!(
            "      turn {:<4} {:<18} {:<40} {:>8} tok",
            r.turn,
            visible_line(&r.tool),
            visible_line(r.target.as_deref().unwrap_or("")),
            thousands(r.tokens)
        ));
    }
    out
}
