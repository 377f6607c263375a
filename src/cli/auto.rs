//! `auto`: evaluate automatic compaction on the conversation as it stands
//! and apply what it returns.

use super::Context;
use super::args::AutoArgs;
use super::output::{
    change, conversation_json, print_json, print_lines, print_warnings, thousands,
};
use crate::core::auto::ActionKind;
use crate::core::ops;
use serde_json::json;

pub fn run(ctx: &Context, args: AutoArgs) -> anyhow::Result<()> {
    let dir = ctx.to_write(args.conv.as_deref(), args.dry_run)?;
    let conv = crate::core::store::load::load(&dir)?;
    print_warnings(&conv);
    let mut config = args.policy.config(&conv)?;
    super::output::print_notices(&config);
    let was_disabled = !config.enabled;
    // Running `auto` is asking for it, whatever `enabled` says.
    config.enabled = true;
    let configured = args.policy.summarizer(&config)?;
    let summarizer =
        crate::core::summarize::for_preview(configured.as_ref(), !args.dry_run || args.summarize);
    super::check_window(&conv, &config, args.policy.window.window)?;
    let budget = ops::budget(&conv, &config, args.policy.window.window);
    let window = budget.usable();
    let plan = ops::preview_auto(
        &conv,
        &config,
        &budget,
        summarizer.as_ref(),
        chrono::Utc::now(),
        super::show::view(args.as_jp),
    )?;
    let saved = if args.dry_run || plan.is_empty() {
        None
    } else {
        Some(ops::write(
            &dir,
            ops::Change::plan(&plan),
            super::guard(args.force),
        )?)
    };
    if let Some(s) = &saved {
        super::output::print_new_warnings(&conv, &s.conversation);
    }
    let (estimate, estimate_after) = (plan.tokens.before, plan.tokens.after);
    let fired = !plan.additions.is_empty();
    // What fired is told in order; why nothing did, the deciding reason
    // first.
    let reasons: Vec<&ops::PlanNote> = if fired {
        plan.notes.iter().collect()
    } else {
        plan.notes_deciding_first()
    };

    let knows = ops::knows::of_additions(&conv, &plan, super::show::view(args.as_jp));
    if args.json {
        let actions: Vec<_> = plan
            .additions
            .iter()
            .zip(&knows)
            .map(|(a, k)| {
                let mut v = a.compaction.to_json();
                if let ops::Why::Auto(kind) = a.why {
                    v["kind"] = json!(kind.as_str());
                }
                v["requested"] = json!([a.requested.from, a.requested.to]);
                v["tokens_saved"] = json!(a.effect.saved);
                (v["facts"], v["survival"]) = super::knows::json(k.as_deref());
                v
            })
            .collect();
        return print_json(&json!({
            "conversation": conversation_json(&conv),
            "mode": config.mode.as_str(),
            "window": budget.window.as_ref().map(|w| w.tokens),
            "usable": window,
            "reserve": budget.reserve(),
            "estimate": estimate,
            "estimate_after": estimate_after,
            "fired": fired,
            "compactions": actions,
            "reasons": reasons,
            "withheld": super::output::withheld_json(plan.withheld.as_ref()),
            "dry_run": args.dry_run,
            "written": saved.as_ref().is_some_and(|s| s.written),
        }));
    }

    let mut lines = vec![ops::auto_headline(&config, window, estimate)];
    if was_disabled {
        lines.push(
            "note: automatic compaction is not enabled in this conversation's config; \
             evaluated because you asked"
                .into(),
        );
    }
    lines.extend(reasons.iter().map(|r| format!("- {r}")));
    if fired {
        for (a, k) in plan.additions.iter().zip(&knows) {
            let what = match a.why {
                ops::Why::Auto(ActionKind::Summary) => "summary".to_string(),
                _ => a.compaction.policy_label(),
            };
            lines.push(format!(
                "{} turns {} ({} total, {what}, auto).",
                if args.dry_run {
                    "Would compact"
                } else {
                    "Compacted"
                },
                a.range().human(),
                a.range().turns()
            ));
            match k {
                Some(k) => lines.extend(super::knows::lines(
                    k,
                    if args.dry_run { "would lose" } else { "lost" },
                )),
                None => lines.push(
                    "  what it keeps is judged once the summary is made (--summarize)".into(),
                ),
            }
        }
        lines.push(format!(
            "Estimated tokens: {} -> {} ({})",
            thousands(estimate),
            thousands(estimate_after),
            change(estimate, estimate_after)
        ));
        match &saved {
            Some(s) => lines.push(format!(
                "Wrote {} to {}.",
                crate::core::fmt::count(s.appended as u64, "compaction"),
                s.conversation.events_path().display()
            )),
            None => {
                lines.extend(super::output::withheld_line(plan.withheld.as_ref()));
                lines.push("Dry run: nothing written.".into())
            }
        }
    } else {
        lines.push("Nothing to do.".into());
    }
    print_lines(lines)
}
