//! `reset`: remove compactions (all, automatic only, or one).

use super::Context;
use super::output::{conversation_json, print_json, print_lines, print_warnings};
use crate::cli::change_args::ResetArgs;
use crate::core::fmt::{change, thousands};
use crate::core::ops;
use crate::core::ops::Reset;

/// What `reset --json` prints.
#[derive(serde::Serialize)]
struct ResetJson {
    conversation: serde_json::Value,
    dry_run: bool,
    written: bool,
    removed: usize,
    tokens: crate::core::ops::Tokens,
}

pub fn run(ctx: &Context, args: ResetArgs) -> anyhow::Result<()> {
    let dir = ctx.to_write(args.conv.as_deref(), args.dry_run)?;
    let which = match (args.which.all, args.which.auto, args.which.index) {
        (true, _, _) => Reset::All,
        (_, true, _) => Reset::Auto,
        (_, _, Some(n)) => Reset::Position(n),
        _ => unreachable!("clap requires exactly one of --all, --auto, --index"),
    };
    let done = ops::reset::reset(
        &dir,
        &ops::reset::ResetRequest {
            which,
            config_file: args.config.clone(),
            jp: ctx.jp.clone(),
            dry_run: args.dry_run,
            force: args.force,
        },
    )?;
    let (conv, plan, saved) = (&done.conv, &done.plan, &done.written);
    print_warnings(conv);
    super::output::say_notices(&done.notices);
    if let Some(s) = saved {
        super::output::print_new_warnings(conv, &s.conversation);
    }
    let count = plan.removes;
    let (before, after) = (plan.tokens.before, plan.tokens.after);
    let removed = saved.as_ref().map_or(count, |s| s.removed);
    let what = which.what();
    if args.json {
        return print_json(&ResetJson {
            conversation: conversation_json(conv),
            dry_run: args.dry_run,
            written: saved.as_ref().is_some_and(|s| s.written),
            removed,
            tokens: plan.tokens,
        });
    }
    let mut lines = Vec::new();
    if count == 0 {
        lines.push(match what.as_str() {
            "all compactions" => "Nothing to reset: this conversation has no compaction.".into(),
            _ => format!("Nothing to reset: no {what} here."),
        });
    } else {
        let verb = if args.dry_run {
            "Would remove"
        } else {
            "Removed"
        };
        let removed_what = match which {
            Reset::All => crate::core::fmt::count(removed as u64, "compaction"),
            Reset::Auto => crate::core::fmt::count(removed as u64, "automatic compaction"),
            Reset::Position(_) => what.clone(),
        };
        lines.push(format!("{verb} {removed_what}."));
        lines.push(format!(
            "Estimated tokens: {} -> {} ({})",
            thousands(before),
            thousands(after),
            change(before, after)
        ));
        if args.dry_run {
            lines.push("Dry run: nothing written.".into());
        }
    }
    print_lines(lines)
}
