//! A message's sentences as a reader reads them: soft-wrapped lines joined
//! again (jp users wrap their prompts), pasted context left out (code,
//! block quotes, tables, logs), list items and headings each a sentence.
//!
//! Of the user's, every sentence is a directive or a request a reviewer
//! would note (the user steers with each), up to [`PER_MESSAGE`]. Of the
//! assistant's, the conclusions and choices later work rests on: a
//! diagnosis, a verdict, a recommendation, a chosen approach; narration of
//! what it does next ("Now let's run the tests:") is not one.

/// The most sentences one message gives: a requirements list is long, a
/// pasted document longer.
pub const PER_MESSAGE: usize = 40;

/// The longest sentence taken for one.
const SENTENCE_LIMIT: usize = 600;

/// The logical lines of `text` outside pasted context: consecutive lines
/// of a paragraph joined with a space; a list item, a heading or a blank
/// line starts a new one.
pub fn paragraphs(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    let mut fence: Option<&str> = None;
    for raw in text.lines() {
        let line = raw.trim();
        if let Some(f) = fence {
            if line.starts_with(f) {
                fence = None;
            }
            open = false;
            continue;
        }
        if line.starts_with("```") || line.starts_with("~~~") {
            fence = Some(&line[..3]);
            open = false;
            continue;
        }
        let pasted = line.starts_with('>')
            || line.starts_with('|')
            || line.starts_with('{')
            || line.starts_with("$ ")
            || raw.starts_with('\t')
            || (raw.starts_with("    ") && !open && !starts_item(line));
        if line.is_empty() || pasted {
            open = false;
            continue;
        }
        let heading = line.starts_with('#');
        if open && !starts_item(line) && !heading {
            let last = out.last_mut().expect("an open paragraph");
            last.push(' ');
            last.push_str(line);
        } else {
            out.push(strip_marker(line).to_string());
        }
        // A heading is a line of its own.
        open = !heading;
    }
    out
}

