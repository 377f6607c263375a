//! Cutting text for a budget. A byte offset found by arithmetic (a limit, a
//! position one past a matched character) can fall inside a multi-byte
//! character, where slicing a `&str` panics; every cut of a conversation's
//! text goes through here, where each lands on a character's boundary.

/// The largest character boundary of `s` at or before byte `at`.
pub fn floor(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    let mut at = at;
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest character boundary of `s` at or after byte `at`.
pub fn ceil(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    let mut at = at;
    while !s.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// At most `max` bytes of the start of `s`, whole characters only.
pub fn head(s: &str, max: usize) -> &str {
    &s[..floor(s, max)]
}

/// At most `max` bytes of the end of `s`, whole characters only.
pub fn tail(s: &str, max: usize) -> &str {
    &s[ceil(s, s.len().saturating_sub(max))..]
}

/// `s` without its last character.
pub fn without_last_char(s: &str) -> &str {
    s.char_indices().next_back().map_or(s, |(at, _)| &s[..at])
}

/// The byte just after the last character of `s` that `pred` holds for
/// (0 when none does): where what follows it starts.
pub fn after_last(s: &str, pred: impl Fn(char) -> bool) -> usize {
    s.char_indices()
        .rev()
        .find(|&(_, c)| pred(c))
        .map_or(0, |(at, c)| at + c.len_utf8())
}

/// The first `n` characters of `s`.
pub fn head_chars(s: &str, n: usize) -> &str {
    &s[..s.char_indices().nth(n).map_or(s.len(), |(at, _)| at)]
}

/// `s` cut to at most `limit` bytes, `…` marking the cut.
pub fn clip_bytes(s: &str, limit: usize) -> String {
    if s.len() <= limit {
        return s.to_string();
    }
    format!("{}…", head(s, limit))
}

/// `s` cut to at most `max` characters (the `…` counted), at the end of a
/// word where one ends in the last third: a reader sees where it was cut
/// and no word is left half.
pub fn clip_words(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let keep = max.saturating_sub(1);
    let cut = head_chars(s, keep);
    let end = cut.len();
    // Cut inside a word: back to the space before it, unless that loses
    // more than a third of what fits.
    let inside = s[end..].chars().next().is_some_and(|c| !c.is_whitespace());
    let at_word = match cut.rfind(char::is_whitespace) {
        Some(sp) if inside && cut[..sp].chars().count() * 3 >= keep * 2 => &cut[..sp],
        _ => cut,
    };
    format!("{}…", at_word.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Text of the shapes a conversation holds: accents, emoji (a ZWJ
    /// sequence too), CJK, combining marks, beside ASCII.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("a"),
                Just(" "),
                Just("."),
                Just("é"),
                Just("e\u{301}"),
                Just("🙂"),
                Just("👩‍💻"),
                Just("日本語"),
                Just("…"),
                Just("/"),
                Just("8"),
            ],
            0..40,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn every_cut_lands_on_a_boundary(s in text(), at in 0usize..200) {
            prop_assert!(s.is_char_boundary(floor(&s, at)));
            prop_assert!(s.is_char_boundary(ceil(&s, at)));
            prop_assert!(head(&s, at).len() <= at);
            prop_assert!(tail(&s, at).len() <= at);
            let c = clip_bytes(&s, at);
            prop_assert!(c == s || c.len() <= at + '…'.len_utf8());
            let w = clip_words(&s, at);
            prop_assert!(w == s || w.chars().count() <= at.max(1));
            let _ = without_last_char(&s);
            let after = after_last(&s, |c| !c.is_ascii());
            prop_assert!(s.is_char_boundary(after));
        }
    }

    #[test]
    fn words_are_cut_whole() {
        assert_eq!(
            clip_words("which is pen, stapler and more", 16),
            "which is pen,…"
        );
        assert_eq!(clip_words("short", 16), "short");
        assert_eq!(clip_words("日本語のテキスト", 4), "日本語…");
    }
}

/// Every function of the core that cuts a conversation's text, fed text
/// with a multi-byte character at every offset of lines that reach each
/// cut (a ratio, a question's last sentence, a link, a figure, an error).
#[cfg(test)]
mod every_cut {
    use crate::core::facts::{calls, prose, scan};

    const CHARS: [&str; 6] = ["é", "e\u{301}", "🙂", "👩‍💻", "日本", "…"];
    const LINES: [&str; 9] = [
        "8/9 patterns applied.",
        "Ran 4 of which 1 failed",
        "error[E0308]: mismatched types --> src/a.rs:3",
        "Shall I fix it now? See https://example.com/a.",
        "It took 2.5 s and 14 MB, line 406 of RFD 032.",
        "- Always run cargo fmt before you commit.",
        "The fix belongs in the loader: I'd recommend it.",
        "test result: FAILED. 3 passed; 1 failed",
        "thread 'main' panicked at src/main.rs:4:5",
    ];

    fn each_variant(f: impl Fn(&str)) {
        for line in LINES {
            for c in CHARS {
                for at in 0..=line.len() {
                    if !line.is_char_boundary(at) {
                        continue;
                    }
                    f(&format!("{}{c}{}", &line[..at], &line[at..]));
                }
                f(&format!("{line}{c}"));
                f(&format!("{c}{line}"));
            }
        }
    }

    #[test]
    fn no_cut_panics_on_multi_byte_text_at_any_offset() {
        each_variant(|text| {
            for class in [
                calls::ToolClass::Acts,
                calls::ToolClass::File,
                calls::ToolClass::Remote,
            ] {
                let _ = calls::failures(text, class, false);
                let _ = calls::failures(text, class, true);
                let _ = calls::outcome(text, class);
            }
            let _ = calls::decoded(text);
            let _ = scan::urls(text);
            let _ = scan::figures(text);
            let _ = scan::references(text);
            let _ = scan::sentences(text);
            let _ = scan::error_line(text);
            let _ = prose::instructions(text);
            let _ = prose::decisions(text);
            let _ = crate::core::summarize::digest::open_question(text);
            let _ = crate::core::visible::one_line(text, 7);
            let _ = crate::core::redact::redact(text);
            for limit in 0..text.len() + 2 {
                let _ = calls::clip(text, limit);
                let _ = super::clip_words(text, limit);
                let _ = crate::core::summarize::transcript::clip(text, limit);
            }
        });
    }
}
