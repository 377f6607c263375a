//! Shell completion that knows the workspace: a CONV argument completes to
//! the conversations' ids (`jp-c<ID>`, its title beside it) and their slugs
//! (the folder name after the id), as the shell asks at each Tab
//! (`JP_INSPECT_COMPLETE=<shell> jp-inspect -- …`, which
//! `jp-inspect completions <shell>` registers).

use crate::core::ops::Workspace;
use crate::core::ops::catalog;
use clap_complete::engine::CompletionCandidate;
use std::ffi::OsStr;

/// The variable the registered script sets when it asks for completions.
pub const VAR: &str = "JP_INSPECT_COMPLETE";

/// The conversations of the workspace found from the current directory
/// that start with what was typed: ids, then slugs.
pub fn conversations(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    let Ok(cwd) = std::env::current_dir() else {
        return Vec::new();
    };
    let Some(ws) = Workspace::find(&cwd) else {
        return Vec::new();
    };
    candidates(&catalog::quick(&ws), typed)
}

fn candidates(listings: &[catalog::Listing], typed: &str) -> Vec<CompletionCandidate> {
    let title = |l: &catalog::Listing| {
        crate::core::visible::visible_line(l.title.as_deref().unwrap_or("(untitled)")).into_owned()
    };
    let mut out = Vec::new();
    for l in listings.iter().filter(|l| l.id.starts_with(typed)) {
        out.push(CompletionCandidate::new(l.id.clone()).help(Some(title(l).into())));
    }
    for l in listings {
        let name = l.dir.file_name().map(OsStr::to_string_lossy);
        let Some((_, slug)) = name.as_deref().and_then(|n| n.split_once('-')) else {
            continue;
        };
        if slug.is_empty() || typed.is_empty() || !slug.starts_with(typed) {
            continue;
        }
        // A shell splits and expands what it is offered: a slug that is
        // not one plain word is offered by its id, which always is.
        let offered = if plain_word(slug) {
            CompletionCandidate::new(slug.to_string()).help(Some(l.id.clone().into()))
        } else {
            CompletionCandidate::new(l.id.clone()).help(Some(title(l).into()))
        };
        if !out.iter().any(|c| c.get_value() == offered.get_value()) {
            out.push(offered);
        }
    }
    out
}

/// Letters, digits and `-_.` only, not starting with `-` (an option) or
/// `.` : a word no shell of bash, zsh or fish splits, expands or quotes.
fn plain_word(s: &str) -> bool {
    !s.starts_with(['-', '.'])
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ops::Location;
    use std::path::PathBuf;

    fn listing(id: u64, slug: &str, title: &str) -> catalog::Listing {
        catalog::Listing {
            dir: PathBuf::from(format!("/w/.jp/conversations/{id}-{slug}")),
            id: format!("jp-c{id}"),
            title: Some(title.into()),
            location: Location::Workspace,
            twin: None,
            size: 0,
            locked: false,
            last_activity: None,
            details: None,
        }
    }

    #[test]
    fn ids_complete_with_their_titles_and_slugs_by_prefix() {
        let l = [
            listing(17944860430, "csvq-first-release", "csvq: first release"),
            listing(17800836875, "jp-init-xdg", "jp init \x1b[31mXDG"),
        ];
        let values = |typed: &str| -> Vec<String> {
            candidates(&l, typed)
                .iter()
                .map(|c| c.get_value().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(values("jp-c179"), ["jp-c17944860430"]);
        assert_eq!(values(""), ["jp-c17944860430", "jp-c17800836875"]);
        assert_eq!(values("csv"), ["csvq-first-release"]);
        let hostile = [listing(17944860430, "notes;touch${IFS}pwned", "notes")];
        let offered: Vec<String> = candidates(&hostile, "no")
            .iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            offered,
            ["jp-c17944860430"],
            "a slug that isn't a word is offered by its id"
        );
        let all = candidates(&l, "jp-c178");
        let help = all[0].get_help().unwrap().to_string();
        assert_eq!(
            help, "jp init ␛[31mXDG",
            "a title's escapes are drawn, not obeyed"
        );
    }
}
