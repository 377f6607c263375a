//! Writing compaction changes back, the only writes jp-inspect makes.
//!
//! Every write: takes `jp`'s lock, re-reads the conversation under it (so an
//! event `jp` appended since we loaded is kept), adds/removes compaction
//! events only, writes every other event back as the exact text it was read
//! as, and replaces `events.json` atomically (temp file in the same
//! directory, fsync, rename, fsync the directory).

use super::edit::{Basis, CompactionKey, Edit, Removal, Restore};
use crate::core::error::{Error, Result};
use crate::core::model::compaction::Source;
use crate::core::model::conversation::{Conversation, EVENTS_FILE};
use crate::core::model::event::Kind;
use crate::core::store::copies;
use crate::core::store::load;
use crate::core::store::lock::Lock;
use crate::core::store::provenance;
use crate::core::store::safe_fs::{self, Guard};
use crate::core::store::workspace::lock_paths;
use std::fs;
use std::path::{Path, PathBuf};

/// What a write did.
#[derive(Debug)]
pub struct Saved {
    /// The conversation as now on disk.
    pub conversation: Conversation,
    pub removed: usize,
    pub appended: usize,
    /// False when the edit changed nothing, so the file was left alone.
    pub written: bool,
    /// The edit that puts the file's compactions back as they were, valid
    /// while they stay as this write left them (an undo).
    pub inverse: Edit,
}

/// Whether jp is mid-query on the conversation in `dir` (a lock file of its
/// naming a live process, in either place jp locks), told without touching
/// the lock.
pub fn jp_holds(dir: &Path) -> bool {
    let Some(id) = load::id_of_dir(dir) else {
        return false;
    };
    let (primary, other) = lock_paths(dir, id);
    crate::core::store::lock::seems_held(&primary)
        || other.is_some_and(|o| crate::core::store::lock::seems_held(&o))
}

/// The lock for the conversation in `dir`.
pub fn lock_for(dir: &Path) -> Result<Lock> {
    let id = load::id_of_dir(dir).ok_or_else(|| {
        Error::invalid(
            dir,
            "not named like a jp conversation (<ID> or <ID>-<slug>), so its lock is unknown; \
             refusing to write",
        )
    })?;
    let (primary, other) = lock_paths(dir, id);
    Lock::acquire(&primary, other.as_deref())
}

/// Applies `edit` to the conversation in `dir` under `jp`'s lock.
///
/// The new file is committed only if, at the last moment, `events.json` is
/// still the file read under the lock and the lock still holds; otherwise
/// (another writer got in, which `jp`'s own lock release makes possible) the
/// edit is redone on the new content. A write therefore never replaces
/// events it did not read.
#[cfg(test)]
pub fn apply(dir: &Path, edit: &Edit) -> Result<Saved> {
    apply_guarded(dir, edit, Guard::Strict)
}

