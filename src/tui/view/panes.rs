//! The raw stream and the projected view, side by side, turn by turn, with
//! the compaction bands in their gutters.

use crate::core::ops::Fate;
use crate::tui::rows::{Band, Side};
use crate::tui::state::{Focus, State};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Column widths of a pane: roomy, or tight for panes under 60 columns.
fn columns(width: usize) -> (usize, usize) {
    if width < 60 { (7, 5) } else { (11, 7) }
}

/// A short kind label for tight panes.
fn short(label: &str) -> &str {
    match label {
        "assistant" => "asst",
        "reasoning" => "reason",
        "tool call" => "call",
        "tool result" => "result",
        "tool error" => "error",
        "structured" => "struct",
        "compaction" => "compact",
        "compaction!" => "compac!",
        other => other,
    }
}

pub fn draw(frame: &mut Frame, raw: Rect, projected: Rect, state: &State) {
    let t = &state.theme;
    let Some(m) = &state.inspection else {
        frame.render_widget(
            Paragraph::new(Span::styled(" loading the conversation…", t.dim())),
            raw,
        );
        return;
    };
    // What the panes leave out, said in both titles.
    let shown = match state.shown {
        crate::tui::shown::Shown::All => String::new(),
        s => format!("· {} ", s.label()),
    };
    // Each pane's title whole where it fits its pane, else in short words,
    // so the token figure is never the part cut off.
    let title = |name: (&str, &str), events: usize, tokens: u64, focused: bool, room: u16| {
        let style = if focused { t.accent() } else { t.title() };
        let whole = |name: &str, events_word: &str| {
            Line::from(vec![
                Span::styled(format!(" {name} "), style),
                Span::styled(
                    format!(
                        "{} {events_word} · {} tok {shown}",
                        crate::core::fmt::thousands(events as u64),
                        crate::core::fmt::thousands(tokens)
                    ),
                    t.dim(),
                ),
            ])
        };
        let long = whole(name.0, "events");
        if long.width() <= usize::from(room) {
            long
        } else {
            whole(name.1, "ev")
        }
    };
    let raw_title = title(
        ("raw stream", "raw"),
        m.conv.events.len(),
        m.raw_tokens,
        state.nav.focus == Focus::Raw,
        raw.width,
    );
    let proj_title = title(
        ("projected view", "projected"),
        m.projection.events.len(),
        m.estimate.tokens(),
        state.nav.focus == Focus::Projected,
        projected.width.saturating_sub(1),
    );
    render_side(frame, raw, raw_title, state, true);
    render_side(frame, projected, proj_title, state, false);
}

fn render_side(frame: &mut Frame, area: Rect, title: Line<'static>, state: &State, raw: bool) {
    let t = &state.theme;
    let width = area.width as usize;
    let mut lines = vec![pad(super::fit::fit(title, width), width, Style::default())];
    let focused = match state.nav.focus {
        Focus::Raw => raw,
        Focus::Projected => !raw,
        Focus::Compactions => false,
    };
    let needle = state
        .search
        .as_ref()
        .map(|s| crate::core::ops::Needle::new(&s.query));
    for (k, row) in state.rows.iter().enumerate() {
        let side = if raw { &row.raw } else { &row.projected };
        let selected = row.row == state.nav.cursor;
        // The sticky header covers the top row unless the cursor is on it.
        let side = match (&state.sticky, k, selected) {
            (Some((r, p)), 0, false) => {
                if raw {
                    r
                } else {
                    p
                }
            }
            _ => side,
        };
        lines.push(render_row(
            t,
            side,
            width,
            selected,
            focused,
            raw,
            needle.as_ref(),
        ));
    }
    // A divider between the panes: the projected pane starts with it.
    let area = if raw {
        area
    } else {
        let divider = Rect::new(area.x, area.y, 1, area.height);
        let bar: Vec<Line> = (0..area.height)
            .map(|_| Line::from(Span::styled("│", t.dim())))
            .collect();
        frame.render_widget(Paragraph::new(bar), divider);
        Rect::new(
            area.x + 1,
            area.y,
            area.width.saturating_sub(1),
            area.height,
        )
    };
    frame.render_widget(Paragraph::new(lines), area);
}

fn gutter(t: &Theme, band: Option<Band>) -> Span<'static> {
    match band {
        Some(b) if b.selected => Span::styled(
            format!("{} ", t.band_char(b.source, b.preview, true)),
            t.band(b.source, b.preview)
                .add_modifier(Modifier::REVERSED | Modifier::BOLD),
        ),
        Some(b) => Span::styled(
            format!("{} ", t.band_char(b.source, b.preview, b.decided)),
            t.band(b.source, b.preview),
        ),
        None => Span::raw("  "),
    }
}

