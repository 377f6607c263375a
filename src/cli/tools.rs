//! `tools`: which tools fill the context, and the D17 hint each should get.

use super::Context;
use super::args::ToolsArgs;
use super::output::{print_json, print_lines};
use crate::core::fmt::thousands;
use crate::core::ops::tools::{self, ToolsReport};
use crate::core::visible::visible_line;

pub fn run(ctx: &Context, args: ToolsArgs) -> anyhow::Result<()> {
    let convs = if args.conv.is_empty() && !ctx.active && ctx.demo.is_none() {
        super::simulate::whole_workspace(ctx)?
    } else {
        let named = if args.conv.is_empty() {
            vec![None]
        } else {
            ctx.named(&args.conv)
        };
        named
            .into_iter()
            .map(|q| ctx.load(q))
            .collect::<Result<Vec<_>, _>>()?
    };
    let (report, notices) =
        tools::of_conversations(&convs, args.config.as_deref(), ctx.jp.as_ref(), args.window)?;
    for n in &notices {
        super::output::say_err(&format!("jp-inspect: note: {n}"));
    }
    if args.json {
        return print_json(&report);
    }
    print_lines(lines(&report))
}

fn lines(r: &ToolsReport) -> Vec<String> {
    let mut out = vec![format!(
        "{}, tool calls {} tok, tool results {} tok",
        crate::core::fmt::count(r.conversations.len() as u64, "conversation"),
        thousands(r.request_tokens),
        thousands(r.response_tokens)
    )];
    if r.tools.is_empty() {
        out.push("no tool calls".into());
        return out;
    }
    out.push(format!(
        "{:<28} {:>6} {:>10} {:>10} {:>6} {:>6} {:>6} {:>7}  {:<16} {:>10}",
        "tool",
        "calls",
        "request",
        "response",
        "errors",
        "again",
        "now",
        "session",
        "hint",
        "saves"
    ));
    for t in &r.tools {
        out.push(format!(
            "{:<28} {:>6} {:>10} {:>10} {:>6} {:>6} {:>5.1}% {:>6.1}%  {:<16} {:>10}",
            visible_line(&t.name),
            thousands(t.calls as u64),
            thousands(t.request_tokens),
            thousands(t.response_tokens),
            t.errors,
            t.refetched,
            t.share_now * 100.0,
            t.share_session * 100.0,
            t.hint.as_deref().unwrap_or("-"),
            t.saves.map_or("-".into(), |s| {
                format!("{} tok", crate::core::fmt::signed_thousands(s))
            }),
        ));
    }
    let hinted: Vec<_> = r.tools.iter().filter(|t| t.hint.is_some()).collect();
    if hinted.is_empty() {
        out.push(String::new());
        out.push(
            "No hint would save anything (the staged policy replayed with each against \
             without):"
                .into(),
        );
        out.extend(
            r.replayed_at()
                .into_iter()
                .map(|l| format!("  replayed {l}")),
        );
    } else {
        out.push(String::new());
        out.push(
            "Suggested hints (savings: the staged policy replayed with the hint against without):"
                .to_string(),
        );
        out.extend(
            r.replayed_at()
                .into_iter()
                .map(|l| format!("  replayed {l}")),
        );
        for t in hinted {
            out.push(format!(
                "  {}: {} ({})",
                visible_line(&t.name),
                t.hint.as_deref().unwrap_or_default(),
                t.why.as_deref().unwrap_or_default()
            ));
            if t.saves.is_some_and(|s| s < 0) {
                out.push(format!("    {}", t.effect()));
            }
            if let Some(toml) = &t.toml {
                out.extend(toml.lines().map(|l| {
                    if l.is_empty() {
                        String::new()
                    } else {
                        format!("    {l}")
                    }
                }));
            }
        }
    }
    out
}
