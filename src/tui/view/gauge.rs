//! The context gauge: what a request carries (the system prompt and the
//! tools as their own segments, then the projected events) against the
//! usable window, with the soft and hard markers (or D50's single trigger),
//! the before → after delta of a preview, and the breakdown by category.

use crate::core::fmt::human_tokens;
use crate::core::fmt::{change, thousands};
use crate::core::ops::Category;
use crate::core::ops::Mode;
use crate::core::ops::stats::{ContextParts, Thresholds};
use crate::tui::inspection::Inspection;
use crate::tui::state::State;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

const LABEL: &str = " context ";

/// The narrowest bar whose markers' labels are read at a glance.
const MIN_BAR: usize = 30;

pub fn draw(frame: &mut Frame, area: Rect, state: &State) {
    let t = &state.theme;
    let Some(m) = &state.inspection else {
        return;
    };
    let Some(budget) = state.budget() else {
        return;
    };
    // "As of" a request: what it was sent, against the window then.
    let point = state.as_of.as_ref().and_then(|a| a.point());
    let parts = ContextParts::of(&budget, &m.estimate.breakdown);
    let after = match point {
        Some(p) => p.context,
        None => parts.tokens,
    };
    let before = m
        .before
        .as_ref()
        .map(|b| budget.context_tokens(b.breakdown.total_chars()));
    let figure = match before {
        Some(b) => format!(
            " {} → {} tok ({})",
            thousands(b),
            thousands(after),
            change(b, after)
        ),
        None => format!(" {} tok", thousands(after)),
    };
    let mut lines: Vec<Line> = Vec::new();
    let mut marker_line: Option<Line> = None;
    match point.map_or(budget.usable(), |p| p.usable) {
        None => {
            lines.push(Line::from(vec![
                Span::styled(LABEL, t.title()),
                Span::raw(figure.trim_start().to_string()),
                Span::styled(
                    " · window unknown for this model: press w to set one",
                    t.error(),
                ),
            ]));
        }
        Some(usable) => {
            let gauge = Gauge {
                usable,
                after,
                before,
                parts: &parts,
                figure: &figure,
            };
            let (bar, labels) = bar(state, area.width as usize, &gauge);
            lines.push(bar);
            marker_line = Some(labels);
        }
    }
    // The long labels when they fit, else the short ones, then an ellipsis.
    let long = breakdown(state, m, &budget, false);
    let breakdown = if long.width() <= area.width as usize {
        long
    } else {
        breakdown(state, m, &budget, true)
    };
    if area.height >= 3 {
        lines.push(marker_line.unwrap_or_default());
    }
    lines.push(super::fit::fit(breakdown, area.width as usize));
    frame.render_widget(Paragraph::new(lines), area);
}

/// What the bar shows against a known window.
struct Gauge<'a> {
    usable: u64,
    /// The context now (with the preview, or as of a request).
    after: u64,
    /// The context before the preview.
    before: Option<u64>,
    parts: &'a ContextParts,
    /// The figures said after the bar, at full precision.
    figure: &'a str,
}

/// A marker on the bar: where, its label, and whether it is the last.
type Marker = (f64, String, bool);

