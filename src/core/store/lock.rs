//! `jp`'s conversation lock: an exclusive, non-blocking `flock` on
//! `locks/jp-c<ID>.lock`, holding diagnostic JSON, deleted on release.

use crate::core::error::{Error, Result};
use crate::core::model::timestamp;
use crate::core::store::safe_fs;
use serde_json::json;
use std::fs::{self, File, TryLockError};
use std::io::{ErrorKind, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// How long to wait after locking a file another process just released,
/// before checking it was not deleted under us.
const RELEASE_GRACE: std::time::Duration = std::time::Duration::from_millis(2);

/// A held lock; released on drop.
#[derive(Debug)]
pub struct Lock {
    file: Option<File>,
    path: PathBuf,
}

/// The most of a lock file read: its diagnostics are a line of JSON.
const INFO_LIMIT: u64 = 4096;

/// Opens an existing lock file to look at, never through a link and never
/// waiting (a planted FIFO would otherwise block the open forever).
fn open_to_look(path: &Path) -> Option<File> {
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    file.metadata().ok()?.is_file().then_some(file)
}

/// Who holds a lock file, as it says of itself.
pub fn holder_pid(path: &Path) -> Option<u32> {
    let mut text = String::new();
    open_to_look(path)?
        .take(INFO_LIMIT)
        .read_to_string(&mut text)
        .ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("pid")?
        .as_u64()
        .and_then(|p| u32::try_from(p).ok())
        // 0 and values past i32 would ask kill(2) about process groups.
        .filter(|&p| p > 0 && p <= i32::MAX as u32)
}

/// Whether jp is in the middle of writing, told without touching the
/// lock (taking it even for a moment would make a `jp query` starting then
/// fail): jp deletes its lock file on release, and jp-inspect empties its
/// own, so a lock file that names a live process means it is held.
pub fn seems_held(path: &Path) -> bool {
    match holder_pid(path) {
        // SAFETY: kill with signal 0 only asks whether the process exists.
        Some(pid) => unsafe { libc::kill(pid as libc::pid_t, 0) == 0 },
        None => false,
    }
}

/// Whether some process holds the lock at `path` right now.
pub fn is_held(path: &Path) -> bool {
    let Some(file) = open_to_look(path) else {
        return false;
    };
    matches!(file.try_lock(), Err(TryLockError::WouldBlock))
}

impl Lock {
    /// Takes the lock at `primary`, refusing when `jp` (or anyone) holds it
    /// there or at `other` (the second place `jp` looks).
    pub fn acquire(primary: &Path, other: Option<&Path>) -> Result<Lock> {
        if let Some(other) = other.filter(|o| *o != primary)
            && is_held(other)
        {
            return Err(Error::Locked {
                lock_path: other.to_path_buf(),
                pid: holder_pid(other),
            });
        }
        // `jp` deletes the lock file on release, so the file we opened may
        // lose its name before we lock it; retry until the path names the
        // very inode we hold.
        for _ in 0..64 {
            let created = matches!(
                fs::symlink_metadata(primary),
                Err(e) if e.kind() == ErrorKind::NotFound
            );
            // Never through a link: a cloned workspace may plant one here.
            let mut file = safe_fs::open_no_follow(primary)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    return Err(Error::Locked {
                        lock_path: primary.to_path_buf(),
                        pid: holder_pid(primary),
                    });
                }
                Err(TryLockError::Error(e)) => return Err(Error::io(primary, e)),
            }
            if !created {
                // The previous holder may be between releasing its flock and
                // deleting the file (`jp` closes, then unlinks): give it that
                // moment, then make sure the path still names our file.
                std::thread::sleep(RELEASE_GRACE);
            }
            let held = file.metadata().map_err(|e| Error::io(primary, e))?;
            match fs::metadata(primary) {
                Ok(now) if now.ino() == held.ino() && now.dev() == held.dev() => {}
                Ok(_) => continue,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io(primary, e)),
            }
            let info = json!({
                "pid": std::process::id(),
                "session": "jp-inspect",
                "acquired_at": timestamp::rfc3339(&chrono::Utc::now()),
            });
            // Diagnostic only: a failure here does not weaken the lock.
            let _ = file.set_len(0);
            let _ = file.seek(SeekFrom::Start(0));
            let _ = file.write_all(info.to_string().as_bytes());
            let _ = file.flush();
            return Ok(Lock {
                file: Some(file),
                path: primary.to_path_buf(),
            });
        }
        Err(Error::invalid(
            primary,
            "the lock file keeps being replaced; try again",
        ))
    }

    /// Whether the lock path still names the file we hold: false if another
    /// process deleted it (then a third may lock a new file there).
    pub fn still_held(&self) -> bool {
        let Some(file) = &self.file else {
            return false;
        };
        match (file.metadata(), fs::metadata(&self.path)) {
            (Ok(held), Ok(now)) => held.ino() == now.ino() && held.dev() == now.dev(),
            _ => false,
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // The file is emptied and left in place rather than deleted: a
        // process that opened it while we held it (`jp` does not check the
        // inode) must find the path still naming the file it then locks,
        // not an unlinked inode beside a new lock file — deleting it lost
        // events in the soak test (two writers each holding "the" lock).
        // An unlocked lock file is what `jp` calls orphaned, and it takes
        // it over; the folder's `.gitignore` keeps it out of version
        // control.
        //
        // Unlocked explicitly before the close: a process this one spawns
        // holds a copy of every descriptor until it execs, and a copy of
        // ours would keep the flock held after our close — our own next
        // save would find it "locked by nobody".
        if let Some(file) = self.file.take() {
            let _ = file.set_len(0);
            let _ = file.unlock();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_is_refused_with_pid_then_released() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("locks/jp-c1.lock");
        let lock = Lock::acquire(&path, None).unwrap();
        assert!(is_held(&path));
        assert_eq!(holder_pid(&path), Some(std::process::id()));
        match Lock::acquire(&path, None) {
            Err(Error::Locked { pid, .. }) => assert_eq!(pid, Some(std::process::id())),
            other => panic!("expected Locked, got {other:?}"),
        }
        drop(lock);
        assert!(!is_held(&path));
        assert_eq!(holder_pid(&path), None, "no stale diagnostics left");
        Lock::acquire(&path, None).unwrap();
    }

    #[test]
    fn a_copy_of_the_descriptor_does_not_outlive_the_release() {
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("jp-c1.lock");
        let lock = Lock::acquire(&path, None).unwrap();
        // What a child spawned by another thread holds between its fork
        // and its exec.
        let fd = lock.file.as_ref().unwrap().as_raw_fd();
        // SAFETY: dup of a descriptor we own; the copy gets its own owner.
        let copy = unsafe { OwnedFd::from_raw_fd(libc::dup(fd)) };
        drop(lock);
        let again = Lock::acquire(&path, None);
        assert!(again.is_ok(), "released, yet: {again:?}");
        drop(copy);
    }

    #[test]
    fn held_lock_at_the_other_place_refuses() {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a/jp-c1.lock");
        let b = tmp.path().join("b/jp-c1.lock");
        let _held = Lock::acquire(&b, None).unwrap();
        assert!(matches!(
            Lock::acquire(&a, Some(&b)),
            Err(Error::Locked { .. })
        ));
    }

    #[test]
    fn stale_lock_file_is_taken_over() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("jp-c1.lock");
        fs::write(&path, r#"{"pid": 999999, "acquired_at": "x"}"#).unwrap();
        let lock = Lock::acquire(&path, None).unwrap();
        assert_eq!(holder_pid(&path), Some(std::process::id()));
        drop(lock);
        // Left in place, emptied: no one who opened it finds it unlinked.
        assert_eq!(fs::read(&path).unwrap(), b"");
    }
}
