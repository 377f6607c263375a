//! What the jp-inspect that runs a command under `jp inspect` knows of
//! jp: the `init` message, handed over by the bridge on an inherited
//! pipe (jp's configuration can be larger than an environment variable
//! may be), and jp's job, for giving the terminal back on Ctrl-Z.

use super::protocol::Init;
use std::io::Read;
use std::sync::OnceLock;

/// The descriptor the bridge passes `init` on.
pub const INIT_FD_VAR: &str = "JP_INSPECT_HOST_FD";
/// jp's process id and process group, set while the inspector runs.
pub const JOB_VAR: &str = "JP_INSPECT_HOST_JOB";

/// jp's process, as the inspector needs it to suspend the whole job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    pub pid: i32,
    pub pgrp: i32,
}

impl Job {
    pub fn to_var(self) -> String {
        format!("{}:{}", self.pid, self.pgrp)
    }

    pub fn from_var(text: &str) -> Option<Job> {
        let (pid, pgrp) = text.split_once(':')?;
        let job = Job {
            pid: pid.parse().ok()?,
            pgrp: pgrp.parse().ok()?,
        };
        (job.pid > 1 && job.pgrp > 1).then_some(job)
    }
}

static INIT: OnceLock<Option<Init>> = OnceLock::new();

/// Whether this process is the one a bridge started (it never answers
/// the protocol itself).
pub fn is_child() -> bool {
    std::env::var_os(INIT_FD_VAR).is_some()
}

/// The most of the bridge's configuration read.
const INIT_LIMIT: u64 = 256 << 20;

/// Reads what the bridge handed over, once, at start-up; `None` when not
/// run under jp (or when what came is not readable, which is said).
pub fn adopt() -> Option<&'static Init> {
    INIT.get_or_init(|| {
        let fd: i32 = std::env::var(INIT_FD_VAR).ok()?.parse().ok()?;
        // Not inherited by whatever this process runs in turn.
        // SAFETY: unsetting before any other thread exists.
        unsafe { std::env::remove_var(INIT_FD_VAR) };
        // SAFETY: the bridge passes this descriptor open for us alone;
        // it is read to its end and closed here.
        let mut file = unsafe {
            use std::os::fd::FromRawFd;
            std::fs::File::from_raw_fd(fd)
        };
        // Ended with the bridge where the kernel doesn't see to it.
        crate::platform::watch_parent();
        let mut text = String::new();
        // A bridge's configuration is megabytes at most; past the limit it
        // is no bridge's.
        let read = (&mut file)
            .take(INIT_LIMIT + 1)
            .read_to_string(&mut text)
            .and_then(|n| {
                if n as u64 > INIT_LIMIT {
                    Err(std::io::Error::other(format!(
                        "more than {INIT_LIMIT} bytes, so not read"
                    )))
                } else {
                    Ok(())
                }
            });
        if let Err(e) = read {
            crate::cli::output::say_err(&format!(
                "warning: jp's configuration could not be read from jp inspect's bridge: {e}"
            ));
            return None;
        }
        match serde_json::from_str(&text) {
            Ok(init) => Some(init),
            Err(e) => {
                crate::cli::output::say_err(&format!(
                    "warning: jp's configuration from jp inspect's bridge is not readable: {e}"
                ));
                None
            }
        }
    })
    .as_ref()
}

/// What `adopt` found, later.
pub fn init() -> Option<&'static Init> {
    INIT.get().and_then(Option::as_ref)
}

/// jp's job, when the inspector runs under `jp inspect`.
pub fn job() -> Option<Job> {
    Job::from_var(&std::env::var(JOB_VAR).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_is_read_back_and_nonsense_is_not_a_job() {
        let job = Job {
            pid: 1234,
            pgrp: 1230,
        };
        assert_eq!(Job::from_var(&job.to_var()), Some(job));
        assert_eq!(
            Job::from_var("1:1"),
            None,
            "init and group 1 are no one's job"
        );
        assert_eq!(Job::from_var("12"), None);
        assert_eq!(Job::from_var("a:b"), None);
        assert_eq!(Job::from_var("-5:7"), None);
    }
}
