//! `stats`: raw and projected token figures, the window, the thresholds and
//! the compactions with what each one saves.

use super::Context;
use super::args::StatsArgs;
use super::output::{
    change, conversation_json, print_json, print_lines, print_warnings, thousands,
};
use crate::core::auto::{self, AutoConfig};
use crate::core::compact::budget::{Budget, Measure};
use crate::core::compact::estimate::{self, Breakdown, Category};
use crate::core::compact::jp_view::{self, View};
use crate::core::compact::projection::{self, Projection};
use crate::core::compact::window::WindowSource;
use crate::core::ops;
use crate::core::{Conversation, model::config, model::timestamp};
use serde_json::{Value, json};

pub fn run(ctx: &Context, args: StatsArgs) -> anyhow::Result<()> {
    let conv = ctx.load(args.conv.as_deref())?;
    print_warnings(&conv);
    let auto = auto::config_for(&conv, args.config.as_deref())?;
    super::output::print_notices(&auto);
    super::check_window(&conv, &auto, args.window.window)?;
    let report = report(
        &conv,
        &auto,
        args.window.window,
        super::show::view(args.as_jp),
    );
    if args.json {
        print_json(&report)
    } else {
        print_lines(lines(&conv, &report))
    }
}

fn breakdown_json(b: &Breakdown) -> Value {
    let by: serde_json::Map<String, Value> = Category::ALL
        .iter()
        .map(|c| (c.as_str().to_string(), json!(b.tokens(*c))))
        .collect();
    json!({"tokens": b.total_tokens(), "chars": b.total_chars(), "by_category": by})
}

fn window_json(b: &Budget) -> Value {
    let Some(w) = &b.window else {
        return Value::Null;
    };
    let mut v = json!({
        "tokens": w.tokens,
        "reserve": b.reserve(),
        "reserve_source": match (b.reserve(), w.capped_from) {
            (0, _) => "none".to_string(),
            (_, Some(asked)) => format!(
                "{}, capped at half the window from {}",
                w.reserve_source.as_str(),
                thousands(asked)
            ),
            _ => w.reserve_source.as_str().to_string(),
        },

        "usable": b.usable(),
    });
    if let Some(asked) = w.capped_from {
        v["reserve_capped_from"] = json!(asked);
    }
    match &w.source {
        WindowSource::Override => v["source"] = json!("override"),
        WindowSource::Table { model } => {
            v["source"] = json!("table");
            v["model"] = json!(model);
        }
        WindowSource::Provider {
            model,
            provider,
            fetched_at,
        } => {
            v["source"] = json!("provider");
            v["model"] = json!(model);
            v["provider"] = json!(provider);
            v["fetched_at"] = json!(fetched_at);
        }
    }
    v
}

fn context_json(b: &Budget, events: &Breakdown) -> Value {
    let counted = b.measure == Measure::Context;
    let (system, tools) = if counted {
        (b.overhead.system_chars, b.overhead.tool_chars)
    } else {
        (0, 0)
    };
    // The parts add up to the context: the overhead's tokens (the context
    // less the events') are shared between the system prompt and tools.
    let context = b.context_tokens(events.total_chars());
    let overhead = estimate::apportion(
        &[system, tools],
        context.saturating_sub(events.total_tokens()),
    );
    json!({
        "measure": b.measure.as_str(),
        "tokens": context,
        "system_prompt": overhead[0],
        "tools": overhead[1],
        "events": events.total_tokens(),
        "tools_enabled": b.overhead.tools_enabled,
        "tools_unknown": b.overhead.unknown_tools,
    })
}

/// How the estimate is made, and what `count` measured of it.
fn estimate_json(conv: &Conversation, auto: &crate::core::auto::AutoConfig) -> Value {
    let measured = ops::count::measured(conv).map(|m| {
        json!({
            "ratio": m.ratio(),
            "measured": m.measured,
            "estimated": m.estimated,
            "provider": m.provider,
            "model": m.model,
            "at": m.at,
        })
    });
    json!({
        "method": "characters / 4",
        "trigger": auto.estimate.as_str(),
        "applied": ops::measured_scale(conv, auto),
        "measured": measured,
    })
}

