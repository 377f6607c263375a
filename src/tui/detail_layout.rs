//! The detail view's geometry, shared by drawing and scrolling: where its
//! body sits, how many rows the text takes wrapped or not, and the rows on
//! screen. Lines wrap by default; unwrapped, they scroll sideways.

use super::layout;
use super::state::State;
use crate::core::ops::Needle;
use crate::tui::panels::Detail;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The detail box: the panes and the list together.
pub fn area(state: &State) -> Rect {
    let s = layout::screen_with(
        state.width,
        state.height,
        state.list_len(),
        state.curve_height(),
    );
    Rect::new(0, s.raw.y, state.width, s.raw.height + s.list.height)
}

/// Columns and rows of text inside the box's borders.
pub fn inner(state: &State) -> (usize, usize) {
    let a = area(state);
    (
        a.width.saturating_sub(2) as usize,
        a.height.saturating_sub(2) as usize,
    )
}

/// The lines shown: the decoded text or the stored form.
pub fn body(d: &Detail) -> &[Line<'static>] {
    if d.show_raw { &d.raw } else { &d.lines }
}

fn width_of(line: &Line<'_>) -> usize {
    line.spans.iter().map(|s| s.content.chars().count()).sum()
}

/// Rows `line` takes at `width` columns when wrapped.
fn rows_of(line: &Line<'_>, width: usize) -> usize {
    breaks(line, width).len()
}

/// Where `line` breaks at `width` columns: each row's first character and
/// length. A row ends after its last space when it has one, so words are
/// not cut in two; a word longer than the row is cut where it must be.
fn breaks(line: &Line<'_>, width: usize) -> Vec<(usize, usize)> {
    let width = width.max(1);
    let chars: Vec<char> = line.spans.iter().flat_map(|s| s.content.chars()).collect();
    if chars.len() <= width {
        return vec![(0, chars.len())];
    }
    let mut rows = Vec::new();
    let mut start = 0;
    while chars.len() - start > width {
        let window = &chars[start..start + width + 1];
        // The space at the row's end may stay on it (it is not drawn).
        let cut = match window.iter().rposition(|c| *c == ' ') {
            Some(at) if at > 0 => at + 1,
            _ => width,
        };
        let len = cut.min(width);
        rows.push((start, len));
        start += cut;
    }
    rows.push((start, chars.len() - start));
    rows
}

/// Rows the body takes.
pub fn total_rows(d: &Detail, width: usize) -> usize {
    if d.wrap {
        body(d).iter().map(|l| rows_of(l, width)).sum()
    } else {
        body(d).len()
    }
}

/// The header's lines wrapped to `width`: what an event is must not be
/// cut at the box's edge.
pub fn header(d: &Detail, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    d.header
        .iter()
        .flat_map(|l| {
            breaks(l, width)
                .into_iter()
                .map(move |(from, len)| slice(l, from, len))
        })
        .collect()
}

/// Rows of text the body has room for under the header and its rule.
pub fn room(d: &Detail, state: &State) -> usize {
    let (width, height) = inner(state);
    let header: usize = d.header.iter().map(|l| rows_of(l, width)).sum();
    height.saturating_sub(header + 1)
}

/// The farthest the body scrolls down.
pub fn max_scroll(d: &Detail, state: &State) -> usize {
    total_rows(d, inner(state).0).saturating_sub(room(d, state))
}

/// The farthest the body scrolls sideways (unwrapped).
pub fn max_hscroll(d: &Detail, state: &State) -> usize {
    let longest = body(d).iter().map(width_of).max().unwrap_or(0);
    longest.saturating_sub(inner(state).0)
}

/// Characters `from..from + len` of `line`, styles kept.
fn slice(line: &Line<'static>, from: usize, len: usize) -> Line<'static> {
    let mut out = Vec::new();
    let mut at = 0;
    for span in &line.spans {
        let n = span.content.chars().count();
        let (start, end) = (from.max(at), (from + len).min(at + n));
        if start < end {
            let text: String = span
                .content
                .chars()
                .skip(start - at)
                .take(end - start)
                .collect();
            out.push(Span::styled(text, span.style));
        }
        at += n;
        if at >= from + len {
            break;
        }
    }
    Line::from(out).style(line.style)
}

/// The rows on screen at `width` columns: `count` rows from `d.scroll`,
/// wrapped, or cut sideways at `d.hscroll`.
pub fn visible(d: &Detail, width: usize, count: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    if !d.wrap {
        return body(d)
            .iter()
            .skip(d.scroll)
            .take(count)
            .map(|l| slice(l, d.hscroll, width))
            .collect();
    }
    let mut out = Vec::with_capacity(count);
    let mut row = 0;
    for line in body(d) {
        let rows = breaks(line, width);
        if row + rows.len() <= d.scroll {
            row += rows.len();
            continue;
        }
        for (k, (from, len)) in rows.iter().enumerate() {
            if row + k >= d.scroll {
                out.push(slice(line, *from, *len));
                if out.len() == count {
                    return out;
                }
            }
        }
        row += rows.len();
    }
    out
}

/// The row (wrapped when wrapping) of each match of `needle` in the body,
/// in order, each row once.
pub fn match_rows(d: &Detail, width: usize, needle: &Needle) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let mut row = 0;
    for line in body(d) {
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        let hits = needle.find_all(&text);
        let rows = if d.wrap {
            breaks(line, width)
        } else {
            vec![(0, 0)]
        };
        for h in hits {
            let k = rows
                .iter()
                .rposition(|(from, _)| *from <= h.start)
                .unwrap_or(0);
            if out.last() != Some(&(row + k)) {
                out.push(row + k);
            }
        }
        row += rows.len();
    }
    out
}

