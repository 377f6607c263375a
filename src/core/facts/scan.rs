//! What a text says that a fact is made of: a failing result's telling line,
//! the links it names, the figures with their unit.

/// The line of a failing result that says what went wrong: the first that
/// mentions an error, a failure or a panic, else the first that isn't
/// blank; at most 160 characters.
pub fn error_line(text: &str) -> Option<String> {
    let lines = || text.lines().map(str::trim).filter(|l| !l.is_empty());
    let telling = |l: &&str| {
        let l = l.to_lowercase();
        [
            "error",
            "failed",
            "panicked",
            "fatal",
            "not found",
            "denied",
        ]
        .iter()
        .any(|w| l.contains(w))
    };
    let line = lines().find(telling).or_else(|| lines().next())?;
    Some(line.chars().take(160).collect())
}

/// The most of a link kept: longer ones are cut here (a link is a fact
/// a reader repeats, not a payload).
pub const URL_LIMIT: usize = 400;

/// The links of a text, trailing punctuation left off. A link ends at
/// whitespace, at a quote or bracket, where the next link begins, or at
/// [`URL_LIMIT`] bytes: finding them is one pass over the text, and their
/// total length is at most the text's.
pub fn urls(text: &str) -> Vec<String> {
    let mut starts: Vec<(usize, usize)> = ["https://", "http://"]
        .iter()
        .flat_map(|scheme| {
            memchr::memmem::find_iter(text.as_bytes(), scheme.as_bytes())
                .map(move |at| (at, scheme.len()))
        })
        .collect();
    starts.sort_unstable();
    let mut out = Vec::new();
    for (k, &(at, scheme)) in starts.iter().enumerate() {
        let next = starts.get(k + 1).map_or(text.len(), |&(n, _)| n);
        let mut stop = next.min(at.saturating_add(URL_LIMIT));
        while !text.is_char_boundary(stop) {
            stop -= 1;
        }
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

/// Units a measured figure is named with.
const UNITS: [&str; 24] = [
    "kib", "mib", "gib", "kb", "mb", "gb", "tb", "ms", "µs", "ns", "s", "sec", "seconds", "min",
    "minutes", "h", "hours", "%", "x", "×", "tokens", "tok", "tests", "files",
];

/// Versions (`v0.1.0`, `1.74`) and measured figures with a unit (`2 GB`,
/// `11 s`, `61.0KiB`, `42 tests`, `3.2x`, `85%`) of a text, code blocks
/// left out.
pub fn figures(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for s in sentences(text) {
        let tokens: Vec<&str> = s.split_whitespace().collect();
        for (k, raw) in tokens.iter().enumerate() {
            let t = raw.trim_matches(|c: char| {
                matches!(c, '(' | ')' | ',' | ';' | ':' | '`' | '"' | '\'' | '*')
            });
            let t = t.strip_suffix('.').unwrap_or(t);
            let digits = t.trim_start_matches('v');
            let numeric_end = digits
                .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
                .unwrap_or(digits.len());
            let (num, unit) = digits.split_at(numeric_end);
            if num.is_empty() || !num.starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            let num = num.trim_end_matches(['.', ',']);
            let version = num.matches('.').count() >= 2
                || (t.starts_with('v') && num.contains('.'))
                || (num.contains('.') && unit.is_empty() && version_context(&tokens, k));
            let glued_unit = !unit.is_empty() && UNITS.contains(&unit.to_lowercase().as_str());
            let next_unit = unit.is_empty()
                && tokens.get(k + 1).is_some_and(|n| {
                    let n = n.trim_end_matches(['.', ',', ')', ';', ':']).to_lowercase();
                    UNITS.contains(&n.as_str()) && n != "x" && n != "h"
                });
            if version {
                out.push(t.to_string());
            } else if glued_unit {
                out.push(format!("{num}{unit}"));
            } else if next_unit {
                let n = tokens[k + 1].trim_end_matches(['.', ',', ')', ';', ':']);
                out.push(format!("{num} {n}"));
            }
        }
    }
    out
}

/// A bare `1.74` is a version next to "Rust", "version", "MSRV" or "to".
fn version_context(tokens: &[&str], k: usize) -> bool {
    k.checked_sub(1)
        .and_then(|p| tokens.get(p))
        .is_some_and(|w| {
            let w = w.to_lowercase();
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