/// The bar with its figures, and the line of marker labels under it.
fn bar(state: &State, width: usize, g: &Gauge<'_>) -> (Line<'static>, Line<'static>) {
    let t = &state.theme;
    let window = g.usable as f64;
    let ratio = g.after as f64 / window;
    let ratio_before = g.before.map(|b| b as f64 / window);
    let thresholds = Thresholds::of(&state.settings.config, Some(g.usable));
    let named = thresholds.markers();
    // Each label says how far the context is from it: what is left before
    // the next compaction, as Claude Code's "N% until auto-compact" does.
    let headroom = thresholds.headroom(g.after, g.usable);
    let markers: Vec<Marker> = named
        .iter()
        .zip(&headroom)
        .enumerate()
        .map(|(k, ((name, r), h))| {
            (
                *r,
                format!("{:.0}% {name} {}", r * 100.0, h.short()),
                k + 1 == named.len(),
            )
        })
        .collect();
    let marks: Vec<f64> = named.iter().map(|(_, r)| *r).collect();
    let label_w = LABEL.chars().count();
    // The figures after the bar, as they read with `before` (a preview).
    // `delta`: the change as written, or a stand-in of the widest one.
    let text_for = |before: Option<u64>, delta: Option<&str>| {
        let ratio_before = before.map(|b| b as f64 / window);
        let shares = |d| shares(ratio_before, ratio, &marks, g.usable, d);
        let delta = |b| delta.map_or_else(|| change(b, g.after), str::to_string);
        let figure = match before {
            Some(b) => format!(
                " {} → {} tok ({})",
                thousands(b),
                thousands(g.after),
                delta(b)
            ),
            None => g.figure.to_string(),
        };
        let full = format!("{figure}{}", shares(1));
        // The bar needs room for its markers' labels: narrow, the figures
        // are rounded (thousands, whole percents) to give it.
        match before {
            Some(b) if width < label_w + full.chars().count() + 2 + MIN_BAR => {
                let tokens = format!("{} → {}", human_tokens(b), human_tokens(g.after));
                // Whole percents could read 84.9 % as 84 %: one decimal
                // stays; the tokens are rounded instead, and the window
                // (in the header already) is left out.
                let shares = shares(1);
                let shares = shares
                    .rsplit_once(" of ")
                    .map_or(shares.as_str(), |(s, _)| s);
                format!(" {tokens} ({}){shares}", delta(b))
            }
            _ => full,
        }
    };
    let text = text_for(g.before, None);
    // The bar keeps the room a preview's figures take, preview or not, so
    // its scale and its markers hold still as a preview comes and goes.
    let room = text.chars().count().max(
        text_for(Some(g.before.unwrap_or(g.after)), Some("-99.9%"))
            .chars()
            .count(),
    );
    let bar_w = width.saturating_sub(label_w + room + 2).max(10);
    let zone = match thresholds.mode {
        Mode::Staged => t.zone(ratio, thresholds.soft.ratio, thresholds.hard.ratio),
        Mode::Single => t.zone(ratio, thresholds.trigger.ratio, thresholds.trigger.ratio),
    };
    let marker_cols: Vec<usize> = markers
        .iter()
        .map(|(r, _, _)| ((r * bar_w as f64).round() as usize).min(bar_w - 1))
        .collect();
    let mut spans = vec![Span::styled(LABEL, t.title()), Span::styled("▕", t.dim())];
    let system_end = g.parts.system_prompt as f64 / window;
    let segments = Segments {
        system_end,
        tools_end: system_end + g.parts.tools as f64 / window,
        ratio,
        ratio_before,
        zone,
    };
    for c in 0..bar_w {
        spans.push(match marker_cols.iter().position(|&mc| mc == c) {
            Some(k) => Span::styled("┃", t.marker(markers[k].2)),
            None => segments.cell(state, (c as f64 + 0.5) / bar_w as f64),
        });
    }
    spans.push(Span::styled(if ratio > 1.0 { "▶" } else { "▏" }, zone));
    spans.push(Span::raw(text));
    let row = marker_labels(
        &markers,
        &marker_cols,
        label_w,
        width.max(label_w + bar_w + 2),
    );
    let labels = Line::from(Span::styled(row.into_iter().collect::<String>(), t.dim()));
    (Line::from(spans), labels)
}

/// Where the bar's segments end, as shares of the window.
struct Segments {
    system_end: f64,
    tools_end: f64,
    ratio: f64,
    ratio_before: Option<f64>,
    zone: ratatui::style::Style,
}

impl Segments {
    /// The cell whose middle is at `at` of the window.
    fn cell(&self, state: &State, at: f64) -> Span<'static> {
        let t = &state.theme;
        if at < self.system_end.min(self.ratio) {
            Span::styled("█", t.system_prompt())
        } else if at < self.tools_end.min(self.ratio) {
            Span::styled("█", t.tools())
        } else if at < self.ratio {
            Span::styled("█", self.zone)
        } else if self.ratio_before.is_some_and(|rb| at < rb) {
            // What the preview cuts.
            Span::styled("▒", t.dim())
        } else {
            Span::styled("░", t.dim())
        }
    }
}

