//! Views over the panes: an event's full text, the help, confirmations.

use crate::core::fmt::{change, thousands};
use crate::keymap::Scope;
use crate::tui::detail_layout;
use crate::tui::panels::Confirm;
use crate::tui::panels::Detail;
use crate::tui::state::State;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

pub fn detail(frame: &mut Frame, area: Rect, d: &Detail, state: &State) {
    let t = &state.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.accent())
        .title(Span::styled(
            super::fit::title(
                format!(
                    " {} · {} ",
                    d.title,
                    // Not every event was encoded: "readable" is true of all.
                    match (d.show_raw, d.wrap) {
                        (true, true) => "as stored (r: readable) · wrapped (w: unwrap)",
                        (true, false) => "as stored (r: readable) · h/l sideways (w: wrap)",
                        (false, true) => "readable (r: as stored) · wrapped (w: unwrap)",
                        (false, false) => "readable (r: as stored) · h/l sideways (w: wrap)",
                    }
                ),
                area.width,
            ),
            t.title(),
        ));
    let inner = block.inner(area);
    frame.render_widget(Clear, area);
    frame.render_widget(block, area);
    let mut lines: Vec<Line> = detail_layout::header(d, inner.width as usize)
        .into_iter()
        .map(|l| l.style(t.dim()))
        .collect();
    lines.push(Line::from(Span::styled(
        "─".repeat(inner.width as usize),
        t.dim(),
    )));
    let room = (inner.height as usize).saturating_sub(lines.len());
    let needle = d.needle.as_deref().map(crate::core::ops::Needle::new);
    lines.extend(
        detail_layout::visible(d, inner.width as usize, room)
            .into_iter()
            .map(|l| match &needle {
                Some(n) => detail_layout::mark(l, n, t.matched()),
                None => l,
            }),
    );
    if let Some(position) = detail_layout::position(d, state) {
        let shown = format!(" {position} ");
        let w = shown.chars().count() as u16;
        frame.render_widget(
            Paragraph::new(Span::styled(shown, t.dim())),
            Rect::new(
                area.x + area.width.saturating_sub(w + 2),
                area.y + area.height - 1,
                w,
                1,
            ),
        );
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// Where the help box sits in `area`, and its text inside the borders.
fn help_boxes(area: Rect) -> (Rect, Rect) {
    let box_area = centered(area, 104, area.height.saturating_sub(2));
    let inner = Block::default().borders(Borders::ALL).inner(box_area);
    (box_area, inner)
}

/// The farthest the help scrolls on a `width` × `height` screen: shared by
/// drawing and by the keys, so scrolling past the end moves nothing.
/// The rows of help one screen shows.
pub fn help_page(state: &State) -> usize {
    let (_, inner) = help_boxes(Rect::new(0, 0, state.width, state.height));
    inner.height as usize
}

pub fn help_max_scroll(state: &State) -> usize {
    let (_, inner) = help_boxes(Rect::new(0, 0, state.width, state.height));
    let w = inner.width.max(1) as usize;
    let wrapped: usize = help_lines(state, w)
        .iter()
        .map(|l| l.width().max(1).div_ceil(w))
        .sum();
    wrapped.saturating_sub(inner.height as usize)
}

pub fn help(frame: &mut Frame, area: Rect, scroll: usize, state: &State) {
    let t = &state.theme;
    let (box_area, inner) = help_boxes(area);
    let lines = help_lines(state, inner.width as usize);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.accent())
        .title(Span::styled(" keys ", t.title()));
    frame.render_widget(Clear, box_area);
    frame.render_widget(block, box_area);
    // Lines wrap rather than being cut at narrow widths: `?` shows all of
    // it at any size, scrolled.
    let max = help_max_scroll(state);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll.min(max) as u16, 0)),
        inner,
    );
}

/// `line` in lines of at most `width` columns, each continuation indented
/// two columns past the line's own indent, so a wrapped line still reads
/// as part of its entry.
fn hanging(line: &str, width: usize) -> impl Iterator<Item = String> {
    let indent = line.len() - line.trim_start().len();
    let room = width.saturating_sub(indent + 2).max(20);
    super::fit::wrap_words(line.trim_start(), room)
        .into_iter()
        .enumerate()
        .map(move |(k, part)| {
            let pad = if k == 0 { indent } else { indent + 2 };
            format!("{}{part}", " ".repeat(pad))
        })
}

