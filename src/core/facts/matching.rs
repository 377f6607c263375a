//! Whether a text still names a fact: forgiving the way a reader is, never
//! because a different fact shares a word.
//!
//! - a **file** is named by its path (a leading `./` aside), or by its
//!   file name alone when no other file of the range has that name;
//! - a **command** by all of its words (program, subcommand, arguments;
//!   leading dashes and quotes aside) within one sentence, in any order;
//! - a **url** by itself, or without its scheme;
//! - a **number** by its figure and unit, with or without the space
//!   between them;
//! - an **error**, an **instruction** or a **decision** by its sentence,
//!   or by at least two thirds of its telling words (four letters or more,
//!   common words aside, at least two) within one sentence.
//!
//! Texts are compared in lower case.

use super::{Fact, FactKind};
use std::collections::HashMap;

/// What telling a fact from its siblings takes: how many file facts of
/// the range share each file name.
pub struct Siblings {
    file_names: HashMap<String, usize>,
    /// The range's files, lower case.
    paths: Vec<String>,
}

impl Siblings {
    /// Whether `fact` (a file) is the only one of its file name.
    pub fn unique(&self, fact: &Fact) -> bool {
        fact.kind == FactKind::File
            && self
                .file_names
                .get(&file_name(&fact.key))
                .copied()
                .unwrap_or(0)
                <= 1
    }

    pub fn of(facts: &[Fact]) -> Siblings {
        Siblings::counting(facts.iter())
    }

    /// [`Siblings::of`] facts selected with their indices.
    pub fn of_indexed(facts: &[(usize, Fact)]) -> Siblings {
        Siblings::counting(facts.iter().map(|(_, f)| f))
    }

    fn counting<'a>(facts: impl Iterator<Item = &'a Fact>) -> Siblings {
        let mut file_names: HashMap<String, usize> = HashMap::new();
        let mut paths = Vec::new();
        for f in facts.filter(|f| f.kind == FactKind::File) {
            *file_names.entry(file_name(&f.key)).or_default() += 1;
            paths.push(f.key.trim_start_matches("./").to_lowercase());
        }
        Siblings { file_names, paths }
    }

    /// The paths of the range's files, lower case.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.paths.iter().map(String::as_str)
    }
}

fn file_name(path: &str) -> String {
    path.rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_lowercase()
}

/// Whether `text` (lower case) names `fact`.
pub fn names(fact: &Fact, text: &str, siblings: &Siblings) -> bool {
    let key = fact.key.to_lowercase();
    match fact.kind {
        FactKind::File => {
            let path = key.trim_start_matches("./");
            if contains_bounded(text, path) {
                return true;
            }
            let name = file_name(path);
            name != path
                && name.contains('.')
                && siblings.file_names.get(&name).copied().unwrap_or(0) <= 1
                && contains_bounded(text, &name)
        }
        FactKind::Command => {
            let words = command_words(&key);
            !words.is_empty()
                && words.iter().all(|w| has(text, w))
                && in_one_window(text, &words, words.len(), false)
        }
        FactKind::Url => {
            let bare = key
                .trim_start_matches("https://")
                .trim_start_matches("http://")
                .trim_end_matches('/');
            has(text, &key) || has(text, bare)
        }
        FactKind::Number => {
            let tight: String = key.split_whitespace().collect();
            let split = tight
                .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
                .filter(|&at| at > 0 && !tight.starts_with('v'))
                .map(|at| format!("{} {}", &tight[..at], &tight[at..]));
            let bare = tight.trim_start_matches('v').to_string();
            [Some(key.clone()), Some(tight.clone()), split, Some(bare)]
                .into_iter()
                .flatten()
                .any(|form| contains_bounded(text, &form))
        }
        FactKind::Error | FactKind::Instruction | FactKind::Decision => {
            if has(text, key.trim().trim_end_matches('.')) {
                return true;
            }
            let telling = telling_words(&key);
            if telling.len() < 2 {
                return false;
            }
            let need = (telling.len() * 2).div_ceil(3);
            let present: Vec<String> = telling.into_iter().filter(|w| has(text, w)).collect();
            present.len() >= need && in_one_window(text, &present, need, true)
        }
    }
}

/// Whether `needle` stands anywhere in `hay`: SIMD search, as judging a
/// simulation asks it of every fact against every turn and summary.
fn has(hay: &str, needle: &str) -> bool {
    memchr::memmem::find(hay.as_bytes(), needle.as_bytes()).is_some()
}