/// The line under the bar: each marker's label from its column, stopped a
/// space short of the next one's (the percentage alone when the whole
/// label doesn't fit).
fn marker_labels(
    markers: &[Marker],
    marker_cols: &[usize],
    label_w: usize,
    width: usize,
) -> Vec<char> {
    let mut row: Vec<char> = vec![' '; width];
    for (k, (_, label, _)) in markers.iter().enumerate() {
        let start = label_w + 1 + marker_cols[k];
        let room = marker_cols.get(k + 1).map_or(usize::MAX, |&next| {
            (label_w + 1 + next).saturating_sub(start + 1)
        });
        let words: Vec<&str> = label.split(' ').collect();
        let named = words[..words.len().min(2)].join(" ");
        let percent = words.first().copied().unwrap_or_default();
        let label = [
            format!("└{label}"),
            format!("└{named}"),
            format!("└{percent}"),
        ]
        .into_iter()
        .find(|l| l.chars().count() <= room)
        .unwrap_or_default();
        for (j, ch) in label.chars().enumerate() {
            if let Some(cell) = row.get_mut(start + j) {
                *cell = ch;
            }
        }
    }
    row
}

/// The tokens line: the projected events by category, what every request
/// carries besides, the reserve, the raw stream and a measurement.
fn breakdown(
    state: &State,
    m: &Inspection,
    budget: &crate::core::ops::Budget,
    short: bool,
) -> Line<'static> {
    let t = &state.theme;
    let b = &m.estimate.breakdown;
    let mut parts: Vec<Span> = vec![Span::styled(" ", t.dim())];
    for (i, c) in Category::ALL.iter().enumerate() {
        if i > 0 {
            parts.push(Span::styled(" · ", t.dim()));
        }
        let label = if short { short_label(*c) } else { c.label() };
        parts.push(Span::styled(format!("{label} "), t.dim()));
        parts.push(Span::raw(human_tokens(b.tokens(*c))));
    }
    if budget.overhead_chars() > 0 {
        parts.push(Span::styled(" │ ", t.dim()));
        parts.push(Span::styled(
            if short { "prompt " } else { "system prompt " },
            t.system_prompt(),
        ));
        parts.push(Span::raw(human_tokens(m.estimate.system_tokens())));
        parts.push(Span::styled(" · ", t.dim()));
        parts.push(Span::styled("tools ", t.tools()));
        parts.push(Span::raw(human_tokens(m.estimate.tool_tokens())));
        if !budget.overhead.unknown_tools.is_empty() {
            parts.push(Span::styled(
                format!(" (+{} unknown)", budget.overhead.unknown_tools.len()),
                t.dim(),
            ));
        }
    } else {
        parts.push(Span::styled(
            if short {
                " │ events only"
            } else {
                " │ events only (D50)"
            },
            t.dim(),
        ));
    }
    if budget.reserve() > 0 {
        parts.push(Span::styled(
            format!(" │ reserve {}", human_tokens(budget.reserve())),
            t.dim(),
        ));
    }
    parts.push(Span::styled(
        format!(" │ raw {}", human_tokens(m.raw_tokens)),
        t.dim(),
    ));
    // How far the estimate is off here, once `count` has measured it.
    if let Some(measured) = &state.measured {
        parts.push(Span::styled(
            if short {
                format!(" │ measured {:.2}×", measured.ratio())
            } else {
                format!(
                    " │ measured {:.2}× the estimate, {}",
                    measured.ratio(),
                    measured.at.get(..10).unwrap_or(&measured.at)
                )
            },
            t.dim(),
        ));
    }
    Line::from(parts)
}

fn short_label(c: Category) -> &'static str {
    match c {
        Category::User => "user",
        Category::Assistant => "asst",
        Category::Reasoning => "think",
        Category::ToolRequests => "calls",
        Category::ToolResponses => "results",
        Category::Summaries => "summ",
    }
}

/// The context as shares of the usable window (before → after, when a
/// preview is open), each agreeing with the markers `marks` beside it.
fn shares(before: Option<f64>, after: f64, marks: &[f64], usable: u64, decimals: usize) -> String {
    let p = |r: f64| crate::core::fmt::percent_beside(r, marks, decimals);
    match before {
        Some(b) => format!(" {}% → {}% of {}", p(b), p(after), human_tokens(usable)),
        None => format!(" {}% of {}", p(after), human_tokens(usable)),
    }
}
