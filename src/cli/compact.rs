//! `compact`: add manual compactions from inline rules.

use super::Context;
use super::args::CompactArgs;
use super::output::{
    change, conversation_json, print_json, print_lines, print_warnings, thousands,
};
use crate::core::compact::estimate;
use crate::core::compact::plan::{self, Keeps, Step};
use crate::core::compact::projection;
use crate::core::model::compaction::{Compaction, Source};
use crate::core::store::save::{self, Edit};
use crate::core::{auto, compact::rule, summarize};
use serde_json::{Value, json};

pub fn run(ctx: &Context, args: CompactArgs) -> anyhow::Result<()> {
    let dir = ctx.resolve(&args.conv)?;
    let conv = crate::core::store::load::load(&dir)?;
    print_warnings(&conv);
    let rules = args
        .rules
        .iter()
        .map(|s| rule::parse(s).map(|r| (s.clone(), r)))
        .collect::<Result<Vec<_>, _>>()?;
    let auto_config = auto::config_for(&conv, None)?;
    let summarizer = summarize::by_name(&args.summarizer, &auto_config.summarizer)?;
    let steps = plan::plan(
        &conv,
        &rules,
        &plan::Options {
            keeps: Keeps {
                keep_first: args.keep_first,
                keep_last: args.keep_last,
            },
            source: Source::Manual,
            now: chrono::Utc::now(),
            summarizer: summarizer.as_ref(),
            instructions: auto_config.instructions(),
        },
    )?;
    let planned: Vec<&plan::Planned> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Planned(p) => Some(p),
            Step::Nothing { .. } => None,
        })
        .collect();
    let new: Vec<Compaction> = planned.iter().map(|p| p.compaction.clone()).collect();
    let before = estimate::of_projection(&conv.events, &projection::of(&conv)).total_tokens();
    let preview = projection::project(
        &conv.events,
        conv.turn_count,
        projection::with_preview(&conv, &new),
    );
    let after = estimate::of_projection(&conv.events, &preview).total_tokens();
    let timeline = plan::timeline(conv.turn_count, &planned);

    let written = if args.dry_run || new.is_empty() {
        None
    } else {
        Some(save::apply(&dir, &Edit::append(new.clone()))?)
    };

    if args.json {
        let compactions: Vec<Value> = planned
            .iter()
            .map(|p| {
                let mut v = p.compaction.to_json();
                v["spec"] = json!(p.spec);
                v["requested"] = json!([p.requested.from, p.requested.to]);
                v
            })
            .collect();
        let nothing: Vec<Value> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Nothing { spec, reason } => Some(json!({"spec": spec, "reason": reason})),
                Step::Planned(_) => None,
            })
            .collect();
        return print_json(&json!({
            "conversation": conversation_json(&conv),
            "dry_run": args.dry_run,
            "written": written.as_ref().is_some_and(|w| w.written),
            "compactions": compactions,
            "nothing": nothing,
            "timeline": timeline,
            "tokens": {"before": before, "after": after},
        }));
    }

    let mut lines = Vec::new();
    for s in &steps {
        if let Step::Nothing { spec, reason } = s {
            lines.push(format!("Nothing to compact for `{spec}`: {reason}."));
        }
    }
    lines.extend(timeline);
    if !planned.is_empty() {
        lines.push(format!(
            "Estimated tokens: {} -> {} ({})",
            thousands(before),
            thousands(after),
            change(before, after)
        ));
    }
    match written {
        Some(w) => lines.push(format!(
            "Wrote {} compaction(s) to {}.",
            w.appended,
            w.conversation.events_path().display()
        )),
        None if args.dry_run && !planned.is_empty() => {
            lines.push("Dry run: nothing written.".into())
        }
        None => {}
    }
    print_lines(lines)
}
