//! What a digest says of the paths a range touched, each with what was
//! done: those a call's arguments name (read by the facts' own rule,
//! `facts::call_args::paths_of`) and those named in prose.

pub(super) fn action_of(tool: &str) -> &'static str {
    let t = tool.to_ascii_lowercase();
    if t.contains("read") || t.contains("cat") || t.contains("view") || t.contains("open") {
        "read"
    } else if t.contains("modify")
        || t.contains("edit")
        || t.contains("patch")
        || t.contains("write")
        || t.contains("replace")
    {
        "modified"
    } else if t.contains("create") || t.contains("new") {
        "created"
    } else if t.contains("delete") || t.contains("remove") {
        "deleted"
    } else if t.contains("grep") || t.contains("search") || t.contains("find") || t.contains("list")
    {
        "searched"
    } else {
        "used"
    }
}

pub(super) fn add_path(
    paths: &mut Vec<(String, Vec<&'static str>)>,
    path: String,
    action: &'static str,
) {
    match paths.iter_mut().find(|(p, _)| *p == path) {
        Some((_, actions)) => {
            if action != "mentioned" && !actions.contains(&action) {
                actions.retain(|a| *a != "mentioned");
                actions.push(action);
            }
        }
        None => paths.push((path, vec![action])),
    }
}

/// The paths `text`'s prose names, in order: tokens with a `/` or a file
/// extension.
pub(super) fn mentioned(text: &str) -> Vec<String> {
    let separator = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '`' | '\'' | '"' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | ',' | ';'
            )
    };
    text.split(separator)
        .map(|raw| raw.trim_end_matches([':', '.', '!', '?']))
        // A path has a dot or a slash: most words are out at one scan.
        .filter(|t| t.len() >= 4 && t.contains(['.', '/']) && looks_like_path(t))
        .map(str::to_string)
        .collect()
}

fn looks_like_path(t: &str) -> bool {
    if t.len() < 4 || t.len() > 160 || t.contains("://") || t.starts_with("--") {
        return false;
    }
    let has_ext = t.rsplit_once('.').is_some_and(|(stem, ext)| {
        stem.len() > 1
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    });
    let slashes = t.matches('/').count();
    let anchored = t.starts_with("./") || t.starts_with("~/") || t.starts_with("../");
    let plausible = t
        .chars()
        .all(|c| c.is_alphanumeric() || "/._-~".contains(c));
    let not_a_number = !t.chars().all(|c| c.is_ascii_digit() || c == '.');
    plausible && not_a_number && (has_ext || slashes >= 2 || (anchored && slashes >= 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_detection() {
        assert!(looks_like_path("src/config.rs"));
        assert!(looks_like_path("Cargo.toml"));
        assert!(looks_like_path("crates/jp_cli/src"));
        assert!(!looks_like_path("e.g"));
        assert!(!looks_like_path("1.2.3"));
        assert!(!looks_like_path("https://x.y/z"));
        assert!(!looks_like_path("and/or"));
    }
}
