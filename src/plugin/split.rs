//! Cutting a command's output into the pieces jp's printer takes: whole
//! JSON documents (one `print` with format `json` each, so a printer that
//! highlights JSON gets a document, never half of one), or whole lines of
//! text. Pure: bytes in, pieces out, the unfinished rest kept.

/// A document longer than this is relayed as it arrives, not held whole:
/// the relay holds a fixed amount of a command's output, however large.
pub const STREAM_OVER: usize = 1 << 20;

/// What the relay does with output as it arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    /// A whole piece: one `print`.
    Whole(Piece),
    /// A long document starts: a `print` is opened…
    Open,
    /// …its text goes on…
    More(String),
    /// …and it is closed.
    Close,
}

/// Output cut as it arrives.
#[derive(Debug, Default)]
pub struct Splitter {
    json: bool,
    /// A long document is being relayed (between `Open` and `Close`).
    streaming: bool,
    /// Documents longer than this are streamed ([`STREAM_OVER`]).
    stream_over: usize,
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
            stream_over: STREAM_OVER,
            ..Splitter::default()
        }
    }

    /// [`Splitter::new`] streaming documents longer than `bytes`.
    pub fn streaming_over(json: bool, bytes: usize) -> Splitter {
        Splitter {
            stream_over: bytes.max(1),
            ..Splitter::new(json)
        }
    }

    /// Takes `bytes`: the pieces they complete, and of a document too long
    /// to hold, what of it has come (its `print` opened, its text, and its
    /// close once it closes). What is held stays within the stream bound.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Out> {
        let mut out = Vec::new();
        if !self.streaming {
            out.extend(self.push(bytes).into_iter().map(Out::Whole));
        } else {
            self.pending.extend_from_slice(bytes);
        }
        loop {
            if self.streaming {
                match self.next_end() {
                    Some(end) => {
                        let rest = self.pending.split_off(end);
                        let done = std::mem::replace(&mut self.pending, rest);
                        out.push(Out::More(String::from_utf8_lossy(&done).into_owned()));
                        out.push(Out::Close);
                        self.streaming = false;
                        out.extend(self.push(&[]).into_iter().map(Out::Whole));
                        continue;
                    }
                    None => {
                        if let Some(text) = self.drain() {
                            out.push(Out::More(text));
                        }
                        return out;
                    }
                }
            }
            let document = self.json && starts_a_document(&self.pending);
            if document && self.pending.len() > self.stream_over {
                self.streaming = true;
                out.push(Out::Open);
                continue;
            }
            return out;
        }
    }

    /// What is left when the output ends: a last piece, or the rest of a
    /// document being streamed and its close.
    pub fn end(&mut self) -> Vec<Out> {
        if self.streaming {
            self.streaming = false;
            let rest = std::mem::take(&mut self.pending);
            self.reset_scan();
            return vec![
                Out::More(String::from_utf8_lossy(&rest).into_owned()),
                Out::Close,
            ];
        }
        self.finish().map(Out::Whole).into_iter().collect()
    }

    /// What of a streamed document has been scanned, up to a character's
    /// boundary; the scan goes on from where it stopped.
    fn drain(&mut self) -> Option<String> {
        let mut cut = self.scanned.min(self.pending.len());
        // A character the read cut in two waits for its other bytes.
        let mut from = cut.saturating_sub(4);
        while from < cut && (self.pending[from] & 0xC0) == 0x80 {
            from += 1;
        }
        if let Err(e) = std::str::from_utf8(&self.pending[from..cut])
            && e.error_len().is_none()
        {
            cut = from + e.valid_up_to();
        }
        if cut == 0 {
            return None;
        }
        let text = String::from_utf8_lossy(&self.pending[..cut]).into_owned();
        self.pending.drain(..cut);
        self.scanned -= cut;
        if let Some(c) = self.closed_at.as_mut() {
            *c -= cut;
        }
        Some(text)
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
        // A streamed document's rest no longer starts with its bracket.
        let document = self.streaming || (self.json && starts_a_document(&self.pending));
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

    /// A long document is relayed as it arrives, the splitter holding no
    /// more than the bound and a read's worth, and comes out whole and
    /// once, however it was read; what follows it is cut as before.
    #[test]
    fn a_long_document_streams_within_the_bound() {
        let long = format!(
            "{{\"rows\": [{}]}}\n",
            (0..5_000)
                .map(|k| format!("{{\"n\": {k}, \"t\": \"é✓ {k} }}]\"}}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let next = "{\"after\": 1}\n";
        let all = format!("{long}{next}");
        for chunk in [1, 7, 4096, 65536] {
            let mut s = Splitter::streaming_over(true, 10_000);
            let mut got = Vec::new();
            for part in all.as_bytes().chunks(chunk) {
                got.extend(s.feed(part));
                assert!(
                    s.pending.len() <= 10_000 + chunk + 8,
                    "held {} at chunks of {chunk}",
                    s.pending.len()
                );
            }
            got.extend(s.end());
            assert_eq!(got.first(), Some(&Out::Open), "chunks of {chunk}");
            let close = got.iter().position(|o| *o == Out::Close).unwrap();
            let text: String = got[1..close]
                .iter()
                .map(|o| match o {
                    Out::More(t) => t.as_str(),
                    other => panic!("{other:?}"),
                })
                .collect();
            assert!(text == long, "chunks of {chunk}: not the document as sent");
            assert_eq!(
                got[close + 1..],
                [Out::Whole(Piece {
                    text: next.into(),
                    json: true
                })]
            );
        }
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
