//! JP's storage encoding: which strings `jp` base64-encodes on disk, and the
//! exact rule it uses to decode them.
//!
//! `jp` encodes (standard alphabet, padded) every string inside `metadata`,
//! every string inside a `tool_call_request`'s `arguments` (recursively) and a
//! `tool_call_response`'s `content`. On read it decodes a string only when it
//! is valid base64 *and* the bytes are UTF-8; anything else is kept verbatim.
//! Old files mix encoded and plain values, so the rule must be mirrored
//! exactly or sizes and text drift from what `jp` sends to the model.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};
use serde_json::Value;
use std::borrow::Cow;

/// Decodes `s` by `jp`'s rule: standard alphabet, canonical padding, UTF-8
/// result; otherwise the string is returned unchanged.
pub fn decode_storage(s: &str) -> Cow<'_, str> {
    match try_decode_standard(s) {
        Some(text) => Cow::Owned(text),
        None => Cow::Borrowed(s),
    }
}

/// The storage rule's decode, or `None` when `jp` would keep the string.
pub fn try_decode_standard(s: &str) -> Option<String> {
    // Cheap rejection before allocating: base64 text is a multiple of 4.
    if !s.len().is_multiple_of(4) {
        return None;
    }
    let mut bytes = vec![0u8; s.len() / 4 * 3];
    let n = decode_quads(s.as_bytes(), &mut bytes)?;
    bytes.truncate(n);
    String::from_utf8(bytes).ok()
}

/// The decoded size of `s` in bytes and characters when `jp`'s rule decodes
/// it (standard base64 of UTF-8), without keeping the decoded text.
pub fn measure_standard(s: &str) -> Option<(u64, u64)> {
    let (mut bytes, mut chars) = (0u64, 0u64);
    for_each_decoded(s, |text| {
        bytes += text.len() as u64;
        chars += text.chars().count() as u64;
    })?;
    Some((bytes, chars))
}

/// Hands `f` the text `s` decodes to by `jp`'s rule, a few kilobytes at a
/// time from a stack buffer (no allocation, and each piece still in the
/// cache for `f`), in order; `None` when the rule keeps `s` as it is — in
/// which case `f` may have been given the start of it already.
pub fn for_each_decoded(s: &str, mut f: impl FnMut(&str)) -> Option<()> {
    // 4 input characters make 3 bytes; keep chunks whole quads.
    const QUADS: usize = 1024;
    if !s.len().is_multiple_of(4) {
        return None;
    }
    let input = s.as_bytes();
    let mut buf = [0u8; QUADS * 3 + 3];
    // Bytes of a UTF-8 sequence cut at a chunk's end, carried over.
    let mut carry = [0u8; 4];
    let mut carried = 0;
    let mut chunks = input.chunks(QUADS * 4).peekable();
    while let Some(chunk) = chunks.next() {
        // Padding ends the text: in a chunk before the last it is a
        // string the base64 crate refuses.
        if chunks.peek().is_some() && chunk.last() == Some(&b'=') {
            return None;
        }
        buf[..carried].copy_from_slice(&carry[..carried]);
        let n = decode_quads(chunk, &mut buf[carried..])?;
        let filled = carried + n;
        match std::str::from_utf8(&buf[..filled]) {
            Ok(text) => {
                carried = 0;
                f(text);
            }
            Err(e) if e.error_len().is_none() => {
                // An incomplete sequence at the end: valid so far.
                let valid = e.valid_up_to();
                f(std::str::from_utf8(&buf[..valid]).ok()?);
                carried = filled - valid;
                carry[..carried].copy_from_slice(&buf[valid..filled]);
            }
            Err(_) => return None,
        }
    }
    (carried == 0).then_some(())
}

/// Decodes whole quads of standard, padded base64 into `out` with SIMD, and
/// with the exact strictness of the `base64` crate's `STANDARD` (which `jp`
/// uses): canonical padding and zero trailing bits.
fn decode_quads(src: &[u8], out: &mut [u8]) -> Option<usize> {
    let n = base64_simd::STANDARD
        .decode(
            src,
            base64_simd::Out::from_slice(&mut out[..src.len() / 4 * 3]),
        )
        .ok()?
        .len();
    // The SIMD decoder does not promise to refuse stray bits after the
    // last byte of a padded quad ("QR==" for "QQ=="): check them by
    // encoding that quad again.
    if src.last() == Some(&b'=') {
        let tail = n.checked_sub(3 - src.iter().rev().take_while(|&&b| b == b'=').count())?;
        let again = STANDARD.encode(&out[tail..n]);
        if again.as_bytes() != &src[src.len() - 4..] {
            return None;
        }
    }
    Some(n)
}

/// Encodes a plain string the way `jp` writes it.
pub fn encode_storage(s: &str) -> String {
    STANDARD.encode(s.as_bytes())
}

