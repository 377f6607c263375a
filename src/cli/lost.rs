//! `lost`: what each compaction hid, from the loss ledger, and what the
//! model no longer knows of its range (`core::facts`).

use super::Context;
use super::args::LostArgs;
use super::output::{print_json, print_lines};
use crate::core::ops::judge::JudgeQuote;
use crate::core::ops::lost::{Lost, LostRequest, lost};
use crate::core::ops::stats_compactions::CompactionEntry;
use crate::core::visible::visible_line;
use serde_json::json;

pub fn run(ctx: &Context, args: LostArgs) -> anyhow::Result<()> {
    let LostArgs {
        stats: args,
        judge,
        compaction,
    } = args;
    let (conv, auto) = ctx.to_read(
        args.conv.as_deref(),
        args.config.as_deref(),
        args.window.window,
    )?;
    // The price goes to stderr before anything is sent: stdout stays the
    // result a script reads.
    let mut show_price = |q: &JudgeQuote| {
        eprintln!("{}", visible_line(&q.describe()));
        true
    };
    let Lost { stats, session } = lost(
        &conv,
        &auto,
        &LostRequest {
            window: args.window.window,
            view: super::show::view(args.as_jp),
            judge,
            only: compaction,
        },
        &crate::user_file::prices()?,
        &mut show_price,
    )?;
    let report = stats;
    if args.json {
        return print_json(&json!({
            "conversation": super::output::conversation_json(&conv),
            "compactions": report.compactions,
            "session": {"survival": session, "describe": session.describe()},
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
        if let (Some(k), Some(survival)) = (&c.knows, &c.survival) {
            lines.extend(crate::core::ops::knows::lines_of(k, survival, "lost"));
            if c.left_out > 0 {
                lines.push(format!(
                    "    {} more facts of its range left out to keep this bounded: \
                     `lost {} --compaction {}` lists them whole",
                    c.left_out,
                    conv.display_id(),
                    c.position + 1
                ));
            }
        }
    }
    if !report.compactions.is_empty() {
        lines.push(String::new());
        lines.push(format!("the session keeps {}", session.describe()));
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
    let head = format!(
        "#{}  {} turns {}  {}",
        c.position + 1,
        f.source.as_str(),
        f.range.human(),
        f.policies
    );
    let Some(l) = &c.ledger else {
        return vec![format!("{head}: not in force in this view")];
    };
    let mut out = vec![head];
    out.extend(l.lines().into_iter().map(|line| format!("  {line}")));
    out
}
