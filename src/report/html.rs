//! The report as one self-contained HTML file: inline CSS and SVG, no
//! script, no fetch, light and dark, and a print layout.

use super::page::{Block, Page};
use std::fmt::Write;

const STYLE: &str = r#"
:root { color-scheme: light dark; --fg: #1f2328; --dim: #59636e; --line: #d1d9e0; --bg: #ffffff; --soft: #f6f8fa; --grave: #b42318; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --dim: #9198a1; --line: #3d444d; --bg: #0d1117; --soft: #151b23; --grave: #ff7b72; } }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); max-width: 1100px; margin: 2rem auto; padding: 0 1.2rem; }
h1 { font-size: 1.6rem; margin: 0 0 .2rem; overflow-wrap: anywhere; }
h2 { font-size: 1.25rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; margin-top: 2.2rem; }
h3 { font-size: 1.05rem; margin-top: 1.8rem; }
.subtitle, .note { color: var(--dim); }
.note { font-size: .9rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .6rem 0; }
dt { color: var(--dim); }
dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: .6rem 0; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: .25rem .6rem; text-align: left; vertical-align: top; overflow-wrap: break-word; }
.wide { overflow-x: auto; }
th { color: var(--dim); font-weight: 600; }
td.n, th.n { text-align: right; white-space: nowrap; }
li.grave { color: var(--grave); font-weight: 600; }
ul.facts { padding-left: 1.2rem; overflow-wrap: anywhere; }
code { font: .9em ui-monospace, SFMono-Regular, Menlo, monospace; background: var(--soft); border-radius: 4px; padding: 0 .25em; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: .7rem; white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
figure { margin: .8rem 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: var(--dim); font-size: .9rem; }
@media print {
  :root { --fg: #000; --dim: #444; --line: #bbb; --bg: #fff; --soft: #f4f4f4; --grave: #900; }
  body { margin: 0; max-width: none; font-size: 11pt; }
  h2, h3 { break-after: avoid; }
  table, figure, pre, dl { break-inside: avoid; }
}
"#;

/// `text` fit for HTML's text and attribute values: nothing in it can
/// open or close markup.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` escaped, its code spans set as `<code>`.
fn rich(text: &str) -> String {
    use super::inline::{Piece, pieces};
    pieces(text)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => escape(t),
            Piece::Code(c) => format!("<code>{}</code>", escape(c)),
        })
        .collect()
}

pub fn render(page: &Page) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{} · jp-inspect report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <header>\n<h1>{}</h1>\n<p class=\"subtitle\">{}</p>\n</header>\n<main>\n",
        escape(&page.title),
        escape(&page.title),
        escape(&page.subtitle)
    );
    // Each heading opens a section of its own, so a reader (or a test)
    // finds a compaction's figures under its anchor.
    let mut open = false;
    for b in &page.blocks {
        if let Block::Heading(_, _, id) = b {
            if open {
                out.push_str("</section>\n");
            }
            let _ = writeln!(out, "<section id=\"{}\">", escape(id));
            open = true;
        }
        block(&mut out, b);
    }
    if open {
        out.push_str("</section>\n");
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn block(out: &mut String, b: &Block) {
    match b {
        Block::Heading(level, text, _) => {
            let _ = writeln!(out, "<h{level}>{}</h{level}>", escape(text));
        }
        Block::Para(text) => {
            let _ = writeln!(out, "<p>{}</p>", rich(text));
        }
        Block::Note(text) => {
            let _ = writeln!(out, "<p class=\"note\">{}</p>", rich(text));
        }
        Block::Facts(pairs) => {
            out.push_str("<dl>\n");
            for (k, v) in pairs {
                let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), rich(v));
            }
            out.push_str("</dl>\n");
        }
        Block::Table {
            head,
            numeric,
            rows,
        } => {
            let class = |k: usize| {
                if numeric.get(k).copied().unwrap_or(false) {
                    " class=\"n\""
                } else {
                    ""
                }
            };
            // A narrow screen scrolls a wide table rather than breaking its
            // words.
            out.push_str("<div class=\"wide\">\n<table>\n<thead><tr>");
            for (k, h) in head.iter().enumerate() {
                let _ = write!(out, "<th{}>{}</th>", class(k), escape(h));
            }
            out.push_str("</tr></thead>\n<tbody>\n");
            for row in rows {
                out.push_str("<tr>");
                for (k, cell) in row.iter().enumerate() {
                    let _ = write!(out, "<td{}>{}</td>", class(k), rich(cell));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody>\n</table>\n</div>\n");
        }
        Block::List(items) => {
            out.push_str("<ul class=\"facts\">\n");
            for (grave, text) in items {
                let class = if *grave { " class=\"grave\"" } else { "" };
                let _ = writeln!(out, "<li{class}>{}</li>", rich(text));
            }
            out.push_str("</ul>\n");
        }
        Block::Pre(text) => {
            let _ = writeln!(out, "<pre>{}</pre>", escape(text));
        }
        Block::Chart { svg, alt, .. } => {
            // The chart's own writer escapes its texts (the svg crate).
            let _ = writeln!(
                out,
                "<figure role=\"img\" aria-label=\"{}\">\n{svg}\n<figcaption>{}</figcaption>\n</figure>",
                escape(alt),
                escape(alt)
            );
        }
    }
}
