//! Arbitrary text as a workspace's config file, in each of jp's formats,
//! inside a workspace that holds a symlink loop: reading it (and every file
//! its `extends` names) ends, never panics, and an error never repeats a
//! long run of the file's text (beyond naming a bad `extends` entry).
#![no_main]

use jp_inspect::core::fuzzing::{extends_glob, jp_config};
use libfuzzer_sys::fuzz_target;
use std::fs;
use std::sync::OnceLock;

/// A workspace made once: `.jp/loop/{a,b}` link back to `.jp/loop`, and an
/// empty user config folder so the machine's own is never read.
fn workspace() -> &'static std::path::Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let looped = tmp.path().join(".jp/loop");
        fs::create_dir_all(&looped).unwrap();
        std::os::unix::fs::symlink(".", looped.join("a")).unwrap();
        std::os::unix::fs::symlink(".", looped.join("b")).unwrap();
        fs::create_dir_all(tmp.path().join(".jp/conversations/17000000000-x")).unwrap();
        fs::create_dir_all(tmp.path().join("user")).unwrap();
        // SAFETY: set once, before any thread of ours reads the environment.
        unsafe { std::env::set_var("JP_GLOBAL_CONFIG_DIR", tmp.path().join("user")) };
        tmp
    })
    .path()
}

/// Runs of 16 or more letters and digits: long enough that no parser's own
/// wording has one, so finding one in a message means it quoted the file.
fn long_runs(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 16)
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let ext = extends_glob::EXTENSIONS[which as usize % extends_glob::EXTENSIONS.len()];
    let root = workspace();
    for e in extends_glob::EXTENSIONS {
        let _ = fs::remove_file(root.join(format!(".jp/config.{e}")));
    }
    let path = root.join(format!(".jp/config.{ext}"));
    fs::write(&path, text).unwrap();
    if let Err(e) = jp_config::files_for(&root.join(".jp/conversations/17000000000-x")) {
        let message = e.to_string();
        // A bad `extends` entry is named: it is this file's own setting,
        // not the text of a file it points at.
        if message.contains(": extends `") {
            return;
        }
        let without_paths = message.replace(&root.display().to_string(), "");
        for run in long_runs(text) {
            assert!(
                !without_paths.contains(run),
                "the error repeats the file's text `{run}`: {message}"
            );
        }
    }
});
