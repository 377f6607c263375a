//! `lost`: what each compaction hid, from the loss ledger, and what the
//! model no longer knows of its range (`ops::lost`).

use super::Context;
use super::args::LostArgs;
use super::output::{print_json, print_lines};
use crate::core::ops::judge::JudgeQuote;
use crate::core::ops::lost::{Lost, LostRequest, lost};
use crate::core::ops::stats::ConversationRef;
use crate::core::ops::stats_compactions::CompactionEntry;
use crate::core::visible::visible_line;

/// What `lost --json` prints: each compaction with what it hid and what
/// the model still knows of its range, and the session's whole.
#[derive(serde::Serialize)]
struct LostJson<'a> {
    conversation: ConversationRef,
    compactions: &'a [CompactionEntry],
    session: SessionJson,
}

/// What all the compactions keep of all their ranges' facts.
#[derive(serde::Serialize)]
struct SessionJson {
    survival: crate::core::ops::Survival,
    describe: String,
}

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
        return print_json(&LostJson {
            conversation: ConversationRef::of(&conv),
            compactions: &report.compactions,
            session: SessionJson {
                describe: session.describe(),
                survival: session,
            },
        });
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
