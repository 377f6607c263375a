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
pub(super) const SENTENCE_LIMIT: usize = 600;

/// The logical lines of `text` outside pasted context: consecutive lines
/// of a paragraph joined with a space; a list item, a heading or a blank
/// line starts a new one.
pub fn paragraphs(text: &str) -> Vec<String> {
    blocks(text).into_iter().map(|b| b.text).collect()
}

/// A logical line of prose, and whether it is an entry of a list.
pub(super) struct Block {
    pub(super) text: String,
    pub(super) item: bool,
}

pub(super) fn blocks(text: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
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
            last.text.push(' ');
            last.text.push_str(line);
        } else {
            out.push(Block {
                text: strip_marker(line).to_string(),
                item: starts_item(line),
            });
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

/// The sentences of one paragraph, trimmed: each ends at a `.`, `!` or
/// `?` followed by a space, except after an abbreviation.
pub(super) fn split_sentences(p: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = p.char_indices().collect();
    for (k, &(at, c)) in chars.iter().enumerate() {
        let next_space = chars.get(k + 1).is_none_or(|(_, n)| n.is_whitespace());
        if matches!(c, '.' | '!' | '?') && next_space && !abbreviation(&p[start..at]) {
            out.push(p[start..at + c.len_utf8()].trim());
            start = at + c.len_utf8();
        }
    }
    out.push(p[start..].trim());
    out.retain(|s| !s.is_empty());
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

pub(super) fn bare_link(s: &str) -> bool {
    s.split_whitespace().count() == 1 && s.contains("://")
}

/// What the assistant concluded or chose, in a message: each point it
/// makes (a paragraph, a list item, a heading) that states something.
/// Narration of what it does next and questions are left out of a point;
/// a point that says what is, isn't, should or will be, or why, is kept
/// whole (a verdict with its reason is one thing to know). A point longer
/// than [`POINT_LIMIT`] gives its stating sentences one by one.
pub fn decisions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for Block { text: p, item } in blocks(text) {
        if item && entry(&p) {
            continue;
        }
        let sentences = split_sentences(&p);
        // "Looking at the lock file, …", "Actually, …": what follows is
        // the model working it out aloud, not what it settled on.
        if sentences.first().is_some_and(|s| exploring(s)) {
            continue;
        }
        let mut kept: Vec<&str> = sentences
            .into_iter()
            .filter(|s| !narration(s) && !ends_with(s, '?'))
            .collect();
        // A lead-in to what follows ("Here is the plan:") says nothing
        // alone; one that states ("The fix is to convert the recursion to
        // iteration:") is the decision the list carries out.
        if kept
            .last()
            .is_some_and(|s| ends_with(s, ':') && !lead_in_states(s))
        {
            kept.pop();
        }
        let point = kept.join(" ");
        if point.chars().count() < POINT_MIN {
            continue;
        }
        if point.chars().count() <= POINT_LIMIT {
            if states(&point) {
                out.push(point);
            }
        } else {
            out.extend(
                kept.into_iter()
                    .filter(|s| {
                        // A run-on without a full stop is pasted text.
                        (POINT_MIN..=POINT_LIMIT).contains(&s.chars().count())
                            && states(s)
                            && (!ends_with(s, ':') || lead_in_states(s))
                    })
                    .map(str::to_string),
            );
        }
    }
    out.truncate(PER_MESSAGE);
    out
}

/// A short list item ("Tiny memory footprint (30MB default)", "Must run
/// locally") is an entry of an enumeration, a feature, a requirement or a
/// step, not a conclusion, unless it labels itself as one
/// ("**Option C**: keep the cache").
fn entry(item: &str) -> bool {
    item.chars().count() < ENTRY_MAX && !item.starts_with("**")
}

/// The length under which a list item is an entry, not a point.
const ENTRY_MAX: usize = 90;

/// Shorter than a clause that could carry a conclusion.
const POINT_MIN: usize = 30;
/// Longer than one point: its sentences are taken one by one.
const POINT_LIMIT: usize = 600;

/// Words of a statement: what is or isn't, should, must or will be, why,
/// and the words of a verdict. A phrase without one ("Title-match display
/// improvement") names a topic and concludes nothing.
const STATING: [&str; 53] = [
    "is",
    "are",
    "was",
    "isn't",
    "aren't",
    "doesn't",
    "don't",
    "didn't",
    "won't",
    "can't",
    "cannot",
    "not",
    "no",
    "never",
    "always",
    "only",
    "instead",
    "rather",
    "since",
    "because",
    "so",
    "means",
    "if",
    "should",
    "must",
    "would",
    "will",
    "belongs",
    "better",
    "best",
    "cleanest",
    "simplest",
    "safest",
    "riskiest",
    "worth",
    "viable",
    "already",
    "still",
    "real",
    "actually",
    "fails",
    "works",
    "caused",
    "causes",
    "cause",
    "root",
    "fix",
    "issue",
    "problem",
    "bug",
    "recommend",
    "verdict",
    "default",
];

/// A lead-in long enough to say what it introduces and why.
fn lead_in_states(s: &str) -> bool {
    s.chars().count() >= 2 * POINT_MIN && states(s)
}

fn states(s: &str) -> bool {
    s.to_lowercase()
        .replace('’', "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| STATING.contains(&w))
}

pub(super) fn ends_with(s: &str, c: char) -> bool {
    s.trim_end_matches(['*', '_', ' ']).ends_with(c)
}

/// A sentence of the model still searching: what it looks at, a second
/// thought, what it must still work out. "Now I see…" or "Now I have the
/// full picture." closes a search, and what follows it concludes.
fn exploring(s: &str) -> bool {
    const OPENERS: [&str; 12] = [
        "looking at",
        "looking back",
        "actually",
        "wait",
        "hmm",
        "checking",
        "i'm ",
        "i need to",
        "now i'm",
        "now i need",
        "ok, i",
        "okay, i",
    ];
    opens_with(s, &OPENERS)
}

/// Whether `s`, its emphasis and case aside, opens with one of `openers`.
fn opens_with(s: &str, openers: &[&str]) -> bool {
    let l = s
        .trim_start_matches(['*', '_', ' '])
        .to_lowercase()
        .replace('’', "'");
    openers.iter().any(|o| l.starts_with(o))
}

/// What the assistant says it does or sees next, not what it concluded.
fn narration(s: &str) -> bool {
    const OPENERS: [&str; 28] = [
        "let me",
        "now ",
        "let's",
        "i'll ",
        "next,",
        "first,",
        "here's",
        "here is",
        "i need",
        "i'm ",
        "okay",
        "ok,",
        "great",
        "perfect",
        "good",
        "done",
        "looks good",
        "wait",
        "hmm",
        "actually,",
        "i will",
        "i think",
        "i see",
        "looking at",
        "checking",
        "all tests",
        "tests pass",
        "all good",
    ];
    // "I'll store precedence as a table" is a choice, not a next step.
    const CHOSEN: [&str; 8] = [
        "i'll use",
        "i'll keep",
        "i'll make",
        "i'll store",
        "i'll go with",
        "i'll follow",
        "i'll stick",
        "i'll support",
    ];
    opens_with(s, &OPENERS) && !opens_with(s, &CHOSEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conclusions_not_narration() {
        let text = "Now let's run the tests:\n\n\
                    I'll cover them in order.\n\n\
                    The fix belongs in `Workspace::load()`. Let me apply it now. \
                    Root cause: the guard rejects a missing directory.\n\n\
                    Does that cover what you saw on the Linux box?\n\n\
                    Title-match display improvement for the preview\n\n\
                    - **Option C**: keep the cache, since a reload costs a second read.\n\n\
                    The fix is to convert the recursion to iteration, collecting paths first:\n\n\
                    ```rust\nlet paths = collect(root);\n```\n\n\
                    Here is the plan for the other two:";
        assert_eq!(
            decisions(text),
            [
                "The fix belongs in `Workspace::load()`. \
                 Root cause: the guard rejects a missing directory.",
                "**Option C**: keep the cache, since a reload costs a second read.",
                "The fix is to convert the recursion to iteration, collecting paths first:",
            ]
        );
    }

    #[test]
    fn entries_and_thinking_aloud_conclude_nothing() {
        let text = "Requirements:\n\n\
                    - Must run locally, fast on a laptop\n\
                    - No preindexing is required at all\n\
                    - **Option B**: keep the index, it is rebuilt only on change\n\
                    - The cache is keyed by the file's hash, so a rename of the file costs nothing at all to rebuild.\n\n\
                    Looking at the lock file, it pins the old version. So the crate needs a rename before it can be published.\n\n\
                    Now I have the full picture. The guard is wrong because it rejects missing folders.";
        assert_eq!(
            decisions(text),
            [
                "**Option B**: keep the index, it is rebuilt only on change",
                "The cache is keyed by the file's hash, so a rename of the file costs nothing at all to rebuild.",
                "The guard is wrong because it rejects missing folders.",
            ]
        );
    }

    #[test]
    fn a_long_point_gives_its_stating_sentences() {
        let stating = "The table is fixed-width, so narrow screens squeeze the title. ";
        let text = format!(
            "{}Title-match display improvement for the preview. {}",
            stating.repeat(6),
            stating.repeat(5)
        );
        assert!(text.len() > POINT_LIMIT);
        let got = decisions(&text);
        assert_eq!(got.len(), 11, "the stating sentences one by one: {got:?}");
        assert!(got.iter().all(|s| s == stating.trim()));
        // Text that never ends a sentence is pasted, not concluded.
        let run_on = "the parser is wrong so we check the length first ".repeat(20);
        assert!(decisions(&run_on).is_empty());
    }
}
