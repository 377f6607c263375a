//! `history`: the session's real context curve, request by request.

use super::Context;
use super::args::HistoryArgs;
use super::output::{
    conversation_json, print_json, print_lines, print_notices, print_warnings, thousands,
};
use crate::core::model::timestamp;
use crate::core::ops;
use serde_json::json;

pub fn run(ctx: &Context, args: HistoryArgs) -> anyhow::Result<()> {
    let (conv, config) = ops::open(&ctx.resolve(args.conv.as_deref())?, args.config.as_deref())?;
    print_warnings(&conv);
    let config = config?;
    print_notices(&config);
    super::check_window(&conv, &config, args.window.window)?;
    let points = ops::history(&conv, &config, args.window.window);
    let ratio = |context: u64, usable: Option<u64>| usable.map(|u| context as f64 / u as f64);
    if args.json {
        let requests: Vec<_> = points
            .iter()
            .map(|p| {
                json!({
                    "raw_index": p.raw_index,
                    "turn": p.turn,
                    "time": p.timestamp.map(|t| timestamp::format(&t)),
                    "context": p.context,
                    "usable": p.usable,
                    "ratio": ratio(p.context, p.usable),
                    "overflow": p.usable.is_some_and(|u| p.context > u),
                    "compactions_since": p.compactions_since.iter().map(|c| c + 1).collect::<Vec<_>>(),
                })
            })
            .collect();
        return print_json(&json!({
            "conversation": conversation_json(&conv),
            "thresholds": {"soft": config.soft_ratio, "hard": config.hard_ratio, "trigger": config.trigger_ratio},
            "requests": requests,
        }));
    }
    let mut lines = vec![
        format!(
            "{}  {}  ({} requests)",
            conv.display_id(),
            crate::core::visible::visible_line(conv.title.as_deref().unwrap_or("(untitled)")),
            points.len()
        ),
        format!(
            "{:>4} {:>5} {:>6} {:>8}  {:>10} {:>7}  compactions appended since the request before",
            "#", "turn", "event", "time", "context", "ratio"
        ),
    ];
    let all: Vec<_> = conv.compactions().collect();
    for (k, p) in points.iter().enumerate() {
        let r = ratio(p.context, p.usable);
        let since: Vec<String> = p
            .compactions_since
            .iter()
            .map(|&c| match all.get(c).and_then(|c| c.parsed.ok()) {
                Some(x) => format!(
                    "#{} {} {}..{} {}",
                    c + 1,
                    x.source.as_str(),
                    x.from_turn + 1,
                    x.to_turn.saturating_add(1),
                    x.policy_label()
                ),
                None => format!("#{} (invalid)", c + 1),
            })
            .collect();
        lines.push(format!(
            "{:>4} {:>5} {:>6} {:>8}  {:>10} {:>7}{}  {}",
            k + 1,
            p.turn + 1,
            p.raw_index,
            p.timestamp
                .map(|t| t.format("%H:%M").to_string())
                .unwrap_or_default(),
            thousands(p.context),
            r.map(|r| format!("{:.1}%", r * 100.0))
                .unwrap_or_else(|| "-".into()),
            if r.is_some_and(|r| r > 1.0) { "!" } else { " " },
            since.join("; ")
        ));
    }
    lines.push(String::new());
    lines.push(
        "context: system prompt + tools + the projected events the request was sent (only the \
         compactions appended before it); ratio: of the usable window then; ! overflow. Turns 1-based."
            .into(),
    );
    print_lines(lines)
}
