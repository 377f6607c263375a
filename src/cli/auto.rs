//! `auto`: evaluate automatic compaction on the conversation as it stands
//! and apply what it returns.

use super::Context;
use super::output::{conversation_json, print_json, print_lines, print_warnings};
use crate::cli::change_args::AutoArgs;
use crate::core::fmt::{change, thousands};
use crate::core::ops;
use crate::core::ops::ActionKind;
use serde_json::json;

pub fn run(ctx: &Context, args: AutoArgs) -> anyhow::Result<()> {
    let dir = ctx.to_write(args.conv.as_deref(), args.dry_run)?;
    let request = ops::auto_now::AutoRequest {
        mode: args.policy.mode,
        window: args.policy.window.window,
        config_file: args.policy.configured.config.clone(),
        summarizer: args.policy.configured.summarizer,
        dry_run: args.dry_run,
        summarize: args.summarize,
        force: args.force,
        view: super::show::view(args.as_jp),
        now: chrono::Utc::now(),
    };
    let done = ops::auto_now::auto(&dir, &request).map_err(|e| match e {
        ops::auto_now::AutoError::WindowTooSmall(_) => super::UsageError(e.to_string()).into(),
        ops::auto_now::AutoError::Failed(e) => anyhow::Error::from(e),
    })?;
    let (conv, config, budget, plan, knows) = (
        &done.conv,
        &done.config,
        &done.budget,
        &done.plan,
        &done.knows,
    );
    print_warnings(conv);
    super::output::say_notices(&config.notices);
    let saved = &done.written;
    if let Some(s) = saved {
        super::output::print_new_warnings(conv, &s.conversation);
    }
    let was_disabled = done.was_disabled;
    let window = budget.usable();
    let (estimate, estimate_after) = (plan.tokens.before, plan.tokens.after);
    let fired = !plan.additions.is_empty();
    // What fired is told in order; why nothing did, the deciding reason
    // first.
    let reasons: Vec<&ops::PlanNote> = if fired {
        plan.notes.iter().collect()
    } else {
        plan.notes_deciding_first()
    };

    if args.json {
        let actions: Vec<_> = plan
            .additions
            .iter()
            .zip(knows)
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
            "conversation": conversation_json(conv),
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

    let mut lines = vec![ops::auto_headline(config, window, estimate)];
    if was_disabled {
        lines.push(
            "note: automatic compaction is not enabled in this conversation's config; \
             evaluated because you asked"
                .into(),
        );
    }
    lines.extend(reasons.iter().map(|r| format!("- {r}")));
    if fired {
        for (a, k) in plan.additions.iter().zip(knows) {
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
                Some(k) => lines.extend(crate::core::ops::knows::lines(
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
