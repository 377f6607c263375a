//! Shared pieces of the command line's output.

use crate::core::Conversation;
use serde_json::{Value, json};
use std::io::{self, Write};

/// `{"id","title","path","format"}` of a conversation.
pub fn conversation_json(conv: &Conversation) -> Value {
    json!({
        "id": conv.display_id(),
        "title": conv.title,
        "path": conv.dir.display().to_string(),
        "format": conv.format.as_str(),
    })
}

pub use crate::fmt::{change, thousands};

/// Prints JSON, pretty, to stdout.
pub fn print_json(v: &Value) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, v)?;
    writeln!(out)?;
    Ok(())
}

/// Writes lines to stdout, ending quietly when the reader goes away
/// (`| head`).
pub fn print_lines<I: IntoIterator<Item = String>>(lines: I) -> anyhow::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    for line in lines {
        if let Err(e) = writeln!(out, "{line}") {
            if e.kind() == io::ErrorKind::BrokenPipe {
                return Ok(());
            }
            return Err(e.into());
        }
    }
    match out.flush() {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// Warnings go to stderr, so `--json` output stays clean.
pub fn print_warnings(conv: &Conversation) {
    for w in &conv.warnings {
        eprintln!("warning: {w}");
    }
}

/// Settings the configuration ignored (a workspace or conversation config
/// reaching for a summarizer of its own), to stderr.
pub fn print_notices(config: &crate::core::auto::AutoConfig) {
    for n in &config.notices {
        eprintln!("note: {n}");
    }
}
