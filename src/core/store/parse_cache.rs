//! What jp's config files said, remembered between runs in the user's
//! cache directory (`$JP_INSPECT_CACHE_DIR`, else `$XDG_CACHE_HOME/
//! jp-inspect`, else `~/.cache/jp-inspect`; `JP_INSPECT_CACHE_DIR=off`
//! keeps none). jp's own workspace extends 66 TOML files, and parsing them
//! was most of what `stats` waited for there.
//!
//! An entry answers only for the same file, unchanged: its device, inode,
//! size and modification and change times (every write moves the change
//! time, which no program can set back). A file changed in the last two
//! seconds, or one the kernel makes up as it is read (`/proc`, `/sys`:
//! no blocks on disk), is parsed every time. What is kept is what the
//! caller keeps of a document (for `files_for`, its `extends` and
//! compaction settings) or its error, never the rest of the file's text.
//! A cache that can't be read is no cache; one that can't be written is
//! left as it was: either way the answer is the file's own.

use crate::core::error::{Error, Place};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const FILE: &str = "config-files.json";

/// Bumped when what a parse answers changes, so older entries go unused.
const FORMAT: &str = concat!("1/", env!("CARGO_PKG_VERSION"));

/// The most the cache holds, so reading it stays cheap whatever a
/// workspace's files say: the 66 files of jp's workspace take 14 KB.
const MAX_BYTES: usize = 1 << 20;

/// A file changed less than this long ago may change again within the
/// same tick of the file system's clock, unseen by its times.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(2);

/// Which file, in which state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Stamp {
    /// The stamp of a file whose parse may be remembered: unchanged for
    /// `settle` before `now_ns`.
    fn of(meta: &std::fs::Metadata, now_ns: i128, settle: i128) -> Option<Stamp> {
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        let stamp = Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.len(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
        };
        let settled = now_ns - stamp.mtime_ns.max(stamp.ctime_ns) >= settle;
        (meta.is_file() && meta.len() > 0 && meta.blocks() > 0 && settled).then_some(stamp)
    }
}

/// A parse's answer, as remembered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    Doc(Value),
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    Invalid(String),
}

impl Outcome {
    /// What may be remembered of `result`: not a failure to read, which
    /// says nothing about the file's text.
    fn of(result: &Result<Value, Error>) -> Option<Outcome> {
        match result {
            Ok(doc) => Some(Outcome::Doc(doc.clone())),
            Err(Error::Syntax { place, message, .. }) => Some(Outcome::Syntax {
                line: place.line,
                column: place.column,
                message: message.clone(),
            }),
            Err(Error::Invalid { message, .. }) if !message.starts_with("cannot read") => {
                Some(Outcome::Invalid(message.clone()))
            }
            Err(_) => None,
        }
    }