/// How a stored string was encoded, for display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredAs {
    /// Standard base64, decoded by `jp`'s rule.
    Base64,
    /// URL-safe base64 (`-`/`_`), which `jp` itself fails to decode: the model
    /// is sent the encoded text, but a person wants to read the content.
    UrlSafeBase64,
    /// Not encoded at all (old files, or bytes that are not UTF-8).
    Plain,
}

/// Decodes for a person to read: `jp`'s rule first, then URL-safe base64.
pub fn decode_for_display(s: &str) -> (Cow<'_, str>, StoredAs) {
    if let Some(text) = try_decode_standard(s) {
        return (Cow::Owned(text), StoredAs::Base64);
    }
    if s.bytes().any(|b| b == b'-' || b == b'_') {
        let decoded = URL_SAFE
            .decode(s)
            .or_else(|_| URL_SAFE_NO_PAD.decode(s))
            .ok()
            .and_then(|b| String::from_utf8(b).ok());
        if let Some(text) = decoded {
            return (Cow::Owned(text), StoredAs::UrlSafeBase64);
        }
    }
    (Cow::Borrowed(s), StoredAs::Plain)
}

/// Decodes every string of a JSON value, recursively, by the storage rule.
pub fn decode_value(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Some(text) = try_decode_standard(s) {
                *s = text;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(decode_value),
        Value::Object(map) => map.values_mut().for_each(decode_value),
        _ => {}
    }
}

/// Encodes every string of a JSON value, recursively, as `jp` writes it.
pub fn encode_value(value: &mut Value) {
    match value {
        Value::String(s) => *s = encode_storage(s),
        Value::Array(items) => items.iter_mut().for_each(encode_value),
        Value::Object(map) => map.values_mut().for_each(encode_value),
        _ => {}
    }
}

/// Removes the storage encoding from an event object in place: the plain-text
/// form `jp` holds in memory after loading.
pub fn decode_event(event: &mut Value) {
    map_storage_fields(event, decode_value, |s| {
        if let Some(text) = try_decode_standard(s) {
            *s = text;
        }
    });
}

/// Applies the storage encoding to a plain event object in place.
pub fn encode_event(event: &mut Value) {
    map_storage_fields(event, encode_value, |s| *s = encode_storage(s));
}

/// How `jp` stores a field of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// Every string inside, recursively (a tool call's `arguments`, a
    /// conversation event's `metadata`).
    Tree,
    /// The string itself (a tool result's `content`).
    String,
}

/// Whether and how `jp` encodes `field` of an event of type `kind`.
pub fn stored_as(kind: &str, field: &str) -> Option<Stored> {
    match (kind, field) {
        ("tool_call_request", "arguments") => Some(Stored::Tree),
        ("tool_call_response", "content") => Some(Stored::String),
        (_, "metadata") if is_conversation_event(kind) => Some(Stored::Tree),
        _ => None,
    }
}

/// Calls `tree` or `string` on each field `jp` encodes, as [`stored_as`]
/// says.
fn map_storage_fields(event: &mut Value, tree: impl Fn(&mut Value), string: impl Fn(&mut String)) {
    let Some(obj) = event.as_object_mut() else {
        return;
    };
    let kind = obj
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    for (field, value) in obj.iter_mut() {
        match (stored_as(&kind, field), value) {
            (Some(Stored::Tree), v) => tree(v),
            (Some(Stored::String), Value::String(s)) => string(s),
            _ => {}
        }
    }
}

