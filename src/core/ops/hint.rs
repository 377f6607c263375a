//! A tool's D17 hint, written into a jp config: the files it may go in,
//! what it writes there, and the write (`store::hint_file`: appended as
//! its own table, checked to parse, atomic, the mode kept).

use crate::core::error::Result;
use std::path::{Path, PathBuf};

/// The config files a hint may be written into: the `.jp/config.toml` of
/// the workspace the inspector was started in, then the user's own jp
/// config. Never a workspace found by walking up from a conversation's
/// folder (a cloned workspace may plant a `.jp` there), never through a
/// link, and named by its real path, as the question shows it.
pub fn files(workspace: Option<&Path>) -> Vec<PathBuf> {
    let no_link =
        |p: &Path| std::fs::symlink_metadata(p).map_or(true, |m| !m.file_type().is_symlink());
    let mut files = Vec::new();
    if let Some(root) = workspace.and_then(|r| std::fs::canonicalize(r).ok()) {
        let storage = root.join(crate::core::store::workspace::STORAGE_DIR);
        let file = storage.join("config.toml");
        if std::fs::symlink_metadata(&storage).is_ok_and(|m| m.is_dir()) && no_link(&file) {
            files.push(file);
        }
    }
    if let Some(dir) = crate::core::store::jp_config::user_global_dir() {
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        let file = dir.join("config.toml");
        if no_link(&file) {
            files.push(file);
        }
    }
    files
}

/// The block a hint writes: its table and `compaction = "HINT"`.
pub fn block(tool: &str, hint: &str) -> String {
    crate::core::store::hint_file::block(tool, hint)
}

/// The table a tool's hint goes under, where today's jp accepts it.
pub fn table(tool: &str) -> String {
    crate::core::store::hint_file::table_for(tool)
}

/// Appends `tool`'s `hint` to the config file `file`; the block written.
pub fn write(file: &Path, tool: &str, hint: &str) -> Result<String> {
    crate::core::store::hint_file::add(file, tool, hint)
}
