//! The simulation view: the context ratio turn by turn under none / single /
//! staged, with the firings marked, and the metrics table.

use crate::core::fmt::human_tokens;
use crate::core::ops::{RUN_METRICS_HEADER, RUN_METRICS_HEADER_NARROW};
use crate::core::ops::{Run, Strategy};
use crate::tui::panels::Simulation;
use crate::tui::state::State;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Clear, Dataset, GraphType, Paragraph};

pub fn draw(frame: &mut Frame, area: Rect, sim: &Simulation, state: &State) {
    let t = &state.theme;
    let window = sim.windows[sim.selected];
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.accent())
        .title(Span::styled(
            super::fit::title(
                format!(
                    " simulation · window {} (←/→: {}) · replayed from turn 1, existing compactions ignored ",
                    human_tokens(window),
                    sim.windows
                        .iter()
                        .map(|w| human_tokens(*w))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                area.width,
            ),
            t.title(),
        ));
    frame.render_widget(Clear, area);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let runs: Vec<&Run> = match &sim.runs {
        None => {
            frame.render_widget(
                Paragraph::new(Span::styled(" replaying the conversation…", t.dim())),
                inner,
            );
            return;
        }
        Some(Err(e)) => {
            frame.render_widget(
                Paragraph::new(Span::styled(format!(" {e}"), t.error())),
                inner,
            );
            return;
        }
        Some(Ok(runs)) => runs.iter().filter(|r| r.window == window).collect(),
    };
    let Some(m) = &state.inspection else {
        return;
    };
    let turns = m.conv.turn_count.max(1);
    let table_h = 3 + runs.len() as u16 + 1;
    let chart_area = Rect::new(
        inner.x,
        inner.y,
        inner.width,
        inner.height.saturating_sub(table_h),
    );
    let table_area = Rect::new(
        inner.x,
        inner.y + chart_area.height,
        inner.width,
        inner.height - chart_area.height,
    );

    chart(frame, chart_area, &runs, turns, state);

    table(frame, table_area, &runs, state);
}

/// A policy's colour (none without colour: the markers tell them apart).
fn policy_style(state: &State, p: Strategy) -> Style {
    if !state.theme.color {
        return Style::default();
    }
    Style::default().fg(match p {
        Strategy::None => Color::Gray,
        Strategy::Single => Color::LightBlue,
        Strategy::Staged => Color::LightMagenta,
        Strategy::StagedBackstop => Color::LightGreen,
    })
}

/// Each policy's context ratio by turn, in percent.
fn series(runs: &[&Run], turns: usize) -> Vec<(Strategy, Vec<(f64, f64)>)> {
    runs.iter()
        .map(|r| {
            let pts = r
                .ratio_by_turn(turns)
                .into_iter()
                .enumerate()
                .filter_map(|(i, v)| v.map(|v| ((i + 1) as f64, v * 100.0)))
                .collect();
            (r.policy, pts)
        })
        .collect()
}

/// Each policy's firings, placed on its own line.
fn firings(runs: &[&Run], turns: usize) -> Vec<(Strategy, Vec<(f64, f64)>)> {
    runs.iter()
        .map(|r| {
            let by_turn = r.ratio_by_turn(turns);
            let pts = r
                .firings
                .iter()
                .map(|f| {
                    let y = by_turn.get(f.after_turn).copied().flatten().unwrap_or(0.0);
                    ((f.after_turn + 1) as f64, y * 100.0)
                })
                .collect();
            (r.policy, pts)
        })
        .collect()
}

