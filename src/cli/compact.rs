//! `compact`: add manual compactions from inline rules.

use super::Context;
use super::output::{conversation_json, print_json, print_lines, print_warnings};
use crate::cli::change_args::CompactArgs;
use crate::core::fmt::{change, thousands};
use crate::core::ops;
use serde_json::Value;

pub fn run(ctx: &Context, mut args: CompactArgs) -> anyhow::Result<()> {
    // `compact --active s:..-3`: clap gives the first word to CONV. With
    // --active or --demo a word shaped like a rule (`x:1..2`, a kind and a
    // range) is one, even a wrong one, so its error is the rule's own.
    let rule_shaped = |c: &String| {
        c.parse::<ops::Rule>().is_ok()
            || (c.contains(':') && !c.contains('/') && !c.contains(' ') && !c.starts_with("jp:"))
    };
    if (ctx.active || ctx.demo.is_some())
        && let Some(first) = args.conv.take_if(|c| rule_shaped(c))
    {
        args.rules.insert(0, first);
    }
    if ctx.active && args.conv.is_some() {
        return Err(super::UsageError("give either CONV or --active, not both".into()).into());
    }
    let dir = ctx.to_write(args.conv.as_deref(), args.dry_run)?;
    let request = ops::compact::CompactRequest {
        rules: args.rules,
        summary: args.summary,
        keep_first: args.keep_first,
        keep_last: args.keep_last,
        over: args.over,
        config_file: args.configured.config,
        jp: ctx.jp.clone(),
        summarizer: args.configured.summarizer,
        dry_run: args.dry_run,
        summarize: args.summarize,
        judge: args.judge,
        force: args.force,
        now: chrono::Utc::now(),
    };
    // The price goes to stderr before anything is sent: stdout stays the
    // result a script reads.
    let mut show_price = |q: &ops::judge::JudgeQuote| {
        eprintln!("{}", crate::core::visible::visible_line(&q.describe()));
        true
    };
    let prices = crate::user_file::prices()?;
    let done =
        ops::compact::compact(&dir, &request, &prices, &mut show_price).map_err(|e| match e {
            ops::compact::CompactError::Asked(ops::AskError::Rule(e)) => anyhow::Error::from(e),
            ops::compact::CompactError::Asked(other) => super::UsageError(other.to_string()).into(),
            ops::compact::CompactError::Failed(e) => e.into(),
        })?;
    let written = done.written.as_ref();
    print_warnings(&done.conv);
    super::output::say_notices(&done.notices);
    if let Some(s) = written {
        super::output::print_new_warnings(&done.conv, &s.conversation);
    }
    if args.json {
        return json_result(&done, args.dry_run);
    }
    text_result(&done, args.dry_run)
}

/// What `compact --json` prints: each compaction planned (the event as
/// stored, the rule it came from, what it saves and keeps, what its
/// threshold reached), the rules that found nothing, and the write.
#[derive(serde::Serialize)]
struct CompactJson<'a> {
    conversation: Value,
    dry_run: bool,
    written: bool,
    compactions: Vec<Value>,
    nothing: Vec<NothingJson<'a>>,
    timeline: &'a [ops::PlanNote],
    withheld: Value,
    tokens: ops::Tokens,
}

/// A rule that found nothing to compact, and why.
#[derive(serde::Serialize)]
struct NothingJson<'a> {
    spec: &'a str,
    reason: &'a str,
}