/// [`apply`], with what the write may do to an unusual file (several hard
/// links, no write permission) chosen by the caller.
pub fn apply_guarded(dir: &Path, edit: &Edit, guard: Guard) -> Result<Saved> {
    // Where the conversation really lives, links resolved: its lock is the
    // one jp takes there, whatever folder named it (a cloned workspace may
    // link one of another workspace's conversations into its own).
    let named = fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
    let mut path = named.join(EVENTS_FILE);
    for attempt in 0..8 {
        let lock = lock_for(&named).map_err(|e| unwritable(e, "take jp's lock"))?;
        // Under the lock: of jp's two copies, the one jp reads now; both
        // are written.
        let (copies, parted) = one_conversation(copies::of(&named));
        let dir = copies.read.as_path();
        path = dir.join(EVENTS_FILE);
        cleanup_temp_files(dir);
        let load::Files {
            events,
            base_config,
            metadata,
        } = load::read_files(dir)?;
        let seen = identity(&path)?;
        let mut current = load::parse(
            dir,
            load::Files {
                events,
                base_config: base_config.clone(),
                metadata: metadata.clone(),
            },
        )?;
        current.twin = copies.other.clone();
        let records = load::remember(&mut current);
        if let Some(why) = edit.basis.as_ref().and_then(|b| b.differs(&current)) {
            return Err(Error::Changed { path, why });
        }
        let Rendered {
            text,
            removed,
            taken,
            added,
        } = render_full(&current, edit)?;
        let appended = edit.append.len();
        if removed == 0 && added.is_empty() {
            return Ok(Saved {
                conversation: current,
                removed,
                appended,
                written: false,
                inverse: Edit::remove(Removal::None),
            });
        }
        if identity(&path)? != seen || !lock.still_held() {
            drop(lock);
            std::thread::sleep(std::time::Duration::from_millis(1 + attempt * 3));
            continue;
        }
        replace(&path, text.as_bytes(), guard)
            .map_err(|e| unwritable(e, "write the conversation"))?;
        // The other copy as jp's own save leaves it: the same stream. The
        // events are written; a copy that can't be is said, not turned into
        // a failure of a write that happened (jp's next save mends it).
        let mirrored = copies
            .other
            .as_deref()
            .map(|twin| mirror(twin, text.as_bytes(), base_config.as_deref(), guard));
        let mut conversation = load::parse(
            dir,
            load::Files {
                events: text.into_bytes(),
                base_config,
                metadata,
            },
        )?;
        conversation.twin = copies.other.clone();
        if let Some(why) = parted {
            conversation.warnings.push(crate::core::error::Warning {
                path: dir.to_path_buf(),
                place: None,
                event: None,
                message: why,
            });
        }
        if let Some(Err(e)) = mirrored {
            conversation.warnings.push(crate::core::error::Warning {
                path: copies.other.clone().unwrap_or_default(),
                place: None,
                event: None,
                message: format!(
                    "written, but jp's other copy of the conversation could not be brought \
                     level (jp's next save does): {e}"
                ),
            });
        }
        provenance::recall(&mut conversation, &records);
        let remembered = provenance::records_of(&conversation);
        let places = provenance::places(dir, copies.other.as_deref());
        // The events are written; a record that can't be is said, not
        // turned into a failure of a write that happened.
        if remembered != records
            && let Err(e) = provenance::write_at(&places, &remembered)
        {
            conversation.warnings.push(crate::core::error::Warning {
                path: places[0].clone(),
                place: None,
                event: None,
                message: format!(
                    "written, but which compactions are automatic could not be recorded: {e}"
                ),
            });
        }
        drop(lock);
        let inverse = inverse(&conversation, taken, &added);
        return Ok(Saved {
            conversation,
            removed,
            appended,
            written: true,
            inverse,
        });
    }
    Err(Error::invalid(
        &path,
        "the conversation kept changing while it was being written; nothing was written",
    ))
}

/// An error of the file system where a write was attempted, said as what
/// was attempted, that nothing was written, and what would let it be:
/// others pass as they are.
fn unwritable(e: Error, attempted: &str) -> Error {
    let Error::Io { path, cause } = e else {
        return e;
    };
    let advice = match (cause.kind(), cause.raw_os_error()) {
        (std::io::ErrorKind::ReadOnlyFilesystem, _) => {
            "its file system is mounted read-only; copy the workspace somewhere writable"
        }
        // EPERM: an immutable or append-only file, whatever its mode.
        (_, Some(1)) => {
            "the file or its folder is marked immutable or append-only (lsattr shows it; \
             chattr -i removes it, as its owner or root)"
        }
        (std::io::ErrorKind::PermissionDenied, _) => {
            "you may not write there: check the folder's owner and mode (ls -ld), or work on \
             a copy you own"
        }
        _ => return Error::Io { path, cause },
    };
    Error::invalid(
        path,
        format!("cannot {attempted} ({cause}): nothing was written; {advice}"),
    )
}

/// Why jp's two copies of the conversation in `dir` are not one
/// conversation, if they aren't ([`copies::diverge`]); `watch` writes no
/// such conversation.
pub fn copies_part(dir: &Path) -> Option<String> {
    parted(&copies::of(&fs::canonicalize(dir).ok()?))
}

fn parted(c: &copies::Copies) -> Option<String> {
    let other = c.other.as_deref()?;
    // jp (and jp-inspect) write both copies with the same text: equal
    // bytes are one conversation without parsing either.
    let (a, b) = (load::read_files(&c.read), load::read_files(other));
    if let (Ok(a), Ok(b)) = (&a, &b)
        && a.events == b.events
    {
        return None;
    }
    let parse =
        |d: &Path, f: crate::core::error::Result<load::Files>| f.and_then(|f| load::parse(d, f));
    match (parse(&c.read, a), parse(other, b)) {
        (Ok(a), Ok(b)) => copies::diverge(&a, &b),
        (Ok(_), Err(e)) => Some(format!("the other could not be read ({e})")),
        // The read copy's own failure is the write's to report.
        (Err(_), _) => None,
    }
}

