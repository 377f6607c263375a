//! What the operating system answers one way on Linux and another
//! elsewhere (macOS): the process's umask, another process's state, and a
//! child that must not outlive its parent (what the store asks of an open
//! file is the core's own: `core::store::os_files`). Each Linux-only call sits behind
//! `cfg(target_os = "linux")` with the portable way beside it.

#[cfg(not(target_os = "linux"))]
use std::sync::OnceLock;

/// The umask as read at start-up, where it can't be read without setting
/// it (everywhere but Linux).
#[cfg(not(target_os = "linux"))]
static UMASK: OnceLock<u32> = OnceLock::new();

/// Reads what must be read before any thread exists. Called first thing.
pub fn init() {
    #[cfg(not(target_os = "linux"))]
    UMASK.get_or_init(|| {
        // SAFETY: umask is set and put back at once, before any other
        // thread could create a file under the value in between.
        unsafe {
            let mask = libc::umask(0o022);
            libc::umask(mask);
            u32::from(mask)
        }
    });
}

/// The process's umask, else the usual 022.
pub fn umask() -> u32 {
    #[cfg(target_os = "linux")]
    {
        // Read without changing it, from any thread.
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Umask:"))
                    .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
            })
            .unwrap_or(0o022)
    }
    #[cfg(not(target_os = "linux"))]
    {
        UMASK.get().copied().unwrap_or(0o022)
    }
}

/// A process's state as `ps` writes it (`T`: stopped, `R` running, `S`
/// sleeping, `Z` a zombie), `None` once it is gone.
pub fn process_state(pid: i32) -> Option<char> {
    #[cfg(target_os = "linux")]
    {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name is in parentheses and may hold any character.
        let after = stat.rsplit_once(')')?.1;
        after.trim_start().chars().next()
    }
    #[cfg(target_os = "macos")]
    {
        // SAFETY: proc_pidinfo fills at most `size` bytes of `info`.
        unsafe {
            let mut info: libc::proc_bsdinfo = std::mem::zeroed();
            let size = std::mem::size_of::<libc::proc_bsdinfo>() as libc::c_int;
            let got =
                libc::proc_pidinfo(pid, libc::PROC_PIDTBSDINFO, 0, (&raw mut info).cast(), size);
            if got != size {
                return None;
            }
            // SIDL 1, SRUN 2, SSLEEP 3, SSTOP 4, SZOMB 5 (sys/proc.h).
            Some(match info.pbi_status {
                4 => 'T',
                5 => 'Z',
                2 => 'R',
                _ => 'S',
            })
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        // Alive or not is all that can be told here.
        // SAFETY: signal 0 only asks whether the process exists.
        (unsafe { libc::kill(pid, 0) } == 0).then_some('S')
    }
}

/// In a child between fork and exec: on Linux the kernel ends it with
/// SIGTERM when its parent dies, even one killed outright. Elsewhere the
/// child watches for itself ([`watch_parent`]). Async-signal-safe.
pub fn die_with_parent_before_exec() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_PDEATHSIG touches only this process.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// In a child started by [`die_with_parent_before_exec`]'s parent: where
/// the kernel doesn't end it with its parent, a thread notices the parent
/// gone (the child handed to init) and sends this process SIGTERM, which
/// ends it as the kernel's signal would have.
pub fn watch_parent() {
    #[cfg(not(target_os = "linux"))]
    {
        // SAFETY: getppid and kill to this process are always safe.
        let parent = unsafe { libc::getppid() };
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(std::time::Duration::from_millis(250));
                if unsafe { libc::getppid() } != parent {
                    unsafe { libc::kill(libc::getpid(), libc::SIGTERM) };
                    return;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_process_state_is_read_and_a_gone_one_is_none() {
        assert!(matches!(
            super::process_state(std::process::id() as i32),
            Some('R' | 'S')
        ));
        assert_eq!(super::process_state(i32::MAX), None);
    }
}
