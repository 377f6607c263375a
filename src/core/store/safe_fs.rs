//! Opening the files jp-inspect creates or replaces inside a workspace so
//! that nothing planted there can redirect a write. A workspace is a folder
//! people clone, and git commits symbolic links: a lock file, a temp file
//! or a record that is a link would make a write land wherever it points.
//!
//! - Lock files are opened with `openat` under their folder, itself opened
//!   with `O_NOFOLLOW | O_DIRECTORY` after checking it is a real directory,
//!   and the file with `O_NOFOLLOW`: a link is refused, never followed.
//!   jp itself follows a link there (and truncates its target); we don't.
//! - Temp files get a random name and `O_EXCL` (the `tempfile` crate), so
//!   a planted name can't be reused.
//! - A conversation's `events.json` that is a link is written through to
//!   its target, the link kept, only when the target lies inside the same
//!   storage; its owner, group and mode are kept; a file with several hard
//!   links or without write permission is refused unless forced.

use crate::core::error::{Error, Result};
use std::ffi::CString;
use std::fs::{self, File};
use std::io::{ErrorKind, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The mark in the names of our temp files, so a leftover is recognised
/// (and, ending in `.tmp`, by jp's own cleanup too).
pub const TEMP_MARK: &str = ".jp-inspect-";

fn refused(path: &Path, why: impl Into<String>) -> Error {
    Error::invalid(path, why)
}

/// Makes sure `dir` exists and is a real directory, not a symbolic link to
/// one (which would send what we create there elsewhere).
pub fn real_dir(dir: &Path) -> Result<()> {
    match fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => Err(refused(
            dir,
            format!(
                "is a symbolic link (to {}); jp-inspect creates files only in real \
                 directories; remove the link",
                link_target(dir)
            ),
        )),
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(refused(dir, "is not a directory")),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            // Created just now, or by someone racing us: check again.
            match fs::symlink_metadata(dir) {
                Ok(m) if m.is_dir() && !m.file_type().is_symlink() => Ok(()),
                _ => Err(refused(dir, "was replaced while being created")),
            }
        }
        Err(e) => Err(Error::io(dir, e)),
    }
}

fn link_target(path: &Path) -> String {
    fs::read_link(path)
        .map(|t| t.display().to_string())
        .unwrap_or_else(|_| "?".into())
}

fn c_path(path: &Path) -> Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| refused(path, "the path holds a NUL byte"))
}

/// Opens (creating it if missing) the regular file `path` for reading and
/// writing without following a link at its folder or at the file itself,
/// and without truncating it. A link, a non-file or a file with several
/// hard links is refused with a message that names it.
pub fn open_no_follow(path: &Path) -> Result<File> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| refused(path, "has no file name"))?;
    real_dir(dir)?;
    ignore_in_git(dir);
    let c_dir = c_path(dir)?;
    let c_name = c_path(Path::new(name))?;
    // SAFETY: plain syscalls on NUL-terminated paths; each returned fd is
    // owned by exactly one OwnedFd.
    let dir_fd = unsafe {
        libc::open(
            c_dir.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if dir_fd < 0 {
        return Err(Error::io(dir, std::io::Error::last_os_error()));
    }
    // SAFETY: dir_fd is a fresh descriptor we own.
    let dir_fd = unsafe { OwnedFd::from_raw_fd(dir_fd) };
    let fd = unsafe {
        libc::openat(
            std::os::fd::AsRawFd::as_raw_fd(&dir_fd),
            c_name.as_ptr(),
            libc::O_RDWR | libc::O_CREAT | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0o644 as libc::c_uint,
        )
    };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::ELOOP) => refused(
                path,
                format!(
                    "is a symbolic link (to {}); refusing to open it, since writing would \
                     change the file it points at; remove the link",
                    link_target(path)
                ),
            ),
            _ => Error::io(path, e),
        });
    }
    // SAFETY: fd is a fresh descriptor we own.
    let file = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(refused(path, "is not a regular file; refusing to use it"));
    }
    if meta.nlink() > 1 {
        return Err(refused(
            path,
            format!(
                "has {} hard links; writing it would change the other names too; remove it",
                meta.nlink()
            ),
        ));
    }
    Ok(file)
}

/// What jp-inspect writes into the folders of its own files (locks,
/// records) so that a `.jp/` under version control doesn't pick them up.
const GITIGNORE: &str = "# jp-inspect: lock files and records are not for version control\n*\n";

/// Puts a `.gitignore` ignoring everything into `dir` (a real directory
/// already checked), unless one is there. Best effort: a failure leaves
/// the folder as it was.
pub fn ignore_in_git(dir: &Path) {
    use std::os::unix::fs::OpenOptionsExt;
    let path = dir.join(".gitignore");
    if let Ok(mut f) = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
    {
        let _ = f.write_all(GITIGNORE.as_bytes());
    }
}

