//! Inline code in a text of the page: a span between backtick runs of the
//! same length, as Markdown reads it, so `cargo test` is set as code in
//! both renderers rather than shown as literal backticks (or, escaped,
//! as `\``). A run without its closer is text.

/// One piece of a line: text, or the inside of a code span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    Code(&'a str),
}

/// `text` cut into its text and its code spans, in order.
pub fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let run_at = |at: usize| bytes[at..].iter().take_while(|&&b| b == b'`').count();
    let (mut from, mut at) = (0, 0);
    while at < bytes.len() {
        if bytes[at] != b'`' {
            at += 1;
            continue;
        }
        let open = run_at(at);
        // The closer: the next run of exactly the same length.
        let mut k = at + open;
        let mut close = None;
        while k < bytes.len() {
            if bytes[k] == b'`' {
                let n = run_at(k);
                if n == open {
                    close = Some(k);
                    break;
                }
                k += n;
            } else {
                k += 1;
            }
        }
        match close {
            Some(c) if c > at + open => {
                if at > from {
                    out.push(Piece::Text(&text[from..at]));
                }
                out.push(Piece::Code(&text[at + open..c]));
                at = c + open;
                from = at;
            }
            _ => at += open,
        }
    }
    if from < text.len() {
        out.push(Piece::Text(&text[from..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_are_found_between_runs_of_one_length() {
        assert_eq!(
            pieces("run `cargo test` now"),
            vec![
                Piece::Text("run "),
                Piece::Code("cargo test"),
                Piece::Text(" now")
            ]
        );
        assert_eq!(
            pieces("a ``x ` y`` b"),
            vec![Piece::Text("a "), Piece::Code("x ` y"), Piece::Text(" b")]
        );
        // Unclosed, or empty: text.
        assert_eq!(pieces("it`s"), vec![Piece::Text("it`s")]);
        assert_eq!(pieces("``"), vec![Piece::Text("``")]);
        assert_eq!(pieces("é`ü`"), vec![Piece::Text("é"), Piece::Code("ü")]);
    }
}