/// Whether one window of `text` holds at least `need` of `words`, each
/// standing alone (see [`bounded`]; `dash_joins` as there). Each word's
/// occurrences are found in one pass over the text and counted by the
/// window they fall in: a few passes over the text, never one per window
/// a common word stands in.
fn in_one_window(text: &str, words: &[String], need: usize, dash_joins: bool) -> bool {
    let breaks = Breaks::of(text);
    // Of each window (by its start), how many of the words it holds.
    let mut held: HashMap<usize, usize> = HashMap::new();
    for word in words {
        let mut last = None;
        for at in memchr::memmem::find_iter(text.as_bytes(), word.as_bytes()) {
            let (start, end) = breaks.window_at(at, text.len());
            if last == Some(start) || at + word.len() > end {
                continue;
            }
            // Whether it stands alone is judged within its window, as a
            // reader of that sentence sees it.
            if bounded_at(&text[start..end], at - start, word.len(), dash_joins) {
                last = Some(start);
                let n = held.entry(start).or_default();
                *n += 1;
                if *n >= need {
                    return true;
                }
            }
        }
    }
    false
}

/// Where a text's windows break: its line breaks, its `;` and its
/// sentence ends (`. `), found in one pass.
struct Breaks {
    /// Each break's first byte and the byte after it, in text order.
    at: Vec<(usize, usize)>,
}

impl Breaks {
    fn of(text: &str) -> Breaks {
        let bytes = text.as_bytes();
        let mut at = Vec::new();
        for i in memchr::memchr3_iter(b'\n', b';', b'.', bytes) {
            match bytes[i] {
                b'.' if bytes.get(i + 1) == Some(&b' ') => at.push((i, i + 2)),
                b'.' => {}
                _ => at.push((i, i + 1)),
            }
        }
        Breaks { at }
    }

    /// The window around byte `at` of a text of `len` bytes: from the end
    /// of the last break wholly before it to the first break at or after
    /// it.
    fn window_at(&self, at: usize, len: usize) -> (usize, usize) {
        let before = self.at.partition_point(|&(_, end)| end <= at);
        let start = before.checked_sub(1).map_or(0, |k| self.at[k].1);
        let end = self.at[before..]
            .iter()
            .find(|&&(b, _)| b >= at)
            .map_or(len, |&(b, _)| b);
        (start, end)
    }
}

/// `needle` in `hay` not as part of a longer word or path (so `a.rs` is not
/// named by `data.rs`, nor `test` by `tests`).
fn contains_bounded(hay: &str, needle: &str) -> bool {
    bounded(hay, needle, true)
}

fn bounded(hay: &str, needle: &str, dash_joins: bool) -> bool {
    if needle.is_empty() {
        return false;
    }
    memchr::memmem::find_iter(hay.as_bytes(), needle.as_bytes())
        .any(|at| bounded_at(hay, at, needle.len(), dash_joins))
}

/// Whether the `len` bytes of `hay` at `at` are no part of a longer word
/// or path.
fn bounded_at(hay: &str, at: usize, len: usize, dash_joins: bool) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let before = hay[..at].chars().next_back();
    let after = hay[at + len..].chars().next();
    let joins_before =
        before.is_some_and(|c| word(c) || c == '/' || c == '.' || (dash_joins && c == '-'));
    let joins_after = after.is_some_and(|c| word(c) || c == '/');
    !joins_before && !joins_after
}

