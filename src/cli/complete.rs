//! Shell completion that knows the workspace: a CONV argument completes to
//! the conversations' ids (`jp-c<ID>`, its title beside it) and their slugs
//! (the folder name after the id), as the shell asks at each Tab
//! (`JP_INSPECT_COMPLETE=<shell> jp-inspect -- …`, which
//! `jp-inspect completions <shell>` registers).

use crate::core::ops::catalog;
use crate::core::store::workspace::Workspace;
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
        let name = l
            .dir
            .file_name()
            .and_then(OsStr::to_str)
            .unwrap_or_default();
        let Some((_, slug)) = name.split_once('-') else {
            continue;
        };
        if !slug.is_empty() && slug.starts_with(typed) && !typed.is_empty() {
            out.push(CompletionCandidate::new(slug.to_string()).help(Some(l.id.clone().into())));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::store::workspace::Location;
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
        let all = candidates(&l, "jp-c178");
        let help = all[0].get_help().unwrap().to_string();
        assert_eq!(
            help, "jp init ␛[31mXDG",
            "a title's escapes are drawn, not obeyed"
        );
    }
}
