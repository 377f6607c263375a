//! What a text says that a fact is made of: a failing result's telling line,
//! the links it names, the figures with their unit.

/// The most of a link kept: longer ones are cut here (a link is a fact
/// a reader repeats, not a payload).
pub const URL_LIMIT: usize = 400;

/// The links of a text (any scheme: `https://`, `file:///`, `bear://`),
/// trailing punctuation left off. A link ends at
/// whitespace, at a quote or bracket, where the next link begins, or at
/// [`URL_LIMIT`] bytes: finding them is one pass over the text, and their
/// total length is at most the text's.
pub fn urls(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    // Each `://` with the scheme before it (`https`, `file`, `bear`: three
    // to twenty letters), found in one pass.
    let starts: Vec<(usize, usize)> = memchr::memmem::find_iter(bytes, b"://")
        .filter_map(|colon| {
            let scheme = bytes[colon.saturating_sub(20)..colon]
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_alphabetic())
                .count();
            (scheme >= 3).then(|| (colon - scheme, scheme + 3))
        })
        .collect();
    let mut out = Vec::new();
    for (k, &(at, scheme)) in starts.iter().enumerate() {
        let next = starts.get(k + 1).map_or(text.len(), |&(n, _)| n);
        let stop = crate::core::cut::floor(text, next.min(at.saturating_add(URL_LIMIT)));
        let rest = &text[at..stop];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '`' | ')'))
            .unwrap_or(rest.len());
        let url = rest[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', '\'', '\\']);
        if url.len() > scheme + 3 {
            out.push(url.to_string());
        }
    }
    out
}

/// Words before a number that make it a name: a line, a document, a
/// place in a ranking, a port, an exit status.
const NAMING: [&str; 7] = ["line", "rfd", "rank", "port", "pr", "issue", "exit"];

/// Nouns a number is glued to with a hyphen when it measures: `384-dim`.
const MEASURED: [&str; 14] = [
    "dim",
    "dims",
    "dimension",
    "dimensional",
    "character",
    "char",
    "byte",
    "bit",
    "line",
    "layer",
    "token",
    "second",
    "minute",
    "hour",
];

/// Digits, with thousands separated by commas and one decimal point.
fn plain_number(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_digit())
        && t.bytes()
            .all(|c| c.is_ascii_digit() || c == b',' || c == b'.')
        && t.matches('.').count() <= 1
}

/// A token without the punctuation around it.
fn word(t: &str) -> &str {
    t.trim_matches(|c: char| !c.is_alphanumeric())
}

/// Units a measured figure is named with.
const UNITS: [&str; 34] = [
    "kib",
    "mib",
    "gib",
    "kb",
    "mb",
    "gb",
    "tb",
    "ms",
    "µs",
    "ns",
    "s",
    "sec",
    "seconds",
    "min",
    "minutes",
    "h",
    "hours",
    "%",
    "x",
    "×",
    "tokens",
    "tok",
    "tests",
    "files",
    "px",
    "rem",
    "lines",
    "bytes",
    "k",
    "m",
    "characters",
    "chars",
    "dimensions",
    "layers",
];

/// Versions (`v0.1.0`, `1.74`, `2.0.0-alpha.16`), measured figures with a
/// unit (`2 GB`, `11 s`, `61.0KiB`, `42 tests`, `3.2x`, `85%`), counts
/// (`253/253`), commits and ids (`6a1c50a0`) and places in a file (`lib.rs:326`) of a text, code blocks left out; each
/// with the words around it a reader needs to know what it counts.
pub fn figures(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // Every figure has a digit: most sentences and words have none.
    let digit = |t: &str| t.bytes().any(|b| b.is_ascii_digit());
    for s in sentences(text).into_iter().filter(|s| digit(s)) {
        let tokens: Vec<&str> = s.split_whitespace().collect();
        let finished = s.to_ascii_lowercase().contains("finished");
        let frame = backtrace_frame(&tokens);
        for (k, raw) in tokens.iter().enumerate() {
            if !digit(raw) {
                continue;
            }
            if let Some(f) = figure_at(&tokens, k, raw) {
                // A build's or a test run's own timing (`Finished … in
                // 2.02s`), and the places of a backtrace's frames, are no
                // figures later work rests on.
                let timing = finished
                    && k > 0
                    && tokens[k - 1].eq_ignore_ascii_case("in")
                    && TIMES.iter().any(|u| f.to_ascii_lowercase().ends_with(u));
                if timing || (frame && f.contains(':')) {
                    continue;
                }
                out.push((f, around(&tokens, k)));
            }
        }
    }
    out
}