/// The context ratio turn by turn under each policy, the thresholds as
/// lines and the firings marked on their policy's line.
fn chart(frame: &mut Frame, area: Rect, runs: &[&Run], turns: usize, state: &State) {
    let t = &state.theme;
    let series = series(runs, turns);
    let peak = runs.iter().map(|r| r.peak_ratio).fold(1.0_f64, f64::max) * 100.0;
    let y_max = (peak * 1.05).max(100.0);
    let x_max = turns as f64 + 0.5;
    let line_at = |y: f64| vec![(0.5, y), (x_max, y)];
    let soft = line_at(state.settings.config.soft_ratio * 100.0);
    let hard = line_at(state.settings.config.hard_ratio * 100.0);
    let trig = line_at(state.settings.config.trigger_ratio * 100.0);
    let full = line_at(100.0);
    let firings = firings(runs, turns);
    let color = |p: Strategy| policy_style(state, p);
    // Thin lines in colour; without colour the markers tell them apart.
    let marker = |p: Strategy| match (t.color, p) {
        (true, _) => Marker::Braille,
        (false, Strategy::None) => Marker::Dot,
        (false, Strategy::Single) => Marker::Braille,
        (false, Strategy::Staged) => Marker::HalfBlock,
        (false, Strategy::StagedBackstop) => Marker::Block,
    };
    // Thresholds as thin unnamed lines; the legend names only the policies
    // (the thresholds are spelled out under the chart).
    let rule = |data| {
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .data(data)
    };
    let mut datasets = vec![
        rule(&full).style(t.dim()),
        rule(&soft).style(t.marker(false)),
        rule(&hard).style(t.marker(true)),
        rule(&trig).style(t.dim()),
    ];
    for (p, pts) in &series {
        datasets.push(
            Dataset::default()
                .name(p.as_str())
                .marker(marker(*p))
                .graph_type(GraphType::Line)
                .style(color(*p))
                .data(pts),
        );
    }
    for (p, pts) in &firings {
        if pts.is_empty() {
            continue;
        }
        datasets.push(
            Dataset::default()
                .marker(Marker::Block)
                .graph_type(GraphType::Scatter)
                .style(color(*p))
                .data(pts),
        );
    }
    let x_labels: Vec<Span> = [1, turns.div_ceil(2), turns]
        .iter()
        .map(|v| Span::raw(format!("turn {v}")))
        .collect();
    let y_labels: Vec<Span> = [0.0, y_max / 2.0, y_max]
        .iter()
        .map(|v| Span::raw(format!("{v:.0}%")))
        .collect();
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .bounds([0.5, x_max])
                .labels(x_labels)
                .style(t.dim()),
        )
        .y_axis(
            Axis::default()
                .title(Span::styled("context / usable window", t.dim()))
                .bounds([0.0, y_max])
                .labels(y_labels)
                .style(t.dim()),
        )
        .hidden_legend_constraints((
            ratatui::layout::Constraint::Ratio(1, 2),
            ratatui::layout::Constraint::Ratio(1, 2),
        ));
    frame.render_widget(chart, area);
}

/// Each policy's metrics and firings, and what the lines and columns mean.
fn table(frame: &mut Frame, area: Rect, runs: &[&Run], state: &State) {
    let t = &state.theme;
    let color = |p: Strategy| policy_style(state, p);
    // Narrow: fewer columns, "billed" kept.
    let narrow = (area.width as usize) < 17 + RUN_METRICS_HEADER.len() + 10;
    let header = if narrow {
        RUN_METRICS_HEADER_NARROW
    } else {
        RUN_METRICS_HEADER
    };
    let mut lines = vec![Line::from(Span::styled(
        format!(
            " {:<15} {header}  fired (after turn: e/s/r range)",
            "policy"
        ),
        t.title(),
    ))];
    for r in runs {
        let fired: Vec<String> = r
            .firings
            .iter()
            .map(|f| {
                format!(
                    "{}:{} {}",
                    f.after_turn + 1,
                    &f.kind.as_str()[..1],
                    f.range.human()
                )
            })
            .collect();
        lines.push(Line::from(vec![
            Span::styled(format!(" {:<15}", r.policy.as_str()), color(r.policy)),
            Span::raw(format!(
                " {}  {}",
                if narrow {
                    r.metrics_row_narrow()
                } else {
                    r.metrics_row()
                },
                fired.join(", ")
            )),
        ]));
    }
    // Said in full where it fits, cut with an ellipsis where it doesn't.
    let legend = Line::from(Span::styled(
        format!(
            " lines: usable window 100%, hard {:.0}% and soft {:.0}% (staged), D50 trigger {:.0}% (single); \
             █ marks a firing · over: refused by the API, billed nothing · backstop: elides \
             inside turns, a proposal jp cannot store yet · cost = input + summarizer input + 5 × \
             summarizer output; summaries by digest (free)",
            state.settings.config.hard_ratio * 100.0,
            state.settings.config.soft_ratio * 100.0,
            state.settings.config.trigger_ratio * 100.0
        ),
        t.dim(),
    ));
    lines.push(super::fit::fit(legend, area.width as usize));
    frame.render_widget(Paragraph::new(lines), area);
}
