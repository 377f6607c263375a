//! Turning what a person types (`jp-c17758406187`, a path, `xdg`) into a
//! conversation directory.

use crate::core::error::{Error, Result};
use crate::core::model::conversation::EVENTS_FILE;
use crate::core::model::id::ConversationId;
use crate::core::store::workspace::{Entry, Workspace};
use std::path::{Path, PathBuf};

/// Resolves `query` to a conversation directory.
///
/// Accepted, in this order: a conversation directory, a file in one (its
/// `events.json`), `jp-c<ID>` or a bare `<ID>`, or a fragment of the title or
/// slug that matches exactly one conversation of `workspace`.
pub fn resolve(query: &str, workspace: Option<&Workspace>) -> Result<PathBuf> {
    // The URI jp's apps copy: `jp://jp-c<ID>` or `jp://<ID>`.
    let query = query.strip_prefix("jp://").unwrap_or(query);
    let path = Path::new(query);
    if path.is_dir() {
        return Ok(path.to_path_buf());
    }
    // A file of a conversation (its events.json), or something in its
    // place that the loader then refuses by name (a device, a FIFO).
    if path.exists() || path.is_symlink() {
        // Only a file jp keeps in a conversation's folder stands for it:
        // of any other (a loose `e2.json`), the error names what was given,
        // not a file beside it the user never named.
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !matches!(name, "events.json" | "metadata.json" | "base_config.json") {
            return Err(Error::invalid(
                path,
                "not a conversation: give the folder that holds its events.json and \
                 metadata.json (or one of those files)",
            ));
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        return Ok(dir.to_path_buf());
    }
    if looks_like_path(query) {
        return Err(Error::invalid(path, "no such file or directory"));
    }

    let entries = workspace.map(Workspace::entries).unwrap_or_default();
    let searched: Vec<PathBuf> = workspace
        .map(|w| w.conversation_dirs().into_iter().map(|(d, _)| d).collect())
        .unwrap_or_default();

    let id = query.parse::<ConversationId>().ok().map(u64::from);
    let matches: Vec<&Entry> = match id {
        Some(id) => entries.iter().filter(|e| e.id == Some(id)).collect(),
        None => {
            let needle = query.to_lowercase();
            entries
                .iter()
                .filter(|e| {
                    e.dir_name().to_lowercase().contains(&needle)
                        || e.title()
                            .is_some_and(|t| t.to_lowercase().contains(&needle))
                })
                .collect()
        }
    };
    match matches.as_slice() {
        [one] => Ok(one.dir.clone()),
        [] => Err(Error::NotFound {
            query: query.to_string(),
            searched: if workspace.is_none() {
                Vec::new()
            } else {
                searched
            },
            candidates: entries.iter().map(Entry::describe).collect(),
        }),
        many => Err(Error::Ambiguous {
            query: query.to_string(),
            candidates: many
                .iter()
                .map(|e| format!("{}  [{}]", e.describe(), e.dir.display()))
                .collect(),
        }),
    }
}

/// The workspace's most recently active conversation (`--active`).
pub fn active(workspace: Option<&Workspace>) -> Result<PathBuf> {
    match workspace.and_then(Workspace::most_recently_active) {
        Some(entry) => Ok(entry.dir),
        None => Err(Error::NotFound {
            query: "--active".into(),
            searched: workspace
                .map(|w| w.conversation_dirs().into_iter().map(|(d, _)| d).collect())
                .unwrap_or_default(),
            candidates: Vec::new(),
        }),
    }
}

/// Whether [`resolve`] takes `query` for a path the person typed rather
/// than a name it looks up in a workspace.
pub fn names_a_path(query: &str) -> bool {
    if query.starts_with("jp://") {
        return false;
    }
    let path = Path::new(query);
    path.exists() || path.is_symlink() || looks_like_path(query)
}

fn looks_like_path(query: &str) -> bool {
    query.contains('/') || query.ends_with(EVENTS_FILE) || query.starts_with('.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let tmp = tempfile::tempdir().unwrap();
        for (dir, title) in [
            ("17000000001-fix-the-parser", "Fix the parser"),
            ("17000000002-parser-tests", "Parser tests"),
            ("17000000003", "Release notes"),
        ] {
            let d = tmp.path().join(".jp/conversations").join(dir);
            fs::create_dir_all(&d).unwrap();
            fs::write(d.join("events.json"), "[]\n").unwrap();
            fs::write(
                d.join("metadata.json"),
                format!("{{\"title\": \"{title}\"}}\n"),
            )
            .unwrap();
        }
        let ws = Workspace::at(tmp.path());
        (tmp, ws)
    }

    #[test]
    fn by_id_in_both_spellings() {
        let (_t, ws) = workspace();
        let a = resolve("jp-c17000000003", Some(&ws)).unwrap();
        let b = resolve("17000000003", Some(&ws)).unwrap();
        assert_eq!(a, b);
        assert!(a.ends_with("17000000003"));
    }

    #[test]
    fn active_is_the_last_activated_else_the_newest() {
        let (_t, ws) = workspace();
        // None says when it was activated: the newest by id.
        assert!(active(Some(&ws)).unwrap().ends_with("17000000003"));
        // The oldest, activated after the others were created, wins.
        let oldest = ws.storage.join("conversations/17000000001-fix-the-parser");
        fs::write(
            oldest.join("metadata.json"),
            "{\"title\": \"Fix the parser\", \"last_activated_at\": \"2026-04-10 17:03:38.711874\"}\n",
        )
        .unwrap();
        assert_eq!(active(Some(&ws)).unwrap(), oldest);
        let e = active(None).unwrap_err().to_string();
        assert!(e.contains("--active"), "{e}");
    }

    #[test]
    fn by_unique_title_fragment() {
        let (_t, ws) = workspace();
        let d = resolve("release", Some(&ws)).unwrap();
        assert!(d.ends_with("17000000003"));
    }

    #[test]
    fn ambiguous_fragment_lists_candidates() {
        let (_t, ws) = workspace();
        let e = resolve("parser", Some(&ws)).unwrap_err().to_string();
        assert!(e.contains("matches 2 conversations"), "{e}");
        assert!(e.contains("jp-c17000000001  Fix the parser"), "{e}");
        assert!(e.contains("jp-c17000000002  Parser tests"), "{e}");
    }

    #[test]
    fn no_match_lists_what_exists() {
        let (_t, ws) = workspace();
        let e = resolve("nothing-like-it", Some(&ws))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no conversation matches `nothing-like-it`"),
            "{e}"
        );
        assert!(e.contains("jp-c17000000003  Release notes"), "{e}");
    }

    #[test]
    fn events_json_path_resolves_to_its_directory() {
        let (t, ws) = workspace();
        let file = t.path().join(".jp/conversations/17000000003/events.json");
        let d = resolve(file.to_str().unwrap(), Some(&ws)).unwrap();
        assert!(d.ends_with("17000000003"));
    }
}

#[cfg(test)]
mod loose_file_tests {
    use super::*;

    #[test]
    fn a_loose_file_is_named_in_its_error_and_a_conversations_file_stands_for_it() {
        let tmp = tempfile::tempdir().unwrap();
        let loose = tmp.path().join("e2.json");
        std::fs::write(&loose, "[]\n").unwrap();
        let e = resolve(loose.to_str().unwrap(), None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("e2.json") && e.contains("not a conversation"),
            "{e}"
        );
        assert!(!e.contains("events.json:"), "{e}");
        let events = tmp.path().join("events.json");
        std::fs::write(&events, "[]\n").unwrap();
        assert_eq!(resolve(events.to_str().unwrap(), None).unwrap(), tmp.path());
    }
}