/// The units of a duration.
const TIMES: [&str; 8] = ["ms", "µs", "ns", "s", "sec", "seconds", "min", "minutes"];

/// A line of a backtrace: `at src/x.rs:12:5`, `12: std::panicking::…`.
fn backtrace_frame(tokens: &[&str]) -> bool {
    match tokens.first() {
        Some(&"at") => true,
        Some(t) => {
            t.ends_with(':') && t.len() > 1 && t[..t.len() - 1].bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// The figure token `k` of a sentence is, if it is one.
fn figure_at(tokens: &[&str], k: usize, raw: &str) -> Option<String> {
    let wrapping = |c: char| {
        matches!(
            c,
            '(' | ')' | ',' | ';' | ':' | '`' | '"' | '\'' | '*' | '[' | ']'
        )
    };
    // A sentence's end may stand outside a bracket: `(default: 50).`
    let t = raw
        .trim_start_matches(wrapping)
        .trim_end_matches(|c: char| wrapping(c) || matches!(c, '.' | '!' | '?'));
    if let Some(id) = identifier(t) {
        return Some(id);
    }
    // About, at most, at least: `~50MB`, `<50ms`, `>2x`.
    let t = t.trim_start_matches(['~', '<', '>', '≈']);
    // At least, about: `5,000+ notes`, `200-ish characters`.
    if let Some(n) = t.strip_suffix('+').or_else(|| t.strip_suffix("-ish"))
        && plain_number(n)
        && let Some(what) = tokens.get(k + 1).map(|w| word(w))
        && what.len() > 2
    {
        return Some(format!("{t} {what}"));
    }
    // A number that names: `line 406`, `RFD 032`, `rank 113`, `port 8080`.
    if plain_number(t)
        && k.checked_sub(1)
            .and_then(|p| tokens.get(p))
            .is_some_and(|w| NAMING.contains(&word(w).to_lowercase().as_str()))
    {
        return Some(format!("{} {t}", word(tokens[k - 1])));
    }
    // A measure glued to its noun: `512-dimension`, `2-character`.
    if let Some((n, noun)) = t.split_once('-')
        && plain_number(n)
        && MEASURED.contains(&noun.to_lowercase().as_str())
    {
        return Some(t.to_string());
    }
    // A range names its figures: `20-90MB`.
    if let Some((low, high)) = t.split_once('-')
        && !low.is_empty()
        && low.bytes().all(|c| c.is_ascii_digit() || c == b'.')
        && high.starts_with(|c: char| c.is_ascii_digit())
        && figure_at(tokens, k, high).is_some()
    {
        return Some(t.to_string());
    }
    // A default or a constant: `(default: 50)`, `defaulting to 3`, `k = 60`.
    let set = k
        .checked_sub(1)
        .and_then(|p| tokens.get(p))
        .is_some_and(|w| {
            let w = w
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '=')
                .to_lowercase();
            matches!(w.as_str(), "default" | "defaults" | "=")
                || (w == "to" && k >= 2 && tokens[k - 2].eq_ignore_ascii_case("defaulting"))
        });
    if set && !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit() || c == b'.') {
        return Some(t.to_string());
    }
    let digits = t.trim_start_matches('v');
    let numeric_end = digits
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(digits.len());
    let (num, unit) = digits.split_at(numeric_end);
    if num.is_empty() || !num.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let num = num.trim_end_matches(['.', ',']);
    let version = num.matches('.').count() >= 2
        || (t.starts_with('v') && num.contains('.'))
        || (num.contains('.') && unit.is_empty() && version_context(tokens, k));
    let glued_unit = !unit.is_empty() && UNITS.contains(&unit.to_lowercase().as_str());
    let next_unit = unit.is_empty()
        && tokens.get(k + 1).is_some_and(|n| {
            let n = n.trim_end_matches(['.', ',', ')', ';', ':']).to_lowercase();
            UNITS.contains(&n.as_str()) && n != "x" && n != "h"
        });
    // A count with a word between it and what it counts: `18 existing
    // tests`, `6 new files`.
    let counted = unit.is_empty()
        && tokens.get(k + 1).is_some_and(|w| {
            matches!(
                w.to_lowercase().as_str(),
                "new"
                    | "existing"
                    | "unit"
                    | "integration"
                    | "more"
                    | "failing"
                    | "passing"
                    | "additional"
                    | "regression"
                    | "changed"
                    | "modified"
                    | "snapshot"
            )
        })
        && tokens.get(k + 2).is_some_and(|n| {
            let n = n.trim_end_matches(['.', ',', ')', ';', ':']).to_lowercase();
            matches!(
                n.as_str(),
                "tests" | "files" | "lines" | "test" | "snapshots"
            )
        });
    if version {
        Some(t.to_string())
    } else if counted {
        let what = tokens[k + 2].trim_end_matches(['.', ',', ')', ';', ':']);
        Some(format!("{num} {} {what}", tokens[k + 1]))
    } else if glued_unit {
        Some(format!("{num}{unit}"))
    } else if next_unit {
        let n = tokens[k + 1].trim_end_matches(['.', ',', ')', ';', ':']);
        Some(format!("{num} {n}"))
    } else {
        None
    }
}

/// A count (`253/253`), a place in a file
/// (`util.rs:121`) or a commit or id: hexadecimal of 7 to 40 digits with
/// at least one letter and one digit.
fn identifier(t: &str) -> Option<String> {
    let count = t.split_once('/').is_some_and(|(a, b)| {
        !a.is_empty()
            && !b.is_empty()
            && a.bytes().all(|c| c.is_ascii_digit())
            && b.bytes().all(|c| c.is_ascii_digit())
    });
    let place = t.rsplit_once(':').is_some_and(|(file, line)| {
        file.contains('.')
            && !file.contains("//")
            && !line.is_empty()
            && line.bytes().all(|c| c.is_ascii_digit())
    });
    let hex = (7..=40).contains(&t.len())
        && t.bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        && t.bytes().any(|c| c.is_ascii_digit())
        && t.bytes().any(|c| c.is_ascii_alphabetic());
    (count || place || hex).then(|| t.to_string())
}

/// The issue and pull-request references of a text (`#598`, `PR #715`:
/// two digits or more, so a list's `#2` is none), each with the words
/// around it; code blocks left out.
pub fn references(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for s in sentences(text) {
        let tokens: Vec<&str> = s.split_whitespace().collect();
        for (k, raw) in tokens.iter().enumerate() {
            let t = raw
                .trim_start_matches(['(', '[', '`', '"', '\''])
                .trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
            let Some(n) = t.strip_prefix('#') else {
                continue;
            };
            if n.len() >= 2 && n.len() <= 7 && n.bytes().all(|c| c.is_ascii_digit()) {
                out.push((t.to_string(), around(tokens.as_slice(), k)));
            }
        }
    }
    out
}

/// The words around token `k`: up to six before and after, so a figure is
/// listed with what it measures.
fn around(tokens: &[&str], k: usize) -> String {
    // A sentence short enough to read whole is what a reader writes down.
    // Measured without joining it: a sentence of n figures is asked n
    // times, and joining a long one each time costs n².
    let mut chars = tokens.len().saturating_sub(1);
    let short = tokens.iter().all(|t| {
        chars += t.chars().count();
        chars <= 200
    });
    if short {
        return tokens.join(" ");
    }
    let from = k.saturating_sub(6);
    let to = (k + 7).min(tokens.len());
    let text = tokens[from..to].join(" ");
    super::calls::clip(&text, 160)
}

/// A bare `1.74` is a version next to "Rust", "version", "MSRV" or "to".
fn version_context(tokens: &[&str], k: usize) -> bool {
    k.checked_sub(1)
        .and_then(|p| tokens.get(p))
        .is_some_and(|w| {
            // After a name in code (`` `rusqlite` 0.37 ``), or what one is
            // on.
            if w.starts_with('`') && w.ends_with('`') && w.len() > 2 {
                return true;
            }
            let w = w.to_lowercase();
            if matches!(w.as_str(), "on" | "from" | "at") {
                return true;
            }
            ["rust", "version", "msrv", "v", "release", "edition"]
                .iter()
                .any(|m| w.trim_matches(|c: char| !c.is_alphanumeric()) == *m)
        })
}

/// A text's sentences: split at `. `, `! `, `? `, line breaks and list
/// items, trimmed, of at least three words; code blocks left out.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let line = line
            .trim()
            .trim_start_matches(['-', '*', '>', '#'])
            .trim_start();
        let mut start = 0;
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        for (k, &(at, c)) in chars.iter().enumerate() {
            let next_space = chars.get(k + 1).is_none_or(|(_, n)| n.is_whitespace());
            if matches!(c, '.' | '!' | '?') && next_space {
                out.push(line[start..at + c.len_utf8()].trim().to_string());
                start = at + c.len_utf8();
            }
        }
        out.push(line[start..].trim().to_string());
    }
    out.retain(|s| s.split_whitespace().count() >= 3);
    out
}
