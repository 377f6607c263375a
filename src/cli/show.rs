//! `show`: the raw stream or the projected view, a line per event.

use super::Context;
use super::UsageError;
use super::args::ShowArgs;
use super::output::{conversation_json, print_lines, print_warnings, thousands};
use super::reprint;
use crate::core::compact::estimate::tokens;
use crate::core::compact::jp_view::View;
use crate::core::compact::projection::{self, Projected, TurnOrigin};
use crate::core::ops;
use crate::core::{Conversation, compact::excerpt, store::load};
use serde_json::{Value, json};
use std::path::Path;

const PREVIEW: usize = 90;

/// The view `--as-jp` asks for.
pub fn view(as_jp: bool) -> View {
    if as_jp { View::Jp } else { View::Inspect }
}

pub fn run(ctx: &Context, args: ShowArgs) -> anyhow::Result<()> {
    let dir = ctx.resolve(args.conv.as_deref())?;
    run_dir(&dir, &args)
}

pub fn run_dir(dir: &Path, args: &ShowArgs) -> anyhow::Result<()> {
    let conv = load::load(dir)?;
    print_warnings(&conv);
    if !args.compacted {
        return if args.json {
            write_raw_json(std::io::stdout().lock(), &conv)
        } else {
            print_lines(raw_lines(&conv))
        };
    }
    let view = view(args.as_jp);
    let at = match (args.at, args.at_event) {
        (Some(0), _) => return Err(UsageError("turns are numbered from 1".into()).into()),
        (Some(t), _) => Some(ops::request_of_turn(&conv, t - 1).ok_or_else(|| {
            UsageError(format!(
                "turn {t} has no answer to show the request of (the conversation has {} turns)",
                conv.turn_count
            ))
        })?),
        (None, Some(n)) if n > conv.events.len() => {
            return Err(UsageError(format!(
                "there is no event {n}; the conversation has {} (numbered from 0)",
                conv.events.len()
            ))
            .into());
        }
        (None, n) => n,
    };
    let p = match at {
        Some(end) => projection::as_of(&conv, end, view),
        None => projection::of_view(&conv, view),
    };
    let what = match (view, at) {
        (View::Inspect, None) => ", projected".to_string(),
        (View::Jp, None) => ", projected as today's jp does (over bounds ignored)".to_string(),
        (_, Some(end)) => format!(
            ", as the request before event {end} saw it{}",
            if view == View::Jp {
                ", as today's jp"
            } else {
                ""
            }
        ),
    };
    if args.json {
        write_projected_json(std::io::stdout().lock(), &conv, &p)
    } else {
        print_lines(projected_lines(&conv, &p, &what))
    }
}

/// The `show --json` document, written as it is made.
pub fn write_raw_json(out: impl std::io::Write, conv: &Conversation) -> anyhow::Result<()> {
    let mut doc = Document::begin(out, conv)?;
    for (i, e) in conv.events.iter().enumerate() {
        doc.event(
            &[("index", i), ("turn", e.turn)],
            Event::Stored(conv.raw(i), e.kind.tag()),
            tokens(e.chars),
        )?;
    }
    doc.end()
}

/// The `show --compacted --json` document, written as it is made: the
/// projected events with the raw event each came from (`null` for an
/// injected summary) and the projected turns' origins. `turn` is the raw
/// turn (0-based, as in `show --json`; an injected summary's is the first
/// turn it replaced); `projected_turn` an index into `turn_origins`.
pub fn write_projected_json(
    out: impl std::io::Write,
    conv: &Conversation,
    p: &projection::Projection,
) -> anyhow::Result<()> {
    let projected_turn = projected_turns(conv, p);
    let mut doc = Document::begin(out, conv)?;
    doc.field("projected_turn_count", &json!(p.turn_origins.len()))?;
    let origins: Vec<Value> = p.turn_origins.iter().map(TurnOrigin::to_json).collect();
    doc.field("turn_origins", &json!(origins))?;
    doc.events_begin(p.events.len())?;
    for (k, e) in p.events.iter().enumerate() {
        let (origin, event) = match *e {
            // As stored, unless the projection changed it.
            Projected::Raw {
                index,
                change: projection::Change::None,
            } => (
                Some(index),
                Event::Stored(conv.raw(index), conv.events[index].kind.tag()),
            ),
            Projected::Raw { index, .. } => (Some(index), Event::Value(p.plain(conv, e))),
            Projected::Summary { .. } => (None, Event::Value(p.plain(conv, e))),
        };
        doc.projected_event(
            k,
            p.turn_of(&conv.events, e),
            projected_turn[k],
            origin,
            event,
            tokens(p.chars(&conv.events, e)),
        )?;
    }
    doc.end()
}

