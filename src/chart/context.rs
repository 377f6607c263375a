//! The real context curve as a chart (`history --svg`, the report): each
//! request's context against the usable window, the thresholds of the mode
//! in force, a mark where compactions were appended.

/// The context curve as a chart: percent of the usable window per request,
/// the thresholds of the mode in force, a mark at each compaction.
pub fn chart(
    conv: &crate::core::model::conversation::Conversation,
    heading: &super::Heading,
    config: &crate::core::ops::AutoConfig,
    budget: &crate::core::ops::Budget,
    points: &[crate::core::ops::HistoryPoint],
) -> anyhow::Result<svg::Document> {
    use super::{Level, LineChart, Mark, Series};
    use crate::core::fmt::human_tokens;
    let super::Heading { title, model, id } = heading;
    let Some(window) = budget.window.as_ref() else {
        anyhow::bail!(
            "{id}: the model's window is unknown, so there is no curve against it; give --window"
        );
    };
    let values: Vec<f64> = points
        .iter()
        .map(|p| {
            p.usable
                .map_or(0.0, |u| p.context as f64 / u as f64 * 100.0)
        })
        .collect();
    let all: Vec<_> = conv.compactions().collect();
    let marks = points
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.compactions_since.is_empty())
        .map(|(k, p)| Mark {
            x: k + 1,
            label: p
                .compactions_since
                .iter()
                .map(|&c| label(&all, c))
                .collect::<Vec<_>>()
                .join(", "),
        })
        .collect();
    let levels = match config.mode {
        crate::core::ops::Mode::Staged => vec![
            Level::at(config.soft_ratio, "soft"),
            Level::at(config.hard_ratio, "hard"),
        ],
        crate::core::ops::Mode::Single => vec![Level::at(config.trigger_ratio, "D50 trigger")],
    };
    let subtitle = format!(
        "{id} · {model} · window {} − {} reserved{} = usable {} · D50's estimate (characters / 4)",
        human_tokens(window.tokens),
        human_tokens(window.reserve),
        window
            .capped_note()
            .map(|n| format!(" ({n})"))
            .unwrap_or_default(),
        human_tokens(window.usable()),
    );
    let line = LineChart {
        title: format!("Context per request ({} requests)", points.len()),
        subtitle: "what each request was sent: system prompt, tools and the projected events, with only the compactions appended before it".into(),
        x_label: "request".into(),
        y_label: "context, % of the usable window".into(),
        series: vec![Series { name: "context".into(), values }],
        levels,
        marks,
        overflow_above: Some(100.0),
    };
    Ok(super::document(
        &format!("{title}: the real context curve"),
        &subtitle,
        &[line],
        &[],
    ))
}

/// `#2 auto 6..8`: compaction `c` (0-based) of `all`, as both the table and
/// the chart name it.
pub fn label(all: &[crate::core::model::conversation::CompactionRef<'_>], c: usize) -> String {
    match all.get(c).and_then(|c| c.parsed.ok()) {
        Some(x) => format!(
            "#{} {} {}..{}",
            c + 1,
            x.source.as_str(),
            x.from_turn + 1,
            x.to_turn.saturating_add(1)
        ),
        None => format!("#{} (invalid)", c + 1),
    }
}
