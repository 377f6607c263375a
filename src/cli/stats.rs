//! `stats`: raw and projected token figures, the window, the thresholds and
//! the compactions with what each one saves.

use super::Context;
use super::args::StatsArgs;
use super::output::{
    change, conversation_json, print_json, print_lines, print_warnings, thousands,
};
use crate::core::auto::{self, AutoConfig};
use crate::core::compact::estimate::{self, Breakdown, Category};
use crate::core::compact::projection::{self, Projection};
use crate::core::compact::window::{self, Window, WindowSource};
use crate::core::ops;
use crate::core::{Conversation, model::config, model::timestamp};
use serde_json::{Value, json};

pub fn run(ctx: &Context, args: StatsArgs) -> anyhow::Result<()> {
    let conv = ctx.load(&args.conv)?;
    print_warnings(&conv);
    let auto = auto::config_for(&conv, None)?;
    let report = report(&conv, &auto, args.window.window);
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

fn window_json(w: &Option<Window>) -> Value {
    match w {
        None => Value::Null,
        Some(w) => match &w.source {
            WindowSource::Override => json!({"tokens": w.tokens, "source": "override"}),
            WindowSource::Table { model } => {
                json!({"tokens": w.tokens, "source": "table", "model": model})
            }
        },
    }
}

/// The `stats --json` document.
pub fn report(conv: &Conversation, auto: &AutoConfig, window_override: Option<u64>) -> Value {
    let merged = config::merged(conv, None);
    let window = window::for_config(&merged, window_override);
    let p: Projection = projection::of(conv);
    let raw = estimate::of_raw(&conv.events);
    let projected = estimate::of_projection(&conv.events, &p);
    let system = estimate::system_prompt(conv).chars();
    let full = projected.total_tokens();
    let saved: std::collections::HashMap<usize, u64> =
        ops::saved_per_compaction(conv, &p).into_iter().collect();
    let compactions: Vec<Value> = conv
        .compactions()
        .map(|c| match c.parsed {
            Ok(x) => json!({
                "position": c.position + 1,
                "event": c.event,
                "valid": true,
                "source": x.source.as_str(),
                "range": [x.from_turn + 1, x.to_turn + 1],
                "from_turn": x.from_turn,
                "to_turn": x.to_turn,
                "policies": x.policy_label(),
                "timestamp": timestamp::format(&x.timestamp),
                "tokens_saved": saved.get(&c.position).copied().unwrap_or(0),
            }),
            Err(why) => json!({
                "position": c.position + 1,
                "event": c.event,
                "valid": false,
                "error": why,
            }),
        })
        .collect();
    let threshold = |r: f64| json!({"ratio": r, "tokens": window.as_ref().map(|w| (w.tokens as f64 * r).round() as u64)});
    json!({
        "conversation": conversation_json(conv),
        "turn_count": conv.turn_count,
        "model": config::model_id(&merged).map(|m| m.to_string()),
        "window": window_json(&window),
        "raw": breakdown_json(&raw),
        "projected": breakdown_json(&projected),
        "system_prompt": {"tokens": estimate::tokens(system), "chars": system},
        "ratio": window.as_ref().map(|w| full as f64 / w.tokens as f64),
        "thresholds": {
            "mode": auto.mode.as_str(),
            "trigger": threshold(auto.trigger_ratio),
            "soft": threshold(auto.soft_ratio),
            "hard": threshold(auto.hard_ratio),
        },
        "compactions": compactions,
    })
}

fn lines(conv: &Conversation, r: &Value) -> Vec<String> {
    let n = |v: &Value| v.as_u64().map(thousands).unwrap_or_else(|| "-".into());
    let mut out = vec![format!(
        "{}  {}  ({} turns)",
        conv.display_id(),
        conv.title.as_deref().unwrap_or("(untitled)"),
        conv.turn_count
    )];
    let window = match &r["window"] {
        Value::Null => "unknown (set one with --window)".to_string(),
        w => format!(
            "{} tokens ({})",
            n(&w["tokens"]),
            match w["source"].as_str() {
                Some("override") => "--window".to_string(),
                _ => format!("known window of {}", w["model"].as_str().unwrap_or("?")),
            }
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
    out.push(format!(
        "{:<14} {:>10}  (fixed overhead of every request)",
        "system prompt",
        n(&r["system_prompt"]["tokens"])
    ));
    out.push(String::new());
    match r["ratio"].as_f64() {
        Some(ratio) => {
            let t = &r["thresholds"];
            out.push(format!(
                "context: {:.1}% of the window   soft {:.0}% = {}   hard {:.0}% = {}   single trigger {:.0}% = {}   (mode {})",
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
            format!("{}..{}", c["range"][0], c["range"][1]),
            c["policies"].as_str().unwrap_or(""),
            c["timestamp"].as_str().unwrap_or(""),
            n(&c["tokens_saved"])
        ));
    }
    out
}