/// An event of a `show` document: its stored text (written straight from
/// it), or a value made for the document.
enum Event<'a> {
    /// The text and its `type`.
    Stored(&'a str, &'a str),
    Value(Value),
}

/// Both `show` documents, written by hand in serde_json's pretty layout
/// (`tests/cli.rs` holds them to it): the events are printed from their
/// stored text instead of being parsed into values first.
struct Document<W: std::io::Write> {
    out: W,
    buf: Vec<u8>,
    events: Option<usize>,
    written: usize,
}

impl<W: std::io::Write> Document<W> {
    fn begin(out: W, conv: &Conversation) -> anyhow::Result<Document<W>> {
        let mut d = Document {
            out,
            buf: Vec::with_capacity(1 << 17),
            events: None,
            written: 0,
        };
        d.buf.push(b'{');
        d.field("conversation", &conversation_json(conv))?;
        d.field("turn_count", &json!(conv.turn_count))?;
        Ok(d)
    }

    /// `"name": value` at the document's top level.
    fn field(&mut self, name: &str, v: &Value) -> anyhow::Result<()> {
        if self.buf.len() > 1 || self.written > 0 {
            self.buf.push(b',');
        }
        self.buf.extend_from_slice(b"\n  ");
        reprint::escaped(&mut self.buf, name);
        self.buf.extend_from_slice(b": ");
        pretty(&mut self.buf, v, 1)?;
        Ok(())
    }

    fn events_begin(&mut self, len: usize) -> anyhow::Result<()> {
        self.buf.extend_from_slice(b",\n  \"events\": ");
        self.buf
            .extend_from_slice(if len == 0 { b"[]" } else { b"[" });
        self.events = Some(len);
        Ok(())
    }

    fn item_begin(&mut self) {
        if self.events.is_none() {
            // The raw document's events start at its first event.
            self.buf.extend_from_slice(b",\n  \"events\": [");
            self.events = Some(usize::MAX);
        } else if self.written > 0 {
            self.buf.push(b',');
        }
        self.buf.extend_from_slice(b"\n    {");
    }

    fn number(&mut self, name: &str, n: usize, first: bool) {
        if !first {
            self.buf.push(b',');
        }
        self.buf.extend_from_slice(b"\n      \"");
        self.buf.extend_from_slice(name.as_bytes());
        self.buf.extend_from_slice(b"\": ");
        self.buf.extend_from_slice(n.to_string().as_bytes());
    }

    fn event_field(&mut self, event: Event<'_>) -> anyhow::Result<()> {
        self.buf.extend_from_slice(b",\n      \"event\": ");
        match event {
            Event::Stored(raw, kind) if reprint::event(&mut self.buf, raw, kind, 3).is_some() => {}
            Event::Stored(raw, _) => {
                let mut v: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
                crate::core::model::encoding::decode_event(&mut v);
                pretty(&mut self.buf, &v, 3)?;
            }
            Event::Value(v) => pretty(&mut self.buf, &v, 3)?,
        }
        Ok(())
    }