/// What `compact --json` prints.
fn json_result(done: &ops::compact::Compacted, dry_run: bool) -> anyhow::Result<()> {
    let (conv, plan, written) = (&done.conv, &done.plan, done.written.as_ref());
    let compactions: Vec<Value> = plan
        .additions
        .iter()
        .zip(done.knows.iter().zip(&done.reached))
        .map(|(a, (k, reached))| {
            let mut v = a.compaction.to_json();
            if let ops::Why::Rule { spec, .. } = &a.why {
                v["spec"] = spec.as_str().into();
            }
            v["requested"] = vec![a.requested.from, a.requested.to].into();
            v["tokens_saved"] = a.effect.saved.into();
            (v["facts"], v["survival"]) = super::knows::json(k.as_deref());
            if let Some(items) = reached {
                v["reached"] = items
                    .iter()
                    .map(|r| {
                        let mut item = serde_json::Map::new();
                        item.insert("turn".into(), (r.turn + 1).into());
                        item.insert("item".into(), r.item.as_str().into());
                        item.insert("bytes".into(), r.bytes.into());
                        Value::Object(item)
                    })
                    .collect();
            }
            v
        })
        .collect();
    print_json(&CompactJson {
        conversation: conversation_json(conv),
        dry_run,
        written: written.as_ref().is_some_and(|w| w.written),
        compactions,
        nothing: plan
            .skipped
            .iter()
            .map(|s| NothingJson {
                spec: &s.spec,
                reason: &s.reason,
            })
            .collect(),
        timeline: &plan.notes,
        withheld: super::output::withheld_json(plan.withheld.as_ref()),
        tokens: plan.tokens,
    })
}

/// What `compact` prints: the rules that found nothing, jp's timeline,
/// what each compaction saves and keeps, the estimate and the write.
fn text_result(done: &ops::compact::Compacted, dry_run: bool) -> anyhow::Result<()> {
    let (plan, written) = (&done.plan, done.written.as_ref());
    let (before, after) = (plan.tokens.before, plan.tokens.after);
    let mut lines: Vec<String> = plan
        .skipped
        .iter()
        .map(|s| {
            let force = if s.no_op {
                "; --force writes it anyway"
            } else {
                ""
            };
            format!("Nothing to compact for `{}`: {}{force}.", s.spec, s.reason)
        })
        .collect();
    // A dry run says what would be done, not what was.
    lines.extend(plan.notes.iter().map(|n| {
        let line = n.to_string();
        match (
            dry_run,
            line.strip_prefix("Compacted "),
            line.strip_prefix("Kept "),
        ) {
            (true, Some(rest), _) => format!("Would compact {rest}"),
            (true, _, Some(rest)) => format!("Would keep {rest}"),
            _ => line,
        }
    }));
    for (a, (k, reached)) in plan
        .additions
        .iter()
        .zip(done.knows.iter().zip(&done.reached))
    {
        lines.push(match a.raises() {
            Some(why) => format!("{} {why}.", a.named()),
            None => format!(
                "{} saves {}.",
                a.named(),
                crate::core::fmt::count(a.effect.saved.unsigned_abs(), "token")
            ),
        });
        // A threshold picks part of its range: say what it picked.
        if let Some(items) = reached {
            if items.is_empty() {
                lines.push("  nothing over the threshold.".into());
            }
            lines.extend(items.iter().map(|r| {
                format!(
                    "  turn {}  {}  {}",
                    r.turn + 1,
                    r.item,
                    crate::core::model::byte_size::human(r.bytes)
                )
            }));
        }
        // A dry run shows the summary it would write, so it can be read
        // before it is.
        if dry_run && let Some(text) = &a.compaction.summary {
            lines.push(format!(
                "  the summary it would write ({}):",
                crate::core::fmt::count(text.chars().count() as u64, "character")
            ));
            lines.extend(text.lines().map(|l| format!("    {l}")));
        }
        match k {
            Some(k) => lines.extend(crate::core::ops::knows::lines(
                k,
                if dry_run { "would lose" } else { "lost" },
            )),
            None => lines
                .push("  what it keeps is judged once the summary is made (--summarize)".into()),
        }
    }
    if !plan.additions.is_empty() {
        lines.push(format!(
            "Estimated tokens: {} -> {} ({})",
            thousands(before),
            thousands(after),
            change(before, after)
        ));
    }
    match written {
        Some(w) => lines.push(format!(
            "Wrote {} to {}.",
            crate::core::fmt::count(w.appended as u64, "compaction"),
            w.conversation.events_path().display()
        )),
        None if dry_run && !plan.additions.is_empty() => {
            lines.extend(super::output::withheld_line(plan.withheld.as_ref()));
            lines.push("Dry run: nothing written.".into())
        }
        None => {}
    }
    print_lines(lines)
}