/// `line` with `needle`'s matches in `hit`'s style, over the styles it has.
pub fn mark(line: Line<'static>, needle: &Needle, hit: Style) -> Line<'static> {
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let hits = needle.find_all(&text);
    if hits.is_empty() {
        return line;
    }
    let mut styled: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
        .collect();
    for h in hits {
        for c in styled.iter_mut().take(h.end).skip(h.start) {
            c.1 = c.1.patch(hit);
        }
    }
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    let mut style = styled.first().map(|c| c.1).unwrap_or_default();
    for (c, s) in styled {
        if s != style && !run.is_empty() {
            spans.push(Span::styled(std::mem::take(&mut run), style));
        }
        style = s;
        run.push(c);
    }
    spans.push(Span::styled(run, style));
    Line::from(spans).style(line.style)
}

/// Where the detail's search goes from `d.scroll`: the next match row
/// (`forward`) or the previous one, wrapping around; `None` without a
/// search or a match.
pub fn jump(d: &Detail, state: &State, forward: bool) -> Option<usize> {
    let needle = Needle::new(d.needle.as_deref()?);
    let rows = match_rows(d, inner(state).0, &needle);
    let next = if forward {
        rows.iter().find(|&&r| r > d.scroll).or(rows.first())
    } else {
        rows.iter().rev().find(|&&r| r < d.scroll).or(rows.last())
    };
    next.map(|&r| r.min(max_scroll(d, state)))
}

/// The first match row, for a detail opened on a search.
pub fn first_match(d: &Detail, state: &State) -> Option<usize> {
    let needle = Needle::new(d.needle.as_deref()?);
    match_rows(d, inner(state).0, &needle)
        .first()
        .map(|&r| r.min(max_scroll(d, state)))
}

/// "lines 41–80 of 812" (rows, when wrapping), or `None` when all fits.
pub fn position(d: &Detail, state: &State) -> Option<String> {
    let total = total_rows(d, inner(state).0);
    let room = room(d, state);
    (total > room).then(|| {
        let first = d.scroll.min(total.saturating_sub(1)) + 1;
        let last = (d.scroll + room).min(total);
        format!(
            "{} {first}–{last} of {total}",
            if d.wrap { "rows" } else { "lines" }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Style;

    #[test]
    fn wrapping_breaks_between_words() {
        let line = Line::raw("works in the workspace folder");
        let rows: Vec<String> = breaks(&line, 12)
            .into_iter()
            .map(|(f, n)| slice(&line, f, n).to_string())
            .collect();
        assert_eq!(rows, ["works in the", "workspace ", "folder"]);
        // A word longer than the row is cut where it must be.
        let long = Line::raw("abcdefghijkl mn");
        let rows: Vec<String> = breaks(&long, 5)
            .into_iter()
            .map(|(f, n)| slice(&long, f, n).to_string())
            .collect();
        assert_eq!(rows, ["abcde", "fghij", "kl mn"]);
    }

    fn detail(lines: &[&str], wrap: bool) -> Detail {
        Detail {
            title: "t".into(),
            header: vec![],
            lines: lines.iter().map(|l| Line::raw(l.to_string())).collect(),
            raw: vec![],
            show_raw: false,
            scroll: 0,
            wrap,
            hscroll: 0,
            needle: None,
            text: Default::default(),
        }
    }

    #[test]
    fn a_match_is_found_on_its_wrapped_row_and_marked_over_its_style() {
        let mut d = detail(&["first line", "abcde fghij needle kl"], true);
        let needle = Needle::new("needle");
        // Wrapped at 6 columns: "first " "line" | "abcde " "fghij " "needle" ...
        assert_eq!(match_rows(&d, 6, &needle), vec![4]);
        d.wrap = false;
        assert_eq!(match_rows(&d, 6, &needle), vec![1]);
        let styled = Line::from(vec![
            Span::styled("a need", Style::new().fg(ratatui::style::Color::Red)),
            Span::raw("le b"),
        ]);
        let hit = Style::new().bg(ratatui::style::Color::Yellow);
        let marked = mark(styled, &needle, hit);
        let parts: Vec<(String, Style)> = marked
            .spans
            .iter()
            .map(|s| (s.content.to_string(), s.style))
            .collect();
        assert_eq!(parts[0].0, "a ");
        assert_eq!(
            parts[1],
            (
                "need".into(),
                Style::new()
                    .fg(ratatui::style::Color::Red)
                    .bg(ratatui::style::Color::Yellow)
            )
        );
        assert_eq!(parts[2], ("le".into(), hit));
        assert_eq!(parts[3].0, " b");
    }

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.to_string()).collect())
            .collect()
    }

    #[test]
    fn wrapping_shows_every_character_in_rows() {
        let mut d = detail(&["abcdefghij", "xy"], true);
        assert_eq!(total_rows(&d, 4), 4);
        assert_eq!(text(&visible(&d, 4, 10)), ["abcd", "efgh", "ij", "xy"]);
        d.scroll = 2;
        assert_eq!(text(&visible(&d, 4, 1)), ["ij"]);
    }

    #[test]
    fn unwrapped_lines_scroll_sideways() {
        let mut d = detail(&["abcdefghij", "xy"], false);
        d.hscroll = 3;
        assert_eq!(text(&visible(&d, 4, 10)), ["defg", ""]);
    }

    #[test]
    fn a_slice_keeps_styles_across_spans() {
        let bold = Style::default().add_modifier(ratatui::style::Modifier::BOLD);
        let line = Line::from(vec![Span::raw("ab"), Span::styled("cd", bold)]);
        let cut = slice(&line, 1, 2);
        assert_eq!(cut.spans[0].content, "b");
        assert_eq!(cut.spans[1].content, "c");
        assert_eq!(cut.spans[1].style, bold);
    }
}
