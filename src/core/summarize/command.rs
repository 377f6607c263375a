//! `command`: a summary from any program (`llm`, `ollama run …`, `jp query
//! …`). The instructions and the rendered raw range go to its stdin; its
//! stdout is the summary. A non-zero exit, a timeout or empty output is an
//! error, and then nothing is written.

use super::{Request, SummarizeError, Summarizer, Summary, transcript};
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command as Process, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

#[derive(Debug, Clone)]
pub struct CommandSummarizer {
    /// Run with `sh -c`, so pipes and quoting work as in a shell.
    pub command: String,
    pub timeout: Duration,
    /// Where it runs; `None`: a fresh private directory, removed after.
    pub directory: Option<std::path::PathBuf>,
}

impl CommandSummarizer {
    pub(super) fn err(&self, message: impl Into<String>) -> SummarizeError {
        SummarizeError {
            summarizer: "command".into(),
            message: format!("`{}`: {}", self.command, message.into()),
        }
    }
}

/// The text a model-backed summarizer is given.
pub fn prompt(request: &Request<'_>) -> String {
    format!(
        "{}\n\n---\n\n{}",
        super::instructions_with_checklist(request),
        transcript::render(request.conversation, request.range)
    )
}

fn tail(bytes: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let all: Vec<&str> = text.trim_end().lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

impl Summarizer for CommandSummarizer {
    fn name(&self) -> &str {
        "command"
    }

    fn destination(&self) -> Option<String> {
        Some(format!("the command `{}`", self.command))
    }

    fn summarize(&self, request: &Request<'_>) -> Result<Summary, SummarizeError> {
        let input = prompt(request);
        let text = self.complete(&input)?;
        if text.is_empty() {
            return Err(self.err("printed nothing; a summary cannot be empty"));
        }
        Ok(Summary {
            text,
            input_chars: crate::core::model::event::count_chars(&input),
        })
    }
}

impl CommandSummarizer {
    /// What the command prints, trimmed, given `input` on its stdin.
    pub(super) fn complete(&self, input: &str) -> Result<String, SummarizeError> {
        let input = input.to_string();
        // Never the directory jp-inspect was started in (a workspace someone
        // else may have written): the user's named one, or an empty one of
        // our own.
        let scratch;
        let dir = match &self.directory {
            Some(d) => d.as_path(),
            None => {
                scratch = tempfile::Builder::new()
                    .prefix("jp-inspect-summarizer-")
                    .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
                    .tempdir()
                    .map_err(|e| self.err(format!("cannot make a directory to run in: {e}")))?;
                scratch.path()
            }
        };
        let mut child = Process::new("sh")
            .arg("-c")
            .arg(&self.command)
            .current_dir(dir)
            .env("PWD", dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group, so a timeout kills the whole pipeline.
            .process_group(0)
            .spawn()
            .map_err(|e| self.err(format!("cannot start: {e}")))?;
        let mut stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        // Feed and drain on threads: a program that reads slowly or writes a
        // lot must not deadlock against us.
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        let out_reader = std::thread::spawn(move || kept_of(&mut stdout, OUTPUT_LIMIT));
        let err_reader = std::thread::spawn(move || kept_of(&mut stderr, OUTPUT_LIMIT));
        let status = match child.wait_timeout(self.timeout) {
            Ok(Some(status)) => status,
            Ok(None) => {
                // SAFETY: killpg on the group we created; no memory involved.
                unsafe {
                    libc::killpg(child.id() as libc::pid_t, libc::SIGKILL);
                }
                let _ = child.wait();
                return Err(self.err(format!("timed out after {:.0?}; killed", self.timeout)));
            }
            Err(e) => return Err(self.err(format!("waiting failed: {e}"))),
        };
        let _ = writer.join();
        let (out, more) = out_reader.join().unwrap_or_default();
        let (err, _) = err_reader.join().unwrap_or_default();
        if !status.success() {
            let why = match status.code() {
                Some(code) => format!("exited with status {code}"),
                None => "was killed by a signal".to_string(),
            };
            let stderr = tail(&err, 5);
            return Err(self.err(if stderr.is_empty() {
                why
            } else {
                format!("{why}: {stderr}")
            }));
        }
        if more {
            return Err(self.err(format!(
                "wrote more than {OUTPUT_LIMIT} bytes, more than a summary can be"
            )));
        }
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }
}

/// The most of a summarizer's output kept: a summary is a few kilobytes.
const OUTPUT_LIMIT: usize = 4 << 20;

/// The first `limit` bytes `from` writes, and whether it wrote more: the
/// rest is read and dropped, so a program that writes without end neither
/// fills the memory nor blocks on a full pipe until its timeout.
fn kept_of(from: &mut impl Read, limit: usize) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut more = false;
    let mut chunk = [0u8; 64 * 1024];
    loop {
        match from.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                let room = limit.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..n.min(room)]);
                more |= n > room;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    (kept, more)
}
