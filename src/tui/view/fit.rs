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

/// `text` in lines of at most `room` columns, broken between words; a word
/// longer than a line (a path) is broken where it must.
pub fn wrap_words(text: &str, room: usize) -> Vec<String> {
    let room = room.max(1);
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > room {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > room {
            let head: String = line.chars().take(room).collect();
            line = line.chars().skip(room).collect();
            out.push(head);
        }
    }
    out.push(line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_wrap_under_themselves_and_a_long_one_breaks() {
        assert_eq!(
            wrap_words("preview a compaction: a rule or auto", 16),
            ["preview a", "compaction: a", "rule or auto"]
        );
        assert_eq!(wrap_words("short", 16), ["short"]);
        assert_eq!(wrap_words("a bcdefgh", 4), ["a", "bcde", "fgh"]);
    }

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
