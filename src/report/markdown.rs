//! The report as Markdown, for a pull request or an RFD: the same blocks as
//! the HTML, its charts as SVG files beside it. Every text is escaped so it
//! reads as text on GitHub: no markup, link or HTML of the conversation's
//! becomes one.

use super::page::{Block, Page};
use std::fmt::Write;

/// `text` with every character Markdown, GitHub's extensions (tables,
/// strikethrough, math) or inline HTML could act on escaped, on one line.
/// Punctuation that only acts at the start of a line (`-`, `+`, `1.`) is
/// escaped there only, so the source stays readable.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let chars: Vec<char> = text.chars().collect();
    if chars.first().is_some_and(|c| matches!(c, '-' | '+' | '=')) {
        out.push('\\');
    }
    let mut digits = true;
    for (k, &c) in chars.iter().enumerate() {
        let ends_word = chars.get(k + 1).is_none_or(|n| n.is_whitespace());
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '|' | '~' | '!' | '$' => {
                out.push('\\');
                out.push(c);
            }
            // `12.` or `3)` opening a line starts a numbered list.
            '.' | ')' if digits && k > 0 && ends_word => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
        digits = digits && c.is_ascii_digit();
    }
    out
}

/// `text` escaped, its code spans kept as code spans: their inside is
/// literal to Markdown already, so only a table's `|` (which GitHub splits
/// cells on before it reads a span) is escaped there.
fn rich(text: &str, in_table: bool) -> String {
    use super::inline::{Piece, pieces};
    pieces(text)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => escape(t),
            Piece::Code(c) => code_span(c, in_table),
        })
        .collect()
}

/// `c` as one code span on one line, its fence longer than any backtick
/// run inside it.
fn code_span(c: &str, in_table: bool) -> String {
    let mut inside = c.replace(['\n', '\r'], " ");
    if in_table {
        inside = inside.replace('|', "\\|");
    }
    let mut longest = 0;
    let mut run = 0;
    for ch in inside.chars() {
        run = if ch == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let f = "`".repeat(longest + 1);
    // A space each side keeps a backtick at an end from joining the fence.
    let pad = if inside.starts_with('`') || inside.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{f}{pad}{inside}{pad}{f}")
}

/// A fence longer than any run of backticks in `text`, so the text can't
/// close it.
fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

pub fn render(page: &Page) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {}\n\n{}\n",
        escape(&page.title),
        escape(&page.subtitle)
    );
    for b in &page.blocks {
        block(&mut out, b);
    }
    out
}

fn block(out: &mut String, b: &Block) {
    match b {
        Block::Heading(level, text, _) => {
            let _ = writeln!(out, "{} {}\n", "#".repeat(*level as usize), escape(text));
        }
        Block::Para(text) => {
            let _ = writeln!(out, "{}\n", rich(text, false));
        }
        Block::Note(text) => {
            let _ = writeln!(out, "<sub>{}</sub>\n", rich(text, false));
        }
        Block::Facts(pairs) => {
            for (k, v) in pairs {
                let _ = writeln!(out, "- **{}**: {}", escape(k), rich(v, false));
            }
            out.push('\n');
        }
        Block::Table {
            head,
            numeric,
            rows,
        } => {
            let cells = |row: &[String]| {
                row.iter()
                    .map(|c| rich(c, true))
                    .collect::<Vec<_>>()
                    .join(" | ")
            };
            let _ = writeln!(out, "| {} |", cells(head));
            let rule: Vec<&str> = (0..head.len())
                .map(|k| {
                    if numeric.get(k).copied().unwrap_or(false) {
                        "---:"
                    } else {
                        "---"
                    }
                })
                .collect();
            let _ = writeln!(out, "| {} |", rule.join(" | "));
            for row in rows {
                let _ = writeln!(out, "| {} |", cells(row));
            }
            out.push('\n');
        }
        Block::List(items) => {
            for (grave, text) in items {
                if *grave {
                    let _ = writeln!(out, "- **{}**", rich(text, false));
                } else {
                    let _ = writeln!(out, "- {}", rich(text, false));
                }
            }
            out.push('\n');
        }
        Block::Pre(text) => {
            let f = fence(text);
            let _ = writeln!(out, "{f}text\n{}\n{f}\n", text.trim_end_matches('\n'));
        }
        Block::Chart { name, alt, .. } => {
            let _ = writeln!(out, "![{}]({})\n", escape(alt), name);
        }
    }
}
