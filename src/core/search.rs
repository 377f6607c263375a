//! Finding text in events the way editors do: smart case (a query in lower
//! case matches any case; a capital in it makes the match exact), with the
//! places of every match, for highlighting.

use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use std::ops::Range;

/// A search query, ready to match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needle {
    chars: Vec<char>,
    exact_case: bool,
}

fn fold(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

impl Needle {
    pub fn new(query: &str) -> Needle {
        let exact_case = query.chars().any(char::is_uppercase);
        Needle {
            chars: query
                .chars()
                .map(|c| if exact_case { c } else { fold(c) })
                .collect(),
            exact_case,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    /// Whether the match is case-sensitive (the query has a capital).
    pub fn exact_case(&self) -> bool {
        self.exact_case
    }

    fn haystack(&self, text: &str) -> Vec<char> {
        text.chars()
            .map(|c| if self.exact_case { c } else { fold(c) })
            .collect()
    }

    pub fn matches(&self, text: &str) -> bool {
        !self.is_empty() && !self.find_all(text).is_empty()
    }

    /// The raw events whose line, as the panes show it, holds the needle.
    pub fn events_in(&self, conv: &Conversation) -> Vec<usize> {
        (0..conv.events.len())
            .filter(|&i| self.matches(&searchable(conv, i)))
            .collect()
    }

    /// Every match in `text`, as ranges of character (not byte) positions,
    /// left to right and not overlapping.
    pub fn find_all(&self, text: &str) -> Vec<Range<usize>> {
        let n = self.chars.len();
        if n == 0 {
            return Vec::new();
        }
        let hay = self.haystack(text);
        let mut out = Vec::new();
        let mut i = 0;
        while i + n <= hay.len() {
            if hay[i..i + n] == self.chars[..] {
                out.push(i..i + n);
                i += n;
            } else {
                i += 1;
            }
        }
        out
    }
}

/// Everything an event's line shows: its kind, a tool call's name, and its
/// text decoded (a call's arguments, a result's content), or its decoded
/// JSON for an event without text (a config delta, a compaction).
pub fn searchable(conv: &Conversation, i: usize) -> String {
    let text = conv.text(i);
    let body = if text.is_empty() {
        conv.plain(i).to_string()
    } else {
        text
    };
    let kind = &conv.events[i].kind;
    match kind {
        Kind::ToolCallRequest { name, .. } => format!("{} {name} {body}", kind.label()),
        _ => format!("{} {body}", kind.label()),
    }
}

/// The text of an event's JSON as a reader sees it: every string and
/// number in it, keys left out, and its timestamp, type, id and metadata.
pub fn value_text(v: &serde_json::Value) -> String {
    fn walk(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::String(s) => {
                out.push_str(s);
                out.push(' ');
            }
            serde_json::Value::Number(n) => {
                out.push_str(&n.to_string());
                out.push(' ');
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            serde_json::Value::Object(o) => o
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "timestamp" | "type" | "id" | "metadata"))
                .for_each(|(_, x)| walk(x, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    walk(v, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_case_matches_any_case_and_a_capital_matches_exactly() {
        assert!(Needle::new("parser").matches("The Parser is here"));
        assert!(!Needle::new("Parser").matches("the parser is here"));
        assert!(Needle::new("Parser").matches("The Parser is here"));
        assert!(!Needle::new("").matches("anything"));
    }

    #[test]
    fn places_are_in_characters() {
        let n = Needle::new("ab");
        assert_eq!(n.find_all("é ab AB x"), vec![2..4, 5..7]);
        assert_eq!(Needle::new("aa").find_all("aaaa"), vec![0..2, 2..4]);
    }
}