/// A command's words as a reader repeats them: leading dashes, quotes and
/// `=` values split off, the program kept.
fn command_words(command: &str) -> Vec<String> {
    command
        .split_whitespace()
        .flat_map(|w| w.split('='))
        .map(|w| {
            w.trim_start_matches('-')
                .trim_matches(|c| matches!(c, '"' | '\'' | '`' | ','))
                .to_string()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Words that tell nothing apart.
const COMMON: [&str; 40] = [
    "that", "this", "with", "from", "have", "will", "what", "when", "then", "than", "them", "they",
    "there", "their", "your", "into", "only", "also", "just", "please", "always", "never", "make",
    "sure", "should", "would", "could", "before", "after", "about", "some", "each", "every",
    "don't", "dont", "does", "done", "were", "been", "being",
];

fn telling_words(sentence: &str) -> Vec<String> {
    let mut out: Vec<String> = sentence
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '-' | '\'')))
        .map(|w| w.trim_matches(['.', '\'', '-']).to_string())
        .filter(|w| w.chars().count() >= 4 && !COMMON.contains(&w.as_str()))
        .collect();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(kind: FactKind, key: &str) -> Fact {
        Fact::sample(kind, key, key)
    }

    /// The rule itself, read plainly: some window between two breaks
    /// holds `need` of the words, each standing alone in that window.
    fn by_every_window(text: &str, words: &[String], need: usize, dash_joins: bool) -> bool {
        let breaks = Breaks::of(text);
        let mut starts = vec![0];
        starts.extend(breaks.at.iter().map(|&(_, end)| end));
        starts.iter().any(|&start| {
            let end = breaks
                .at
                .iter()
                .find(|&&(b, _)| b >= start)
                .map_or(text.len(), |&(b, _)| b);
            let w = &text[start..end.max(start)];
            words
                .iter()
                .filter(|word| bounded(w, word, dash_joins))
                .count()
                >= need
        })
    }

    #[test]
    fn a_window_holds_the_words_the_plain_rule_says_it_does() {
        let texts = [
            "cargo test -p csvq. then cargo build; -p csvq --release\nrelease csvq test",
            "the loader rejects a missing folder; the guard. loader folder guard",
            "a.rs data.rs a.rs. a.rs;a.rs\n./a.rs x/a.rs a.rs-b",
            "word word word. word",
            "csvq csvq release. loader loader guard",
            "",
        ];
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let sets = [
            words(&["cargo", "test", "csvq"]),
            words(&["release", "csvq", "test"]),
            words(&["loader", "folder", "guard"]),
            words(&["a.rs", "data.rs"]),
            words(&["word"]),
            words(&["p", "csvq"]),
        ];
        for text in texts {
            for ws in &sets {
                for need in 1..=ws.len() {
                    for dash in [true, false] {
                        assert_eq!(
                            in_one_window(text, ws, need, dash),
                            by_every_window(text, ws, need, dash),
                            "{text:?} {ws:?} {need} {dash}"
                        );
                    }
                }
            }
        }
    }

    fn none() -> Siblings {
        Siblings::of(&[])
    }

    #[test]
    fn a_path_named_in_prose_and_by_its_file_name_when_it_is_the_only_one() {
        let f = fact(FactKind::File, "src/parser.rs");
        assert!(names(&f, "i fixed precedence in src/parser.rs.", &none()));
        assert!(names(&f, "the parser (parser.rs) now splits", &none()));
        assert!(!names(&f, "the parser is split", &none()));
        // Another file of the range shares the name: only the path tells.
        let two = Siblings::of(&[f.clone(), fact(FactKind::File, "tests/parser.rs")]);
        assert!(!names(&f, "the parser (parser.rs) now splits", &two));
        // Not part of a longer name.
        let a = fact(FactKind::File, "a.rs");
        assert!(!names(&a, "see data.rs", &none()));
    }

    #[test]
    fn a_command_with_its_words_in_any_order_within_one_sentence() {
        let f = fact(FactKind::Command, "cargo test --release -p csvq");
        assert!(names(
            &f,
            "ran cargo test -p csvq --release: green",
            &none()
        ));
        assert!(names(
            &f,
            "tests pass (cargo test, release, p csvq)",
            &none()
        ));
        assert!(!names(&f, "ran cargo test", &none()));
        // The words spread over sentences of different facts don't count.
        assert!(!names(
            &f,
            "cargo test passed.\nthe release is csvq p",
            &none()
        ));
        let g = fact(FactKind::Command, "cargo test");
        assert!(!names(&g, "cargo tests are slow", &none()));
    }

    #[test]
    fn a_sentence_by_two_thirds_of_its_telling_words() {
        let f = fact(
            FactKind::Instruction,
            "Always run cargo fmt before you commit.",
        );
        assert!(names(
            &f,
            "the user wants cargo fmt run before every commit",
            &none()
        ));
        assert!(!names(&f, "formatting was discussed", &none()));
        // One shared word is not the fact.
        assert!(!names(&f, "we commit often", &none()));
    }

    #[test]
    fn urls_and_figures() {
        let u = fact(FactKind::Url, "https://docs.rs/csv/latest/csv");
        assert!(names(&u, "per docs.rs/csv/latest/csv, ", &none()));
        let n = fact(FactKind::Number, "14 MB");
        assert!(names(&n, "peak memory 14mb", &none()));
        assert!(!names(&n, "peak memory 114 mb", &none()));
    }
}
