//! Text from a conversation or a workspace made safe to show on a
//! terminal: the one path every human-readable output takes. A tool result,
//! a title or a folder name can hold ESC, OSC, BEL or CR, which a terminal
//! would obey (set the window title, move the cursor, rewrite a line); here
//! each is drawn as a visible stand-in instead. JSON output is not made
//! this way: its escaping is already exact.

use std::borrow::Cow;

/// The visible stand-in for `c` if it is one a terminal would act on:
/// C0 controls as their Unicode control pictures (`␛`, `␇`, `␀`), DEL as
/// `␡`, C1 controls and the bidirectional overrides as `\u{…}`.
fn stand_in(c: char) -> Option<Cow<'static, str>> {
    match c {
        '\u{0}'..='\u{1f}' => {
            let picture = char::from_u32(0x2400 + c as u32).unwrap_or('?');
            Some(Cow::Owned(picture.to_string()))
        }
        '\u{7f}' => Some(Cow::Borrowed("␡")),
        '\u{80}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{61c}' => Some(Cow::Owned(format!("\\u{{{:x}}}", c as u32))),
        _ => None,
    }
}

/// The one-column stand-in for `c` in a terminal cell, if it needs one:
/// a C0 control's picture, else `�`.
pub fn cell_stand_in(c: char) -> Option<char> {
    stand_in(c)?;
    Some(match c {
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
        '\u{7f}' => '␡',
        _ => '\u{fffd}',
    })
}

fn map(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| !keep(c) && stand_in(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match stand_in(c) {
            Some(s) if !keep(c) => out.push_str(&s),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `text` with every control character visible except the line breaks and
/// tabs of a multi-line text (a CR is shown: alone it rewrites a line).
pub fn visible(text: &str) -> Cow<'_, str> {
    map(text, |c| c == '\n' || c == '\t')
}

/// `text` on one line: every control character visible, a newline as `⏎`.
pub fn visible_line(text: &str) -> Cow<'_, str> {
    if !text.contains('\n') {
        return map(text, |_| false);
    }
    Cow::Owned(map(&text.replace('\n', "⏎"), |_| false).into_owned())
}

/// The stand-in for one character if it needs one, for code that walks
/// text itself.
pub fn char_stand_in(c: char) -> Option<Cow<'static, str>> {
    stand_in(c)
}

/// Whitespace folded to single spaces, cut to `max` characters with `…`.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(max.min(text.len()) + 3);
    let mut count = 0;
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = count > 0;
            continue;
        }
        if pending_space {
            if count + 1 >= max {
                out.push('…');
                return out;
            }
            out.push(' ');
            count += 1;
            pending_space = false;
        }
        if count + 1 >= max && count > 0 {
            out.push('…');
            return out;
        }
        // A control character from the conversation is drawn, not obeyed.
        match crate::core::visible::char_stand_in(c) {
            Some(s) => out.push_str(&s),
            None => out.push(c),
        }
        count += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_shown_not_obeyed() {
        let osc = "\u{1b}]0;pwned\u{7}title";
        assert_eq!(visible(osc), "␛]0;pwned␇title");
        assert_eq!(visible("a\r\nb\u{0}"), "a␍\nb␀");
        assert_eq!(visible("\u{9b}2J"), "\\u{9b}2J");
        assert_eq!(visible("abc\u{202e}def"), "abc\\u{202e}def");
        // ARABIC LETTER MARK reorders text as the overrides do.
        assert_eq!(visible("a\u{61c}b"), "a\\u{61c}b");
        assert_eq!(cell_stand_in('\u{1b}'), Some('␛'));
        assert_eq!(cell_stand_in('\u{202e}'), Some('\u{fffd}'));
        assert_eq!(cell_stand_in('a'), None);
    }

    #[test]
    fn one_line_shows_newlines() {
        assert_eq!(visible_line("a\nb\tc"), "a⏎b␉c");
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(visible("plain ünïcode\n"), Cow::Borrowed(_)));
        assert!(matches!(visible_line("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn one_line_folds_and_cuts() {
        assert_eq!(one_line("a\n\n b  c", 80), "a b c");
        assert_eq!(one_line("abcdefgh", 5), "abcd…");
        assert_eq!(one_line("ab cd", 5), "ab c…");
        assert_eq!(one_line("  lead", 10), "lead");
        assert_eq!(one_line("abcde", 5), "abcd…");
        assert_eq!(one_line("abcd", 5), "abcd");
        assert_eq!(one_line("a\u{1b}]0;x\u{7}", 80), "a␛]0;x␇");
    }
}
