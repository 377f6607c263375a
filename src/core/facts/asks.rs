//! What the user asks of the model, in a message: directives, requests
//! for an action or a way, the entries of a list of requirements, and a
//! bare "yes" to what the model offered. Context and musing ask nothing.

use super::prose::{
    Block, PER_MESSAGE, SENTENCE_LIMIT, bare_link, blocks, ends_with, paragraphs, split_sentences,
};

/// The user's directives and requests of a message: what it asks the
/// model to do or to keep to. A sentence that directs (an imperative,
/// "please", "must", "don't", "let's", "I want", …), a question that asks
/// for an action or a way ("Can you add X?", "How would I update it?"),
/// and each entry of a list of requirements. Context ("A recent change
/// made …"), musing ("Does that make sense?") and the assistant's words
/// quoted back are no instruction; nor the line that introduces what is
/// pasted after it ("Here is the diff:"), nor code outside a fence.
pub fn instructions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for Block { text: p, item } in blocks(text) {
        for s in split_sentences(&p) {
            // Four words at least: "Ok, good catch." steers nothing.
            // A line that introduces what is pasted after it asks nothing,
            // unless it asks in so many words ("…, please investigate:").
            let introduces = s.trim_end().ends_with(':') && !s.to_lowercase().contains("please ");
            if s.split_whitespace().count() < 4
                || s.len() > SENTENCE_LIMIT
                || bare_link(s)
                || introduces
                || code_like(s)
            {
                continue;
            }
            if asks(s, item) {
                out.push(s.to_string());
            }
        }
    }
    out.truncate(PER_MESSAGE);
    out
}

/// Whether a whole message of the user's only says yes to what the model
/// offered ("yes", "go ahead", "sure, do it"): then the offer is what the
/// user asked for.
pub fn approves(text: &str) -> bool {
    const YES: [&str; 22] = [
        "yes", "yep", "yeah", "yup", "sure", "ok", "okay", "please", "go", "ahead", "do", "it",
        "proceed", "sounds", "good", "great", "lgtm", "agreed", "that", "works", "y", "let's",
    ];
    let l = text.trim().to_lowercase().replace('’', "'");
    let words: Vec<&str> = l
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '.' | '!'))
        .filter(|w| !w.is_empty())
        .collect();
    !words.is_empty()
        && words.len() <= 5
        && matches!(
            words[0],
            "yes"
                | "yep"
                | "yeah"
                | "yup"
                | "sure"
                | "ok"
                | "okay"
                | "go"
                | "proceed"
                | "lgtm"
                | "please"
                | "sounds"
                | "do"
                | "agreed"
                | "y"
        )
        && words.iter().all(|w| YES.contains(w))
}

/// The question a message of the model's ends on ("Want me to write the
/// fix?"), the offer a bare "yes" accepts.
pub fn closing_question(text: &str) -> Option<String> {
    let last = paragraphs(text).pop()?;
    let s = split_sentences(&last).pop()?;
    ends_with(s, '?').then(|| s.trim_matches(['*', '_', ' ']).to_string())
}

/// Whether a sentence of the user's asks something of the model.
fn asks(s: &str, item: bool) -> bool {
    let t = s.trim();
    // A heading of the assistant's quoted back (`**How is it set?**`).
    if t.starts_with("**") && t.ends_with("**") {
        return false;
    }
    // An entry of a list the user gives is a requirement, unless it is a
    // link of a list of them.
    if item {
        return !t.starts_with("http") && !t.starts_with('[');
    }
    let l = format!(" {} ", t.to_lowercase().replace('’', "'"));
    if ends_with(t, '?') {
        return REQUESTS.iter().any(|r| l.contains(r));
    }
    // "For the docs site: give me …" bids after its lead-in.
    let after_lead_in = l.split_once(": ").map(|(_, rest)| format!(" {rest}"));
    DIRECTIVES.iter().any(|d| l.contains(d))
        || imperative(&l)
        || after_lead_in.is_some_and(|rest| imperative(&rest))
}

/// What makes a question a request for an action or a way to do one.
const REQUESTS: [&str; 33] = [
    " we can try ",
    " perhaps we ",
    " maybe we ",
    " can you ",
    " could you ",
    " would you ",
    " will you ",
    " can we ",
    " could we ",
    " should we ",
    " shall we ",
    " should i ",
    " shall i ",
    " why don't we ",
    " why not ",
    " how do i ",
    " how would i ",
    " how can i ",
    " how should i ",
    " how do we ",
    " how would we ",
    " how can we ",
    " how should we ",
    " is there a way ",
    " any reason ",
    " any clue",
    " any idea",
    " what would be next",
    " what is the next",
    " what's the next",
    " please ",
    " let's ",
    " go ahead ",
];

