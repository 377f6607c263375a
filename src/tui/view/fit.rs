//! A line that doesn't fit its width is cut with an ellipsis, never in the
//! middle of a word with nothing to say it was cut.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// `line` cut to `width` columns, the last column an `…` when anything was
/// left out (styled as the text it replaces).
pub fn fit(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let style = line.style;
    let mut used = 0;
    let mut spans: Vec<Span<'static>> = Vec::new();
    for span in line.spans {
        let mut text = String::new();
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w + 1 > width {
                text.push('…');
                spans.push(Span::styled(text, span.style));
                return Line::from(spans).style(style);
            }
            used += w;
            text.push(c);
        }
        spans.push(Span::styled(text, span.style));
    }
    Line::from(spans).style(style)
}

/// A box's title that fits its top border (`area_width` columns, the two
/// corners left), cut with an ellipsis.
pub fn title(text: String, area_width: u16) -> String {
    let room = (area_width as usize).saturating_sub(2);
    fit(Line::raw(text), room).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_with_an_ellipsis_and_leaves_what_fits() {
        let l = Line::from(vec![
            Span::raw("system prompt 83"),
            Span::raw(" · tools 1.3k"),
        ]);
        assert_eq!(fit(l.clone(), 100), l);
        let cut = fit(l, 20);
        assert_eq!(cut.width(), 20);
        assert!(cut.to_string().ends_with('…'), "{cut}");
        assert_eq!(cut.to_string(), "system prompt 83 · …");
        assert_eq!(title(" where the tokens are ".into(), 12), " where th…");
    }
}
