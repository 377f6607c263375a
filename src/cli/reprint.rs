//! Writing an event's stored JSON text pretty, straight from the text:
//! byte for byte what serde_json's pretty printer writes for the value the
//! text parses to (with jp's storage encoding taken off the fields jp
//! encodes), without building that value. `show --json` spends its time
//! here on large conversations.

use crate::core::model::encoding::{self, Stored};
use std::borrow::Cow;

/// One indentation step, as serde_json's `PrettyFormatter` writes it.
const INDENT: &[u8] = b"  ";

/// Writes `raw`, a JSON object as stored (already checked when loaded) of
/// type `kind`, at `level` indentation steps; `None` if the text holds
/// something this printer leaves to serde_json (a caller then prints the
/// parsed value).
pub fn event(out: &mut Vec<u8>, raw: &str, kind: &str, level: usize) -> Option<()> {
    let start = out.len();
    let mut p = Printer {
        text: raw,
        src: raw.as_bytes(),
        pos: 0,
        out,
    };
    let done = p
        .skip_ws()
        .and_then(|_| p.value(level, Decode::Event(kind)));
    let whole = done.is_some() && p.skip_ws().is_some() && p.pos == p.src.len();
    if !whole {
        out.truncate(start);
        return None;
    }
    Some(())
}

/// Writes `s` as serde_json writes a string: quoted, with `"`, `\` and the
/// control characters escaped (the short forms where JSON has them).
pub fn escaped(out: &mut Vec<u8>, s: &str) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    escape_body(out, s);
    out.push(b'"');
}

/// [`escaped`] of the text `s` decodes to by jp's storage rule, decoded
/// and written a piece at a time; false, with `out` as it was, when the
/// rule keeps `s`.
fn decoded(out: &mut Vec<u8>, s: &str) -> bool {
    let start = out.len();
    out.reserve(s.len() / 4 * 3 + 2);
    out.push(b'"');
    if encoding::for_each_decoded(s, |text| escape_body(out, text)).is_none() {
        out.truncate(start);
        return false;
    }
    out.push(b'"');
    true
}

/// `s` escaped as in a JSON string, without the quotes.
fn escape_body(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let mut clean = 0;
    let mut i = 0;
    loop {
        i += clean_run(&bytes[i..]);
        if i >= bytes.len() {
            break;
        }
        let b = bytes[i];
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[clean..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 0xf) as usize],
            ]);
        } else {
            out.extend_from_slice(esc);
        }
        i += 1;
        clean = i;
    }
    out.extend_from_slice(&bytes[clean..]);
}

/// How many bytes at the start of `b` need no escaping: sixteen at a time
/// with SSE2 (every x86-64 has it), eight at a time elsewhere, then one by
/// one. Decoded tool output is most of what `show --json` writes, and this
/// is most of writing it.
fn clean_run(b: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86-64 itself: every such CPU has it.
    let mut i = unsafe { clean_run_sse2(b) };
    #[cfg(not(target_arch = "x86_64"))]
    let mut i = 0;
    while i + 8 <= b.len() {
        let w = u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        let m = escape_mask(w);
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && !matches!(b[i], b'"' | b'\\' | 0..=0x1f) {
        i += 1;
    }
    i
}

/// [`clean_run`] sixteen bytes at a time, up to the first that needs
/// escaping or the last whole sixteen.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn clean_run_sse2(b: &[u8]) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    let quote = _mm_set1_epi8(b'"' as i8);
    let backslash = _mm_set1_epi8(b'\\' as i8);
    let control = _mm_set1_epi8(0x1f);
    let mut i = 0;
    while i + 16 <= b.len() {
        // SAFETY: the 16 bytes from `i` lie inside `b` (checked just
        // above); an unaligned load has no other requirement.
        let x = unsafe { _mm_loadu_si128(b.as_ptr().add(i).cast::<__m128i>()) };
        // A byte is below 0x20 exactly when min(byte, 0x1f) is itself.
        let hits = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
            _mm_cmpeq_epi8(_mm_min_epu8(x, control), x),
        );
        let mask = _mm_movemask_epi8(hits) as u32;
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    i
}