/// The `stats --json` document.
pub fn report(
    conv: &Conversation,
    auto: &AutoConfig,
    window_override: Option<u64>,
    view: View,
) -> Value {
    let merged = conv.merged_config();
    let budget = ops::budget(conv, auto, window_override);
    let p: Projection = projection::of_view(conv, view);
    let raw = estimate::of_raw(&conv.events);
    let projected = estimate::of_projection(&conv.events, &p);
    let system = budget.overhead.system_chars;
    let context = budget.context_tokens(projected.total_chars());
    let usable = budget.usable();
    let saved: std::collections::HashMap<usize, i64> =
        ops::saved_per_compaction(conv, &p, budget.overhead_chars())
            .into_iter()
            .collect();
    let compactions: Vec<Value> = conv
        .compactions()
        .map(|c| match c.parsed {
            Ok(x) => json!({
                "position": c.position + 1,
                "event": c.event,
                "valid": true,
                "source": x.source.as_str(),
                "from_turn": x.from_turn,
                "to_turn": x.to_turn,
                "policies": x.policy_label(),
                "timestamp": timestamp::format(&x.timestamp),
                "tokens_saved": saved.get(&c.position).copied().unwrap_or(0),
                "jp_differs": jp_view::over_difference(conv, x).map(|d| d.describe()),
                "warning": x.oddity(conv.turn_count).map(|o| o.describe()),
            }),
            Err(why) => json!({
                "position": c.position + 1,
                "event": c.event,
                "valid": false,
                "error": why,
            }),
        })
        .collect();
    let threshold =
        |r: f64| json!({"ratio": r, "tokens": usable.map(|w| (w as f64 * r).round() as u64)});
    let context_doc = context_json(&budget, &projected);
    let context_system_tokens = context_doc["system_prompt"].clone();
    json!({
        "conversation": conversation_json(conv),
        "turn_count": conv.turn_count,
        "view": view.as_str(),
        "model": config::model_id(merged).map(|m| m.to_string()),
        "window": window_json(&budget),
        "context": context_doc,
        "raw": breakdown_json(&raw),
        "projected": breakdown_json(&projected),
        // The context's share, so the two figures are one.
        "system_prompt": {"tokens": context_system_tokens, "chars": system},
        "ratio": usable.map(|w| context as f64 / w as f64),
        "thresholds": {
            "mode": auto.mode.as_str(),
            "trigger": threshold(auto.trigger_ratio),
            "soft": threshold(auto.soft_ratio),
            "hard": threshold(auto.hard_ratio),
        },
        "estimate": estimate_json(conv, auto),
        "compactions": compactions,
        "settings": auto.origins,
        "notices": auto.notices,
    })
}

