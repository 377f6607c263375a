//! Syntax highlighting of the detail view (syntect): code blocks in
//! messages, JSON arguments, tool output.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::sync::OnceLock;
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme, ThemeSet};
use syntect::parsing::SyntaxSet;

/// Lines past this are shown plain: highlighting a 50k-line dump would keep
/// the worker busy for nothing anyone reads.
const MAX_HIGHLIGHTED_LINES: usize = 4_000;

fn syntaxes() -> &'static SyntaxSet {
    static S: OnceLock<SyntaxSet> = OnceLock::new();
    S.get_or_init(SyntaxSet::load_defaults_newlines)
}

static LIGHT: OnceLock<bool> = OnceLock::new();

/// Highlights for a light background (the `light` theme); once, at start.
pub fn use_light(light: bool) {
    let _ = LIGHT.set(light);
}

fn theme() -> &'static Theme {
    static T: OnceLock<Theme> = OnceLock::new();
    T.get_or_init(|| {
        let name = if LIGHT.get().copied().unwrap_or(false) {
            "InspiredGitHub"
        } else {
            "base16-ocean.dark"
        };
        let mut set = ThemeSet::load_defaults();
        set.themes
            .remove(name)
            .unwrap_or_else(|| set.themes.into_values().next().unwrap_or_default())
    })
}

fn to_style(s: syntect::highlighting::Style) -> Style {
    let mut style = Style::default().fg(Color::Rgb(s.foreground.r, s.foreground.g, s.foreground.b));
    if s.font_style.contains(FontStyle::BOLD) {
        style = style.add_modifier(Modifier::BOLD);
    }
    if s.font_style.contains(FontStyle::ITALIC) {
        style = style.add_modifier(Modifier::ITALIC);
    }
    style
}

/// `text` as highlighted lines, in `language` (a syntect token such as
/// `rs`, `json`, `md`), or plain when the language is unknown.
pub fn highlight(text: &str, language: Option<&str>) -> Vec<Line<'static>> {
    let ss = syntaxes();
    let syntax = language
        .and_then(|l| ss.find_syntax_by_token(l))
        .or_else(|| ss.find_syntax_by_first_line(text.lines().next().unwrap_or("")));
    let Some(syntax) = syntax else {
        return plain(text);
    };
    let mut h = HighlightLines::new(syntax, theme());
    let mut out = Vec::new();
    for (n, line) in syntect::util::LinesWithEndings::from(text).enumerate() {
        if n >= MAX_HIGHLIGHTED_LINES {
            out.push(Line::raw(line.trim_end_matches(['\n', '\r']).to_string()));
            continue;
        }
        let spans: Vec<Span<'static>> = match h.highlight_line(line, ss) {
            Ok(regions) => regions
                .into_iter()
                .map(|(style, piece)| {
                    Span::styled(
                        piece.trim_end_matches(['\n', '\r']).to_string(),
                        to_style(style),
                    )
                })
                .collect(),
            Err(_) => vec![Span::raw(line.trim_end_matches(['\n', '\r']).to_string())],
        };
        out.push(Line::from(spans));
    }
    out
}

pub fn plain(text: &str) -> Vec<Line<'static>> {
    text.lines().map(|l| Line::raw(l.to_string())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_gets_colours() {
        let lines = highlight("{\n  \"a\": 1\n}", Some("json"));
        assert_eq!(lines.len(), 3);
        let styled = lines[1]
            .spans
            .iter()
            .filter(|s| s.style.fg.is_some())
            .count();
        assert!(styled >= 2, "{:?}", lines[1]);
    }

    #[test]
    fn unknown_language_is_plain() {
        let lines = highlight("just text", Some("no-such-language"));
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].spans[0].content, "just text");
    }
}
