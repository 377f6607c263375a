//! Where a conversation looked and what it links to: remote look-ups by
//! what they were known by, the files and pages jp attaches, the links and
//! issue references of a text of prose (a message, a document the model
//! wrote) with its figures, and which of a pasted list's links the
//! assistant discusses.

use super::calls;
use super::prose;
use super::scan::{self, figures, urls};
use super::{Fact, FactKind};
use serde_json::Value;

/// The links a config delta attaches to the conversation: jp's
/// `conversation.attachments`, nested under `delta` (older files) or not.
pub(super) fn attachments(event: &Value) -> Vec<String> {
    let delta = event.get("delta").unwrap_or(event);
    let list = delta
        .pointer("/conversation/attachments")
        .map(|a| a.get("value").unwrap_or(a));
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        // Files and pages; jp's `cmd://` runs a command, it names no place.
        .filter(|u| {
            ["file://", "http://", "https://"]
                .iter()
                .any(|s| u.starts_with(s))
        })
        .map(|u| calls::clip(u, scan::URL_LIMIT))
        .collect()
}

/// A link's own name: its last segment, lower case, when it is six
/// characters or more and not the host itself.
fn own_name(url: &str) -> Option<String> {
    let name = url
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("")
        .to_lowercase();
    (name.len() >= 6 && !url.ends_with(&format!("//{name}"))).then_some(name)
}

/// Of `urls`, which are discussed: their own name stands whole in what
/// the assistant said (`said`, lower case). All names are sought in one
/// pass over it, so a pasted list of many links costs what the text does.
pub(super) fn discussed(urls: &[&str], said: &str) -> Vec<bool> {
    let names: Vec<Option<String>> = urls.iter().map(|u| own_name(u)).collect();
    let sought: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
    let mut found = std::collections::HashSet::new();
    if let Ok(ac) = aho_corasick::AhoCorasick::new(&sought) {
        for m in ac.find_overlapping_iter(said) {
            let name = sought[m.pattern().as_usize()];
            if !found.contains(name) && whole_at(said, m.start(), name.len()) {
                found.insert(name);
            }
        }
    }
    names
        .iter()
        .map(|n| n.as_deref().is_some_and(|n| found.contains(n)))
        .collect()
}

/// Whether the name of `len` bytes at `at` in `said` stands whole:
/// `bge-small-en` is not named by `bge-small-en-v1.5`, `v1` not by `v1.5`.
fn whole_at(said: &str, at: usize, len: usize) -> bool {
    let before = said[..at].chars().next_back();
    let rest = &said[at + len..];
    let joins = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
    let version = rest.starts_with('.') && rest[1..].starts_with(|c: char| c.is_ascii_digit());
    !joins(before) && !joins(rest.chars().next()) && !version
}

/// What a remote look-up is known by: its address, else its repository
/// (and path), else its query.
pub(super) fn looked_up(args: &Value) -> String {
    let s = |k: &str| args.get(k).and_then(Value::as_str).map(str::trim);
    if let Some(url) = s("url") {
        return calls::clip(url, 300);
    }
    let query = s("query").filter(|q| !q.is_empty());
    match (s("repository").or(s("repo")), s("path"), query) {
        (Some(r), Some(p), _) if !p.is_empty() => format!("{r}/{p}"),
        // Each search of a repository is a look-up of its own.
        (Some(r), _, Some(q)) => calls::clip(&format!("{r} {q}"), 300),
        (Some(r), _, None) => r.to_string(),
        _ => calls::clip(query.unwrap_or_default(), 300),
    }
}

/// What is read of a text of prose (a message, a document the model
/// wrote).
pub(super) struct Prose {
    /// Its figures too, not only its links.
    pub(super) figures: bool,
}

impl Prose {
    /// The links, issue references and figures of `text`, pasted tables
    /// and code left out; at most [`prose::PER_MESSAGE`] of each. A text
    /// with more links than that is a pasted list: its links go to
    /// `listed`, each a fact only if the conversation discusses it.
    pub(super) fn facts(
        &self,
        text: &str,
        turn: usize,
        event: usize,
        out: &mut Vec<Fact>,
        listed: &mut Vec<Fact>,
    ) {
        let prose = prose::paragraphs(text).join("\n");
        // A link is one wherever it stands, quoted or in a table; not in code.
        let outside_code = prose::outside_code(text);
        let fact = |kind, text: String, key: String| Fact::new(kind, text, key, turn, event);
        let mut seen = std::collections::HashSet::new();
        let links: Vec<String> = urls(&outside_code)
            .into_iter()
            .filter(|u| seen.insert(u.clone()))
            .collect();
        let pasted = links.len() > prose::PER_MESSAGE;
        for url in links {
            let f = fact(FactKind::Url, url.clone(), url);
            if pasted { listed.push(f) } else { out.push(f) }
        }
        // A link in pasted code or data counts where it is discussed.
        if text.contains("```") || text.contains("~~~") {
            for url in urls(text) {
                if seen.insert(url.clone()) {
                    listed.push(fact(FactKind::Url, url.clone(), url));
                }
            }
        }
        seen.clear();
        for (r, around) in scan::references(&prose) {
            if seen.insert(r.clone()) && seen.len() <= prose::PER_MESSAGE {
                out.push(fact(FactKind::Url, around, r));
            }
        }
        seen.clear();
        if !self.figures {
            return;
        }
        for (n, around) in figures(&prose) {
            if seen.insert(n.clone()) && seen.len() <= prose::PER_MESSAGE {
                out.push(fact(FactKind::Number, around, n));
            }
        }
    }
}