fn lines(conv: &Conversation, r: &Value) -> Vec<String> {
    let n = |v: &Value| v.as_u64().map(thousands).unwrap_or_else(|| "-".into());
    // A 0-based turn of the JSON, as people count it.
    let n1 = |v: &Value| {
        v.as_u64()
            .map_or_else(|| "-".into(), |t| t.saturating_add(1).to_string())
    };
    let mut out = vec![format!(
        "{}  {}  ({})",
        conv.display_id(),
        crate::core::visible::visible_line(conv.title.as_deref().unwrap_or("(untitled)")),
        crate::core::fmt::count(conv.turn_count as u64, "turn")
    )];
    let window = match &r["window"] {
        Value::Null => "unknown (set one with --window)".to_string(),
        w => format!(
            "{} tokens ({}) - reserve {} ({}) = usable {}",
            n(&w["tokens"]),
            match w["source"].as_str() {
                Some("override") => "--window".to_string(),
                Some("provider") => format!(
                    "{} as {}'s models endpoint listed it, {}",
                    w["model"].as_str().unwrap_or("?"),
                    w["provider"].as_str().unwrap_or("?"),
                    w["fetched_at"].as_str().unwrap_or("?")
                ),
                _ => format!(
                    "the table's figure for {}",
                    w["model"].as_str().unwrap_or("?")
                ),
            },
            n(&w["reserve"]),
            w["reserve_source"].as_str().unwrap_or(""),
            n(&w["usable"]),
        ),
    };
    out.push(format!(
        "model: {}   window: {window}",
        r["model"].as_str().unwrap_or("unknown")
    ));
    out.push(String::new());
    out.push(format!("{:<14} {:>10} {:>10}", "", "raw", "projected"));
    for c in Category::ALL {
        let key = c.as_str();
        out.push(format!(
            "{:<14} {:>10} {:>10}",
            c.label(),
            n(&r["raw"]["by_category"][key]),
            n(&r["projected"]["by_category"][key])
        ));
    }
    let (raw_t, proj_t) = (
        r["raw"]["tokens"].as_u64().unwrap_or(0),
        r["projected"]["tokens"].as_u64().unwrap_or(0),
    );
    out.push(format!(
        "{:<14} {:>10} {:>10}  ({})",
        "total",
        thousands(raw_t),
        thousands(proj_t),
        change(raw_t, proj_t)
    ));
    let ctx = &r["context"];
    if ctx["measure"] == "events" {
        out.push(
            "context: the projected events only (context = \"events\", D50's literal estimate)"
                .into(),
        );
    } else {
        out.push(format!(
            "{:<14} {:>10}  (sent with every request)",
            "system prompt",
            n(&ctx["system_prompt"])
        ));
        let unknown = ctx["tools_unknown"].as_array().map_or(0, Vec::len);
        out.push(format!(
            "{:<14} {:>10}  ({} enabled tool definitions{})",
            "tools",
            n(&ctx["tools"]),
            n(&ctx["tools_enabled"]),
            if unknown > 0 {
                format!("; {unknown} MCP schemas unknown, counted by name only")
            } else {
                String::new()
            }
        ));
        out.push(format!(
            "{:<14} {:>10}  (system prompt + tools + projected events)",
            "context",
            n(&ctx["tokens"])
        ));
    }
    out.push(String::new());
    match r["ratio"].as_f64() {
        Some(ratio) => {
            let t = &r["thresholds"];
            out.push(format!(
                "context: {:.1}% of the usable window   soft {:.0}% = {}   hard {:.0}% = {}   single trigger {:.0}% = {}   (mode {})",
                ratio * 100.0,
                t["soft"]["ratio"].as_f64().unwrap_or(0.0) * 100.0,
                n(&t["soft"]["tokens"]),
                t["hard"]["ratio"].as_f64().unwrap_or(0.0) * 100.0,
                n(&t["hard"]["tokens"]),
                t["trigger"]["ratio"].as_f64().unwrap_or(0.0) * 100.0,
                n(&t["trigger"]["tokens"]),
                t["mode"].as_str().unwrap_or("")
            ));
        }
        None => out.push("context: window unknown, so no ratio or thresholds".into()),
    }
    let e = &r["estimate"];
    out.push(match e["measured"].as_object() {
        Some(m) => format!(
            "estimate: characters / 4, measured {:.2}× the estimate ({}, {}){}",
            m["ratio"].as_f64().unwrap_or(1.0),
            m["model"].as_str().unwrap_or("?"),
            m["at"].as_str().unwrap_or("?").get(..10).unwrap_or("?"),
            if e["applied"].is_number() {
                "; the thresholds account for it (estimate = \"measured\")"
            } else {
                ""
            }
        ),
        None => "estimate: characters / 4, not measured (jp-inspect count measures it)".into(),
    });
    let list = r["compactions"].as_array().cloned().unwrap_or_default();
    out.push(String::new());
    if list.is_empty() {
        out.push("no compactions".into());
        return out;
    }
    out.push(format!(
        "{:>3}  {:<7} {:<9} {:<32} {:<27} {:>8}",
        "#", "source", "turns", "policies", "time", "saved"
    ));
    for c in list {
        if c["valid"] == false {
            out.push(format!(
                "{:>3}  INVALID, left out: {}",
                n(&c["position"]),
                c["error"].as_str().unwrap_or("")
            ));
            continue;
        }
        out.push(format!(
            "{:>3}  {:<7} {:<9} {:<32} {:<27} {:>8}",
            n(&c["position"]),
            c["source"].as_str().unwrap_or(""),
            format!("{}..{}", n1(&c["from_turn"]), n1(&c["to_turn"])),
            c["policies"].as_str().unwrap_or(""),
            c["timestamp"].as_str().unwrap_or(""),
            c["tokens_saved"]
                .as_i64()
                .map(crate::core::fmt::signed_thousands)
                .unwrap_or_else(|| "-".into())
        ));
        if let Some(d) = c["jp_differs"].as_str() {
            out.push(format!("     {d}"));
        }
        if let Some(w) = c["warning"].as_str() {
            out.push(format!("     warning: {w}"));
        }
    }
    if let Some(settings) = r["settings"].as_object().filter(|s| !s.is_empty()) {
        out.push(String::new());
        out.push("settings not at their defaults, and where they came from:".into());
        for (key, origin) in settings {
            out.push(format!("  {key}  <-  {}", origin.as_str().unwrap_or("")));
        }
    }
    if r["view"] == View::Jp.as_str() {
        out.push("projected as today's jp does: over bounds ignored (--as-jp)".into());
    }
    out
}