/// The most of a conversation's `metadata.json` read: jp's are a few
/// hundred bytes.
pub const METADATA_LIMIT: u64 = 1 << 20;
/// The most of a `base_config.json`: a resolved config with every tool's
/// definition is a few hundred kilobytes.
pub const BASE_CONFIG_LIMIT: u64 = 64 << 20;
/// The most of an `events.json`: jp's largest sessions are tens of
/// megabytes; a bound keeps a planted sparse file from taking the memory.
pub const EVENTS_LIMIT: u64 = 8 << 30;

/// The most of a record of jp-inspect's read.
const RECORD_LIMIT: u64 = 16 << 20;

/// Reads `path` unless it is a symbolic link (refused, naming it) or not a
/// regular file; `None` when it does not exist.
pub fn read_no_follow(path: &Path) -> Result<Option<Vec<u8>>> {
    match super::bounded::read_regular(path, RECORD_LIMIT, false) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => Err(refused(
            path,
            format!(
                "is a symbolic link (to {}); jp-inspect keeps its records in real files; \
                 remove the link",
                link_target(path)
            ),
        )),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// The file a write of `path` really replaces, and what it must keep.
#[derive(Debug)]
pub struct Target {
    /// `path` itself, or the file its link names.
    pub file: PathBuf,
    pub uid: u32,
    pub gid: u32,
    pub mode: u32,
}

/// What a write may do to a file people would not expect changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Guard {
    /// Refuse a file with several hard links or without write permission.
    #[default]
    Strict,
    /// Write it anyway (`--force`): the hard links are split, the mode kept.
    Forced,
}

impl Guard {
    /// `Forced` when the person said `--force`, else `Strict`.
    pub fn forced_if(force: bool) -> Guard {
        if force { Guard::Forced } else { Guard::Strict }
    }
}

/// Where a write of `path` (a conversation's `events.json`) goes: the file
/// itself, or, when it is a link, its target if that lies inside `storage`
/// (the folder holding the conversations); refused otherwise.
pub fn target(path: &Path, storage: &Path, guard: Guard) -> Result<Target> {
    let link = fs::symlink_metadata(path).map_err(|e| Error::io(path, e))?;
    let file = if link.file_type().is_symlink() {
        let real = fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
        let root = fs::canonicalize(storage).unwrap_or_else(|_| storage.to_path_buf());
        if !real.starts_with(&root) {
            return Err(refused(
                path,
                format!(
                    "is a symbolic link to {}, outside {}; refusing to write through it",
                    real.display(),
                    root.display()
                ),
            ));
        }
        real
    } else {
        path.to_path_buf()
    };
    let meta = fs::metadata(&file).map_err(|e| Error::io(&file, e))?;
    if !meta.is_file() {
        return Err(refused(
            &file,
            "is not a regular file; refusing to replace it",
        ));
    }
    if guard == Guard::Strict {
        if meta.nlink() > 1 {
            return Err(refused(
                &file,
                format!(
                    "has {} hard links; replacing it would leave the others with the old \
                     content; nothing was written (--force writes it anyway)",
                    meta.nlink()
                ),
            ));
        }
        if meta.permissions().mode() & 0o222 == 0 || !writable(&file) {
            return Err(refused(
                &file,
                format!(
                    "is read-only (mode {:o}); nothing was written (--force writes it anyway, \
                     keeping the mode)",
                    meta.permissions().mode() & 0o7777
                ),
            ));
        }
    }
    Ok(Target {
        file,
        uid: meta.uid(),
        gid: meta.gid(),
        mode: meta.permissions().mode() & 0o7777,
    })
}

fn writable(path: &Path) -> bool {
    let Ok(c) = c_path(path) else { return false };
    // SAFETY: access(2) on a NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// Writes and fsyncs a new temp file beside `path` with a random name,
/// created exclusively (the first half of an atomic replace: a crash leaves
/// the old file or, after [`commit`], the new one, never a mix). The temp
/// file gets `keep`'s owner, group and mode when given.
pub fn write_temp(path: &Path, bytes: &[u8], keep: Option<&Target>) -> Result<PathBuf> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut temp = tempfile::Builder::new()
        .prefix(&format!("{name}{TEMP_MARK}"))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::io(path, e))?;
    let result = (|| -> std::io::Result<()> {
        temp.write_all(bytes)?;
        if let Some(t) = keep {
            keep_owner(temp.as_file(), t)?;
            temp.as_file()
                .set_permissions(fs::Permissions::from_mode(t.mode))?;
        }
        temp.as_file().sync_all()
    })();
    result.map_err(|e| Error::io(path, e))?;
    let (_, kept) = temp.keep().map_err(|e| Error::io(path, e.error))?;
    Ok(kept)
}