/// jp's copies as a write may treat them: both, when they hold one
/// conversation; else only the copy in the workspace, and why. The silo of
/// a workspace id two workspaces share may hold the other one's
/// conversation under this id: bringing it "level" would write one
/// workspace's text over the other's.
fn one_conversation(c: copies::Copies) -> (copies::Copies, Option<String>) {
    let (Some(why), Some(other)) = (parted(&c), c.other.clone()) else {
        return (c, None);
    };
    let (workspace, silo) = match c.read_root {
        Some(copies::Root::User) => (other, c.read),
        _ => (c.read, other),
    };
    let said = format!(
        "jp's two copies of this conversation are not one conversation ({why}): wrote only \
         the workspace copy and left {} alone — a workspace sharing this one's .jp/.id \
         shares jp's user-local folder",
        silo.display()
    );
    (
        copies::Copies {
            read: workspace,
            read_root: Some(copies::Root::Workspace),
            other: None,
        },
        Some(said),
    )
}

/// Brings jp's other copy in `twin` level with the one just written: its
/// `events.json` the same text, its `base_config.json` the same as the
/// read copy's, each replaced atomically like the first.
fn mirror(twin: &Path, events: &[u8], base_config: Option<&[u8]>, guard: Guard) -> Result<()> {
    let twin_events = twin.join(EVENTS_FILE);
    replace(&twin_events, events, guard)?;
    if let Some(base) = base_config {
        let twin_base = twin.join(crate::core::model::conversation::BASE_CONFIG_FILE);
        let same = super::bounded::read_regular(&twin_base, safe_fs::BASE_CONFIG_LIMIT, true)
            .is_ok_and(|b| b == base);
        if !same {
            replace(&twin_base, base, guard)?;
        }
    }
    Ok(())
}

/// What identifies one version of a file: inode, size and modification time.
fn identity(path: &Path) -> Result<(u64, u64, u64, Option<std::time::SystemTime>)> {
    use std::os::unix::fs::MetadataExt;
    let m = fs::metadata(path).map_err(|e| Error::io(path, e))?;
    Ok((m.dev(), m.ino(), m.len(), m.modified().ok()))
}

/// The new `events.json` text and how many compactions it removes. Pure.
#[cfg(any(test, feature = "fuzzing"))]
pub fn render(conv: &Conversation, edit: &Edit) -> Result<(String, usize)> {
    render_full(conv, edit).map(|r| (r.text, r.removed))
}

/// What `render_full` made.
pub struct Rendered {
    pub text: String,
    pub removed: usize,
    /// The removed events, each with its place among the kept ones.
    pub taken: Vec<Restore>,
    /// The event indices of the new file that the edit put there
    /// (restored and appended).
    pub added: Vec<usize>,
}

/// The new text, what it removed (to put back) and where it added. Pure.
pub fn render_full(conv: &Conversation, edit: &Edit) -> Result<Rendered> {
    let mut keep = vec![true; conv.events.len()];
    let mut removed = 0;
    match &edit.remove {
        Removal::None => {}
        Removal::All | Removal::Auto => {
            for (i, e) in conv.events.iter().enumerate() {
                let hit = match &e.kind {
                    Kind::Compaction(Ok(c)) => {
                        edit.remove == Removal::All || c.source == Source::Auto
                    }
                    Kind::Compaction(Err(_)) => edit.remove == Removal::All,
                    _ => false,
                };
                if hit {
                    keep[i] = false;
                    removed += 1;
                }
            }
        }
        Removal::Exact(keys) => {
            for key in keys {
                let found = conv
                    .compactions()
                    .filter(|c| conv.raw(c.event) == key.raw)
                    .nth(key.occurrence)
                    .ok_or_else(|| {
                        Error::invalid(
                            conv.events_path(),
                            "the compaction to remove is no longer in the file \
                             (it changed since it was read); nothing was written",
                        )
                    })?;
                if keep[found.event] {
                    keep[found.event] = false;
                    removed += 1;
                }
            }
        }
    }

    let mut taken = Vec::new();
    let mut events: Vec<std::borrow::Cow<'_, str>> = Vec::with_capacity(conv.events.len() + 2);
    for (i, kept) in keep.iter().enumerate() {
        if *kept {
            events.push(conv.raw(i).into());
        } else {
            taken.push(Restore {
                raw: conv.raw(i).to_string(),
                kept_before: events.len(),
            });
        }
    }
    // Restores go back in their order; each one shifts the later places.
    let mut restores: Vec<&Restore> = edit.restore.iter().collect();
    restores.sort_by_key(|r| r.kept_before);
    let mut added = Vec::new();
    for (n, r) in restores.iter().enumerate() {
        let at = (r.kept_before + n).min(events.len());
        events.insert(at, r.raw.as_str().into());
        added.push(at);
    }
    for c in &edit.append {
        added.push(events.len());
        events.push(pretty_element(&c.to_json()).into());
    }
    let mut parts: Vec<std::borrow::Cow<'_, str>> = Vec::with_capacity(events.len() + 1);
    if let Some(prelude) = conv.prelude_raw() {
        parts.push(prelude.into());
    }
    parts.extend(events);
    Ok(Rendered {
        text: join_array(&parts),
        removed,
        taken,
        added,
    })
}

