//! Reading a file no further than its limit, whatever the file says of
//! itself. A cloned workspace can commit a link to anything: a device reads
//! forever, a FIFO blocks, and a kernel interface (`/proc/self/pagemap`) is
//! a regular file whose `stat` size is 0 but which reads for hundreds of
//! gigabytes. So `stat` is only a hint: every read goes through a reader
//! that stops one byte past the limit, and files of the kernel's own
//! interfaces are refused before a byte is read.

use std::fs::{self, File};
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

/// The folders whose files are the kernel's and the devices', never a
/// conversation's or a config's.
const KERNEL_FOLDERS: [&str; 3] = ["/proc", "/sys", "/dev"];

/// Opens `path` to read it, following a link only when `follow`, never
/// waiting (a FIFO opened for reading blocks until a writer comes) and
/// refusing what is not a regular file (a device such as `/dev/zero`
/// reads forever) or is one of the kernel's interfaces.
pub fn open_regular(path: &Path, follow: bool) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = libc::O_NONBLOCK | if follow { 0 } else { libc::O_NOFOLLOW };
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            ErrorKind::InvalidInput,
            "not a regular file (a device, a FIFO or a socket), so not read",
        ));
    }
    if let Some(folder) = kernel_folder(&file, path) {
        return Err(std::io::Error::new(
            ErrorKind::InvalidInput,
            format!(
                "lies under {folder} (a file of the kernel or of a device, which can \
                 read without end), so not read"
            ),
        ));
    }
    Ok(file)
}

/// Where the opened `file` really lies, when that is among the kernel's
/// files: by the path it was reached at after every link (under `/proc`,
/// `/sys` or `/dev`), or on Linux by the filesystem it is on (a `/proc`
/// mounted elsewhere too).
fn kernel_folder(file: &File, path: &Path) -> Option<String> {
    let real: Option<PathBuf> =
        super::os_files::opened_path(file).or_else(|| fs::canonicalize(path).ok());
    let shown = real
        .as_deref()
        .map_or_else(|| path.display().to_string(), |r| r.display().to_string());
    if let Some(folder) = real
        .as_deref()
        .and_then(|r| KERNEL_FOLDERS.iter().find(|f| r.starts_with(f)))
    {
        return Some(format!("{folder} ({shown})"));
    }
    super::os_files::is_kernel_filesystem(file)
        .then(|| format!("a kernel filesystem, proc or sysfs or the like ({shown})"))
}

/// Why a read stopped: the file is larger than `limit`.
fn too_big(limit: u64, len: Option<u64>) -> std::io::Error {
    let size = match len {
        Some(len) => format!("{len} bytes"),
        None => format!("more than {limit} bytes"),
    };
    std::io::Error::new(
        ErrorKind::InvalidData,
        format!("{size}, more than such a file can be ({limit} at most), so not read"),
    )
}

/// At most `limit` bytes of `reader` appended to `out`, refused past it:
/// the reader is never asked for more than `limit + 1` bytes, so a source
/// without end costs a limit's worth of memory, then an error.
pub fn read_limited(reader: impl Read, limit: u64, out: &mut Vec<u8>) -> std::io::Result<()> {
    let start = out.len();
    reader.take(limit.saturating_add(1)).read_to_end(out)?;
    if (out.len() - start) as u64 > limit {
        out.truncate(start);
        return Err(too_big(limit, None));
    }
    Ok(())
}

/// A regular file's bytes, at most `limit` of them: a larger file is an
/// error that says its size and the bound, whether `stat` told it or the
/// read found it.
pub fn read_regular(path: &Path, limit: u64, follow: bool) -> std::io::Result<Vec<u8>> {
    let file = open_regular(path, follow)?;
    let len = file.metadata()?.len();
    if len > limit {
        return Err(too_big(limit, Some(len)));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    read_limited(file, limit, &mut bytes)?;
    Ok(bytes)
}

/// [`read_regular`] as text, naming the first byte that isn't UTF-8.
pub fn read_text(path: &Path, limit: u64, follow: bool) -> std::io::Result<String> {
    String::from_utf8(read_regular(path, limit, follow)?).map_err(|e| {
        std::io::Error::new(
            ErrorKind::InvalidData,
            format!(
                "not UTF-8 text (byte {} is not), so not read",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_without_end_is_read_to_its_limit_then_refused() {
        let mut out = b"kept".to_vec();
        let e = read_limited(std::io::repeat(b'x'), 1000, &mut out).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidData);
        assert!(e.to_string().contains("more than 1000 bytes"), "{e}");
        assert_eq!(out, b"kept", "nothing of a refused read is kept");
        let mut out = Vec::new();
        read_limited(&b"0123456789"[..], 10, &mut out).unwrap();
        assert_eq!(out, b"0123456789", "exactly the limit is read");
    }

    #[test]
    fn a_file_larger_than_its_limit_is_refused_by_its_size() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        fs::write(&path, "0123456789").unwrap();
        assert_eq!(read_regular(&path, 10, true).unwrap(), b"0123456789");
        let e = read_regular(&path, 9, true).unwrap_err();
        assert!(e.to_string().contains("10 bytes"), "{e}");
    }

    #[test]
    fn kernel_and_device_files_are_refused_through_a_link() {
        let tmp = tempfile::tempdir().unwrap();
        for target in ["/dev/null", "/dev/zero"] {
            let link = tmp.path().join(target.replace('/', "_"));
            std::os::unix::fs::symlink(target, &link).unwrap();
            assert!(read_regular(&link, 10, true).is_err(), "{target}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_kernel_file_that_says_it_is_empty_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let link = tmp.path().join("events.json");
        std::os::unix::fs::symlink("/proc/self/pagemap", &link).unwrap();
        let e = read_regular(&link, u64::MAX, true).unwrap_err();
        assert!(e.to_string().contains("/proc"), "{e}");
        let e = read_regular(Path::new("/proc/self/status"), 1 << 20, true).unwrap_err();
        assert!(e.to_string().contains("kernel"), "{e}");
    }
}