/// The high bit of each byte of `w` (little-endian) that is `"`, `\` or
/// below 0x20; above the lowest flagged byte a flag may be false (borrows
/// run upwards), so only the lowest is used.
fn escape_mask(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_in = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let below_0x20 = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
    below_0x20 | zero_in(w ^ (ONES * b'"' as u64)) | zero_in(w ^ (ONES * b'\\' as u64))
}

/// What happens to the strings of the value being written.
#[derive(Clone, Copy)]
enum Decode<'k> {
    /// The event object itself: its fields say what to decode.
    Event(&'k str),
    /// Written as stored.
    None,
    /// One string, decoded by jp's rule.
    String,
    /// Every string inside, decoded by jp's rule.
    Tree,
}

struct Printer<'s, 'o> {
    /// The event's text, and the same as bytes.
    text: &'s str,
    src: &'s [u8],
    pos: usize,
    out: &'o mut Vec<u8>,
}

impl<'s> Printer<'s, '_> {
    fn skip_ws(&mut self) -> Option<()> {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.src.get(self.pos) {
            self.pos += 1;
        }
        Some(())
    }

    fn newline(&mut self, level: usize) {
        self.out.push(b'\n');
        for _ in 0..level {
            self.out.extend_from_slice(INDENT);
        }
    }

    fn value(&mut self, level: usize, decode: Decode<'_>) -> Option<()> {
        match *self.src.get(self.pos)? {
            b'{' => self.object(level, decode),
            b'[' => self.array(level, decode),
            b'"' => {
                let literal = self.string_literal()?;
                self.string(literal, decode)
            }
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            _ => self.number(),
        }
    }

    fn word(&mut self, w: &[u8]) -> Option<()> {
        if !self.src[self.pos..].starts_with(w) {
            return None;
        }
        self.pos += w.len();
        self.out.extend_from_slice(w);
        Some(())
    }

    /// An integer in its shortest form is written as it stands; anything
    /// else goes through serde_json's own number, as the value would.
    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = self.src.get(self.pos) {
            self.pos += 1;
        }
        let text = std::str::from_utf8(&self.src[start..self.pos]).ok()?;
        let plain = text.parse::<u64>().is_ok() || text.parse::<i64>().is_ok();
        let canonical = plain
            && !text.starts_with('+')
            && text != "-0"
            && !(text.trim_start_matches('-').starts_with('0')
                && text.trim_start_matches('-').len() > 1);
        if canonical {
            self.out.extend_from_slice(text.as_bytes());
        } else {
            let n: serde_json::Number = serde_json::from_str(text).ok()?;
            serde_json::to_writer(&mut *self.out, &n).ok()?;
        }
        Some(())
    }

    /// The string literal at the cursor, quotes included.
    fn string_literal(&mut self) -> Option<&'s str> {
        let start = self.pos;
        self.pos += 1;
        loop {
            let rest = self.src.get(self.pos..)?;
            let k = memchr::memchr2(b'"', b'\\', rest)?;
            self.pos += k;
            if self.src[self.pos] == b'\\' {
                self.pos += 2;
            } else {
                self.pos += 1;
                break;
            }
        }
        // Both ends are quotes, so char boundaries of text already known to
        // be UTF-8: no second check of what can be megabytes.
        self.text.get(start..self.pos)
    }

    fn string(&mut self, literal: &str, decode: Decode<'_>) -> Option<()> {
        let escapes = literal.contains('\\');
        let decoding = matches!(decode, Decode::String | Decode::Tree);
        if !escapes && !decoding {
            // Nothing to undo, nothing serde_json would escape: as stored.
            self.out.extend_from_slice(literal.as_bytes());
            return Some(());
        }
        let text: Cow<'_, str> = if escapes {
            Cow::Owned(serde_json::from_str::<String>(literal).ok()?)
        } else {
            Cow::Borrowed(&literal[1..literal.len() - 1])
        };
        if decoding && decoded(self.out, &text) {
            return Some(());
        }
        if escapes {
            escaped(self.out, &text);
        } else {
            self.out.extend_from_slice(literal.as_bytes());
        }
        Some(())
    }

    fn object(&mut self, level: usize, decode: Decode<'_>) -> Option<()> {
        self.pos += 1;
        self.skip_ws()?;
        if self.src.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            self.out.extend_from_slice(b"{}");
            return Some(());
        }
        self.out.push(b'{');
        let mut keys: Vec<&'s str> = Vec::new();
        loop {
            self.skip_ws()?;
            let literal = self.string_literal()?;
            // A key twice is one key in a parsed value: leave it to serde.
            if keys.contains(&literal) {
                return None;
            }
            keys.push(literal);
            self.newline(level + 1);
            self.string(literal, Decode::None)?;
            self.out.extend_from_slice(b": ");
            self.skip_ws()?;
            if self.src.get(self.pos) != Some(&b':') {
                return None;
            }
            self.pos += 1;
            self.skip_ws()?;
            let inner = match decode {
                Decode::Tree => Decode::Tree,
                Decode::Event(kind) => field_decode(kind, literal)?,
                _ => Decode::None,
            };
            self.value(level + 1, inner)?;
            if !self.separator(b'}')? {
                break;
            }
        }
        self.newline(level);
        self.out.push(b'}');
        Some(())
    }

    /// After a member: `,` (written; another follows) or `close` (the
    /// end); `None` for anything else.
    fn separator(&mut self, close: u8) -> Option<bool> {
        self.skip_ws()?;
        let b = *self.src.get(self.pos)?;
        self.pos += 1;
        match b {
            b',' => {
                self.out.push(b',');
                Some(true)
            }
            _ if b == close => Some(false),
            _ => None,
        }
    }

    fn array(&mut self, level: usize, decode: Decode<'_>) -> Option<()> {
        self.pos += 1;
        self.skip_ws()?;
        if self.src.get(self.pos) == Some(&b']') {
            self.pos += 1;
            self.out.extend_from_slice(b"[]");
            return Some(());
        }
        self.out.push(b'[');
        let inner = match decode {
            Decode::Tree => Decode::Tree,
            _ => Decode::None,
        };
        loop {
            self.skip_ws()?;
            self.newline(level + 1);
            self.value(level + 1, inner)?;
            if !self.separator(b']')? {
                break;
            }
        }
        self.newline(level);
        self.out.push(b']');
        Some(())
    }
}

