//! A text's words as the judge by meaning weighs them: sentences, the
//! telling words of each (identifiers whole and by their parts, stemmed,
//! common words left out), paths and places.

use regex::Regex;
use rust_stemmers::{Algorithm, Stemmer};
use std::collections::HashSet;
use std::sync::OnceLock;

/// The sentences of a text: its lines, each cut after `.`, `!`, `?` or
/// `;` before a space.
pub(super) fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n').flat_map(|line| {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = line.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if matches!(b, b'.' | b'!' | b'?' | b';')
                && bytes.get(i + 1).is_some_and(u8::is_ascii_whitespace)
            {
                out.push(&line[start..=i]);
                start = i + 1;
            }
        }
        out.push(&line[start..]);
        out.into_iter().filter(|s| !s.trim().is_empty())
    })
}

/// The tokens of `text`, as the pattern
/// `[A-Za-z0-9_]+(?:(?:::|[./\-:])[A-Za-z0-9_]+)*` finds them, each with
/// the byte it starts at: runs of word characters joined by `::`, `.`,
/// `/`, `-` or `:`. Scanned by hand: judging a simulation reads every
/// sentence of thousands of summaries, and the regex was half of that.
fn token_spans(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let b = text.as_bytes();
    let word = |i: usize| {
        b.get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    };
    let run = move |mut i: usize| {
        while word(i) {
            i += 1;
        }
        i
    };
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < b.len() && !word(at) {
            at += 1;
        }
        if at >= b.len() {
            return None;
        }
        let start = at;
        let mut end = run(start);
        loop {
            let joined = match b.get(end) {
                Some(b':') if b.get(end + 1) == Some(&b':') && word(end + 2) => end + 2,
                Some(b'.' | b'/' | b'-' | b':') if word(end + 1) => end + 1,
                _ => break,
            };
            end = run(joined);
        }
        at = end;
        Some((start, &text[start..end]))
    })
}

pub(super) fn path_pattern() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| {
        Regex::new(r"[a-z0-9_.~@\-]+(?:/[a-z0-9_.~@\-]+)+|[a-z0-9_\-]+\.[a-z0-9]{1,8}\b")
            .expect("a valid pattern")
    })
}

/// `file.rs:12:5`, `(2528299)`: where, not what.
pub(super) fn place_pattern() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| Regex::new(r"\S+\.\w+:\d+(?::\d+)?|\(\d+\)").expect("a valid pattern"))
}

fn stemmer() -> &'static Stemmer {
    static S: OnceLock<Stemmer> = OnceLock::new();
    S.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// `word`'s stem. A conversation says the same few thousand words again
/// and again, and stemming is most of what reading a summary costs: each
/// thread keeps the stems it made (cleared past a bound, so a long run
/// holds no more than a vocabulary).
fn stem(word: String) -> String {
    use std::cell::RefCell;
    const KEPT: usize = 200_000;
    thread_local! {
        static STEMS: RefCell<foldhash::HashMap<String, String>> =
            RefCell::new(foldhash::HashMap::default());
    }
    STEMS.with(|stems| {
        let mut stems = stems.borrow_mut();
        if let Some(s) = stems.get(&word) {
            return s.clone();
        }
        let s = stemmer().stem(&word).into_owned();
        if stems.len() >= KEPT {
            stems.clear();
        }
        stems.insert(word, s.clone());
        s
    })
}

/// The telling words of `text`, stemmed: each identifier whole (lower
/// case) and by its parts (`snake_case`, `CamelCase`, `a::b`, `a/b.rs`),
/// common words and one- or two-letter ones left out.
pub fn tokens(text: &str) -> Vec<String> {
    terms(text).into_iter().map(|(t, _)| t).collect()
}

/// [`tokens`], each with whether it stands in an inline code span.
pub(super) fn terms(text: &str) -> Vec<(String, bool)> {
    let ticks: Vec<usize> = memchr::memchr_iter(b'`', text.as_bytes()).collect();
    let in_code = |at: usize| ticks.partition_point(|&t| t < at) % 2 == 1;
    // About a word every six bytes of prose; a long text grows as it goes.
    let mut out = Vec::with_capacity((text.len() / 6 + 1).min(1024));
    for (start, whole) in token_spans(text) {
        let code = in_code(start);
        let mut push = |t: String| out.push((t, code));
        let mut parts: Vec<&str> = Vec::new();
        for raw in whole
            .split(['.', '/', '-', ':', '_'])
            .filter(|p| !p.is_empty())
        {
            let camel = camel_parts(raw);
            if camel.len() > 1 {
                parts.extend(camel);
            } else {
                parts.push(raw);
            }
        }
        if parts.len() > 1 {
            // Of `a::b::c` a reader writes the last name.
            let name = whole.rsplit("::").next().unwrap_or(whole);
            push(name.to_lowercase());
        }
        for p in parts {
            // A word in capitals is a keyword or an acronym (`AND`, `OR`,
            // `CI`): it means what it says, however common in prose.
            let capitals = p.len() >= 2 && p.bytes().all(|b| b.is_ascii_uppercase());
            let p = p.to_lowercase();
            if capitals {
                push(p);
                continue;
            }
            let digits = p.bytes().all(|b| b.is_ascii_digit());
            // A bare zero counts nothing a reader needs.
            if stop(&p) || (p.len() < 3 && !digits) || p == "0" {
                continue;
            }
            if p.bytes().all(|b| b.is_ascii_alphabetic()) {
                push(stem(p));
            } else {
                push(p);
            }
        }
    }
    out
}

