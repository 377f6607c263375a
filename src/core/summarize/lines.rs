//! A digest's lines: a message on one line, cut to a length with a mark,
//! and the question a message closes on. The digest writes them; what it
//! reads of each turn keeps them.

/// The most of one turn's conclusion a digest gives: an answer's prose,
/// its code left out, is what later work was built on.
pub(super) const CONCLUSION_LIMIT: usize = 600;

/// A message's prose on one line: its code and pasted text left out.
pub(super) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn clip_line(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut = crate::core::cut::head_chars(text, max.saturating_sub(1));
    format!("{}…", cut.trim_end())
}

fn looks_like_question(text: &str) -> bool {
    let t = text.trim_end();
    t.ends_with('?')
        || ["Should I", "Would you like", "Do you want", "Shall I"]
            .iter()
            .any(|p| t.contains(p))
}

/// The question a range's last message leaves open, as the digest says
/// it: its last sentence, cut for the budget.
pub(crate) fn open_question(text: &str) -> Option<String> {
    looks_like_question(text).then(|| clip_line(&last_sentence(text), 240))
}

fn last_sentence(text: &str) -> String {
    let t = text.trim();
    // Its own closing mark aside; the marks sought are one byte each.
    let cut = crate::core::cut::without_last_char(t)
        .rfind(['.', '!', '\n'])
        .map_or(0, |p| p + 1);
    one_line(&t[cut..])
}
