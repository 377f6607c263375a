//! Shared pieces of the command line's output.

use crate::core::model::conversation::Conversation;
use crate::core::visible::{visible, visible_line};
use serde_json::Value;
use std::io::{self, Write};

/// Leaves what a command is done with to the process's exit: a loaded
/// conversation is thousands of allocations, and freeing them one by one
/// is time a script waits for after the last byte is out (0.3–0.4 ms on
/// a 1.6 MB conversation). Only for what holds no lock or temporary file.
pub fn free_at_exit<T>(done: T) {
    std::mem::forget(done);
}

/// `{"id","title","path","format"}` of a conversation.
pub fn conversation_json(conv: &Conversation) -> Value {
    serde_json::to_value(crate::core::ops::stats::ConversationRef::of(conv)).unwrap_or_default()
}

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

/// Writes lines to stdout, ending quietly when the reader goes away
/// (`| head`).
pub fn print_lines<I: IntoIterator<Item = String>>(lines: I) -> anyhow::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    for line in lines {
        if let Err(e) = writeln!(out, "{}", visible_line(&line)) {
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
        say_err(&format!("warning: {w}"));
    }
}

/// The warnings a write added (a record it could not keep), to stderr:
/// those of `before` were said when it was loaded.
pub fn print_new_warnings(before: &Conversation, after: &Conversation) {
    for w in after
        .warnings
        .iter()
        .filter(|w| !before.warnings.contains(w))
    {
        say_err(&format!("warning: {w}"));
    }
}

/// Settings the configuration ignored (a workspace or conversation config
/// reaching for a summarizer of its own), to stderr.
pub fn print_notices(config: &crate::core::ops::AutoConfig) {
    say_notices(&config.notices);
}

/// A configuration's notices, one `note:` line each.
pub fn say_notices(notices: &[String]) {
    for n in notices {
        say_err(&format!("note: {n}"));
    }
}

/// One message to stderr, its control characters made visible. A closed
/// stderr is not a failure of the command (and never a panic, as
/// `eprintln!` would make it): the message is dropped.
pub fn say_err(message: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{}", visible(message));
}

/// A dry run's withheld summaries, for `--json`: what would be sent where.
pub fn withheld_json(w: Option<&crate::core::ops::WithheldSummaries>) -> Value {
    /// What a dry run withheld, as `--json` says it.
    #[derive(serde::Serialize)]
    struct Withheld<'a> {
        summarizer: &'a str,
        destination: &'a str,
        turns: Vec<[usize; 2]>,
        input_chars: u64,
    }
    match w {
        None => Value::Null,
        Some(w) => serde_json::to_value(Withheld {
            summarizer: &w.summarizer,
            destination: &w.destination,
            turns: w.ranges.iter().map(|r| [r.from, r.to]).collect(),
            input_chars: w.input_chars,
        })
        .unwrap_or_default(),
    }
}

/// The line a dry run prints for its withheld summaries.
pub fn withheld_line(w: Option<&crate::core::ops::WithheldSummaries>) -> Option<String> {
    w.map(|w| format!("Not sent: {}; --summarize makes it.", w.describe()))
}