/// The words of a directive, a constraint or a choice the user makes.
const DIRECTIVES: [&str; 44] = [
    " please ",
    " i want ",
    " i'd like ",
    " i would like ",
    " i need ",
    " we need ",
    " need to ",
    " must ",
    " should ",
    " shouldn't ",
    " don't ",
    " do not ",
    " dont ",
    " never ",
    " always ",
    " make sure ",
    " ensure ",
    " avoid ",
    " let's ",
    " let us ",
    " go ahead ",
    " i can't ",
    " i cant ",
    " we'll ",
    " we will ",
    " will become ",
    " instead ",
    " rather than ",
    " prefer ",
    " we can try ",
    " perhaps we ",
    " maybe we ",
    " we could ",
    " i'd rather ",
    " no need ",
    " has to ",
    " have to ",
    " needs to ",
    " not allowed ",
    " required ",
    " my idea ",
    " the idea is ",
    " the plan is ",
    " stop ",
];

/// Whether a sentence opens with a verb that bids (`run`, `fix`, `add`),
/// after a word that leads in (`so`, `now`, `yes,`).
fn imperative(l: &str) -> bool {
    const LEAD: [&str; 23] = [
        "so", "and", "then", "now", "also", "ok", "okay", "yes", "alright", "just", "first",
        "finally", "sounds", "good", "great", "perfect", "thanks", "right", "sure", "yep", "yeah",
        "cool", "nice",
    ];
    let mut words = l
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '#' | '*' | '_' | '`'))
        .filter(|w| !w.is_empty());
    let mut w = words.next();
    while w.is_some_and(|x| LEAD.contains(&x)) {
        w = words.next();
    }
    w.is_some_and(|x| BIDDING.contains(&x))
}

/// Verbs an instruction opens with.
const BIDDING: [&str; 74] = [
    "run",
    "make",
    "create",
    "add",
    "remove",
    "delete",
    "drop",
    "fix",
    "update",
    "upgrade",
    "change",
    "write",
    "implement",
    "use",
    "go",
    "try",
    "check",
    "investigate",
    "review",
    "look",
    "read",
    "show",
    "list",
    "explain",
    "tell",
    "give",
    "find",
    "stage",
    "commit",
    "push",
    "rename",
    "move",
    "split",
    "merge",
    "keep",
    "stop",
    "start",
    "continue",
    "refactor",
    "test",
    "build",
    "install",
    "set",
    "replace",
    "ensure",
    "avoid",
    "do",
    "don't",
    "never",
    "always",
    "please",
    "plan",
    "draft",
    "document",
    "describe",
    "summarize",
    "compare",
    "consider",
    "include",
    "exclude",
    "skip",
    "ignore",
    "port",
    "convert",
    "migrate",
    "clean",
    "format",
    "verify",
    "confirm",
    "revert",
    "apply",
    "open",
    "expose",
    "support",
];

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_yes_accepts_the_offer_the_model_ended_on() {
        for yes in [
            "yes",
            "Yes, go ahead.",
            "sure, do it",
            "ok",
            "LGTM!",
            "yes please",
        ] {
            assert!(approves(yes), "{yes}");
        }
        for no in [
            "no",
            "yes, but use the other crate",
            "Do the tests pass?",
            "",
        ] {
            assert!(!approves(no), "{no}");
        }
        let offer = "The fix is small.\n\nWant me to write it (failing test first)?";
        assert_eq!(
            closing_question(offer).as_deref(),
            Some("Want me to write it (failing test first)?")
        );
        assert_eq!(closing_question("Done. All tests pass."), None);
    }

    #[test]
    fn a_request_may_introduce_what_follows_it() {
        let text = "I found two crates, please investigate and report back:\n\n- a\n";
        assert!(instructions(text)[0].starts_with("I found two crates, please"));
        assert!(instructions("Here is the diff of the change:\n").is_empty());
        let go = "Sounds good, go on with the table.";
        assert_eq!(instructions(go), vec![go.to_string()]);
        let lead = "For the docs site: give me the public API as JSON.";
        assert_eq!(instructions(lead), vec![lead.to_string()]);
        let maybe = "Perhaps we can try version 2 and see if nothing breaks?";
        assert_eq!(instructions(maybe), vec![maybe.to_string()]);
    }

    #[test]
    fn wrapped_lines_are_one_sentence_and_pasted_text_is_none() {
        let text = "So why don't we look into creating a `crates/contrib/grizzly` or something that\n\
                    is a completely separate crate?\n\n\
                    ```sh\n$ cargo build\nerror: not mine\n```\n\
                    > quoted from the issue, not the user's\n\
                    | a | table |\n\
                    - Remove the old flag\n- KEEP prefill as it is\n\
                    # Make the index mobile friendly\n\
                    I want the tests green before we merge. Also, please add e.g. a doc.";
        assert_eq!(
            instructions(text),
            [
                "So why don't we look into creating a `crates/contrib/grizzly` or something that \
                 is a completely separate crate?",
                "Remove the old flag",
                "KEEP prefill as it is",
                "Make the index mobile friendly",
                "I want the tests green before we merge.",
                "Also, please add e.g. a doc.",
            ]
        );
    }
}
