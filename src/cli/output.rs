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

/// Prints JSON, pretty, to stdout. Buffered: stdout alone flushes at every
/// newline, a write per line of pretty JSON.
pub fn print_json<T: serde::Serialize + ?Sized>(v: &T) -> anyhow::Result<()> {
    write_json(io::stdout().lock(), v)
}

/// Writes `v` as pretty JSON and a newline to `out`, buffered.
pub fn write_json<T: serde::Serialize + ?Sized>(out: impl Write, v: &T) -> anyhow::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut out, v)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// A JSON array made as it is written: item `i` of `len` is `item(i)`, so
/// a long list is never held whole as a `Value`.
pub struct Streamed<F> {
    pub len: usize,
    pub item: F,
}

impl<F: Fn(usize) -> Value> serde::Serialize for Streamed<F> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.len))?;
        for i in 0..self.len {
            seq.serialize_element(&(self.item)(i))?;
        }
        seq.end()
    }
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