    fn answer(&self, path: &Path) -> Result<Value, Error> {
        match self {
            Outcome::Doc(doc) => Ok(doc.clone()),
            Outcome::Syntax {
                line,
                column,
                message,
            } => Err(Error::Syntax {
                path: path.to_path_buf(),
                place: Place {
                    line: *line,
                    column: *column,
                },
                message: message.clone(),
            }),
            Outcome::Invalid(message) => Err(Error::invalid(path, message.clone())),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    path: PathBuf,
    stamp: Stamp,
    outcome: Outcome,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    format: String,
    entries: Vec<Entry>,
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<PathBuf, (Stamp, Outcome)>,
    /// Paths answered in this run, first use first: kept first when the
    /// cache is cut to size, then those of earlier runs in their order.
    used: Vec<PathBuf>,
    earlier: Vec<PathBuf>,
    changed: bool,
}

/// The remembered parses of one run, shared by the threads that parse.
#[derive(Debug)]
pub struct ParseCache {
    file: Option<PathBuf>,
    settle_ns: i128,
    inner: Mutex<Inner>,
}

/// The cache directory, unless the user turned the cache off.
pub fn dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    match var("JP_INSPECT_CACHE_DIR") {
        Some(d) if d == Path::new("off") => return None,
        Some(d) => return Some(d),
        None => {}
    }
    if let Some(x) = var("XDG_CACHE_HOME").filter(|x| x.is_absolute()) {
        return Some(x.join("jp-inspect"));
    }
    var("HOME").map(|h| h.join(".cache/jp-inspect"))
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// The most of the cache file read: an entry is a few hundred bytes, and
/// a larger file is a fresh cache.
const STORED_LIMIT: u64 = 64 << 20;

impl ParseCache {
    /// The cache of the user's cache directory (see the module).
    pub fn open() -> ParseCache {
        ParseCache::at(dir().map(|d| d.join(FILE)))
    }

    /// A cache kept in `file`, or none at all.
    pub fn at(file: Option<PathBuf>) -> ParseCache {
        let stored: Stored = file
            .as_ref()
            .and_then(|f| super::bounded::read_regular(f, STORED_LIMIT, true).ok())
            .and_then(|b| serde_json::from_slice(&b).ok())
            .filter(|s: &Stored| s.format == FORMAT)
            .unwrap_or_default();
        let earlier = stored.entries.iter().map(|e| e.path.clone()).collect();
        let entries = stored
            .entries
            .into_iter()
            .map(|e| (e.path, (e.stamp, e.outcome)))
            .collect();
        ParseCache {
            file,
            settle_ns: SETTLE.as_nanos() as i128,
            inner: Mutex::new(Inner {
                entries,
                earlier,
                ..Inner::default()
            }),
        }
    }

    /// The same cache, remembering files unchanged for `settle` (two
    /// seconds unless said).
    #[cfg(test)]
    pub fn with_settle(mut self, settle: std::time::Duration) -> ParseCache {
        self.settle_ns = settle.as_nanos() as i128;
        self
    }

    /// `parse(path)`, or what it answered last time for the same file
    /// unchanged; a document is remembered as `keep` makes it, and
    /// answered so both times.
    pub fn parse(
        &self,
        path: &Path,
        parse: impl Fn(&Path) -> Result<Value, Error>,
        keep: impl Fn(&Value) -> Value,
    ) -> Result<Value, Error> {
        let Some(stamp) = self.stamp(path) else {
            return parse(path).map(|doc| keep(&doc));
        };
        if let Some(answer) = self.recall(path, stamp) {
            return answer;
        }
        let result = parse(path).map(|doc| keep(&doc));
        // The stamp is from before the read: a write during it moves the
        // times past it, and the entry is never matched again.
        if let Some(outcome) = Outcome::of(&result)
            && let Ok(mut inner) = self.inner.lock()
        {
            inner.entries.insert(path.to_path_buf(), (stamp, outcome));
            inner.used.push(path.to_path_buf());
            inner.changed = true;
        }
        result
    }

    /// What the cache answers for `path` as it is now, without parsing.
    pub fn remembered(&self, path: &Path) -> Option<Result<Value, Error>> {
        self.recall(path, self.stamp(path)?)
    }

    /// `path`'s stamp, when there is a cache and the file may be in it.
    fn stamp(&self, path: &Path) -> Option<Stamp> {
        self.file.as_ref()?;
        let meta = std::fs::metadata(path).ok()?;
        Stamp::of(&meta, now_ns(), self.settle_ns)
    }

    fn recall(&self, path: &Path, stamp: Stamp) -> Option<Result<Value, Error>> {
        let mut inner = self.inner.lock().ok()?;
        let answer = match inner.entries.get(path) {
            Some((s, outcome)) if *s == stamp => outcome.answer(path),
            _ => return None,
        };
        inner.used.push(path.to_path_buf());
        Some(answer)
    }

    /// Writes the cache back when this run parsed anything new: atomically,
    /// the files used now first, cut to [`MAX_BYTES`]. A failure is
    /// silent; the next run parses again.
    pub fn save(&self) {
        let (Some(file), Ok(mut inner)) = (self.file.as_ref(), self.inner.lock()) else {
            return;
        };
        if !inner.changed {
            return;
        }
        let inner = &mut *inner;
        let mut entries = Vec::new();
        let (mut taken, mut bytes) = (std::collections::HashSet::new(), 0);
        for path in inner.used.iter().chain(&inner.earlier) {
            let Some((stamp, outcome)) = inner.entries.get(path) else {
                continue;
            };
            if !taken.insert(path) {
                continue;
            }
            let entry = Entry {
                path: path.clone(),
                stamp: *stamp,
                outcome: outcome.clone(),
            };
            // One too large for what is left is skipped, not the rest.
            let size = serde_json::to_vec(&entry).map_or(usize::MAX, |b| b.len());
            if size > MAX_BYTES - bytes {
                continue;
            }
            bytes += size;
            entries.push(entry);
        }
        let stored = Stored {
            format: FORMAT.into(),
            entries,
        };
        let _ = write(file, &stored);
        inner.changed = false;
    }
}

fn write(file: &Path, stored: &Stored) -> crate::core::error::Result<()> {
    use crate::core::store::safe_fs;
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    safe_fs::real_dir(dir)?;
    let text = serde_json::to_vec(stored).unwrap_or_default();
    let temp = safe_fs::write_temp(file, &text, None)?;
    safe_fs::commit(&temp, file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::time::Duration;

    /// Parses by counting, answering the file's text as a string.
    fn counting(calls: &Cell<usize>) -> impl Fn(&Path) -> Result<Value, Error> + '_ {
        move |p: &Path| {
            calls.set(calls.get() + 1);
            let text = std::fs::read_to_string(p).unwrap();
            match text.strip_prefix("bad") {
                Some(_) => Err(Error::Syntax {
                    path: p.to_path_buf(),
                    place: Place { line: 3, column: 7 },
                    message: "not valid TOML".into(),
                }),
                None => Ok(Value::String(text)),
            }
        }
    }

    fn same(v: &Value) -> Value {
        v.clone()
    }

    /// A write a file system clock tick after the last one.
    fn rewrite(path: &Path, text: &str) {
        std::thread::sleep(Duration::from_millis(30));
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn an_unchanged_file_is_answered_without_parsing_and_a_changed_one_again() {
        let tmp = tempfile::tempdir().unwrap();
        let (config, store) = (tmp.path().join("a.toml"), tmp.path().join("cache.json"));
        std::fs::write(&config, "one").unwrap();
        let calls = Cell::new(0);
        let cache = ParseCache::at(Some(store.clone())).with_settle(Duration::ZERO);
        assert_eq!(cache.parse(&config, counting(&calls), same).unwrap(), "one");
        cache.save();
        // Another run: the stored answer, no parse.
        let cache = ParseCache::at(Some(store.clone())).with_settle(Duration::ZERO);
        assert_eq!(cache.parse(&config, counting(&calls), same).unwrap(), "one");
        assert_eq!(calls.get(), 1);
        // The same size, another text: parsed again.
        rewrite(&config, "two");
        assert_eq!(cache.parse(&config, counting(&calls), same).unwrap(), "two");
        assert_eq!(calls.get(), 2);
        // Replaced by another file of the same text and times' tick.
        let other = tmp.path().join("b.toml");
        std::fs::write(&other, "six").unwrap();
        std::fs::rename(&other, &config).unwrap();
        assert_eq!(cache.parse(&config, counting(&calls), same).unwrap(), "six");
        assert_eq!(calls.get(), 3);
    }

    #[test]
    fn remembered_answers_only_what_is_kept_and_unchanged() {
        let tmp = tempfile::tempdir().unwrap();
        let (config, store) = (tmp.path().join("a.toml"), tmp.path().join("cache.json"));
        std::fs::write(&config, "one").unwrap();
        let calls = Cell::new(0);
        let cache = ParseCache::at(Some(store)).with_settle(Duration::ZERO);
        assert!(cache.remembered(&config).is_none());
        cache.parse(&config, counting(&calls), same).unwrap();
        assert_eq!(cache.remembered(&config).unwrap().unwrap(), "one");
        rewrite(&config, "two");
        assert!(cache.remembered(&config).is_none());
        assert_eq!(calls.get(), 1);
    }

    #[test]
    fn an_error_is_remembered_with_its_place_and_words() {
        let tmp = tempfile::tempdir().unwrap();
        let (config, store) = (tmp.path().join("a.toml"), tmp.path().join("cache.json"));
        std::fs::write(&config, "bad = = 1").unwrap();
        let calls = Cell::new(0);
        let first = ParseCache::at(Some(store.clone())).with_settle(Duration::ZERO);
        let fresh = first.parse(&config, counting(&calls), same).unwrap_err();
        first.save();
        let second = ParseCache::at(Some(store)).with_settle(Duration::ZERO);
        let recalled = second.parse(&config, counting(&calls), same).unwrap_err();
        assert_eq!(calls.get(), 1);
        assert_eq!(recalled.to_string(), fresh.to_string());
        assert!(
            recalled.to_string().contains("a.toml:3:7: not valid TOML"),
            "{recalled}"
        );
    }

    #[test]
    fn a_file_just_written_or_made_up_by_the_kernel_is_parsed_every_time() {
        let tmp = tempfile::tempdir().unwrap();
        let (config, store) = (tmp.path().join("a.toml"), tmp.path().join("cache.json"));
        std::fs::write(&config, "one").unwrap();
        let calls = Cell::new(0);
        // Written a moment ago: within the settling time.
        let cache = ParseCache::at(Some(store.clone()));
        cache.parse(&config, counting(&calls), same).unwrap();
        cache.parse(&config, counting(&calls), same).unwrap();
        assert_eq!(calls.get(), 2);
        let now = now_ns() + 10 * SETTLE.as_nanos() as i128;
        #[cfg(target_os = "linux")]
        {
            let proc_file = std::fs::metadata("/proc/self/status").unwrap();
            assert_eq!(Stamp::of(&proc_file, now, 0), None);
        }
        let real = std::fs::metadata(&config).unwrap();
        assert!(Stamp::of(&real, now, 0).is_some());
    }

    #[test]
    fn the_cache_stays_small_whatever_the_files_say() {
        let tmp = tempfile::tempdir().unwrap();
        let store = tmp.path().join("cache.json");
        let cache = ParseCache::at(Some(store.clone())).with_settle(Duration::ZERO);
        let calls = Cell::new(0);
        for i in 0..6 {
            let config = tmp.path().join(format!("{i}.toml"));
            std::fs::write(&config, "x".repeat(300 << 10)).unwrap();
            cache.parse(&config, counting(&calls), same).unwrap();
        }
        cache.save();
        let size = std::fs::metadata(&store).unwrap().len() as usize;
        assert!(size <= MAX_BYTES && size > MAX_BYTES / 2, "{size}");
        // The files of this run come first: the first three are kept.
        let again = ParseCache::at(Some(store.clone())).with_settle(Duration::ZERO);
        for i in 0..3 {
            again
                .parse(
                    &tmp.path().join(format!("{i}.toml")),
                    counting(&calls),
                    same,
                )
                .unwrap();
        }
        assert_eq!(calls.get(), 6);
        // One file too large to keep leaves room for the others.
        let huge = tmp.path().join("huge.toml");
        std::fs::write(&huge, "x".repeat(MAX_BYTES)).unwrap();
        let small = tmp.path().join("small.toml");
        std::fs::write(&small, "small").unwrap();
        let third = ParseCache::at(Some(store.clone())).with_settle(Duration::ZERO);
        for f in [&huge, &small] {
            third.parse(f, counting(&calls), same).unwrap();
        }
        third.save();
        let stored = std::fs::read_to_string(&store).unwrap();
        assert!(stored.contains("small.toml") && !stored.contains("huge.toml"));
    }

    #[test]
    fn what_is_kept_is_what_the_caller_keeps_and_an_unreadable_cache_is_none() {
        let tmp = tempfile::tempdir().unwrap();
        let (config, store) = (tmp.path().join("a.toml"), tmp.path().join("cache.json"));
        std::fs::write(&config, "secret text").unwrap();
        let calls = Cell::new(0);
        let cache = ParseCache::at(Some(store.clone())).with_settle(Duration::ZERO);
        let kept = cache
            .parse(&config, counting(&calls), |_| Value::Null)
            .unwrap();
        assert_eq!(kept, Value::Null);
        cache.save();
        let stored = std::fs::read_to_string(&store).unwrap();
        assert!(!stored.contains("secret"), "{stored}");
        std::fs::write(&store, "{ torn").unwrap();
        let cache = ParseCache::at(Some(store)).with_settle(Duration::ZERO);
        cache.parse(&config, counting(&calls), same).unwrap();
        assert_eq!(calls.get(), 2);
    }
}
