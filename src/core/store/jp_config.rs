//! jp's own configuration files, read for the compaction settings they
//! hold, in jp's order (lowest precedence first): the user-global config,
//! the workspace's `.jp/config.*` (after the files its `extends` names), and
//! the user-workspace config in jp's user storage. Each comes with how far
//! it is trusted: the user's own files may define a summarizer (a command to
//! run, an endpoint to send the conversation to); a workspace's, which is
//! often committed to git, may only choose among those.

use super::config_file::parse_file;
use super::config_file::{MAX_FILES, MAX_TREE_BYTES, error};
use crate::core::error::Error;
use crate::core::model::config::JpResolved;
use crate::core::model::config::compaction_part;
use crate::core::store::parse_cache::ParseCache;
use crate::core::store::workspace::find_silo;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The extensions jp reads, in the order it tries them.
use crate::core::store::extends_glob::EXTENSIONS;

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

/// Which file a path is: its device and inode (what a path resolves to,
/// without the `readlink` of every component that canonicalising costs),
/// else the path as given.
#[derive(Debug, PartialEq, Eq)]
enum FileId {
    Inode(u64, u64),
    Path(PathBuf),
}

impl FileId {
    fn of(path: &Path) -> FileId {
        use std::os::unix::fs::MetadataExt;
        match std::fs::metadata(path) {
            Ok(m) => FileId::Inode(m.dev(), m.ino()),
            Err(_) => FileId::Path(path.to_path_buf()),
        }
    }
}

/// How the files of one walk are parsed: whole (for what a provider is
/// told), or for their compaction settings alone, remembered between runs.
#[derive(Clone, Copy)]
enum Parse<'a> {
    Whole,
    Compaction(&'a ParseCache),
}

impl Parse<'_> {
    fn file(self, path: &Path) -> Result<Value, Error> {
        match self {
            Parse::Whole => parse_file(path),
            Parse::Compaction(cache) => cache.parse(path, parse_file, compaction_part),
        }
    }

    /// What an earlier run found in `path`, unchanged since.
    fn remembered(self, path: &Path) -> Option<Result<Value, Error>> {
        match self {
            Parse::Whole => None,
            Parse::Compaction(cache) => cache.remembered(path),
        }
    }
}

/// What one walk of a config tree has read: which files (so a file is
/// read once, and cycles end) and how many bytes are left of its budget.
struct Walk {
    seen: Vec<FileId>,
    bytes_left: u64,
}

impl Walk {
    fn new() -> Walk {
        Walk {
            seen: Vec::new(),
            bytes_left: MAX_TREE_BYTES,
        }
    }

    /// Takes `path`'s size from the budget, or says the tree is too large.
    fn spend(&mut self, path: &Path) -> Result<(), Error> {
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        if size > self.bytes_left {
            return Err(error(
                path,
                format!(
                    "the config files this tree reaches hold more than {} MiB together (jp's \
                     own workspace: 0.13 MiB); jp-inspect reads no further, here",
                    MAX_TREE_BYTES >> 20
                ),
            ));
        }
        self.bytes_left -= size;
        Ok(())
    }
}

/// `path` with the files its `extends` names around it, recursively (a
/// file already read is not read again, so cycles end).
fn with_extends(
    path: &Path,
    how: Parse<'_>,
    trust: Trust,
    walk: &mut Walk,
    out: &mut Vec<ConfigFile>,
) -> Result<(), Error> {
    with_extends_parsed(path, None, how, trust, walk, out)
}

