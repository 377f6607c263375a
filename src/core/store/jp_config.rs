//! jp's own configuration files, read for the compaction settings they
//! hold, in jp's order (lowest precedence first): the user-global config,
//! the workspace's `.jp/config.*` (after the files its `extends` names), and
//! the user-workspace config in jp's user storage. Each comes with how far
//! it is trusted: the user's own files may define a summarizer (a command to
//! run, an endpoint to send the conversation to); a workspace's, which is
//! often committed to git, may only choose among those.

use crate::core::error::Error;
use crate::core::store::workspace::{STORAGE_DIR, find_silo};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The extensions jp reads, in the order it tries them.
pub const EXTENSIONS: [&str; 5] = ["toml", "json", "json5", "yaml", "yml"];

/// How far a configuration source is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// The user's own: `$XDG_CONFIG_HOME/jp`, `--config`, flags.
    User,
    /// A workspace's or a conversation's: may choose a summarizer the user
    /// defined, or `digest`, and nothing more.
    Shared,
}

/// One configuration file, parsed.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub trust: Trust,
    pub doc: Value,
}

fn error(path: &Path, message: impl Into<String>) -> Error {
    Error::invalid(path, message)
}

/// Reads and parses `path` by its extension (TOML when it has none).
pub fn parse_file(path: &Path) -> Result<Value, Error> {
    let text =
        std::fs::read_to_string(path).map_err(|e| error(path, format!("cannot read: {e}")))?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("toml");
    let bad = |kind: &str, e: &dyn std::fmt::Display| {
        error(path, format!("not valid {kind}: {}", e.to_string().trim()))
    };
    match ext {
        "json" => serde_json::from_str(&text).map_err(|e| bad("JSON", &e)),
        "json5" => serde_json5::from_str(&text).map_err(|e| bad("JSON5", &e)),
        "yaml" | "yml" => serde_yaml_ng::from_str(&text).map_err(|e| bad("YAML", &e)),
        _ => {
            let doc: toml::Value = toml::from_str(&text).map_err(|e| bad("TOML", &e))?;
            serde_json::to_value(doc).map_err(|e| bad("TOML", &e))
        }
    }
}

/// `<dir>/<stem>.<ext>` for the first extension that exists.
fn find(dir: &Path, stem: &str) -> Option<PathBuf> {
    EXTENSIONS
        .iter()
        .map(|ext| dir.join(format!("{stem}.{ext}")))
        .find(|p| p.is_file())
}

/// jp's user-global configuration directory: `$JP_GLOBAL_CONFIG_DIR`,
/// else the directory of `$JP_GLOBAL_CONFIG_FILE`, else
/// `$XDG_CONFIG_HOME/jp`, else `~/.config/jp`.
pub fn user_global_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = var("JP_GLOBAL_CONFIG_DIR") {
        return Some(d);
    }
    if let Some(f) = var("JP_GLOBAL_CONFIG_FILE") {
        return Some(if f.is_dir() {
            f
        } else {
            f.parent().map(Path::to_path_buf).unwrap_or(f)
        });
    }
    if let Some(x) = var("XDG_CONFIG_HOME").filter(|x| x.is_absolute()) {
        return Some(x.join("jp"));
    }
    var("HOME").map(|h| h.join(".config/jp"))
}

/// The entries of an `extends` list, resolved against `base`: those loaded
/// before the declaring file, and those after it (`{ path, position =
/// "after" }`).
fn extends(doc: &Value, base: &Path) -> (Vec<String>, Vec<String>) {
    let mut before = Vec::new();
    let mut after = Vec::new();
    let list = doc
        .get("extends")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for entry in list {
        let (path, is_after) = match &entry {
            Value::String(s) => (s.clone(), false),
            Value::Object(o) => match o.get("path").and_then(Value::as_str) {
                Some(p) => (
                    p.to_string(),
                    o.values().any(|v| v.as_str() == Some("after")),
                ),
                None => continue,
            },
            _ => continue,
        };
        let full = base.join(path).display().to_string();
        if is_after {
            after.push(full);
        } else {
            before.push(full);
        }
    }
    (before, after)
}

/// `path` with the files its `extends` names around it, recursively (a
/// file already read is not read again, so cycles end).
fn with_extends(
    path: &Path,
    trust: Trust,
    seen: &mut Vec<PathBuf>,
    out: &mut Vec<ConfigFile>,
) -> Result<(), Error> {
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if seen.contains(&canonical) {
        return Ok(());
    }
    seen.push(canonical);
    let doc = parse_file(path)?;
    let base = path.parent().unwrap_or(Path::new("."));
    let (before, after) = extends(&doc, base);
    let mut expand = |pattern: &str, out: &mut Vec<ConfigFile>| -> Result<(), Error> {
        let matches =
            glob::glob(pattern).map_err(|e| error(path, format!("extends `{pattern}`: {e}")))?;
        let mut files: Vec<PathBuf> = matches.flatten().filter(|p| p.is_file()).collect();
        if files.is_empty() && !pattern.contains(['*', '?', '[']) {
            // jp also tries the known extensions of a bare name.
            files.extend(
                EXTENSIONS
                    .iter()
                    .map(|e| PathBuf::from(format!("{pattern}.{e}")))
                    .find(|p| p.is_file()),
            );
        }
        files.sort();
        for f in files {
            with_extends(&f, trust, seen, out)?;
        }
        Ok(())
    };
    for p in &before {
        expand(p, out)?;
    }
    out.push(ConfigFile {
        path: path.to_path_buf(),
        trust,
        doc,
    });
    for p in &after {
        expand(p, out)?;
    }
    Ok(())
}

/// The workspace storage (`.jp`) and user silo of the conversation in
/// `dir`, whichever can be told from where it lives.
pub fn storage_of(dir: &Path) -> (Option<PathBuf>, Option<PathBuf>) {
    let Some(parent) = dir.parent() else {
        return (None, None);
    };
    if parent.file_name().is_none_or(|n| n != "conversations") {
        return (None, None);
    }
    let root = parent.parent().unwrap_or(parent);
    if root.join("storage").exists() {
        (
            std::fs::canonicalize(root.join("storage")).ok(),
            Some(root.to_path_buf()),
        )
    } else if root.file_name().is_some_and(|n| n == STORAGE_DIR) {
        (Some(root.to_path_buf()), find_silo(root))
    } else {
        (None, None)
    }
}

/// jp's configuration files for the conversation in `dir`, lowest
/// precedence first.
pub fn files_for(dir: &Path) -> Result<Vec<ConfigFile>, Error> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    if let Some(global) = user_global_dir().and_then(|d| find(&d, "config")) {
        with_extends(&global, Trust::User, &mut seen, &mut out)?;
    }
    let (storage, silo) = storage_of(dir);
    if let Some(ws) = storage.and_then(|s| find(&s, "config")) {
        with_extends(&ws, Trust::Shared, &mut seen, &mut out)?;
    }
    if let Some(user_ws) = silo.and_then(|s| find(&s, "config")) {
        with_extends(&user_ws, Trust::Shared, &mut seen, &mut out)?;
    }
    Ok(out)
}
