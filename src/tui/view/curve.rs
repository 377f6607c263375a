//! "As of" mode's context curve: the context every request of the session
//! was really sent, as a ratio of the usable window then, with the soft and
//! hard lines, a mark at each request after which compactions were
//! appended, a bar where the prompt cache broke (a compaction, a new
//! prompt, an entry past its TTL), and the request shown.

use crate::tui::as_of::AsOf;
use crate::tui::state::State;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::{Axis, Chart, Dataset, GraphType};

pub fn draw(frame: &mut Frame, area: Rect, state: &State) {
    let t = &state.theme;
    let Some(a) = &state.as_of else {
        return;
    };
    if area.height < 2 || area.width < 20 || a.points.is_empty() {
        return;
    }
    let curve = &a.curve;
    let n = (a.points.len().max(2) - 1) as f64;
    let top = curve.iter().map(|(_, r)| *r).fold(100.0_f64, f64::max);
    let line = |r: f64| vec![(0.0, r * 100.0), (n, r * 100.0)];
    let (soft, hard) = (
        line(state.settings.config.soft_ratio),
        line(state.settings.config.hard_ratio),
    );
    let compactions = &a.compaction_marks;
    let breaks = &a.cache_breaks;
    let current: Vec<(f64, f64)> = a
        .point()
        .map(|p| (a.current as f64, AsOf::ratio(p)))
        .into_iter()
        .collect();
    let fg = |c: Color| {
        if t.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    };
    let datasets = vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(t.marker(false))
            .data(&soft),
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(t.marker(true))
            .data(&hard),
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(fg(Color::LightGreen))
            .data(curve),
        Dataset::default()
            .marker(Marker::Bar)
            .graph_type(GraphType::Scatter)
            .style(fg(Color::LightRed))
            .data(breaks),
        Dataset::default()
            .marker(Marker::Dot)
            .graph_type(GraphType::Scatter)
            .style(fg(Color::LightMagenta))
            .data(compactions),
        Dataset::default()
            .marker(Marker::Block)
            .graph_type(GraphType::Scatter)
            .style(fg(Color::Yellow))
            .data(&current),
    ];
    let chart = Chart::new(datasets)
        .x_axis(Axis::default().bounds([0.0, n]))
        .y_axis(Axis::default().bounds([0.0, top]).labels(vec![
            Span::styled("0%", t.dim()),
            Span::styled(format!("{top:.0}%"), t.dim()),
        ]));
    frame.render_widget(chart, area);
}
