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

/// At most `max` bytes of the start of `s`, whole characters only.
pub fn head(s: &str, max: usize) -> &str {
    &s[..floor(s, max)]
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
            prop_assert!(head(&s, at).len() <= at);
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