/// Gives `file` the target's owner and group, unless they are already ours
/// (a plain user can't give files away, and needn't).
fn keep_owner(file: &File, t: &Target) -> std::io::Result<()> {
    let meta = file.metadata()?;
    if meta.uid() == t.uid && meta.gid() == t.gid {
        return Ok(());
    }
    // SAFETY: fchown on a descriptor we own.
    let rc = unsafe {
        libc::fchown(
            std::os::fd::AsRawFd::as_raw_fd(file),
            t.uid as libc::uid_t,
            t.gid as libc::gid_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        let e = std::io::Error::last_os_error();
        Err(std::io::Error::new(
            e.kind(),
            format!(
                "cannot keep the file's owner {}:{} ({e}); nothing was written",
                t.uid, t.gid
            ),
        ))
    }
}

/// Renames the temp file over `path` and makes the rename durable.
pub fn commit(temp: &Path, path: &Path) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let result = fs::rename(temp, path).and_then(|()| File::open(dir)?.sync_all());
    if let Err(e) = result {
        let _ = fs::remove_file(temp);
        return Err(Error::io(path, e));
    }
    Ok(())
}

/// Removes temp files an interrupted write of ours left in `dir`. Only
/// called under the lock, when no other writer of ours can be mid-write.
/// A planted link with such a name is removed, never followed.
pub fn cleanup_temp_files(dir: &Path) {
    let Ok(read) = fs::read_dir(dir) else {
        return;
    };
    for entry in read.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.contains(TEMP_MARK) && name.ends_with(".tmp") {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_linked_file_is_refused_and_its_target_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tmp.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        fs::create_dir(tmp.path().join("locks")).unwrap();
        let lock = tmp.path().join("locks/jp-c1.lock");
        symlink(&victim, &lock).unwrap();
        let e = open_no_follow(&lock).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert!(e.contains("jp-c1.lock"), "{e}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    }

    #[test]
    fn a_linked_folder_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        symlink(&elsewhere, tmp.path().join("locks")).unwrap();
        let e = open_no_follow(&tmp.path().join("locks/jp-c1.lock"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    #[test]
    fn a_hard_linked_lock_file_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tmp.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        let lock = tmp.path().join("jp-c1.lock");
        fs::hard_link(&victim, &lock).unwrap();
        let e = open_no_follow(&lock).unwrap_err().to_string();
        assert!(e.contains("2 hard links"), "{e}");
    }

    #[test]
    fn temp_names_are_random_and_never_reuse_a_planted_one() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("events.json");
        let a = write_temp(&path, b"a", None).unwrap();
        let b = write_temp(&path, b"b", None).unwrap();
        assert_ne!(a, b);
        assert!(a.to_string_lossy().contains(TEMP_MARK));
        assert!(a.to_string_lossy().ends_with(".tmp"));
    }

    #[test]
    fn a_link_inside_the_storage_is_written_through_one_outside_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let storage = tmp.path().join("storage");
        fs::create_dir_all(storage.join("c")).unwrap();
        fs::write(storage.join("real.json"), "[]").unwrap();
        symlink(storage.join("real.json"), storage.join("c/events.json")).unwrap();
        let t = target(&storage.join("c/events.json"), &storage, Guard::Strict).unwrap();
        assert_eq!(t.file, fs::canonicalize(storage.join("real.json")).unwrap());
        fs::write(tmp.path().join("outside.json"), "[]").unwrap();
        fs::remove_file(storage.join("c/events.json")).unwrap();
        symlink(
            tmp.path().join("outside.json"),
            storage.join("c/events.json"),
        )
        .unwrap();
        let e = target(&storage.join("c/events.json"), &storage, Guard::Strict)
            .unwrap_err()
            .to_string();
        assert!(e.contains("outside"), "{e}");
    }

    #[test]
    fn read_only_and_hard_linked_files_need_force() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("events.json");
        fs::write(&path, "[]").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
        let e = target(&path, tmp.path(), Guard::Strict)
            .unwrap_err()
            .to_string();
        assert!(e.contains("read-only (mode 444)"), "{e}");
        let t = target(&path, tmp.path(), Guard::Forced).unwrap();
        assert_eq!(t.mode, 0o444);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        fs::hard_link(&path, tmp.path().join("other")).unwrap();
        let e = target(&path, tmp.path(), Guard::Strict)
            .unwrap_err()
            .to_string();
        assert!(e.contains("2 hard links"), "{e}");
    }
}
