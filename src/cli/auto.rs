//! `auto`: evaluate automatic compaction on the conversation as it stands
//! and apply what it returns.

use super::Context;
use super::args::AutoArgs;
use super::output::{
    change, conversation_json, print_json, print_lines, print_warnings, thousands,
};
use crate::core::auto::{self, ActionKind, Mode};
use crate::core::compact::projection;
use crate::core::store::save::{self, Edit};
use crate::core::{compact::window, model::config, summarize};
use serde_json::json;

pub fn run(ctx: &Context, args: AutoArgs) -> anyhow::Result<()> {
    let dir = ctx.resolve(&args.conv)?;
    let conv = crate::core::store::load::load(&dir)?;
    print_warnings(&conv);
    let mut config = auto::config_for(&conv, args.config.as_deref())?;
    let was_disabled = !config.enabled;
    // Running `auto` is asking for it, whatever `enabled` says.
    config.enabled = true;
    if let Some(m) = &args.mode {
        config.mode = Mode::parse(m).unwrap_or(config.mode);
    }
    let summarizer = match &args.summarizer {
        Some(name) => summarize::by_name(name, &config.summarizer)?,
        None => summarize::from_config(&config.summarizer),
    };
    let merged = config::merged(&conv, None);
    let window = window::for_config(&merged, args.window.window).map(|w| w.tokens);
    let decision = auto::evaluate_now(
        &conv,
        projection::overlays(&conv),
        window,
        &config,
        summarizer.as_ref(),
        chrono::Utc::now(),
    )?;
    let compactions: Vec<_> = decision
        .actions
        .iter()
        .map(|a| a.compaction.clone())
        .collect();
    let saved = if args.dry_run || compactions.is_empty() {
        None
    } else {
        Some(save::apply(&dir, &Edit::append(compactions.clone()))?)
    };
    let reasons: Vec<String> = decision.notes.iter().map(ToString::to_string).collect();

    if args.json {
        let actions: Vec<_> = decision
            .actions
            .iter()
            .map(|a| {
                let mut v = a.compaction.to_json();
                v["kind"] = json!(a.kind.as_str());
                v["requested"] = json!([a.requested.from, a.requested.to]);
                v
            })
            .collect();
        return print_json(&json!({
            "conversation": conversation_json(&conv),
            "mode": config.mode.as_str(),
            "window": window,
            "estimate": decision.estimate,
            "estimate_after": decision.estimate_after,
            "fired": decision.fired(),
            "compactions": actions,
            "reasons": reasons,
            "dry_run": args.dry_run,
            "written": saved.as_ref().is_some_and(|s| s.written),
        }));
    }

    let mut lines = vec![format!(
        "{} mode, window {}, estimate {} tokens{}",
        config.mode.as_str(),
        window.map_or("unknown".into(), window::human_tokens),
        thousands(decision.estimate),
        window
            .map(|w| format!(" ({:.1}%)", decision.estimate as f64 / w as f64 * 100.0))
            .unwrap_or_default()
    )];
    if was_disabled {
        lines.push(
            "note: automatic compaction is not enabled in this conversation's config; \
             evaluated because you asked"
                .into(),
        );
    }
    lines.extend(reasons.iter().map(|r| format!("- {r}")));
    if decision.fired() {
        for a in &decision.actions {
            let what = match a.kind {
                ActionKind::Summary => "summary".to_string(),
                _ => a.compaction.policy_label(),
            };
            lines.push(format!(
                "Compacted turns {} ({} total, {what}, auto).",
                a.range().human(),
                a.range().turns()
            ));
        }
        lines.push(format!(
            "Estimated tokens: {} -> {} ({})",
            thousands(decision.estimate),
            thousands(decision.estimate_after),
            change(decision.estimate, decision.estimate_after)
        ));
        match &saved {
            Some(s) => lines.push(format!(
                "Wrote {} compaction(s) to {}.",
                s.appended,
                s.conversation.events_path().display()
            )),
            None => lines.push("Dry run: nothing written.".into()),
        }
    } else {
        lines.push("Nothing to do.".into());
    }
    print_lines(lines)
}