/// The event types `jp` models as conversation events (the ones whose
/// `metadata` it encodes and that make up turns).
pub fn is_conversation_event(kind: &str) -> bool {
    matches!(
        kind,
        "turn_start"
            | "chat_request"
            | "chat_response"
            | "tool_call_request"
            | "tool_call_response"
            | "inquiry_request"
            | "inquiry_response"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn padding_inside_the_text_is_refused_at_a_chunk_boundary_too() {
        // 4,096 characters end the first chunk the decoder reads at a time;
        // padding there is inside the text, which the base64 crate refuses.
        let mut s = "QUFB".repeat(1023);
        s.push_str("QQ==");
        s.push_str("QUFB");
        assert!(STANDARD.decode(&s).is_err());
        assert_eq!(try_decode_standard(&s), None);
        assert_eq!(measure_standard(&s), None);
        // Where it ends the text, it is fine.
        let ok = format!("{}QQ==", "QUFB".repeat(1024));
        assert_eq!(measure_standard(&ok), Some((3073, 3073)));
        let mut pieces = String::new();
        for_each_decoded(&ok, |t| pieces.push_str(t)).unwrap();
        assert_eq!(Some(pieces), try_decode_standard(&ok));
    }

    #[test]
    fn decodes_standard_base64_of_utf8() {
        assert_eq!(decode_storage("aGVsbG8gd29ybGQ="), "hello world");
    }

    #[test]
    fn keeps_strings_that_are_not_base64() {
        assert_eq!(decode_storage("hello world"), "hello world");
        // Valid alphabet but wrong length.
        assert_eq!(decode_storage("abc"), "abc");
        // Missing padding is not canonical standard base64.
        assert_eq!(decode_storage("aGk"), "aGk");
    }

    #[test]
    fn keeps_base64_whose_bytes_are_not_utf8() {
        // "/w==" is the single byte 0xFF.
        assert_eq!(decode_storage("/w=="), "/w==");
    }

    #[test]
    fn plain_word_that_happens_to_be_base64_is_decoded_like_jp_does() {
        // "test" is valid base64 but decodes to non-UTF-8 bytes: kept.
        assert_eq!(decode_storage("test"), "test");
        // "YWJj" decodes to "abc": jp would decode it, so do we.
        assert_eq!(decode_storage("YWJj"), "abc");
    }

    #[test]
    fn measuring_matches_decoding() {
        let texts = [
            String::new(),
            "hello".to_string(),
            "é".repeat(5000),
            "日本語のテキスト ".repeat(700),
            "a🎉b".repeat(2000),
        ];
        for t in texts {
            let encoded = encode_storage(&t);
            assert_eq!(
                measure_standard(&encoded),
                Some((t.len() as u64, t.chars().count() as u64)),
                "{}",
                t.len()
            );
        }
        // Not base64, not UTF-8 underneath, or not canonical: None.
        assert_eq!(measure_standard("hello world!"), None);
        assert_eq!(measure_standard("/w=="), None);
        assert_eq!(measure_standard("aGk"), None);
        let bad = STANDARD.encode(
            [b'a'; 5000]
                .iter()
                .chain(&[0xff])
                .copied()
                .collect::<Vec<u8>>(),
        );
        assert_eq!(measure_standard(&bad), None);
    }

    proptest::proptest! {
        #[test]
        fn measuring_agrees_with_the_base64_crate(
            s in "[A-Za-z0-9+/=é_ -]{0,40}",
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..3000),
            flip in 0usize..4000,
        ) {
            let expected = |s: &str| {
                STANDARD.decode(s).ok().and_then(|b| String::from_utf8(b).ok())
                    .map(|t| (t.len() as u64, t.chars().count() as u64))
            };
            proptest::prop_assert_eq!(measure_standard(&s), expected(&s));
            // Valid encodings, and the same with one character changed.
            let enc = STANDARD.encode(&bytes);
            proptest::prop_assert_eq!(measure_standard(&enc), expected(&enc));
            if !enc.is_empty() {
                let mut b = enc.clone().into_bytes();
                let i = flip % b.len();
                b[i] = b"AQR/+=_z"[flip % 8];
                let changed = String::from_utf8(b).unwrap();
                proptest::prop_assert_eq!(measure_standard(&changed), expected(&changed));
            }
        }
    }

    #[test]
    fn non_canonical_trailing_bits_are_refused() {
        assert_eq!(measure_standard("QQ=="), Some((1, 1)));
        assert_eq!(measure_standard("QR=="), None);
        assert_eq!(measure_standard("QUI="), Some((2, 2)));
        assert_eq!(measure_standard("QUJ="), None);
        assert_eq!(measure_standard("Q==="), None);
        assert_eq!(measure_standard("===="), None);
    }

    #[test]
    fn url_safe_is_decoded_for_display_only() {
        let encoded = URL_SAFE.encode("a?b>c~~~".as_bytes());
        assert!(encoded.contains('_') || encoded.contains('-'), "{encoded}");
        assert_eq!(decode_storage(&encoded), encoded.as_str());
        let (text, how) = decode_for_display(&encoded);
        assert_eq!(text, "a?b>c~~~");
        assert_eq!(how, StoredAs::UrlSafeBase64);
    }

    #[test]
    fn event_round_trip_matches_jp() {
        let plain = json!({
            "timestamp": "2026-01-01 00:00:00.0",
            "type": "tool_call_request",
            "id": "c1",
            "name": "fs_read_file",
            "arguments": {"path": "src/lib.rs", "n": 3, "list": ["a", {"b": "c"}]},
            "metadata": {"sig": "xyz"}
        });
        let mut encoded = plain.clone();
        encode_event(&mut encoded);
        assert_eq!(encoded["arguments"]["path"], "c3JjL2xpYi5ycw==");
        assert_eq!(encoded["arguments"]["n"], 3);
        assert_eq!(encoded["arguments"]["list"][1]["b"], "Yw==");
        assert_eq!(encoded["metadata"]["sig"], "eHl6");
        assert_eq!(encoded["id"], "c1");
        decode_event(&mut encoded);
        assert_eq!(encoded, plain);
    }

    #[test]
    fn unknown_events_are_not_touched() {
        let mut v = json!({"type": "future", "metadata": {"a": "YWJj"}});
        let before = v.clone();
        decode_event(&mut v);
        assert_eq!(v, before);
    }
}