/// `HTTPServer` → `HTTP`, `Server`; `ToSql` → `To`, `Sql`; `E0277` →
/// `E`, `0277` (ASCII, as the token pattern gives).
fn camel_parts(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let run = |mut j: usize, f: fn(&u8) -> bool| {
        while j < b.len() && f(&b[j]) {
            j += 1;
        }
        j
    };
    while i < b.len() {
        if b[i].is_ascii_uppercase() {
            let j = run(i, u8::is_ascii_uppercase);
            if j < b.len() && b[j].is_ascii_lowercase() {
                if j - i > 1 {
                    out.push(&s[i..j - 1]);
                    i = j - 1;
                }
                let k = run(j, u8::is_ascii_lowercase);
                out.push(&s[i..k]);
                i = k;
            } else {
                out.push(&s[i..j]);
                i = j;
            }
        } else if b[i].is_ascii_lowercase() {
            let k = run(i, u8::is_ascii_lowercase);
            out.push(&s[i..k]);
            i = k;
        } else if b[i].is_ascii_digit() {
            let k = run(i, u8::is_ascii_digit);
            out.push(&s[i..k]);
            i = k;
        } else {
            i += 1;
        }
    }
    out
}

/// Whether `word` is one that carries no meaning of its own here.
fn stop(word: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOP.iter().copied().collect())
        .contains(word)
}

const STOP: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "if", "then", "than", "that", "this", "these", "those",
    "there", "their", "they", "them", "it", "its", "is", "are", "was", "were", "be", "been",
    "being", "to", "of", "in", "on", "at", "by", "for", "with", "from", "into", "onto", "over",
    "under", "about", "as", "so", "such", "not", "no", "nor", "do", "does", "did", "done", "doing",
    "have", "has", "had", "having", "will", "would", "shall", "should", "can", "could", "may",
    "might", "must", "i", "me", "my", "we", "us", "our", "you", "your", "he", "she", "his", "her",
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "all", "any", "both",
    "each", "few", "more", "most", "other", "some", "same", "own", "only", "very", "just", "also",
    "too", "here", "now", "up", "down", "out", "off", "again", "further", "once", "get", "got",
    "let", "lets", "im", "ill", "id", "well", "were", "youre", "itll", "thats", "theres", "dont",
    "doesnt", "didnt", "isnt", "arent", "wasnt", "wont", "cant", "one", "two", "use", "used",
    "using", "make", "made", "like", "want", "need", "yes", "ok", "okay", "sure", "going", "go",
    "via", "per", "eg", "ie", "etc", "new", "t", "s", "re", "ll", "ve", "d", "m", "don", "doesn",
    "didn", "isn", "aren", "wasn", "won", "can't", "it's", "that's", "i'm", "i'll", "we'll",
    "we're", "you're", "there's", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't",
    "won't", "it'll", "i'd",
];

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_what_their_pattern_finds() {
        let pattern = regex::Regex::new(r"[A-Za-z0-9_]+(?:(?:::|[./\-:])[A-Za-z0-9_]+)*").unwrap();
        let texts = [
            "std::fs::read_to_string(path) failed: E0277 at src/x.rs:12:5.",
            "a:::b a::b:c x..y -z- http://e.com/a_b?q=1 __init__ 1.2.3-rc1",
            "ünïcode wörds — and a/b/ tail: `code::Span` end.",
            "::leading:: trailing. - / : . 9",
            "",
        ];
        for t in texts {
            let want: Vec<(usize, &str)> = pattern
                .find_iter(t)
                .map(|m| (m.start(), m.as_str()))
                .collect();
            let got: Vec<(usize, &str)> = token_spans(t).collect();
            assert_eq!(got, want, "{t}");
        }
    }

    use super::*;

    #[test]
    fn identifiers_are_read_by_their_parts() {
        assert_eq!(camel_parts("HTTPServer"), ["HTTP", "Server"]);
        assert_eq!(camel_parts("ToSql"), ["To", "Sql"]);
        assert_eq!(camel_parts("E0277"), ["E", "0277"]);
        let t = tokens("PathIsNotADirectory in fts::tests::trigram_rejects_short_queries");
        for w in ["path", "directori", "trigram", "reject", "short", "queri"] {
            assert!(t.iter().any(|x| x == w), "{w} in {t:?}");
        }
    }
}
