//! A pseudo-terminal for tests that drive a program as a person would: it
//! is the program's controlling terminal (so `/dev/tty`, foreground process
//! groups, Ctrl-C and Ctrl-Z behave as in a shell), its output collected,
//! keys written to it.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Child, Command, ExitStatus};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Pty {
    master: Option<File>,
    pub child: Child,
    out: Arc<Mutex<Vec<u8>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Pty {
    /// Starts `command` as the leader of a new session whose controlling
    /// terminal is a fresh pty of `cols` × `rows`.
    pub fn spawn(mut command: Command, cols: u16, rows: u16) -> Pty {
        use std::os::unix::process::CommandExt;
        let (mut master, mut slave) = (0, 0);
        let mut size = libc::winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: out-parameters for two descriptors and a valid winsize.
        #[allow(clippy::unnecessary_mut_passed)]
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                // Const on Linux, mutable on macOS: a mutable pointer is both.
                std::ptr::null_mut(),
                &mut size,
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // Not inherited by what other tests spawn meanwhile: a master held
        // open there would keep the terminal from ever hanging up.
        for fd in [master, slave] {
            // SAFETY: setting a flag on a descriptor we own.
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        }
        // SAFETY: openpty returned two open descriptors we now own.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        command
            .stdin(File::from(slave.try_clone().unwrap()))
            .stdout(File::from(slave.try_clone().unwrap()))
            .stderr(File::from(slave));
        // SAFETY: setsid and the ioctl are async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The request's type differs between Linux and macOS.
                #[allow(clippy::useless_conversion)]
                if libc::ioctl(0, libc::TIOCSCTTY.into(), 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("spawn under a pty");
        let master = File::from(master);
        let out = Arc::new(Mutex::new(Vec::new()));
        let mut source = master.try_clone().unwrap();
        let sink = out.clone();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = stop.clone();
        let reader = std::thread::spawn(move || {
            use std::os::fd::AsRawFd;
            let mut buf = [0u8; 8192];
            while !stopped.load(std::sync::atomic::Ordering::SeqCst) {
                let mut fds = libc::pollfd {
                    fd: source.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: one valid pollfd.
                if unsafe { libc::poll(&mut fds, 1, 50) } <= 0 {
                    continue;
                }
                // Ends with EIO once every holder of the slave side is gone.
                match source.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => sink.lock().unwrap().extend_from_slice(&buf[..n]),
                }
            }
        });
        Pty {
            master: Some(master),
            child,
            out,
            stop,
            reader: Some(reader),
        }
    }

    /// Closes the terminal, as closing its window does: the program's
    /// session gets SIGHUP and its reads end.
    pub fn close(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        self.master = None;
    }

    /// Everything the program wrote so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.out.lock().unwrap()).into_owned()
    }

    /// Waits until the output holds `needle`; how long that took.
    pub fn wait_for(&self, needle: &str, timeout: Duration) -> Option<Duration> {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if self.text().contains(needle) {
                return Some(start.elapsed());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }

    /// Types `bytes`.
    pub fn send(&mut self, bytes: &[u8]) {
        let master = self.master.as_mut().expect("the terminal is open");
        master.write_all(bytes).unwrap();
        master.flush().unwrap();
    }

    /// The program's exit, if it comes within `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if let Some(status) = self.child.try_wait().unwrap() {
                // What it wrote last (the terminal's restore) may still
                // wait in the terminal: read to the end, which comes once
                // nothing holds the terminal's other side.
                while self.reader.as_ref().is_some_and(|r| !r.is_finished())
                    && start.elapsed() < timeout
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.close();
    }
}
