//! `reset`: remove compactions (all, automatic only, or one).

use super::Context;
use super::args::ResetArgs;
use super::output::{
    change, conversation_json, print_json, print_lines, print_warnings, thousands,
};
use crate::core::compact::estimate;
use crate::core::compact::projection;
use crate::core::compact::reset::{self, Reset};
use crate::core::store::save::{self, Edit};
use serde_json::json;

pub fn run(ctx: &Context, args: ResetArgs) -> anyhow::Result<()> {
    let dir = ctx.resolve(&args.conv)?;
    let conv = crate::core::store::load::load(&dir)?;
    print_warnings(&conv);
    let which = match (args.which.all, args.which.auto, args.which.index) {
        (true, _, _) => Reset::All,
        (_, true, _) => Reset::Auto,
        (_, _, Some(n)) => Reset::Position(n),
        _ => unreachable!("clap requires exactly one of --all, --auto, --index"),
    };
    let removal = reset::removal(&conv, which)?;
    let count = reset::count(&conv, which);
    let before = estimate::of_projection(&conv.events, &projection::of(&conv)).total_tokens();
    let after_projection = projection::project(
        &conv.events,
        conv.turn_count,
        reset::remaining(&conv, which),
    );
    let after = estimate::of_projection(&conv.events, &after_projection).total_tokens();
    let saved = if args.dry_run || count == 0 {
        None
    } else {
        Some(save::apply(&dir, &Edit::remove(removal))?)
    };
    let removed = saved.as_ref().map_or(count, |s| s.removed);
    let what = match which {
        Reset::All => "all compactions".to_string(),
        Reset::Auto => "automatic compactions".to_string(),
        Reset::Position(n) => format!("compaction #{n}"),
    };
    if args.json {
        return print_json(&json!({
            "conversation": conversation_json(&conv),
            "dry_run": args.dry_run,
            "written": saved.as_ref().is_some_and(|s| s.written),
            "removed": removed,
            "tokens": {"before": before, "after": after},
        }));
    }
    let mut lines = Vec::new();
    if count == 0 {
        lines.push(format!("Nothing to reset: no {what} here."));
    } else {
        let verb = if args.dry_run {
            "Would remove"
        } else {
            "Removed"
        };
        lines.push(format!("{verb} {removed} ({what})."));
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