/// The help's lines for a box `inner_width` wide: each binding's text in
/// a column of its own, wrapped under itself.
fn help_lines(state: &State, inner_width: usize) -> Vec<Line<'static>> {
    let t = &state.theme;
    let mut lines = Vec::new();
    // A question's and the help's own keys are shown where they apply.
    let sections = crate::keymap::SECTIONS
        .into_iter()
        .filter(|(s, _)| !matches!(s, Scope::Confirm | Scope::Help));
    // The key column is as wide as the longest key list, within reason.
    let width = crate::keymap::bindings()
        .iter()
        .map(|b| b.keys.join(", ").chars().count())
        .max()
        .unwrap_or(0)
        .min(24);
    let room = inner_width.saturating_sub(width + 4).max(20);
    for (scope, title) in sections {
        lines.push(Line::from(Span::styled(title, t.accent())));
        for b in crate::keymap::bindings()
            .iter()
            .filter(|b| b.scope == scope)
        {
            for (k, part) in super::fit::wrap_words(&b.help, room)
                .into_iter()
                .enumerate()
            {
                let keys = if k == 0 {
                    b.keys.join(", ")
                } else {
                    String::new()
                };
                lines.push(Line::from(vec![
                    Span::styled(format!("  {keys:<width$}  "), t.key()),
                    Span::raw(part),
                ]));
            }
        }
        lines.push(Line::raw(""));
    }
    lines.push(Line::from(Span::styled("Rules", t.accent())));
    for l in crate::core::ops::SYNTAX_HELP.lines() {
        lines.extend(hanging(&format!("  {l}"), inner_width).map(Line::raw));
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled("Bands", t.accent())));
    lines.push(Line::from(vec![
        Span::styled(
            format!(
                "  {} manual  ",
                t.band_char(crate::core::model::compaction::Source::Manual, false, true)
            ),
            t.band(crate::core::model::compaction::Source::Manual, false),
        ),
        Span::styled(
            format!(
                "{} automatic  ",
                t.band_char(crate::core::model::compaction::Source::Auto, false, true)
            ),
            t.band(crate::core::model::compaction::Source::Auto, false),
        ),
        Span::styled(
            "┇ preview",
            t.band(crate::core::model::compaction::Source::Manual, true),
        ),
    ]));
    for l in [
        "  thick: the compaction decided that event; thin: it covers the turn",
        "  ✂ stripped   ✗ omitted   ∑ summarised   ◆ compaction event (an overlay)",
        "  … a tool call jp is running: its result is not written yet",
    ] {
        lines.extend(hanging(l, inner_width).map(Line::raw));
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled("Settings", t.accent())));
    let c = &state.settings.config;
    if c.origins.is_empty() {
        lines.push(Line::raw(
            "  all at their defaults (no jp config sets compaction)",
        ));
    }
    for (key, origin) in &c.origins {
        lines.push(Line::from(vec![
            Span::styled(format!("  {key}"), t.key()),
            Span::styled(format!("  from {origin}"), t.dim()),
        ]));
    }
    for n in &c.notices {
        lines.push(Line::from(Span::styled(
            format!("  ignored: {n}"),
            t.error(),
        )));
    }
    lines
}

pub fn confirm(frame: &mut Frame, area: Rect, c: &Confirm, state: &State) {
    let t = &state.theme;
    if matches!(c.kind, crate::tui::panels::ConfirmKind::Judge { .. }) {
        return ask_judge(frame, area, c, state);
    }
    let tokens = match &c.plan {
        Some(p) => format!(
            "context: {} → {} tok ({})",
            thousands(p.tokens.before),
            thousands(p.tokens.after),
            change(p.tokens.before, p.tokens.after)
        ),
        None => "context: computing…".to_string(),
    };
    // A write that leaves the next request too large for the model says so
    // before `y`, not after.
    let over = c.plan.as_ref().and_then(|p| {
        let usable = state.budget()?.usable()?;
        (p.tokens.after > usable && p.tokens.after > p.tokens.before).then(|| {
            format!(
                "over the usable window ({} tok): the next request won't fit",
                thousands(usable)
            )
        })
    });
    let mut body = vec![Line::raw(""), Line::raw(tokens)];
    if let Some(w) = over {
        body.push(Line::from(Span::styled(w, t.error())));
    }
    body.push(Line::from(Span::styled(
        "Raw events are never touched; this rewrites events.json under jp's lock.",
        t.dim(),
    )));
    let frame_of = (" confirm ", t.error(), " yes, write   ");
    question_box(frame, area, &c.question, body, frame_of, state);
}

/// A question in a box over `area`: the question wrapped, what it says
/// beneath it (`body`), then its answers; titled and bordered as
/// `(title, border, yes)` says.
fn question_box(
    frame: &mut Frame,
    area: Rect,
    question: &str,
    body: Vec<Line<'static>>,
    (title, border, yes): (&str, ratatui::style::Style, &str),
    state: &State,
) {
    let t = &state.theme;
    let width = 78.min(area.width);
    let question = super::fit::wrap_words(question, usize::from(width.saturating_sub(2)).max(1));
    let mut lines: Vec<Line> = question
        .into_iter()
        .map(|q| Line::from(Span::styled(q, t.title())))
        .collect();
    lines.extend(body);
    lines.extend([
        Line::raw(""),
        Line::from(vec![
            Span::styled("y", t.key()),
            Span::raw(yes.to_string()),
            Span::styled("n", t.key()),
            Span::raw(" / Esc no"),
        ]),
    ]);
    // A long line of the body wraps: the box is as tall as its rows.
    let inner_w = usize::from(width.saturating_sub(2)).max(1);
    let rows: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(inner_w).max(1))
        .sum();
    let box_area = centered(area, width, rows as u16 + 2);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(border)
        .title(Span::styled(title.to_string(), t.title()));
    frame.render_widget(Clear, box_area);
    let inner = block.inner(box_area);
    frame.render_widget(block, box_area);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
}

/// The question before a judge is asked: its price, what it is sent, and
/// that nothing is written.
fn ask_judge(frame: &mut Frame, area: Rect, c: &Confirm, state: &State) {
    let t = &state.theme;
    let body = vec![
        Line::raw(""),
        Line::from(Span::styled(
            "It is sent the range's facts and what the model is still sent of it; nothing is written.",
            t.dim(),
        )),
    ];
    let frame_of = (" ask the judge ", t.accent(), " yes, ask it   ");
    question_box(frame, area, &c.question, body, frame_of, state);
}