    fn item_end(&mut self, tokens: u64) -> anyhow::Result<()> {
        self.buf.extend_from_slice(b",\n      \"tokens\": ");
        self.buf.extend_from_slice(tokens.to_string().as_bytes());
        self.buf.extend_from_slice(b"\n    }");
        self.written += 1;
        if self.buf.len() >= 1 << 16 {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn event(
        &mut self,
        numbers: &[(&str, usize)],
        event: Event<'_>,
        tokens: u64,
    ) -> anyhow::Result<()> {
        self.item_begin();
        for (k, (name, n)) in numbers.iter().enumerate() {
            self.number(name, *n, k == 0);
        }
        self.event_field(event)?;
        self.item_end(tokens)
    }

    fn projected_event(
        &mut self,
        index: usize,
        turn: usize,
        projected_turn: usize,
        origin: Option<usize>,
        event: Event<'_>,
        tokens: u64,
    ) -> anyhow::Result<()> {
        self.item_begin();
        self.number("index", index, true);
        self.number("turn", turn, false);
        self.number("projected_turn", projected_turn, false);
        match origin {
            Some(o) => self.number("origin", o, false),
            None => self.buf.extend_from_slice(b",\n      \"origin\": null"),
        }
        self.event_field(event)?;
        self.item_end(tokens)
    }

    fn end(mut self) -> anyhow::Result<()> {
        match self.events {
            None => self.buf.extend_from_slice(b",\n  \"events\": []"),
            Some(_) if self.written == 0 => {}
            Some(_) => self.buf.extend_from_slice(b"\n  ]"),
        }
        self.buf.extend_from_slice(b"\n}\n");
        self.out.write_all(&self.buf)?;
        self.out.flush()?;
        Ok(())
    }
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

/// The projected turn of each projected event.
fn projected_turns(conv: &Conversation, p: &projection::Projection) -> Vec<usize> {
    // Raw turn -> projected turn, through the origins.
    let mut of_raw = vec![0; conv.turn_count];
    for (k, o) in p.turn_origins.iter().enumerate() {
        match *o {
            TurnOrigin::Kept(t) => of_raw[t] = k,
            TurnOrigin::Summary { from, to, .. } => of_raw[from..=to].fill(k),
        }
    }
    p.events
        .iter()
        .map(|e| of_raw.get(p.turn_of(&conv.events, e)).copied().unwrap_or(0))
        .collect()
}

fn header(conv: &Conversation, what: &str) -> String {
    format!(
        "{}  {}  ({} format, {} events, {} turns){what}",
        conv.display_id(),
        crate::core::visible::visible_line(conv.title.as_deref().unwrap_or("(untitled)")),
        conv.format.as_str(),
        conv.events.len(),
        conv.turn_count
    )
}

fn raw_lines(conv: &Conversation) -> Vec<String> {
    let p = projection::of(conv);
    let mut lines = vec![
        header(conv, ""),
        format!(
            "{:>5} {:>6}  {:<12} {:>8}  preview",
            "turn", "event", "kind", "tokens"
        ),
    ];
    for (i, e) in conv.events.iter().enumerate() {
        let f = p.fates[i].fate;
        let fate = if f.is_change() {
            format!(" [{}]", f.as_str())
        } else {
            String::new()
        };
        lines.push(format!(
            "{:>5} {:>6}  {:<12} {:>8}  {}{fate}",
            e.turn + 1,
            i,
            e.kind.label(),
            thousands(tokens(e.chars)),
            excerpt::raw(conv, i, PREVIEW)
        ));
    }
    lines
}

fn projected_lines(conv: &Conversation, p: &projection::Projection, what: &str) -> Vec<String> {
    let turns = projected_turns(conv, p);
    let mut lines = vec![
        header(conv, what),
        format!(
            "{:>7} {:>6}  {:<12} {:>8}  preview",
            "turn", "from", "kind", "tokens"
        ),
    ];
    for (k, e) in p.events.iter().enumerate() {
        let (origin, kind, note) = match *e {
            Projected::Raw { index, change } => (
                index.to_string(),
                conv.events[index].kind.label().to_string(),
                if change == projection::Change::None {
                    ""
                } else {
                    " [stripped]"
                },
            ),
            Projected::Summary { part, .. } => {
                ("-".into(), part.label().to_string(), " [injected summary]")
            }
        };
        // People count raw turns: a summary shows the raw turns it replaced.
        let turn = match p.turn_origins.get(turns[k]) {
            Some(TurnOrigin::Summary { from, to, .. }) => format!("{}..{}", from + 1, to + 1),
            _ => (p.turn_of(&conv.events, e) + 1).to_string(),
        };
        lines.push(format!(
            "{:>7} {:>6}  {:<12} {:>8}  {}{note}",
            turn,
            origin,
            kind,
            thousands(tokens(p.chars(&conv.events, e))),
            excerpt::projected(conv, p, e, PREVIEW)
        ));
    }
    lines
}
