//! `simulate --svg`: a conversation's runs as a chart, per window each
//! policy's context per request against the usable window, then each
//! policy's overflows and cost per window.

use crate::core::model::conversation::Conversation;
use crate::core::ops::{AutoConfig, Run};

/// The runs of one conversation as a chart: per window, each policy's
/// context per request against the usable window, its firings' thresholds;
/// then each policy's overflows and cost per window.
pub fn chart(conv: &Conversation, config: &AutoConfig, runs: &[&Run]) -> svg::Document {
    use super::{BarChart, Level, LineChart, Series};
    let mut windows: Vec<u64> = runs.iter().map(|r| r.window).collect();
    windows.sort_unstable();
    windows.dedup();
    let pct = |r: f64| r * 100.0;
    let levels = vec![
        Level::at(config.soft_ratio, "soft"),
        Level::at(config.hard_ratio, "hard"),
        Level::at(config.trigger_ratio, "D50"),
    ];
    let lines: Vec<LineChart> = windows
        .iter()
        .map(|&w| {
            let of_w: Vec<&&Run> = runs.iter().filter(|r| r.window == w).collect();
            let usable = of_w.first().map_or(w, |r| r.usable);
            LineChart {
                title: format!("window {} (usable {})", crate::core::fmt::human_tokens(w), crate::core::fmt::human_tokens(usable)),
                subtitle: "context per request, replayed from turn 1 with each policy (the conversation's own compactions ignored)".into(),
                x_label: "request".into(),
                y_label: "context, % of the usable window".into(),
                series: of_w
                    .iter()
                    .map(|r| Series {
                        name: r.policy.as_str().to_string(),
                        values: r
                            .points
                            .iter()
                            .map(|p| p.context as f64 / r.usable.max(1) as f64 * 100.0)
                            .collect(),
                    })
                    .collect(),
                levels: levels.clone(),
                marks: Vec::new(),
                overflow_above: Some(100.0),
            }
        })
        .collect();
    let bars = |title: &str, y_label: &str, value: &dyn Fn(&Run) -> f64| BarChart {
        title: title.into(),
        y_label: y_label.into(),
        groups: windows
            .iter()
            .map(|&w| {
                (
                    crate::core::fmt::human_tokens(w),
                    runs.iter()
                        .filter(|r| r.window == w)
                        .map(|r| (r.policy.as_str().to_string(), value(r)))
                        .collect(),
                )
            })
            .collect(),
    };
    let bars = [
        bars(
            "requests over the usable window, per policy",
            "overflowing requests",
            &|r| r.overflows as f64,
        ),
        // What the provider bills, with jp's prompt cache, where the runs
        // were billed; else the tokens sent.
        match runs.iter().all(|r| r.billed.is_some()).then(|| {
            runs.iter()
                .filter_map(|r| r.billed.as_ref().map(|b| b.unit))
                .next()
        }) {
            Some(Some(unit))
                if runs
                    .iter()
                    .all(|r| r.billed.as_ref().is_some_and(|b| b.unit == unit)) =>
            {
                bars(
                    &format!(
                        "billed per policy: with jp's prompt cache, summarizer calls included{}",
                        refused_said(runs)
                    ),
                    match unit {
                        crate::core::ops::Unit::Usd => "US dollars",
                        crate::core::ops::Unit::InputTokens => "input-token equivalents",
                    },
                    &|r| r.billed.as_ref().map_or(0.0, |b| b.total),
                )
            }
            _ => bars(
                "cost per policy: input tokens sent, summarizer calls included (no prompt cache)",
                "input tokens",
                &|r| r.cost() as f64,
            ),
        },
    ];
    let super::Heading { title, model, id } = super::heading(conv);
    super::document(
        &format!("{title}: automatic compaction simulated"),
        &format!(
            "{id} · {model} · {} turns · staged soft/hard {:.0}%/{:.0}%, single (D50) trigger {:.0}% · D50's estimate (characters / 4)",
            conv.turn_count,
            pct(config.soft_ratio),
            pct(config.hard_ratio),
            pct(config.trigger_ratio)
        ),
        &lines,
        &bars,
    )
}

/// The runs whose billed figure leaves out refused requests, said beside
/// the chart that compares them: such a run is no cheaper, it never got
/// through.
fn refused_said(runs: &[&Run]) -> String {
    let said: Vec<String> = runs
        .iter()
        .filter_map(|r| {
            let n = r.billed.map_or(0, |b| b.refused);
            (n > 0).then(|| {
                format!(
                    "{} at {}: {n} refused",
                    r.policy.as_str(),
                    crate::core::fmt::human_tokens(r.window)
                )
            })
        })
        .collect();
    if said.is_empty() {
        String::new()
    } else {
        format!(
            " ({}: billed nothing for those, so not cheaper)",
            said.join(", ")
        )
    }
}
