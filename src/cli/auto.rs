//! `auto`: evaluate automatic compaction on the conversation as it stands
//! and apply what it returns.

use super::Context;
use super::output::{conversation_json, print_json, print_lines, print_warnings};
use crate::cli::change_args::AutoArgs;
use crate::core::fmt::{change, thousands};
use crate::core::ops;
use crate::core::ops::ActionKind;

pub fn run(ctx: &Context, args: AutoArgs) -> anyhow::Result<()> {
    let dir = ctx.to_write(args.conv.as_deref(), args.dry_run)?;
    let request = ops::auto_now::AutoRequest {
        mode: args.policy.mode,
        window: args.policy.window.window,
        config_file: args.policy.configured.config.clone(),
        jp: ctx.jp.clone(),
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
    print_warnings(&done.conv);
    super::output::say_notices(&done.config.notices);
    if let Some(s) = &done.written {
        super::output::print_new_warnings(&done.conv, &s.conversation);
    }
    if args.json {
        return print_json(&json_result(&done, args.dry_run));
    }
    print_lines(text_result(&done, args.dry_run))
}

/// What fired is told in order; why nothing did, the deciding reason
/// first.
fn reasons(plan: &ops::Plan) -> Vec<&ops::PlanNote> {
    if plan.additions.is_empty() {
        plan.notes_deciding_first()
    } else {
        plan.notes.iter().collect()
    }
}

/// What `auto --json` prints: the decision, its reasons, and each
/// compaction it appends (the event as stored, with what it saves and
/// keeps).
#[derive(serde::Serialize)]
struct AutoJson<'a> {
    conversation: serde_json::Value,
    mode: &'static str,
    window: Option<u64>,
    usable: Option<u64>,
    reserve: u64,
    estimate: u64,
    estimate_after: u64,
    fired: bool,
    compactions: Vec<serde_json::Value>,
    reasons: Vec<&'a ops::PlanNote>,
    withheld: serde_json::Value,
    dry_run: bool,
    written: bool,
}

/// What `auto --json` prints.
fn json_result(done: &ops::auto_now::AutoDone, dry_run: bool) -> AutoJson<'_> {
    let (plan, budget) = (&done.plan, &done.budget);
    let compactions = plan
        .additions
        .iter()
        .zip(&done.knows)
        .map(|(a, k)| {
            let mut v = a.compaction.to_json();
            if let ops::Why::Auto(kind) = a.why {
                v["kind"] = kind.as_str().into();
            }
            v["requested"] = vec![a.requested.from, a.requested.to].into();
            v["tokens_saved"] = a.effect.saved.into();
            (v["facts"], v["survival"]) = super::knows::json(k.as_deref());
            v
        })
        .collect();
    AutoJson {
        conversation: conversation_json(&done.conv),
        mode: done.config.mode.as_str(),
        window: budget.window.as_ref().map(|w| w.tokens),
        usable: budget.usable(),
        reserve: budget.reserve(),
        estimate: plan.tokens.before,
        estimate_after: plan.tokens.after,
        fired: !plan.additions.is_empty(),
        compactions,
        reasons: reasons(plan),
        withheld: super::output::withheld_json(plan.withheld.as_ref()),
        dry_run,
        written: done.written.as_ref().is_some_and(|s| s.written),
    }
}

/// What `auto` prints: the policy against the window, the reasons, what
/// each compaction costs the model's knowledge, the estimate and the write.
fn text_result(done: &ops::auto_now::AutoDone, dry_run: bool) -> Vec<String> {
    let plan = &done.plan;
    let (estimate, estimate_after) = (plan.tokens.before, plan.tokens.after);
    let mut lines = vec![ops::auto_headline(
        &done.config,
        done.budget.usable(),
        estimate,
    )];
    if done.was_disabled {
        lines.push(
            "note: automatic compaction is not enabled in this conversation's config; \
             evaluated because you asked"
                .into(),
        );
    }
    lines.extend(reasons(plan).iter().map(|r| format!("- {r}")));
    if plan.additions.is_empty() {
        lines.push("Nothing to do.".into());
        return lines;
    }
    for (a, k) in plan.additions.iter().zip(&done.knows) {
        let what = match a.why {
            ops::Why::Auto(ActionKind::Summary) => "summary".to_string(),
            _ => a.compaction.policy_label(),
        };
        lines.push(format!(
            "{} turns {} ({} total, {what}, auto).",
            if dry_run {
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
                if dry_run { "would lose" } else { "lost" },
            )),
            None => lines
                .push("  what it keeps is judged once the summary is made (--summarize)".into()),
        }
    }
    lines.push(format!(
        "Estimated tokens: {} -> {} ({})",
        thousands(estimate),
        thousands(estimate_after),
        change(estimate, estimate_after)
    ));
    match &done.written {
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
    lines
}
