//! What the system says of an open file, one way on Linux and another
//! elsewhere: where it really is, and whether it is one of the kernel's
//! own. The store's reads ask it before they trust a path; it sits here,
//! in the core, so the core needs nothing from outside it.

/// Whether the open `file` lies on one of the kernel's own filesystems
/// (proc, sysfs, debugfs and their kin), whose files say they are empty and
/// read without end. Elsewhere than Linux, none are told apart here (the
/// caller's path check still refuses `/dev`).
pub fn is_kernel_filesystem(file: &std::fs::File) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // proc, sysfs, debugfs, tracefs, securityfs, cgroup, cgroup2,
        // configfs, efivarfs, bpf, devpts (linux/magic.h).
        const KERNEL: [u64; 11] = [
            0x9fa0,
            0x6265_6572,
            0x6462_6720,
            0x7472_6163,
            0x7363_6673,
            0x0027_e0eb,
            0x6367_7270,
            0x6265_6570,
            0xde5e_81e4,
            0xcafe_4a11,
            0x1cd1,
        ];
        // SAFETY: fstatfs fills the struct it is given for an open fd.
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstatfs(file.as_raw_fd(), &mut st) } != 0 {
            return false;
        }
        KERNEL.contains(&(st.f_type as u64))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        false
    }
}

/// The path the open `file` was really reached at, every link resolved,
/// where the system says it of an open file (Linux); else `None`, and the
/// caller resolves the path it opened.
pub fn opened_path(file: &std::fs::File) -> Option<std::path::PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}
