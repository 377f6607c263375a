//! User and assistant messages as what they are: Markdown, rendered for the
//! terminal with pulldown-cmark — headings, lists, emphasis, inline code,
//! quotes, rules, tables laid out in columns, and code blocks highlighted
//! by syntect in their own language.

use super::highlight;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// Styles of the rendering (fixed: the palette's roles are for events).
fn heading(level: HeadingLevel) -> Style {
    let s = Style::default().add_modifier(Modifier::BOLD);
    match level {
        HeadingLevel::H1 => s.fg(Color::Cyan).add_modifier(Modifier::UNDERLINED),
        HeadingLevel::H2 => s.fg(Color::Cyan),
        _ => s,
    }
}

const CODE: Style = Style::new().fg(Color::Yellow);
const QUOTE: Style = Style::new().fg(Color::Gray).add_modifier(Modifier::ITALIC);
const LINK: Style = Style::new()
    .fg(Color::Blue)
    .add_modifier(Modifier::UNDERLINED);

struct Renderer {
    out: Vec<Line<'static>>,
    line: Vec<Span<'static>>,
    styles: Vec<Style>,
    /// Bullet or number of each open list, innermost last.
    lists: Vec<Option<u64>>,
    quote: usize,
    code: Option<(Option<String>, String)>,
    table: Option<Table>,
}

#[derive(Default)]
struct Table {
    rows: Vec<Vec<String>>,
    cell: String,
    head_rows: usize,
}

impl Renderer {
    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push(&mut self, text: &str, style: Style) {
        if let Some(t) = &mut self.table {
            t.cell.push_str(text);
            return;
        }
        if self.line.is_empty() && self.quote > 0 {
            self.line.push(Span::styled("│ ".repeat(self.quote), QUOTE));
        }
        self.line.push(Span::styled(text.to_string(), style));
    }

    fn end_line(&mut self) {
        if !self.line.is_empty() {
            self.out.push(Line::from(std::mem::take(&mut self.line)));
        }
    }

