//! Writing a tool's D17 hint into a jp config file. It goes where today's
//! jp accepts it, jp-inspect's plugin options
//! (`[plugins.command.inspect.options.tools.NAME]`): jp refuses
//! `compaction` under `[conversation.tools.NAME]` and would then run no
//! command at all. Appended as its own table, never over a hint or a table
//! already there, the whole file checked to parse before it is written,
//! atomically (temp file, fsync, rename), its mode kept.

use crate::core::error::{Error, Result};
use crate::core::store::safe_fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The table a hint for `tool` goes in, its name quoted where TOML needs.
pub fn table_for(tool: &str) -> String {
    format!("plugins.command.inspect.options.tools.{}", toml_key(tool))
}

/// `name` as a TOML key: bare where TOML allows, else a basic string as
/// TOML writes one (an empty name too), so it parses back to `name`.
pub fn toml_key(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        return name.to_string();
    }
    // A basic string on one line: what TOML must escape, escaped, and what
    // a terminal or an editor would hide (bidi marks, zero widths) too.
    let mut key = String::with_capacity(name.len() + 2);
    key.push('"');
    for c in name.chars() {
        match c {
            '"' => key.push_str("\\\""),
            '\\' => key.push_str("\\\\"),
            '\t' => key.push_str("\\t"),
            '\n' => key.push_str("\\n"),
            '\r' => key.push_str("\\r"),
            c if crate::core::visible::char_stand_in(c).is_some()
                || matches!(c, '\u{200b}'..='\u{200d}' | '\u{feff}') =>
            {
                key.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => key.push(c),
        }
    }
    key.push('"');
    key
}

/// The text `add` appends for `tool`'s `hint`.
pub fn block(tool: &str, hint: &str) -> String {
    format!("[{}]\ncompaction = \"{hint}\"\n", table_for(tool))
}

/// Appends `tool`'s `hint` to the config file `path` (created if absent);
/// the block written.
pub fn add(path: &Path, tool: &str, hint: &str) -> Result<String> {
    if crate::core::model::compaction::ToolCalls::from_hint(hint).is_none() {
        return Err(Error::invalid(path, format!("`{hint}` is no hint")));
    }
    let meta = std::fs::symlink_metadata(path).ok();
    if meta.as_ref().is_some_and(|m| !m.is_file()) {
        return Err(Error::invalid(
            path,
            "not a regular file (a link, a folder or a device): not written",
        ));
    }
    let text = match &meta {
        Some(_) => super::bounded::read_text(path, super::config_file::MAX_CONFIG_BYTES, false)
            .map_err(|e| Error::io(path, e))?,
        None => String::new(),
    };
    let doc: toml::Table = toml::from_str(&text)
        .map_err(|e| Error::invalid(path, format!("not TOML jp can read, so not changed: {e}")))?;
    let root = toml::Value::Table(doc);
    let existing = ["plugins", "command", "inspect", "options", "tools", tool]
        .iter()
        .try_fold(&root, |at, k| at.get(*k));
    if let Some(table) = existing {
        let said = match table.get("compaction") {
            Some(h) => format!("has a hint for `{tool}` already ({h}): change it there"),
            None => format!(
                "has a `[{}]` table already: add `compaction = \"{hint}\"` to it",
                table_for(tool)
            ),
        };
        return Err(Error::invalid(path, said));
    }
    let added = block(tool, hint);
    let mut out = text.clone();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&added);
    // What is written must still be a config jp reads.
    toml::from_str::<toml::Table>(&out)
        .map_err(|e| Error::invalid(path, format!("the hint would not parse here: {e}")))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let keep = meta.map(|m| safe_fs::Target {
        file: path.to_path_buf(),
        uid: m.uid(),
        gid: m.gid(),
        mode: m.mode() & 0o7777,
    });
    let temp = safe_fs::write_temp(path, out.as_bytes(), keep.as_ref())?;
    safe_fs::commit(&temp, path)?;
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_is_appended_where_jp_accepts_it_and_never_twice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".jp/config.toml");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "[assistant.model.id]\nprovider = \"anthropic\"").unwrap();
        let added = add(&path, "fs_read_file", "strip-responses").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("[assistant.model.id]\nprovider = \"anthropic\"\n\n"));
        assert!(text.ends_with(&added));
        let doc: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(
            doc["plugins"]["command"]["inspect"]["options"]["tools"]["fs_read_file"]["compaction"]
                .as_str(),
            Some("strip-responses")
        );
        let again = add(&path, "fs_read_file", "keep").unwrap_err().to_string();
        assert!(again.contains("already"), "{again}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        // A name TOML must quote.
        add(&path, "mcp.server/read", "omit").unwrap();
        let doc: toml::Table = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(
            doc["plugins"]["command"]["inspect"]["options"]["tools"]
                .get("mcp.server/read")
                .is_some()
        );
    }

    #[test]
    fn a_file_that_is_not_toml_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "this = = broken").unwrap();
        assert!(add(&path, "x_tool", "omit").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "this = = broken");
        assert!(add(&path, "x_tool", "shred").is_err());
    }
}
