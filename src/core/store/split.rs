//! Finding the elements of the top-level array of `events.json` fast.
//!
//! Each element is parsed (and so validated) by serde afterwards; this only
//! finds where each one starts and ends, jumping over strings with memchr
//! instead of walking them byte by byte, which halves the passes over the
//! large tool outputs a conversation is mostly made of. Anything unexpected
//! returns `None`, and the caller lets serde parse the whole array to report
//! the error precisely.

use crate::core::store::PARALLEL_FROM;

/// Byte ranges of the top-level array's elements, or `None` when the text is
/// not a well-formed array at this level.
pub fn elements(text: &str) -> Option<Vec<(usize, usize)>> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'[') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b']') {
        return (skip_ws(b, i + 1) == b.len()).then_some(Vec::new());
    }
    if b.len() >= PARALLEL_FROM
        && let Some(v) = in_halves(b, i)
    {
        return Some(v);
    }
    scan(b, i, usize::MAX).map(|(v, _)| v)
}

/// Byte ranges of the elements in `text`, the rest of an array from just
/// after one of its elements: none before the closing bracket, or each
/// after a comma. `None` when it isn't that.
pub fn after_element(text: &str) -> Option<Vec<(usize, usize)>> {
    let b = text.as_bytes();
    let i = skip_ws(b, 0);
    match b.get(i) {
        Some(b']') => (skip_ws(b, i + 1) == b.len()).then_some(Vec::new()),
        Some(b',') => scan(b, skip_ws(b, i + 1), usize::MAX).map(|(v, _)| v),
        _ => None,
    }
}

/// The elements from the one starting at `i` on: all of them to the
/// closing bracket (`true`), or those before the one starting exactly at
/// `stop` (`false`); `None` for anything odd, or an element reaching over
/// `stop`.
fn scan(b: &[u8], mut i: usize, stop: usize) -> Option<(Vec<(usize, usize)>, bool)> {
    let mut out = Vec::new();
    loop {
        if i == stop {
            return Some((out, false));
        }
        if i > stop {
            return None;
        }
        let end = value_end(b, i)?;
        out.push((i, end));
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b']') => return (skip_ws(b, i + 1) == b.len()).then_some((out, true)),
            _ => return None,
        }
    }
}

/// [`scan`] of the whole array as two halves at once: the second from a
/// guess at an element's start past the middle (an object after a comma),
/// kept only when the first, scanned exactly from the start, ends with an
/// element starting there; `None` (scan it whole) otherwise.
fn in_halves(b: &[u8], first: usize) -> Option<Vec<(usize, usize)>> {
    let cut = guess_start(b, b.len() / 2)?;
    let (head, tail) = std::thread::scope(|s| {
        let tail = s.spawn(|| scan(b, cut, usize::MAX));
        (scan(b, first, cut), tail.join().ok().flatten())
    });
    let ((mut v, false), Some((rest, true))) = (head?, tail) else {
        return None;
    };
    v.extend(rest);
    Some(v)
}

/// The first `{` at or after `from` that follows a comma (whitespace
/// between): where an element of jp's arrays may start. Only a guess: the
/// comma may be inside a string.
fn guess_start(b: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    for _ in 0..4096 {
        let comma = at + memchr::memchr(b',', b.get(at..)?)?;
        let next = skip_ws(b, comma + 1);
        if b.get(next) == Some(&b'{') {
            return Some(next);
        }
        at = comma + 1;
    }
    None
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\n' | b'\r' | b'\t') {
        i += 1;
    }
    i
}

/// The index just past the string starting at `i` (a `"`).
fn string_end(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        let k = i + memchr::memchr2(b'"', b'\\', &b[i..])?;
        if b[k] == b'"' {
            return Some(k + 1);
        }
        // A backslash escapes the next byte (for \uXXXX the rest are hex
        // digits, which need no care here).
        i = k + 2;
        if i > b.len() {
            return None;
        }
    }
}

/// The index just past the JSON value starting at `i`.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut k = i;
            while k < b.len() {
                match b[k] {
                    b'"' => {
                        k = string_end(b, k)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(k + 1);
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
            None
        }
        _ => {
            // A scalar: up to the next delimiter.
            let mut k = i;
            while k < b.len() && !matches!(b[k], b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t')
            {
                k += 1;
            }
            (k > i).then_some(k)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Option<Vec<&str>> {
        elements(s).map(|v| v.into_iter().map(|(a, b)| &s[a..b]).collect())
    }

    #[test]
    fn splits_like_serde() {
        let s = "[\n  {\"a\": \"x]\\\"}\", \"b\": [1, {\"c\": 2}]},\n  42, \"s\\\\\", null\n]\n";
        let ours = texts(s).unwrap();
        let serde: Vec<&serde_json::value::RawValue> = serde_json::from_str(s).unwrap();
        let serde: Vec<&str> = serde.iter().map(|r| r.get()).collect();
        assert_eq!(ours, serde);
        assert_eq!(texts("[]"), Some(vec![]));
        assert_eq!(texts(" [ ] \n"), Some(vec![]));
    }

    #[test]
    fn a_large_array_is_split_in_halves_as_whole() {
        // Objects whose strings hold commas before braces, and one that
        // reaches over the middle: the guesses that go wrong are refused.
        let mut s = String::from("[\n");
        let mut k = 0;
        while s.len() < PARALLEL_FROM + 1000 {
            let body = if k % 3 == 0 {
                ", {\\\"x\\\": 1}".repeat(40)
            } else {
                "plain".repeat(30)
            };
            s.push_str(&format!(
                "  {{\"type\": \"t\", \"content\": \"{body}\", \"n\": [{k}, {{\"a\": {k}}}]}},\n"
            ));
            k += 1;
        }
        s.push_str("  {\"last\": true}\n]\n");
        let b = s.as_bytes();
        let whole = scan(b, 4, usize::MAX).unwrap().0;
        assert_eq!(elements(&s).unwrap(), whole);
        let first = skip_ws(b, 1);
        // Every guess from anywhere gives the same elements or none.
        for from in [b.len() / 3, b.len() / 2, b.len() / 2 + 17, b.len() - 40] {
            if let Some(cut) = guess_start(b, from) {
                let head = scan(b, first, cut);
                if let Some((mut v, false)) = head {
                    v.extend(scan(b, cut, usize::MAX).unwrap().0);
                    assert_eq!(v, whole);
                }
            }
        }
        let serde: Vec<&serde_json::value::RawValue> = serde_json::from_str(&s).unwrap();
        assert_eq!(whole.len(), serde.len());
        // And where the guess is right, the halves are what is used.
        let plain = format!(
            "[{}{{\"z\": 0}}]",
            "{\"a\": \"bbbbbbbb\"},\n".repeat(PARALLEL_FROM / 16)
        );
        let halves = in_halves(plain.as_bytes(), 1).expect("split in halves");
        assert_eq!(halves, scan(plain.as_bytes(), 1, usize::MAX).unwrap().0);
    }

    #[test]
    fn anything_odd_is_left_to_serde() {
        for bad in [
            "",
            "{}",
            "[",
            "[1,",
            "[1 2]",
            "[\"abc]",
            "[}",
            "[1]x",
            "[{]",
            "[{\"a\": \"\\",
        ] {
            assert_eq!(elements(bad), None, "{bad:?}");
        }
    }
}
