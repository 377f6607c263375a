//! `jp-inspect report`: what a session's compactions did, on one page to
//! hand to someone — a self-contained HTML file, or Markdown with its
//! charts beside it. The figures come from one `ops::review` call; this
//! module lays them out (shared by the command and the inspector's key).

mod clean;
mod html;
mod inline;
mod markdown;
mod page;
mod page_compactions;

pub use clean::Options;

use crate::core::model::conversation::Conversation;
use crate::core::ops::review::Review;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The report's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Html,
    Markdown,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Html => "html",
            Format::Markdown => "markdown",
        }
    }

    /// The format a file's name asks for (`.md`, `.markdown`), else HTML.
    pub fn of_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some("md" | "markdown") => Format::Markdown,
            _ => Format::Html,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Format::Html => "html",
            Format::Markdown => "md",
        }
    }
}

/// A report in memory: its main text, the files to write beside it (the
/// Markdown's charts) and what it redacted.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub main: String,
    /// File names (beside the main file) and contents.
    pub beside: Vec<(String, String)>,
    pub redacted: BTreeMap<&'static str, usize>,
}

/// The report of `review`, its charts named after `stem` (the main file's
/// name without its extension).
pub fn render(
    conv: &Conversation,
    review: &Review,
    format: Format,
    options: Options,
    stem: &str,
) -> Rendered {
    let clean = clean::Cleaner::new(options);
    let page = page::build(conv, review, &clean, stem);
    let (main, beside) = match format {
        Format::Html => (html::render(&page), Vec::new()),
        Format::Markdown => (
            markdown::render(&page),
            page.blocks
                .iter()
                .filter_map(|b| match b {
                    page::Block::Chart { name, svg, .. } => Some((name.clone(), svg.clone())),
                    _ => None,
                })
                .collect(),
        ),
    };
    Rendered {
        main,
        beside,
        redacted: clean.redacted(),
    }
}

/// Writes `r` to `path` (and its charts beside it), each file atomically:
/// the files written, the main one first.
pub fn write(path: &Path, r: &Rendered) -> anyhow::Result<Vec<PathBuf>> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut written = vec![path.to_path_buf()];
    for (name, text) in &r.beside {
        let p = dir.join(name);
        crate::chart::write_file(&p, text.as_bytes())?;
        written.push(p);
    }
    crate::chart::write_file(path, r.main.as_bytes())?;
    Ok(written)
}

/// The file a report of `conv` is written to when none is named, in the
/// current folder: `jp-c17944860430-report.html` (the id says `jp` once).
pub fn default_name(conv: &Conversation, format: Format) -> String {
    format!("{}-report.{}", conv.display_id(), format.extension())
}

/// The stem charts beside `path` are named after: `report` for `report.md`.
pub fn stem_of(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .unwrap_or("report")
        .to_string()
}