/// `text` without its fenced code blocks.
pub fn outside_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let t = line.trim();
        match fence {
            Some(f) if t.starts_with(f) => fence = None,
            Some(_) => {}
            None if t.starts_with("```") || t.starts_with("~~~") => fence = Some(&t[..3]),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

fn starts_item(line: &str) -> bool {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    line.starts_with("- ")
        || line.starts_with("* ")
        || line.starts_with("+ ")
        || (digits > 0 && (line[digits..].starts_with(". ") || line[digits..].starts_with(") ")))
}

fn strip_marker(line: &str) -> &str {
    let l = line.trim_start_matches('#').trim_start();
    let l = l
        .strip_prefix("- ")
        .or_else(|| l.strip_prefix("* "))
        .or_else(|| l.strip_prefix("+ "))
        .unwrap_or(l);
    let digits = l.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && (l[digits..].starts_with(". ") || l[digits..].starts_with(") ")) {
        return l[digits + 2..].trim_start();
    }
    l
}

/// The sentences of `text` outside pasted context, each of at least
/// `min_words` words.
pub fn sentences_of(text: &str, min_words: usize) -> Vec<String> {
    let mut out = Vec::new();
    for p in paragraphs(text) {
        let mut start = 0;
        let chars: Vec<(usize, char)> = p.char_indices().collect();
        for (k, &(at, c)) in chars.iter().enumerate() {
            let next_space = chars.get(k + 1).is_none_or(|(_, n)| n.is_whitespace());
            if matches!(c, '.' | '!' | '?') && next_space && !abbreviation(&p[start..at]) {
                out.push(p[start..at + c.len_utf8()].trim().to_string());
                start = at + c.len_utf8();
            }
        }
        out.push(p[start..].trim().to_string());
    }
    // Longer than any directive or verdict: a run-on of pasted text.
    out.retain(|s| {
        s.split_whitespace().count() >= min_words && s.len() <= SENTENCE_LIMIT && !bare_link(s)
    });
    out
}

/// `e.g`, `i.e`, `etc` and the like end no sentence.
fn abbreviation(before: &str) -> bool {
    let last = before.rsplit(char::is_whitespace).next().unwrap_or("");
    matches!(
        last.to_ascii_lowercase().as_str(),
        "e.g" | "i.e" | "etc" | "vs" | "cf"
    )
}

fn bare_link(s: &str) -> bool {
    s.split_whitespace().count() == 1 && s.contains("://")
}

/// The user's directives and requests of a message: not the line that
/// introduces what is pasted after it ("Here is the diff:"), nor pasted
/// code or commands outside a fence.
pub fn instructions(text: &str) -> Vec<String> {
    // Four words at least: "Ok, good catch." steers nothing.
    let mut out: Vec<String> = sentences_of(text, 4)
        .into_iter()
        .filter(|s| !s.trim_end().ends_with(':') && !code_like(s))
        .collect();
    out.truncate(PER_MESSAGE);
    out
}

/// Code or a command line rather than prose: it opens as code does, or
/// one character in twelve is code punctuation.
fn code_like(s: &str) -> bool {
    const OPENERS: [&str; 14] = [
        "import ", "export ", "const ", "let ", "fn ", "//", "npm ", "npx ", "yarn ", "pnpm ",
        "bun ", "deno ", "pip ", "<",
    ];
    let t = s.trim_start();
    let punctuation = t
        .chars()
        .filter(|c| {
            matches!(
                c,
                '{' | '}' | '(' | ')' | '[' | ']' | '=' | ';' | '<' | '>' | '$' | '|' | '\\'
            )
        })
        .count();
    OPENERS.iter().any(|o| t.starts_with(o)) || punctuation * 12 > t.chars().count()
}

/// Words that make an assistant's sentence a conclusion or a choice.
const DECISION_MARKS: [&str; 35] = [
    "i'll make",
    "i'll use",
    "i'll keep",
    "we'll use",
    "i decided",
    "decided to",
    "instead of",
    "rather than",
    "the fix is",
    "the fix belongs",
    "belongs in",
    "root cause",
    "the cause is",
    "the bug is",
    "the issue is",
    "the problem is",
    "the failure is",
    "is wrong",
    "are wrong",
    "i chose",
    "going with",
    "recommend",
    "i'd suggest",
    "i suggest",
    "the cleanest",
    "the simplest",
    "the riskiest",
    "the only safe",
    "settling on",
    "this means",
    "that means",
    "not worth",
    "red herring",
    "turns out",
    "is the default",
];

/// What the assistant concluded or chose, in a message.
pub fn decisions(text: &str) -> Vec<String> {
    let mut out: Vec<String> = sentences_of(text, 4)
        .into_iter()
        .filter(|s| marked(s, &DECISION_MARKS) && !narration(s))
        .collect();
    out.truncate(PER_MESSAGE);
    out
}

/// What the assistant says it does next, not what it concluded.
fn narration(s: &str) -> bool {
    let l = s.to_lowercase();
    s.trim_end().ends_with(':')
        || [
            "now let's",
            "let me ",
            "let's ",
            "now i'll",
            "i'll now",
            "next, i'll",
        ]
        .iter()
        .any(|p| l.starts_with(p))
}

/// Whether `sentence` holds one of `marks`, each starting a word.
pub fn marked(sentence: &str, marks: &[&str]) -> bool {
    let s = format!("{} ", sentence.to_lowercase().replace('’', "'"));
    marks.iter().any(|m| {
        s.match_indices(m)
            .any(|(at, _)| at == 0 || !s[..at].chars().last().is_some_and(char::is_alphanumeric))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_lines_are_one_sentence_and_pasted_text_is_none() {
        let text = "So why don't we look into creating a `crates/contrib/grizzly` or something that\n\
                    is a completely separate crate?\n\n\
                    ```sh\n$ cargo build\nerror: not mine\n```\n\
                    > quoted from the issue, not the user's\n\
                    | a | table |\n\
                    - Remove the old flag\n- KEEP prefill as it is\n\
                    # Make the index mobile friendly\n\
                    I want the tests green before we merge. Also, e.g. a doc.";
        assert_eq!(
            instructions(text),
            [
                "So why don't we look into creating a `crates/contrib/grizzly` or something that \
                 is a completely separate crate?",
                "Remove the old flag",
                "KEEP prefill as it is",
                "Make the index mobile friendly",
                "I want the tests green before we merge.",
                "Also, e.g. a doc.",
            ]
        );
    }

    #[test]
    fn conclusions_not_narration() {
        let text = "Now let's run the tests:\nI'll cover them in order.\n\
                    The fix belongs in `Workspace::load()`. I'd recommend **C** for the cache. \
                    Root cause: the guard rejects a missing directory.";
        assert_eq!(
            decisions(text),
            [
                "The fix belongs in `Workspace::load()`.",
                "I'd recommend **C** for the cache.",
                "Root cause: the guard rejects a missing directory.",
            ]
        );
    }
}