    fn blank(&mut self) {
        self.end_line();
        if self.out.last().is_some_and(|l| !l.spans.is_empty()) {
            self.out.push(Line::raw(""));
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.blank();
                self.styles.push(heading(level));
            }
            Tag::Paragraph if self.lists.is_empty() => self.blank(),
            Tag::Emphasis => self
                .styles
                .push(self.style().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(self.style().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self
                .styles
                .push(self.style().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { .. } => self.styles.push(LINK),
            Tag::BlockQuote(_) => {
                self.blank();
                self.quote += 1;
            }
            Tag::List(start) => {
                if self.lists.is_empty() {
                    self.blank();
                } else {
                    self.end_line();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.end_line();
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_string(),
                };
                self.push(&format!("{}{marker}", "  ".repeat(depth)), Style::default());
            }
            Tag::CodeBlock(kind) => {
                self.blank();
                let lang = match kind {
                    CodeBlockKind::Fenced(l) if !l.is_empty() => {
                        Some(l.split([',', ' ']).next().unwrap_or("").to_string())
                    }
                    _ => None,
                };
                self.code = Some((lang, String::new()));
            }
            Tag::Table(_) => {
                self.blank();
                self.table = Some(Table::default());
            }
            Tag::TableRow | Tag::TableHead => {
                if let Some(t) = &mut self.table {
                    t.rows.push(Vec::new());
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.end_line();
            }
            TagEnd::Paragraph => self.end_line(),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link => {
                self.styles.pop();
            }
            TagEnd::BlockQuote(_) => {
                self.end_line();
                self.quote = self.quote.saturating_sub(1);
            }
            TagEnd::List(_) => {
                self.end_line();
                self.lists.pop();
            }
            TagEnd::Item => self.end_line(),
            TagEnd::CodeBlock => {
                if let Some((lang, text)) = self.code.take() {
                    let lang = lang.as_deref().or(Some("txt"));
                    for l in highlight::highlight(text.trim_end_matches('\n'), lang) {
                        let mut spans = vec![Span::styled("  ", Style::default())];
                        spans.extend(l.spans);
                        self.out.push(Line::from(spans));
                    }
                }
            }
            TagEnd::TableCell => {
                if let Some(t) = &mut self.table {
                    let cell = std::mem::take(&mut t.cell);
                    if let Some(row) = t.rows.last_mut() {
                        row.push(cell.trim().to_string());
                    }
                }
            }
            TagEnd::TableHead => {
                if let Some(t) = &mut self.table {
                    t.head_rows = t.rows.len();
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.lay_out(t);
                }
            }
            _ => {}
        }
    }

    /// A table in aligned columns, the header row bold and ruled off.
    fn lay_out(&mut self, t: Table) {
        let columns = t.rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                t.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for (k, row) in t.rows.iter().enumerate() {
            let cells: Vec<String> = (0..columns)
                .map(|c| {
                    let s = row.get(c).map(String::as_str).unwrap_or("");
                    format!("{s:<w$}", w = widths[c])
                })
                .collect();
            let style = if k < t.head_rows {
                Style::default().add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            self.out.push(Line::from(Span::styled(
                format!("  {}", cells.join(" │ ")),
                style,
            )));
            if k + 1 == t.head_rows {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                self.out.push(Line::raw(format!("  {}", rule.join("─┼─"))));
            }
        }
    }
}

/// `text` rendered as Markdown lines; without `color`, only the layout and
/// the bold, italic and underline stay (`NO_COLOR`).
pub fn render(text: &str, color: bool) -> Vec<Line<'static>> {
    let mut lines = layout(text);
    if !color {
        for l in &mut lines {
            for s in &mut l.spans {
                s.style.fg = None;
                s.style.bg = None;
            }
        }
    }
    lines
}

fn layout(text: &str) -> Vec<Line<'static>> {
    let mut r = Renderer {
        out: Vec::new(),
        line: Vec::new(),
        styles: Vec::new(),
        lists: Vec::new(),
        quote: 0,
        code: None,
        table: None,
    };
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(text, options) {
        match event {
            Event::Start(tag) => r.start(tag),
            Event::End(tag) => r.end(tag),
            Event::Text(t) => match &mut r.code {
                Some((_, code)) => code.push_str(&t),
                None => {
                    let style = r.style();
                    r.push(&t, style);
                }
            },
            Event::Code(c) => r.push(&c, CODE),
            Event::SoftBreak => r.push(" ", Style::default()),
            Event::HardBreak => r.end_line(),
            Event::Rule => {
                r.blank();
                r.out.push(Line::raw("─".repeat(40)));
            }
            Event::Html(h) | Event::InlineHtml(h) => r.push(&h, Style::default()),
            Event::TaskListMarker(done) => {
                r.push(if done { "[x] " } else { "[ ] " }, Style::default())
            }
            _ => {}
        }
    }
    r.end_line();
    while r.out.first().is_some_and(|l| l.spans.is_empty()) {
        r.out.remove(0);
    }
    r.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.to_string()).collect())
            .collect()
    }

    #[test]
    fn headings_lists_emphasis_and_code() {
        let md = "# Title\n\nSome *soft* and **strong** `code`.\n\n- one\n- two\n  1. inner\n\n```rs\nfn main() {}\n```\n";
        let lines = render(md, true);
        let t = text(&lines);
        assert_eq!(t[0], "Title");
        assert!(
            lines[0].spans[0]
                .style
                .add_modifier
                .contains(Modifier::BOLD)
        );
        assert!(
            t.contains(&"Some soft and strong code.".to_string()),
            "{t:?}"
        );
        let para = lines.iter().find(|l| l.spans.len() > 3).unwrap();
        assert!(
            para.spans
                .iter()
                .any(|s| s.content == "soft" && s.style.add_modifier.contains(Modifier::ITALIC))
        );
        assert!(
            para.spans
                .iter()
                .any(|s| s.content == "code" && s.style == CODE)
        );
        assert!(
            t.contains(&"• one".to_string()) && t.contains(&"  1. inner".to_string()),
            "{t:?}"
        );
        let code = lines
            .iter()
            .find(|l| text(&[(*l).clone()])[0].contains("fn main"))
            .unwrap();
        assert!(code.spans.len() > 2, "highlighted: {code:?}");
        assert!(!t.iter().any(|l| l.contains("```")), "{t:?}");
    }

    #[test]
    fn tables_are_laid_out_in_columns() {
        let md = "| a | long header |\n|---|---|\n| 1 | x |\n| 22 | y |\n";
        let t = text(&render(md, true));
        assert!(
            render(md, false)
                .iter()
                .all(|l| l.spans.iter().all(|s| s.style.fg.is_none()))
        );
        assert_eq!(t[0], "  a  │ long header");
        assert_eq!(t[1], "  ───┼────────────");
        assert_eq!(t[2], "  1  │ x          ");
        assert_eq!(t[3], "  22 │ y          ");
    }
}
