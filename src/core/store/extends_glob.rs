//! The files an `extends` entry names, found without following symlinked
//! folders and within a bound. jp expands these globs with the `glob`
//! crate, which walks into linked folders: two links to `.` and a `**`
//! never end, and `/usr/**` takes minutes. A workspace's config is anyone's,
//! so here a walk stops at the bound and says why.

use crate::core::error::Error;
use glob::{MatchOptions, Pattern};
use std::path::{Component, Path, PathBuf};

/// The config file extensions jp reads, in the order it tries them.
pub const EXTENSIONS: [&str; 5] = ["toml", "json", "json5", "yaml", "yml"];

/// The most folder entries one pattern may visit.
pub const MAX_ENTRIES: usize = 10_000;

/// The deepest a `**` walks below the pattern's fixed part.
pub const MAX_DEPTH: usize = 16;

const OPTIONS: MatchOptions = MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: false,
};

fn is_pattern(part: &str) -> bool {
    part.contains(['*', '?', '['])
}

/// The files `pattern` (already joined to its base) names, sorted; for a
/// bare name with no match, the first of jp's extensions that exists.
/// `declaring` is the config file the entry is in, for messages.
pub fn expand(pattern: &str, declaring: &Path) -> Result<Vec<PathBuf>, Error> {
    if !is_pattern(pattern) {
        let p = PathBuf::from(pattern);
        if p.is_file() {
            return Ok(vec![p]);
        }
        return Ok(EXTENSIONS
            .iter()
            .map(|e| PathBuf::from(format!("{pattern}.{e}")))
            .find(|p| p.is_file())
            .into_iter()
            .collect());
    }
    let matcher = Pattern::new(pattern).map_err(|e| {
        Error::invalid(
            declaring,
            format!("extends `{pattern}`: not a valid glob: {e}"),
        )
    })?;
    // The fixed folder the pattern starts from, and how deep it may go.
    let mut root = PathBuf::new();
    let mut rest = Vec::new();
    for c in Path::new(pattern).components() {
        let text = c.as_os_str().to_string_lossy();
        if rest.is_empty() && !is_pattern(&text) {
            root.push(c);
        } else if !matches!(c, Component::CurDir) {
            rest.push(text.into_owned());
        }
    }
    let unbounded = rest.iter().any(|p| p.contains("**"));
    let depth = if unbounded { MAX_DEPTH } else { rest.len() };
    let mut found = Vec::new();
    let mut visited = 0usize;
    let walk = walkdir::WalkDir::new(&root)
        .follow_links(false)
        .min_depth(1)
        .max_depth(depth);
    for entry in walk {
        let Ok(entry) = entry else { continue };
        visited += 1;
        if visited > MAX_ENTRIES {
            return Err(Error::invalid(
                declaring,
                format!(
                    "extends `{pattern}`: stopped after {MAX_ENTRIES} entries under {}; name \
                     the files more narrowly",
                    root.display()
                ),
            ));
        }
        let kind = entry.file_type();
        if unbounded && kind.is_dir() && entry.depth() == depth {
            return Err(Error::invalid(
                declaring,
                format!(
                    "extends `{pattern}`: `**` goes deeper than {MAX_DEPTH} folders under {}; \
                     stopped",
                    root.display()
                ),
            ));
        }
        // A linked file is read (its target is parsed, never shown); a
        // linked folder is not walked into.
        let file = kind.is_file() || (kind.is_symlink() && entry.path().is_file());
        if file && matcher.matches_path_with(entry.path(), OPTIONS) {
            found.push(entry.into_path());
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    #[test]
    fn finds_what_glob_finds_in_a_plain_tree() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir_all(tmp.path().join("a/b")).unwrap();
        for f in ["x.toml", "a/y.toml", "a/b/z.toml", "a/b/w.json"] {
            fs::write(tmp.path().join(f), "").unwrap();
        }
        let base = tmp.path().display().to_string();
        let got = expand(&format!("{base}/**/*.toml"), tmp.path()).unwrap();
        let mut want: Vec<PathBuf> = glob::glob(&format!("{base}/**/*.toml"))
            .unwrap()
            .flatten()
            .collect();
        want.sort();
        assert_eq!(got, want);
        let one = expand(&format!("{base}/a/*.toml"), tmp.path()).unwrap();
        assert_eq!(one, vec![tmp.path().join("a/y.toml")]);
    }

    #[test]
    fn link_loops_end_at_once() {
        let tmp = tempfile::tempdir().unwrap();
        let loop_dir = tmp.path().join("loop");
        fs::create_dir(&loop_dir).unwrap();
        symlink(".", loop_dir.join("a")).unwrap();
        symlink(".", loop_dir.join("b")).unwrap();
        let got = expand(
            &format!("{}/loop/**/*.none", tmp.path().display()),
            tmp.path(),
        )
        .unwrap();
        assert!(got.is_empty());
    }

    #[test]
    fn a_huge_tree_stops_with_a_message() {
        let tmp = tempfile::tempdir().unwrap();
        let mut deep = tmp.path().to_path_buf();
        for i in 0..MAX_DEPTH + 2 {
            deep.push(format!("d{i}"));
        }
        fs::create_dir_all(&deep).unwrap();
        let e = expand(&format!("{}/**/*.toml", tmp.path().display()), tmp.path())
            .unwrap_err()
            .to_string();
        assert!(e.contains("deeper than 16"), "{e}");
    }
}
