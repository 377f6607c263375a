//! Every function of the core that cuts a conversation's text, fed text
//! with a multi-byte character at every offset of lines that reach each
//! cut (a ratio, a question's last sentence, a link, a figure, an error).

use crate::core::facts::{asks, calls, prose, scan};

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
        let _ = asks::instructions(text);
        let _ = prose::decisions(text);
        let _ = crate::core::summarize::lines::open_question(text);
        let _ = crate::core::visible::one_line(text, 7);
        let _ = crate::core::redact::redact(text);
        for limit in 0..text.len() + 2 {
            let _ = calls::clip(text, limit);
            let _ = crate::core::cut::clip_words(text, limit);
            let _ = crate::core::summarize::transcript::clip(text, limit);
        }
    });
}