fn render_row(
    t: &Theme,
    side: &Side,
    width: usize,
    selected: bool,
    focused: bool,
    raw: bool,
    needle: Option<&crate::core::ops::Needle>,
) -> Line<'static> {
    let line = match side {
        Side::Header { title, detail } => {
            let text = format!(" {title} · {detail}");
            return pad(
                Line::from(Span::styled(text, t.header_row())),
                width,
                if selected && focused {
                    t.selected()
                } else {
                    t.header_row()
                },
            );
        }
        Side::Blank { band } => Line::from(vec![gutter(t, *band)]),
        Side::Covered { text, band } => Line::from(vec![
            gutter(t, *band),
            Span::styled(
                format!("  ↳ {text}"),
                t.dim().add_modifier(Modifier::ITALIC),
            ),
        ]),
        Side::Event { .. } => event_line(t, side, width, raw, needle),
    };
    match (selected, focused) {
        (true, true) => pad(line, width, t.selected()),
        // The other pane marks the same row, unless it has nothing there.
        (true, false) if !matches!(side, Side::Blank { .. }) => {
            line.style(Style::default().add_modifier(Modifier::UNDERLINED))
        }
        _ => line,
    }
}

/// An event's row: its fate's mark, kind, tokens and text (the search's
/// matches marked); dimmed when it came after the request shown.
fn event_line(
    t: &Theme,
    side: &Side,
    width: usize,
    raw: bool,
    needle: Option<&crate::core::ops::Needle>,
) -> Line<'static> {
    let Side::Event {
        kind,
        label,
        text,
        tokens,
        fate,
        summary,
        band,
        hit,
        later,
        waiting,
    } = side
    else {
        return Line::default();
    };
    let mark = match (fate, raw) {
        _ if *waiting => "…",
        (Fate::Stripped, _) => "✂",
        (Fate::Omitted, _) => "✗",
        (Fate::Summarized, _) => "∑",
        (Fate::Overlay, _) => "◆",
        (Fate::Kept, _) if *summary => "∑",
        (Fate::Kept, _) => " ",
    };
    let text_style = match (fate, *summary) {
        (_, true) => t.summary(),
        (Fate::Stripped, _) => t.stripped(),
        (Fate::Omitted, _) => t.omitted(),
        (Fate::Summarized, _) => t.dim(),
        _ => t.plain(),
    };

    let (kind_w, tokens_w) = columns(width);
    let mut label = if kind_w < 11 {
        short(label).to_string()
    } else {
        label.clone()
    };
    label.truncate(kind_w);
    let tokens = if *tokens == 0 && !kind.is_model_visible() {
        String::new()
    } else {
        crate::core::fmt::human_tokens(*tokens)
    };
    let used = 2 + 1 + kind_w + 1 + tokens_w + 1;
    let room = width.saturating_sub(used);
    // jp is running the call: say so before what it asked.
    let text: String = match waiting {
        true => format!("waiting for its result · {text}"),
        false => text.clone(),
    }
    .chars()
    .take(room)
    .collect();
    if *later {
        // Time travel: what came after the request shown, dimmed.
        Line::from(vec![
            gutter(t, *band),
            Span::styled(
                format!(" {label:<kind_w$} {tokens:>tokens_w$} {text}"),
                t.dim(),
            ),
        ])
    } else {
        let mut spans = vec![
            gutter(t, *band),
            Span::styled(mark.to_string(), text_style),
            Span::styled(format!("{label:<kind_w$} "), t.kind(kind)),
            Span::styled(format!("{tokens:>tokens_w$} "), t.dim()),
        ];
        match needle.filter(|_| *hit) {
            Some(n) => spans.extend(marked(&text, n, text_style, t.matched())),
            None => spans.push(Span::styled(text, text_style)),
        }
        Line::from(spans)
    }
}

/// `text` in spans, the search's matches in `hit` style.
fn marked(
    text: &str,
    needle: &crate::core::ops::Needle,
    plain: Style,
    hit: Style,
) -> Vec<Span<'static>> {
    let chars: Vec<char> = text.chars().collect();
    let mut spans = Vec::new();
    let mut at = 0;
    for r in needle.find_all(text) {
        if r.start > at {
            spans.push(Span::styled(
                chars[at..r.start].iter().collect::<String>(),
                plain,
            ));
        }
        spans.push(Span::styled(
            chars[r.clone()].iter().collect::<String>(),
            hit,
        ));
        at = r.end;
    }
    // A hit whose match is past the excerpt still reads as one.
    if at == 0 {
        return vec![Span::styled(
            text.to_string(),
            plain.add_modifier(Modifier::UNDERLINED),
        )];
    }
    if at < chars.len() {
        spans.push(Span::styled(chars[at..].iter().collect::<String>(), plain));
    }
    spans
}

/// Pads a line to `width` and lays `style` under it (selection bars).
fn pad(line: Line<'static>, width: usize, style: Style) -> Line<'static> {
    let used: usize = line.spans.iter().map(|s| s.content.chars().count()).sum();
    let mut spans = line.spans;
    if used < width {
        spans.push(Span::raw(" ".repeat(width - used)));
    }
    Line::from(spans).style(style)
}
