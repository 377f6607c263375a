//! The two `show --json` documents, written by hand in serde_json's pretty
//! layout (`src/core/tests/show_output.rs` holds them to it): each event is printed
//! from its stored text rather than parsed into a value first, and the
//! events are rendered a batch at a time on two threads, written in order.

use super::reprint;
use serde_json::Value;
use std::io::Write;
use std::ops::Range;
use std::sync::mpsc;

/// An event of a document: its stored text and `type` (written straight
/// from the text), or a value made for the document.
pub enum Event<'a> {
    Stored(&'a str, &'a str),
    Value(Value),
}

/// Stored bytes of events rendered by one side at a time: large enough
/// that handing a batch to the other thread is nothing beside rendering
/// it, small enough that the two buffers stay well under a megabyte.
const BATCH_BYTES: usize = 256 << 10;

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
    let render_batch = |range: Range<usize>, b: &mut Vec<u8>| -> anyhow::Result<()> {
        b.clear();
        for i in range {
            if i > 0 {
                b.push(b',');
            }
            render(b, i)?;
        }
        Ok(())
    };
    if batches.len() < 2 {
        for range in batches {
            render_batch(range, &mut buf)?;
            out.write_all(&buf)?;
        }
    } else {
        in_pairs(&mut out, &batches, &render_batch)?;
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

/// Renders the batches two at a time, the second of each pair on one helper
/// thread, and writes them in order. Each side keeps one buffer for the
/// whole document: fresh memory costs this machine's kind ~3 µs a page to
/// fault in, more than rendering into it, and a thread started per pair
/// costs its start each time.
fn in_pairs(
    out: &mut impl Write,
    batches: &[Range<usize>],
    render_batch: &(impl Fn(Range<usize>, &mut Vec<u8>) -> anyhow::Result<()> + Sync),
) -> anyhow::Result<()> {
    let capacity = BATCH_BYTES * 3 / 2;
    std::thread::scope(|s| {
        let (to_helper, jobs) = mpsc::channel::<(Range<usize>, Vec<u8>)>();
        let (done, from_helper) = mpsc::channel::<(anyhow::Result<()>, Vec<u8>)>();
        let helper = s.spawn(move || {
            for (range, mut b) in jobs {
                let result = render_batch(range, &mut b);
                if done.send((result, b)).is_err() {
                    break;
                }
            }
        });
        let mut mine = Vec::with_capacity(capacity);
        let mut spare = Some(Vec::with_capacity(capacity));
        let mut written = || -> anyhow::Result<()> {
            for pair in batches.chunks(2) {
                if let (Some(second), Some(b)) = (pair.get(1), spare.take()) {
                    // The helper only stops early by panicking.
                    to_helper
                        .send((second.clone(), b))
                        .map_err(|_| anyhow::anyhow!("writing the events failed"))?;
                }
                render_batch(pair[0].clone(), &mut mine)?;
                out.write_all(&mine)?;
                if pair.len() > 1 {
                    let (result, b) = from_helper
                        .recv()
                        .map_err(|_| anyhow::anyhow!("writing the events failed"))?;
                    result?;
                    out.write_all(&b)?;
                    spare = Some(b);
                }
            }
            Ok(())
        };
        let result = written();
        drop(to_helper);
        // A helper that panicked must not leave a hole in the array, nor
        // take the process down with it.
        let joined = helper
            .join()
            .map_err(|_| anyhow::anyhow!("writing the events failed"));
        result.and(joined)
    })
}

/// `0..len` cut where the stored sizes add up to a batch.
fn batches(len: usize, weight: impl Fn(usize) -> usize) -> Vec<Range<usize>> {
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

    fn numbers(
        len: usize,
        render: impl Fn(&mut Vec<u8>, usize) -> anyhow::Result<()> + Sync,
    ) -> anyhow::Result<String> {
        let mut out = Vec::new();
        // Every item a batch of its own: odd ones are the helper's.
        write(
            &mut out,
            &[("n", Value::from(1))],
            len,
            |_| BATCH_BYTES,
            render,
        )?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn batches_rendered_on_two_threads_are_written_in_order() {
        let text = numbers(7, |b, i| {
            b.extend_from_slice(i.to_string().as_bytes());
            Ok(())
        })
        .unwrap();
        assert_eq!(
            text,
            "{\n  \"n\": 1,\n  \"events\": [0,1,2,3,4,5,6\n  ]\n}\n"
        );
    }

    #[test]
    fn a_batch_that_fails_on_either_thread_fails_the_document() {
        for bad in [2, 3] {
            let e = numbers(6, |b, i| {
                anyhow::ensure!(i != bad, "item {i} failed");
                b.push(b'x');
                Ok(())
            })
            .unwrap_err();
            assert_eq!(e.to_string(), format!("item {bad} failed"));
        }
    }

    #[test]
    fn a_helper_that_panics_is_an_error_not_a_crash() {
        let e = numbers(6, |b, i| {
            assert_ne!(i, 3, "a renderer bug");
            b.push(b'x');
            Ok(())
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "writing the events failed");
    }

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
