//! The messages of jp's command-plugin protocol (jp's RFD 072): JSON
//! lines, jp → plugin on stdin, plugin → jp on stdout. Only what
//! jp-inspect reads or says is modelled; anything else jp sends is read
//! as `Other` and passed over, so a newer jp does not break us.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::io::{self, Write};
use std::path::PathBuf;

/// The protocol version jp-inspect speaks (the `version` of `init`).
pub const VERSION: u64 = 1;

/// A message from jp.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromHost {
    /// jp wants our self-description (for `jp -h`, `jp inspect -h`).
    Describe,
    /// Run: the workspace, jp's paths and resolved config, our arguments.
    Init(Box<Init>),
    /// jp was interrupted: stop within its grace period.
    Shutdown,
    /// Anything else (answers to requests we never make, newer messages).
    #[serde(other)]
    Other,
}

/// What `init` carries.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
pub struct Init {
    #[serde(default)]
    pub version: u64,
    #[serde(default)]
    pub workspace: Option<WorkspaceInfo>,
    #[serde(default)]
    pub paths: Paths,
    /// jp's resolved configuration (its config files, environment and
    /// `--cfg`, without a conversation's own layer).
    #[serde(default)]
    pub config: Value,
    /// `[plugins.command.inspect.options]` of that configuration.
    #[serde(default)]
    pub options: Map<String, Value>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub log_level: u8,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
pub struct WorkspaceInfo {
    pub root: PathBuf,
    pub storage: PathBuf,
    #[serde(default)]
    pub id: String,
}

/// jp's well-known directories.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
pub struct Paths {
    /// jp's user data directory (`$XDG_DATA_HOME/jp`, `$JP_USER_DATA_DIR`).
    #[serde(default)]
    pub user_data: Option<PathBuf>,
    /// jp's user-global config directory.
    #[serde(default)]
    pub user_config: Option<PathBuf>,
    /// This workspace's silo in the user data directory.
    #[serde(default)]
    pub user_workspace: Option<PathBuf>,
}

/// A message to jp.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToHost {
    Describe(Describe),
    Ready,
    Print {
        text: String,
        channel: &'static str,
        format: &'static str,
    },
    Log {
        level: &'static str,
        message: String,
    },
    Exit {
        code: u8,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Describe {
    pub name: String,
    pub version: String,
    pub description: String,
    pub command: Vec<String>,
    pub help: String,
}

impl ToHost {
    /// Output for jp's printer: JSON documents as `json`, the rest plain.
    pub fn print(text: String, json: bool) -> ToHost {
        ToHost::Print {
            text,
            channel: "content",
            format: if json { "json" } else { "plain" },
        }
    }

    /// A warning or note, shown where jp shows its own.
    pub fn warning(message: String) -> ToHost {
        ToHost::Log {
            level: "warn",
            message,
        }
    }

    /// A process exit code as the protocol's byte: a code outside 0–255
    /// (or a death by signal, given as `None`) is a failure, 1.
    pub fn exit(code: Option<i32>, reason: Option<String>) -> ToHost {
        let code = code.and_then(|c| u8::try_from(c).ok()).unwrap_or(1);
        ToHost::Exit {
            code,
            reason: if code == 0 { None } else { reason },
        }
    }
}

/// Writes one message as one line and flushes: jp reads a line at a time
/// and acts on it at once. An error means jp is gone (or closed our
/// stdout): the caller stops.
pub fn send(out: &mut impl Write, message: &ToHost) -> io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// Opens a `print` whose text follows in pieces ([`print_more`]) and is
/// closed by [`print_close`]: one message however long its text, written
/// as it comes, never held whole.
pub fn print_open(out: &mut impl Write, json: bool) -> io::Result<()> {
    let format = if json { "json" } else { "plain" };
    write!(
        out,
        r#"{{"type":"print","channel":"content","format":"{format}","text":""#
    )
}

/// More of an open `print`'s text.
pub fn print_more(out: &mut impl Write, text: &str) -> io::Result<()> {
    let quoted = serde_json::to_string(text).map_err(io::Error::other)?;
    out.write_all(&quoted.as_bytes()[1..quoted.len() - 1])
}

/// Closes an open `print`: the line jp reads as one message ends.
pub fn print_close(out: &mut impl Write) -> io::Result<()> {
    out.write_all(b"\"}\n")?;
    out.flush()
}

/// Reads one message from a line jp sent: `None` for a line that is not
/// one of jp's messages at all.
pub fn parse(line: &str) -> Option<FromHost> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    serde_json::from_str(line).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_jps_messages_and_passes_over_the_rest() {
        assert_eq!(parse(r#"{"type":"describe"}"#), Some(FromHost::Describe));
        assert_eq!(parse(r#"{"type":"shutdown"}"#), Some(FromHost::Shutdown));
        assert_eq!(
            parse(r#"{"type":"conversations","data":[]}"#),
            Some(FromHost::Other)
        );
        assert_eq!(parse("hello"), None);
        assert_eq!(parse(""), None);
        let init = json!({
            "type": "init", "version": 1,
            "workspace": {"root": "/w", "storage": "/w/.jp", "id": "abc12"},
            "paths": {"user_data": "/d", "user_workspace": "/d/workspace/w-abc12"},
            "config": {"assistant": {"model": {"id": {"provider": "anthropic", "name": "x"}}}},
            "options": {"auto": {"mode": "staged"}},
            "args": ["stats", "jp-c1", "--json"], "log_level": 0,
            "something_new": true
        });
        let Some(FromHost::Init(init)) = parse(&init.to_string()) else {
            panic!("init not read");
        };
        assert_eq!(init.args, ["stats", "jp-c1", "--json"]);
        assert_eq!(init.workspace.unwrap().id, "abc12");
        assert_eq!(
            init.paths.user_workspace,
            Some(PathBuf::from("/d/workspace/w-abc12"))
        );
        assert_eq!(init.options["auto"]["mode"], "staged");
    }

    #[test]
    fn messages_are_one_line_each_in_jps_shape() {
        let mut out = Vec::new();
        send(&mut out, &ToHost::Ready).unwrap();
        send(&mut out, &ToHost::print("a\nb\n".into(), false)).unwrap();
        send(&mut out, &ToHost::exit(Some(2), Some("bad".into()))).unwrap();
        send(&mut out, &ToHost::exit(Some(0), Some("unsaid".into()))).unwrap();
        send(&mut out, &ToHost::exit(None, Some("killed".into()))).unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0], json!({"type": "ready"}));
        assert_eq!(
            lines[1],
            json!({"type": "print", "text": "a\nb\n", "channel": "content", "format": "plain"})
        );
        assert_eq!(
            lines[2],
            json!({"type": "exit", "code": 2, "reason": "bad"})
        );
        assert_eq!(lines[3], json!({"type": "exit", "code": 0}));
        assert_eq!(
            lines[4],
            json!({"type": "exit", "code": 1, "reason": "killed"})
        );
    }

    #[test]
    fn a_print_written_in_pieces_is_the_print_written_whole() {
        let text = "{\"a\": \"é\\u0000\\n\u{1b}]0;x\u{7}\"}\n";
        let mut whole = Vec::new();
        send(&mut whole, &ToHost::print(text.to_string(), true)).unwrap();
        let mut pieces = Vec::new();
        print_open(&mut pieces, true).unwrap();
        for part in ["{\"a\": \"é", "\\u0000\\n\u{1b}]0;", "x\u{7}\"}\n"] {
            print_more(&mut pieces, part).unwrap();
        }
        print_close(&mut pieces).unwrap();
        assert!(pieces.ends_with(b"\n") && pieces.iter().filter(|&&b| b == b'\n').count() == 1);
        let read = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).unwrap();
        assert_eq!(read(&pieces), read(&whole));
    }
}
