//! Finding the elements of the top-level array of `events.json` fast.
//!
//! Each element is parsed (and so validated) by serde afterwards; this only
//! finds where each one starts and ends, jumping over strings with memchr
//! instead of walking them byte by byte, which halves the passes over the
//! large tool outputs a conversation is mostly made of. Anything unexpected
//! returns `None`, and the caller lets serde parse the whole array to report
//! the error precisely.

/// Byte ranges of the top-level array's elements, or `None` when the text is
/// not a well-formed array at this level.
pub fn elements(text: &str) -> Option<Vec<(usize, usize)>> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'[') {
        return None;
    }
    i = skip_ws(b, i + 1);
    let mut out = Vec::new();
    if b.get(i) == Some(&b']') {
        return (skip_ws(b, i + 1) == b.len()).then_some(out);
    }
    loop {
        let end = value_end(b, i)?;
        out.push((i, end));
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b']') => return (skip_ws(b, i + 1) == b.len()).then_some(out),
            _ => return None,
        }
    }
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
