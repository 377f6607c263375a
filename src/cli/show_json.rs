//! The two `show --json` documents, written by hand in serde_json's pretty
//! layout (`tests/show_output.rs` holds them to it): each event is printed
//! from its stored text rather than parsed into a value first, and the
//! events are rendered a batch at a time on two threads, written in order.

use super::reprint;
use serde_json::Value;
use std::io::Write;

/// An event of a document: its stored text and `type` (written straight
/// from the text), or a value made for the document.
pub enum Event<'a> {
    Stored(&'a str, &'a str),
    Value(Value),
}

/// Stored bytes of events rendered by one thread at a time: large enough
/// that starting a thread is nothing beside it, small enough that the
/// batches in flight stay a few megabytes.
const BATCH_BYTES: usize = 1 << 20;

/// Writes `{ head..., "events": [...] }` and a newline to `out`: item `i`
/// of `len` rendered by `render`, its stored size `weight(i)` deciding the
/// batches.
pub fn write(
    mut out: impl Write,
    head: &[(&str, Value)],
    len: usize,
    weight: impl Fn(usize) -> usize,
    render: impl Fn(&mut Vec<u8>, usize) -> anyhow::Result<()> + Sync,
) -> anyhow::Result<()> {
    let mut buf = Vec::with_capacity(1 << 16);
    buf.push(b'{');
    for (k, (name, v)) in head.iter().enumerate() {
        if k > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(b"\n  ");
        reprint::escaped(&mut buf, name);
        buf.extend_from_slice(b": ");
        pretty(&mut buf, v, 1)?;
    }
    buf.extend_from_slice(if len == 0 {
        b",\n  \"events\": []"
    } else {
        b",\n  \"events\": ["
    });
    out.write_all(&buf)?;
    let batches = batches(len, weight);
    let render_batch = |range: std::ops::Range<usize>, b: &mut Vec<u8>| -> anyhow::Result<()> {
        b.clear();
        for i in range {
            if i > 0 {
                b.push(b',');
            }
            render(b, i)?;
        }
        Ok(())
    };
    // Two buffers for the whole document: a fresh one per batch would be
    // a fresh mapping, every page of it faulted in and zeroed by the kernel
    // (a sixth of the time on 100 MB).
    let (mut first_buf, mut second_buf) = (
        Vec::with_capacity(BATCH_BYTES * 3 / 2),
        Vec::with_capacity(BATCH_BYTES * 3 / 2),
    );
    for pair in batches.chunks(2) {
        let (first, second) = std::thread::scope(|s| {
            let second = pair
                .get(1)
                .cloned()
                .map(|r| s.spawn(|| render_batch(r, &mut second_buf)));
            let first = render_batch(pair[0].clone(), &mut first_buf);
            // A renderer that panicked must not leave a hole in the array.
            let second = second.map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("writing the events failed")))
            });
            (first, second)
        });
        first?;
        out.write_all(&first_buf)?;
        if let Some(second) = second {
            second?;
            out.write_all(&second_buf)?;
        }
    }
    buf.clear();
    if len > 0 {
        buf.extend_from_slice(b"\n  ]");
    }
    buf.extend_from_slice(b"\n}\n");
    out.write_all(&buf)?;
    out.flush()?;
    Ok(())
}

/// `0..len` cut where the stored sizes add up to a batch.
fn batches(len: usize, weight: impl Fn(usize) -> usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut size) = (0, 0);
    for i in 0..len {
        size += weight(i);
        if size >= BATCH_BYTES {
            out.push(start..i + 1);
            (start, size) = (i + 1, 0);
        }
    }
    if start < len {
        out.push(start..len);
    }
    out
}

/// One item of the events array: its numbers (`None` is `null`), the
/// event, its tokens.
pub fn item(
    buf: &mut Vec<u8>,
    numbers: &[(&str, Option<usize>)],
    event: Event<'_>,
    tokens: u64,
) -> anyhow::Result<()> {
    buf.extend_from_slice(b"\n    {");
    for (k, (name, n)) in numbers.iter().enumerate() {
        if k > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(b"\n      \"");
        buf.extend_from_slice(name.as_bytes());
        buf.extend_from_slice(b"\": ");
        match n {
            Some(n) => buf.extend_from_slice(itoa::Buffer::new().format(*n).as_bytes()),
            None => buf.extend_from_slice(b"null"),
        }
    }
    buf.extend_from_slice(b",\n      \"event\": ");
    match event {
        Event::Stored(raw, kind) if reprint::event(buf, raw, kind, 3).is_some() => {}
        Event::Stored(raw, _) => {
            let mut v: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
            crate::core::model::encoding::decode_event(&mut v);
            pretty(buf, &v, 3)?;
        }
        Event::Value(v) => pretty(buf, &v, 3)?,
    }
    buf.extend_from_slice(b",\n      \"tokens\": ");
    // Five numbers an event: formatted on the stack, not allocated.
    buf.extend_from_slice(itoa::Buffer::new().format(tokens).as_bytes());
    buf.extend_from_slice(b"\n    }");
    Ok(())
}

/// `v` as serde_json writes it pretty, indented `level` steps (a string
/// holds no raw newline, so every newline is the layout's).
fn pretty(out: &mut Vec<u8>, v: &Value, level: usize) -> anyhow::Result<()> {
    let text = serde_json::to_vec_pretty(v)?;
    let pad = "  ".repeat(level);
    for (k, line) in text.split(|&b| b == b'\n').enumerate() {
        if k > 0 {
            out.push(b'\n');
            out.extend_from_slice(pad.as_bytes());
        }
        out.extend_from_slice(line);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_cover_every_item_once_in_order() {
        let b = batches(10, |i| if i == 3 { BATCH_BYTES } else { 1000 });
        assert_eq!(b, vec![0..4, 4..10]);
        assert_eq!(batches(0, |_| 1), Vec::<std::ops::Range<usize>>::new());
        let many = batches(5000, |_| 1000);
        assert_eq!(many.first().map(|r| r.start), Some(0));
        assert_eq!(many.last().map(|r| r.end), Some(5000));
        assert!(many.windows(2).all(|w| w[0].end == w[1].start));
    }
}
