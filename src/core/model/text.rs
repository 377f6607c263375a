//! The text of `events.json` as read. A whole read holds it as one piece;
//! a reload after jp appended shares the pieces already held and adds one
//! for what is new, so a conversation followed live is never held twice.

use crate::core::error::Place;
use crate::core::model::event::Span;
use std::sync::Arc;

#[derive(Debug, Clone, Default)]
pub struct Text {
    /// Each piece with the offset of its first byte in the file. A piece
    /// may hold bytes past the next one's start (the old closing bracket);
    /// those are not part of the text.
    pieces: Vec<(usize, Arc<String>)>,
}

impl Text {
    pub fn whole(text: String) -> Text {
        Text {
            pieces: vec![(0, Arc::new(text))],
        }
    }

    /// This text up to `at`, then `rest` (the file's bytes from `at` on).
    pub fn with_rest(&self, at: usize, rest: String) -> Text {
        let mut pieces: Vec<_> = self
            .pieces
            .iter()
            .filter(|(start, _)| *start < at)
            .cloned()
            .collect();
        pieces.push((at, Arc::new(rest)));
        Text { pieces }
    }

    pub fn len(&self) -> usize {
        self.pieces.last().map_or(0, |(start, p)| start + p.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The part holding offset `at` (its piece cut where the next piece
    /// starts), and where it starts.
    fn part_at(&self, at: usize) -> (usize, &str) {
        let k = self
            .pieces
            .partition_point(|(start, _)| *start <= at)
            .saturating_sub(1);
        (self.pieces[k].0, self.part(k))
    }

    fn part(&self, k: usize) -> &str {
        let (start, p) = &self.pieces[k];
        let end = self
            .pieces
            .get(k + 1)
            .map_or(p.len(), |(next, _)| next - start);
        &p[..end]
    }

    /// The text of `span`, which lies inside one piece (an event always
    /// does: a piece starts after an event's end).
    pub fn slice(&self, span: Span) -> &str {
        let (start, p) = self.part_at(span.start);
        &p[span.start - start..span.end - start]
    }

    /// Whether this text was made from `before` by [`Text::with_rest`]
    /// (at some remove) past `upto`: it holds the very pieces `before`
    /// holds up to there, so what lies there is the same without a compare.
    pub fn extends(&self, before: &Text, upto: usize) -> bool {
        before
            .pieces
            .iter()
            .take_while(|(start, _)| *start < upto)
            .zip(&self.pieces)
            .all(|((a, p), (b, q))| a == b && Arc::ptr_eq(p, q))
            && before
                .pieces
                .first()
                .is_some_and(|(start, _)| *start < upto)
    }

    /// The text as consecutive parts.
    pub fn parts(&self) -> impl Iterator<Item = &str> {
        (0..self.pieces.len()).map(|k| self.part(k))
    }

    /// Whether this text holds `bytes` at offset `at`.
    pub fn matches_at(&self, at: usize, bytes: &[u8]) -> bool {
        let mut done = 0;
        while done < bytes.len() {
            let (start, p) = self.part_at(at + done);
            let from = at + done - start;
            let Some(have) = p.as_bytes().get(from..) else {
                return false;
            };
            let n = have.len().min(bytes.len() - done);
            // A reload's pieces are the same memory: nothing to compare.
            let same = std::ptr::eq(have.as_ptr(), bytes[done..].as_ptr());
            if n == 0 || !same && have[..n] != bytes[done..done + n] {
                return false;
            }
            done += n;
        }
        true
    }
}

impl Text {
    /// The line and column of byte `offset`, as [`Place::of_offset`] gives
    /// them in the whole text.
    pub fn place_of(&self, offset: usize) -> Place {
        let (mut line, mut column) = (1, 1);
        let mut at = 0;
        for part in self.parts() {
            let upto = &part[..offset.saturating_sub(at).min(part.len())];
            match upto.rfind('\n') {
                Some(nl) => {
                    line += upto.matches('\n').count();
                    column = upto[nl + 1..].chars().count() + 1;
                }
                None => column += upto.chars().count(),
            }
            at += part.len();
            if at >= offset {
                break;
            }
        }
        Place { line, column }
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        if self.len() != other.len() {
            return false;
        }
        let mut at = 0;
        for part in self.parts() {
            if !other.matches_at(at, part.as_bytes()) {
                return false;
            }
            at += part.len();
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_with_a_rest_reads_as_the_whole_file_would() {
        let first = Text::whole("[\n  {\"a\": 1}\n]\n".to_string());
        // What jp wrote next: the same start, the closing bracket moved on.
        let file = "[\n  {\"a\": 1},\n  {\"b\": 22}\n]\n";
        let held = 12;
        assert_eq!(&file[..held], "[\n  {\"a\": 1}");
        let next = first.with_rest(held, file[held..].to_string());
        assert_eq!(next.len(), file.len());
        assert_eq!(next.parts().collect::<String>(), file);
        assert_eq!(next, Text::whole(file.to_string()));
        // Shared pieces are equal without a compare.
        assert_eq!(next, next.clone());
        assert!(next.extends(&first, 12));
        assert!(next.with_rest(20, "x".into()).extends(&first, 12));
        assert!(!Text::whole(file.to_string()).extends(&first, 12));
        assert_ne!(next, first);
        assert_eq!(next.slice(Span { start: 4, end: 12 }), "{\"a\": 1}");
        assert_eq!(next.slice(Span { start: 16, end: 25 }), "{\"b\": 22}");
        assert!(next.matches_at(10, b"1},\n  {\"b"));
        // The old closing bracket, still in the first piece, is not text.
        assert!(!next.matches_at(11, b"}\n]"));
        assert!(!next.matches_at(file.len() - 1, b"\n\n"));
        for at in [0, 3, 11, 12, 13, 14, 17, 25, file.len()] {
            assert_eq!(next.place_of(at), Place::of_offset(file, at), "offset {at}");
        }
    }
}
