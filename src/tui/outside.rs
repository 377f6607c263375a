//! The inspector's text leaving it: to the clipboard through the terminal
//! (OSC 52, which works over ssh and, passed through, in tmux), or to the
//! pager or the editor, the screen handed over and taken back after.

use super::msg::Opener;
use base64::Engine as _;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The escape sequence asking the terminal to put `text` on the clipboard;
/// inside tmux, also wrapped for its passthrough (tmux takes the plain one
/// itself when `set-clipboard` is on, the wrapped one reaches the outer
/// terminal when `allow-passthrough` is).
pub fn osc52(text: &str, in_tmux: bool) -> String {
    let plain = format!(
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode(text)
    );
    if !in_tmux {
        return plain;
    }
    let wrapped = plain.replace('\x1b', "\x1b\x1b");
    format!("{plain}\x1bPtmux;{wrapped}\x1b\\")
}

/// The command line `with` runs: the person's choice, else the usual one.
pub fn program(with: Opener, env: impl Fn(&str) -> Option<String>) -> String {
    // A variable set to nothing counts as unset, as git takes it.
    let set = |k: &str| env(k).filter(|p| !p.trim().is_empty());
    let chosen = match with {
        Opener::Pager => set("PAGER"),
        Opener::Editor => set("VISUAL").or_else(|| set("EDITOR")),
    };
    chosen.unwrap_or_else(|| match with {
        Opener::Pager => "less".into(),
        Opener::Editor => "vi".into(),
    })
}

/// Runs `program` (a shell command line, as git runs `$PAGER`) on `file`
/// with the terminal's input, and says how it went.
pub fn run(program: &str, file: &Path) -> Result<(), String> {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("{program} \"$1\""))
        .arg("sh")
        .arg(file);
    // SAFETY: isatty only inspects the descriptor.
    if unsafe { libc::isatty(0) } != 1
        && let Ok(tty) = std::fs::File::open("/dev/tty")
    {
        cmd.stdin(Stdio::from(tty));
    }
    match cmd.status() {
        Ok(s) if s.success() => Ok(()),
        // The shell's "command not found".
        Ok(s) if s.code() == Some(127) => Err(format!(
            "`{program}` was not found: no such program on PATH (set $VISUAL, $EDITOR or \
             $PAGER to one that is)"
        )),
        Ok(s) => Err(format!("`{program}` ended with {s}")),
        Err(e) => Err(format!("cannot run `{program}`: {e}")),
    }
}

/// A copy of a text for a program to open, in a directory of its own that
/// no other user can enter; both removed when dropped.
pub struct TempCopy {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
}

impl std::ops::Deref for TempCopy {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

/// `text` in a temp file with `extension`, for the person's eyes only:
/// its directory is 0700 and the file 0600, or 0400 for the editor, which
/// gets a read-only copy (the conversation is never edited through it).
pub fn temp_file(text: &str, extension: &str, read_only: bool) -> std::io::Result<TempCopy> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let dir = tempfile::Builder::new()
        .prefix("jp-inspect-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()?;
    let path = dir.path().join(format!("copy.{extension}"));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)?;
    file.write_all(text.as_bytes())?;
    file.flush()?;
    if read_only {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o400))?;
    }
    Ok(TempCopy { _dir: dir, path })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_program_that_is_not_there_is_said_to_be_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.txt");
        std::fs::write(&file, "x").unwrap();
        let e = super::run("jp-inspect-no-such-editor-here", &file).unwrap_err();
        assert!(e.contains("was not found"), "{e}");
        let e = super::run("false", &file).unwrap_err();
        assert!(e.contains("ended with"), "{e}");
    }

    use super::*;

    #[test]
    fn osc52_carries_the_text_in_base64_and_tmux_gets_it_wrapped() {
        assert_eq!(osc52("hi", false), "\x1b]52;c;aGk=\x07");
        let t = osc52("hi", true);
        assert!(t.starts_with("\x1b]52;c;aGk=\x07\x1bPtmux;\x1b\x1b]52;c;aGk=\x07"));
        assert!(t.ends_with("\x1b\\"));
    }

    #[test]
    fn the_program_is_the_persons_else_the_usual_one() {
        let none = |_: &str| None;
        assert_eq!(program(Opener::Pager, none), "less");
        assert_eq!(program(Opener::Editor, none), "vi");
        let env = |k: &str| match k {
            "EDITOR" => Some("nano".to_string()),
            "VISUAL" => Some(String::new()),
            "PAGER" => Some("  ".to_string()),
            _ => None,
        };
        assert_eq!(program(Opener::Editor, env), "nano");
        assert_eq!(
            program(Opener::Pager, env),
            "less",
            "a blank $PAGER is none"
        );
        let visual = |k: &str| (k == "VISUAL" || k == "EDITOR").then(|| k.to_lowercase());
        assert_eq!(program(Opener::Editor, visual), "visual");
    }

    #[test]
    fn the_editor_gets_a_read_only_copy_no_one_else_can_read_removed_after() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let path = temp_file("text", "md", true).unwrap();
        assert_eq!(std::fs::read_to_string(&*path).unwrap(), "text");
        assert_eq!(mode(&path), 0o400);
        assert_eq!(mode(path.parent().unwrap()), 0o700, "a private directory");
        assert!(path.to_string_lossy().ends_with(".md"));
        let p = path.to_path_buf();
        drop(path);
        assert!(!p.exists() && !p.parent().unwrap().exists());
        let pager = temp_file("text", "txt", false).unwrap();
        assert_eq!(mode(&pager), 0o600);
        // A program that fails is said.
        let err = run("false", Path::new("/dev/null")).unwrap_err();
        assert!(err.contains("`false` ended with"), "{err}");
    }
}