/// The edit that undoes one: removes what it `added` to `after` (named by
/// exact text and occurrence) and restores what it `taken`, checked
/// against `after`'s compactions.
fn inverse(after: &Conversation, taken: Vec<Restore>, added: &[usize]) -> Edit {
    let keys = added
        .iter()
        .filter_map(|&event| {
            let raw = after.raw(event);
            let occurrence = after
                .compactions()
                .filter(|c| c.event < event && after.raw(c.event) == raw)
                .count();
            after.events.get(event).map(|_| CompactionKey {
                raw: raw.to_string(),
                occurrence,
            })
        })
        .collect();
    Edit {
        remove: Removal::Exact(keys),
        restore: taken,
        append: Vec::new(),
        basis: Some(Basis::of(after)),
    }
}

/// Formats an array of element texts the way `jp` pretty-prints its files.
pub fn join_array(parts: &[std::borrow::Cow<'_, str>]) -> String {
    if parts.is_empty() {
        return "[]\n".to_string();
    }
    let len: usize = parts.iter().map(|p| p.len() + 4).sum::<usize>() + 4;
    let mut out = String::with_capacity(len);
    out.push_str("[\n");
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        out.push_str("  ");
        out.push_str(p);
    }
    out.push_str("\n]\n");
    out
}

/// An element's text as it sits inside `jp`'s pretty-printed array: the
/// first line unindented (the array adds it), later lines indented by two.
pub fn pretty_element(value: &serde_json::Value) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    // JSON strings cannot hold raw newlines, so every newline is layout.
    text.replace('\n', "\n  ")
}

/// Writes `bytes` as the new content of the conversation file `path`,
/// atomically: into a fresh temp file beside the file it really is (a link
/// inside the storage is written through and kept), with its owner, group
/// and mode, then renamed over it.
fn replace(path: &Path, bytes: &[u8], guard: Guard) -> Result<()> {
    let target = safe_fs::target(path, &storage_of(path), guard)?;
    let temp = safe_fs::write_temp(&target.file, bytes, Some(&target))?;
    safe_fs::commit(&temp, &target.file)
}

/// The folder a conversation file's link may point inside: the storage
/// holding its `conversations/`, or its own folder for a loose one.
fn storage_of(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new("."));
    match dir.parent() {
        Some(p) if p.file_name().is_some_and(|n| n == "conversations") => {
            p.parent().unwrap_or(p).to_path_buf()
        }
        _ => dir.to_path_buf(),
    }
}

use safe_fs::cleanup_temp_files;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pretty_element_matches_jp_layout_inside_an_array() {
        let v = json!({"type": "compaction", "tool_calls": {"policy": "omit"}});
        let doc = join_array(&[pretty_element(&v).into()]);
        let expected = serde_json::to_string_pretty(&json!([v])).unwrap() + "\n";
        assert_eq!(doc, expected);
    }

    #[test]
    fn empty_array_is_written_as_jp_does() {
        assert_eq!(join_array(&[]), "[]\n");
    }

    /// A new file is renamed over the old one, never the old one written
    /// in place: a reader that opened the old file still reads all of it
    /// (a write in place, truncating it first, would show that reader an
    /// empty or half-written file), the path is a new file, and no temp
    /// file is left beside it.
    #[cfg(unix)]
    #[test]
    fn atomic_write_renames_a_new_file_over_the_old_and_leaves_no_temp() {
        use std::io::Read;
        use std::os::unix::fs::MetadataExt;
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("events.json");
        fs::write(&path, "old").unwrap();
        let before = fs::metadata(&path).unwrap().ino();
        let mut reader = fs::File::open(&path).unwrap();
        replace(&path, b"new", Guard::Strict).unwrap();
        let mut seen = String::new();
        reader.read_to_string(&mut seen).unwrap();
        assert_eq!(seen, "old", "the old file was written in place");
        assert_ne!(fs::metadata(&path).unwrap().ino(), before);
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
    }
}
