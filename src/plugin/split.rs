//! Cutting a command's output into the pieces jp's printer takes: whole
//! JSON documents (one `print` with format `json` each, so a printer that
//! highlights JSON gets a document, never half of one), or whole lines of
//! text. Pure: bytes in, pieces out, the unfinished rest kept.

/// Output cut as it arrives.
#[derive(Debug, Default)]
pub struct Splitter {
    json: bool,
    pending: Vec<u8>,
    /// How far `pending` has been scanned, and the scanner's state there,
    /// so a large document arriving in many reads is scanned once.
    scanned: usize,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// Where the document being cut closed, once it has.
    closed_at: Option<usize>,
}

/// One piece: its text and whether it is a JSON document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub text: String,
    pub json: bool,
}

impl Splitter {
    /// `json`: the command was asked for JSON (`--json`).
    pub fn new(json: bool) -> Splitter {
        Splitter {
            json,
            ..Splitter::default()
        }
    }

    /// Takes `bytes`, returns the pieces they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Piece> {
        self.pending.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(end) = self.next_end() {
            let rest = self.pending.split_off(end);
            let done = std::mem::replace(&mut self.pending, rest);
            let json = self.json && starts_a_document(&done);
            out.push(Piece {
                text: String::from_utf8_lossy(&done).into_owned(),
                json,
            });
        }
        out
    }

    /// What is left when the output ends (a last line without a newline).
    pub fn finish(&mut self) -> Option<Piece> {
        if self.pending.is_empty() {
            return None;
        }
        let done = std::mem::take(&mut self.pending);
        self.reset_scan();
        Some(Piece {
            json: false,
            text: String::from_utf8_lossy(&done).into_owned(),
        })
    }

    /// Where the first complete piece of `pending` ends (after its
    /// newline), if one is complete.
    fn next_end(&mut self) -> Option<usize> {
        let document = self.json && starts_a_document(&self.pending);
        if !document {
            let from = self.scanned;
            return match memchr::memchr(b'\n', &self.pending[from..]) {
                Some(i) => self.end_at(from + i + 1),
                None => {
                    self.scanned = self.pending.len();
                    None
                }
            };
        }
        if self.closed_at.is_none() {
            self.closed_at = self.scan_to_close();
        }
        let closed = self.closed_at?;
        // The document's line ends with it: take its newline too, or wait
        // for it while nothing but white space follows.
        let after = &self.pending[closed..];
        match after
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t' | b'\r'))
        {
            Some(j) if after[j] == b'\n' => self.end_at(closed + j + 1),
            Some(_) => self.end_at(closed),
            None => None,
        }
    }

    /// Scans on from where the last read stopped, for the bracket that
    /// closes the document.
    fn scan_to_close(&mut self) -> Option<usize> {
        for i in self.scanned..self.pending.len() {
            let b = self.pending[i];
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.scanned = i + 1;
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        self.scanned = self.pending.len();
        None
    }

    fn end_at(&mut self, end: usize) -> Option<usize> {
        self.reset_scan();
        Some(end)
    }

    fn reset_scan(&mut self) {
        self.scanned = 0;
        self.depth = 0;
        self.in_string = false;
        self.escaped = false;
        self.closed_at = None;
    }
}

/// Whether `bytes` start (after white space) a JSON object or array.
fn starts_a_document(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| matches!(b, b'{' | b'['))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(pieces: &[Piece]) -> Vec<(&str, bool)> {
        pieces.iter().map(|p| (p.text.as_str(), p.json)).collect()
    }

    #[test]
    fn text_is_cut_into_whole_lines() {
        let mut s = Splitter::new(false);
        assert!(s.push(b"one\ntw").len() == 1);
        assert_eq!(texts(&s.push(b"o\nthree")), [("two\n", false)]);
        assert_eq!(s.finish().unwrap().text, "three");
        assert_eq!(s.finish(), None);
    }

    #[test]
    fn a_pretty_document_is_one_piece_however_it_arrives() {
        let doc = "{\n  \"a\": \"}\\\" [\",\n  \"b\": [1, {\"c\": 2}]\n}\n";
        let next = "{\"event\": \"watching\"}\n";
        let all = format!("{doc}{next}");
        for chunk in 1..all.len() {
            let mut s = Splitter::new(true);
            let mut got = Vec::new();
            for part in all.as_bytes().chunks(chunk) {
                got.extend(s.push(part));
            }
            assert_eq!(
                texts(&got),
                [(doc, true), (next, true)],
                "chunks of {chunk}"
            );
            assert_eq!(s.finish(), None);
        }
    }

    #[test]
    fn text_among_json_stays_text() {
        let mut s = Splitter::new(true);
        let got = s.push(b"not json\n[1, 2]\n");
        assert_eq!(texts(&got), [("not json\n", false), ("[1, 2]\n", true)]);
    }

    #[test]
    fn an_unfinished_document_comes_out_at_the_end() {
        let mut s = Splitter::new(true);
        assert!(s.push(b"{\"a\": [1,").is_empty());
        let last = s.finish().unwrap();
        assert_eq!(last.text, "{\"a\": [1,");
        assert!(!last.json);
    }
}