/// How the event field `key` (a quoted literal) of an event of type `kind`
/// is decoded, by jp's storage rule; `None` for a key written with escapes
/// (left to serde_json, which reads it the one right way).
fn field_decode<'k>(kind: &str, key: &str) -> Option<Decode<'k>> {
    if key.contains('\\') {
        return None;
    }
    let name = &key[1..key.len() - 1];
    Some(match encoding::stored_as(kind, name) {
        Some(Stored::Tree) => Decode::Tree,
        Some(Stored::String) => Decode::String,
        None => Decode::None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What serde_json writes for the parsed, decoded event, at `level`.
    fn by_serde(raw: &str, level: usize) -> String {
        let mut v: Value = serde_json::from_str(raw).unwrap();
        encoding::decode_event(&mut v);
        let text = serde_json::to_string_pretty(&v).unwrap();
        text.replace('\n', &format!("\n{}", "  ".repeat(level)))
    }

    fn ours(raw: &str, level: usize) -> Option<String> {
        let v: Value = serde_json::from_str(raw).unwrap();
        let kind = v["type"].as_str().unwrap_or_default();
        let mut out = Vec::new();
        event(&mut out, raw, kind, level)?;
        Some(String::from_utf8(out).unwrap())
    }

    #[test]
    fn writes_what_serde_json_writes() {
        let cases = [
            r#"{"type":"chat_request","content":"hi \"you\"\n\u00e9\/","timestamp":"2026-01-01 00:00:00.0"}"#,
            r#"{ "type" : "tool_call_request", "id":"a", "name":"fs", "arguments": {"path":"L3RtcC94","n":[1,"YQ==",{"k":"Yg=="}],"e":{},"l":[]}, "metadata":{"m":"bm90ZQ=="} }"#,
            r#"{"type":"tool_call_response","id":"a","content":"aGVsbG8KIndvcmxkIgk=","is_error":false}"#,
            r#"{"type":"tool_call_response","id":"a","content":"not base64!","is_error":true}"#,
            r#"{"type":"chat_response","message":"ok","n":[1.0,1e5,-0,-12,0,18446744073709551616,2.50]}"#,
            r#"{"type":"config_delta","delta":{"a":{"b":null,"c":true,"d":false}},"metadata":{"m":"bm90ZQ=="}}"#,
            r#"{"type":"chat_request","content":"\u0001\u001f\b\f\t\r tab","x":"\ud83d\ude00"}"#,
        ];
        for raw in cases {
            for level in [0, 3] {
                assert_eq!(
                    ours(raw, level).as_deref(),
                    Some(&*by_serde(raw, level)),
                    "{raw}"
                );
            }
        }
    }

    #[test]
    fn a_key_twice_is_left_to_serde() {
        assert_eq!(ours(r#"{"type":"x","a":1,"a":2}"#, 0), None);
    }

    #[test]
    fn escapes_as_serde_json_does() {
        let mut s = String::new();
        for b in 0u8..=0x7f {
            s.push(b as char);
        }
        s.push_str("é😀 long clean run of text without anything to escape at all");
        for cut in [0, 1, 7, 8, 9, 33, s.len()] {
            let t = &s[..s
                .char_indices()
                .map(|(i, _)| i)
                .find(|&i| i >= cut)
                .unwrap_or(s.len())];
            let mut out = Vec::new();
            escaped(&mut out, t);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(t).unwrap()
            );
        }
    }

    #[test]
    fn every_escape_is_found_at_every_place_of_a_sixteen_byte_step() {
        // Both sides of each 16- and 8-byte step, and past the last one.
        for len in [15, 16, 17, 31, 32, 33, 47] {
            for at in 0..len {
                for c in ['"', '\\', '\n', '\u{1}', '\u{1f}', '\u{7f}', 'é', ' '] {
                    let mut t: String = "a".repeat(len);
                    t.replace_range(at..at + 1, &c.to_string());
                    let mut out = Vec::new();
                    escaped(&mut out, &t);
                    assert_eq!(
                        String::from_utf8(out).unwrap(),
                        serde_json::to_string(&t).unwrap()
                    );
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_string_is_escaped_as_serde_json_escapes_it(t in "(\\PC|[\\x00-\\x1f\"\\\\]){0,80}") {
            let mut out = Vec::new();
            escaped(&mut out, &t);
            proptest::prop_assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&t).unwrap());
        }

        #[test]
        fn any_stored_string_reads_back_as_serde_json_writes_it(t in "(\\PC|[\\x00-\\x1f\"\\\\]){0,40}") {
            #[derive(serde::Serialize)]
            struct Stored<'a> {
                #[serde(rename = "type")]
                kind: &'a str,
                content: &'a str,
                x: [&'a str; 1],
            }
            let raw = serde_json::to_string(&Stored { kind: "tool_call_response", content: &t, x: [&t] }).unwrap();
            proptest::prop_assert_eq!(ours(&raw, 2), Some(by_serde(&raw, 2)));
        }
    }
}
