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

/// `12,345`
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `-73.2%` change from `before` to `after`.
pub fn change(before: u64, after: u64) -> String {
    if before == 0 {
        return "±0%".into();
    }
    let pct = (after as f64 - before as f64) / before as f64 * 100.0;
    if pct.abs() < 0.05 {
        "±0%".into()
    } else {
        format!("{pct:+.1}%")
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(change(100, 27), "-73.0%");
        assert_eq!(change(0, 5), "±0%");
    }
}
