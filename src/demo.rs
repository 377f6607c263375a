//! The bundled demo conversation, opened from a temporary copy so the asset
//! is never modified.

use std::fs;
use std::path::PathBuf;

pub const DIR_NAME: &str = "17944860430-csvq-first-release";

const EVENTS: &[u8] = include_bytes!("../assets/demo/17944860430-csvq-first-release/events.json");
const BASE_CONFIG: &[u8] =
    include_bytes!("../assets/demo/17944860430-csvq-first-release/base_config.json");
const METADATA: &[u8] =
    include_bytes!("../assets/demo/17944860430-csvq-first-release/metadata.json");

/// A temporary workspace holding a copy of the demo conversation; removed
/// when dropped.
pub struct Demo {
    pub workspace: tempfile::TempDir,
    pub conversation_dir: PathBuf,
}

/// Writes the demo into a fresh temporary workspace.
pub fn materialize() -> std::io::Result<Demo> {
    let workspace = tempfile::Builder::new()
        .prefix("jp-inspect-demo-")
        .tempdir()?;
    let dir = workspace.path().join(".jp/conversations").join(DIR_NAME);
    fs::create_dir_all(&dir)?;
    fs::write(dir.join("events.json"), EVENTS)?;
    fs::write(dir.join("base_config.json"), BASE_CONFIG)?;
    fs::write(dir.join("metadata.json"), METADATA)?;
    remember_sources(&dir);
    Ok(Demo {
        workspace,
        conversation_dir: dir,
    })
}

/// Keeps the record jp-inspect keeps of the compactions it writes (which
/// are automatic, their `over` bounds) for the demo's own, as if jp-inspect
/// had written them: so a `jp query` that rewrites the copy, dropping those
/// fields, still leaves them automatic. Best effort: the demo opens without.
fn remember_sources(dir: &std::path::Path) {
    crate::core::ops::read::remember_sources(dir);
}