/// [`with_extends`] of a file perhaps parsed already (`parsed`).
fn with_extends_parsed(
    path: &Path,
    parsed: Option<Result<Value, Error>>,
    how: Parse<'_>,
    trust: Trust,
    walk: &mut Walk,
    out: &mut Vec<ConfigFile>,
) -> Result<(), Error> {
    let id = FileId::of(path);
    if walk.seen.contains(&id) {
        return Ok(());
    }
    walk.seen.push(id);
    if walk.seen.len() > MAX_FILES {
        return Err(error(
            path,
            format!("`extends` reaches more than {MAX_FILES} files; stopped here"),
        ));
    }
    walk.spend(path)?;
    let doc = match parsed {
        Some(doc) => doc?,
        None => how.file(path)?,
    };
    let base = path.parent().unwrap_or(Path::new("."));
    let (before, after) = extends(&doc, base);
    let mut expand = |pattern: &str, out: &mut Vec<ConfigFile>| -> Result<(), Error> {
        let files = super::extends_glob::expand(pattern, path)?;
        let mut docs = parse_ahead(&files, how, walk.bytes_left).into_iter();
        for f in &files {
            with_extends_parsed(f, docs.next().flatten(), how, trust, walk, out)?;
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

/// The files a glob found, answered from the cache where an earlier run
/// read them unchanged, the rest parsed on two threads when they are many
/// (a workspace may extend dozens of files, and parsing them is most of
/// what `stats` waits for): in their order, `None` where none was parsed.
/// A file the walk then skips (read already) was parsed for nothing; what
/// is kept, and every error said, is the same as parsing one by one.
fn parse_ahead(
    files: &[PathBuf],
    how: Parse<'_>,
    budget: u64,
) -> Vec<Option<Result<Value, Error>>> {
    const AHEAD_FROM: usize = 4;
    // Only as far as the budget reaches: the walk stops at the file past it.
    let mut left = budget;
    let within = files
        .iter()
        .take(MAX_FILES)
        .take_while(|f| {
            let size = std::fs::metadata(f).map_or(0, |m| m.len());
            let fits = size <= left;
            left = left.saturating_sub(size);
            fits
        })
        .count();
    let files = &files[..within];
    if files.len() < AHEAD_FROM {
        return Vec::new();
    }
    let mut docs: Vec<_> = files.iter().map(|f| how.remembered(f)).collect();
    let missing: Vec<usize> = (0..files.len()).filter(|&i| docs[i].is_none()).collect();
    if missing.len() < AHEAD_FROM {
        // The walk parses these few as it reaches them.
        return docs;
    }
    let (a, b) = missing.split_at(missing.len() / 2);
    let parse = |part: &[usize]| -> Vec<(usize, Result<Value, Error>)> {
        part.iter().map(|&i| (i, how.file(&files[i]))).collect()
    };
    std::thread::scope(|s| {
        let second = s.spawn(|| parse(b));
        let first = parse(a);
        // A second half that panicked is left to the walk, which parses
        // those files again and says why.
        for (i, doc) in first.into_iter().chain(second.join().unwrap_or_default()) {
            docs[i] = Some(doc);
        }
    });
    docs
}

/// The workspace storage (`.jp`) and user silo of the conversation in
/// `dir`, whichever can be told from where it lives.
pub fn storage_of(dir: &Path) -> (Option<PathBuf>, Option<PathBuf>) {
    use crate::core::store::copies::{Root, root_of};
    // A silo only under jp's user data dir: nothing a workspace holds makes
    // its `.jp` one (copies::root_of).
    match root_of(dir) {
        Some((Root::User, silo)) => (std::fs::canonicalize(silo.join("storage")).ok(), Some(silo)),
        Some((Root::Workspace, storage)) => {
            let silo = find_silo(&storage);
            (Some(storage), silo)
        }
        None => (None, None),
    }
}

/// The user's own jp configuration files (the user-global config and what
/// it extends), lowest precedence first: the only ones trusted to say where
/// a provider is and which key to send it.
pub fn user_files() -> Result<Vec<ConfigFile>, Error> {
    let mut out = Vec::new();
    let mut walk = Walk::new();
    if let Some(global) = user_global_dir().and_then(|d| find(&d, "config")) {
        with_extends(&global, Parse::Whole, Trust::User, &mut walk, &mut out)?;
    }
    Ok(out)
}

/// jp's configuration files for the conversation in `dir`, lowest
/// precedence first, each document cut to its `extends` and compaction
/// settings (all that is read of them) and remembered between runs
/// ([`ParseCache`]).
pub fn files_for(dir: &Path, jp: Option<&JpResolved>) -> Result<Vec<ConfigFile>, Error> {
    let cache = ParseCache::open();
    let files = files_for_with(dir, &cache, jp);
    cache.save();
    files
}

/// [`files_for`] with the cache given. Under `jp inspect`, jp's resolved
/// configuration stands in for the files (jp read them, with its
/// environment and `--cfg` on top): the user's own files are still read
/// first, for the summarizers only they may define.
pub fn files_for_with(
    dir: &Path,
    cache: &ParseCache,
    jp: Option<&JpResolved>,
) -> Result<Vec<ConfigFile>, Error> {
    let Some(jp) = jp else {
        return own_files_for(dir, cache);
    };
    let how = Parse::Compaction(cache);
    let mut out = Vec::new();
    let mut walk = Walk::new();
    if let Some(global) = user_global_dir().and_then(|d| find(&d, "config")) {
        with_extends(&global, how, Trust::User, &mut walk, &mut out)?;
    }
    out.push(ConfigFile {
        path: PathBuf::from(super::host::JP_RESOLVED),
        trust: Trust::Shared,
        doc: super::host::as_layer(&jp.config),
    });
    Ok(out)
}

/// The files themselves, as jp-inspect reads them, whether or not jp
/// handed over its own reading.
pub fn own_files_for(dir: &Path, cache: &ParseCache) -> Result<Vec<ConfigFile>, Error> {
    walk_for(dir, Parse::Compaction(cache))
}

/// Every file of the tree for `dir`, whole: what jp-inspect's reading of
/// the model, tools and system prompt is checked against jp's with.
pub fn whole_files_for(dir: &Path) -> Result<Vec<ConfigFile>, Error> {
    walk_for(dir, Parse::Whole)
}

fn walk_for(dir: &Path, how: Parse<'_>) -> Result<Vec<ConfigFile>, Error> {
    let mut out = Vec::new();
    let mut walk = Walk::new();
    if let Some(global) = user_global_dir().and_then(|d| find(&d, "config")) {
        with_extends(&global, how, Trust::User, &mut walk, &mut out)?;
    }
    let (storage, silo) = storage_of(dir);
    if let Some(ws) = storage.and_then(|s| find(&s, "config")) {
        with_extends(&ws, how, Trust::Shared, &mut walk, &mut out)?;
    }
    if let Some(user_ws) = silo.and_then(|s| find(&s, "config")) {
        with_extends(&user_ws, how, Trust::Shared, &mut walk, &mut out)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_is_read_into_the_same_tree_as_through_tomls_own() {
        let text = "a = 1979-05-27T07:32:00Z\nb = 1979-05-27\nc = 07:32:00\nd = 1.5\n\
                    e = 9007199254740993\nf = [1, \"x\", {g = 2}]\nk = \"\"\"\nlong\\nline\"\"\"\n\
                    [[h]]\ni = inf\n[[h]]\nj = nan\n[m.n]\no = true\n";
        let through: toml::Value = toml::from_str(text).unwrap();
        let through = serde_json::to_value(through).unwrap();
        let direct: Value = toml::from_str(text).unwrap();
        assert_eq!(direct, through);
    }
}
