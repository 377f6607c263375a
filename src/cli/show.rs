//! `show`: the raw stream or the projected view, a line per event.

use super::Context;
use super::UsageError;
use super::args::ShowArgs;
use super::output::{conversation_json, print_lines, print_warnings};
use super::show_json;
use crate::core::fmt::thousands;
use crate::core::model::conversation::Conversation;
use crate::core::ops;
use crate::core::ops::show::{At, ShowRequest, Shown};
use crate::core::ops::{Projected, Projection, TurnOrigin, View};
use serde_json::Value;
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
    let conv = crate::core::ops::read::whole(dir)?;
    print_warnings(&conv);
    let shown = show(&conv, args);
    super::output::free_at_exit(conv);
    shown
}

fn show(conv: &Conversation, args: &ShowArgs) -> anyhow::Result<()> {
    // What the model saw, at a point or as today's jp, is a projection.
    let compacted = args.compacted || args.as_jp || args.at.is_some() || args.at_event.is_some();
    let view = view(args.as_jp);
    let request = ShowRequest {
        projected: compacted.then_some(view),
        at: match (args.at, args.at_event) {
            (Some(t), _) => At::Turn(t),
            (None, Some(n)) => At::Event(n),
            (None, None) => At::Now,
        },
        fates: !args.json,
    };
    let shown = ops::show::show(conv, &request).map_err(|e| UsageError(e.to_string()))?;
    match shown {
        Shown::Raw { tokens, fates } => match (args.json, fates) {
            (false, Some(fates)) => print_lines(raw_lines(conv, &tokens, &fates)),
            _ => write_raw_json(std::io::stdout().lock(), conv, &tokens),
        },
        Shown::Projected {
            projection,
            tokens,
            turns,
            at,
        } => {
            let what = match (view, at) {
                (View::Inspect, None) => ", projected".to_string(),
                (View::Jp, None) => {
                    ", projected as today's jp does (over bounds ignored)".to_string()
                }
                (_, Some(end)) => format!(
                    ", as the request before event {end} saw it{}",
                    if view == View::Jp {
                        ", as today's jp"
                    } else {
                        ""
                    }
                ),
            };
            let shown = ProjectionShown {
                projection: &projection,
                tokens: &tokens,
                turns: &turns,
            };
            if args.json {
                write_projected_json(std::io::stdout().lock(), conv, &shown)
            } else {
                print_lines(projected_lines(conv, &shown, &what))
            }
        }
    }
}

/// A projection as `show` presents it.
pub struct ProjectionShown<'a> {
    pub projection: &'a Projection,
    /// Each projected event's tokens.
    pub tokens: &'a [u64],
    /// Each projected event's projected turn.
    pub turns: &'a [usize],
}

/// The `show --json` document, written as it is made.
pub fn write_raw_json(
    out: impl std::io::Write,
    conv: &Conversation,
    tokens: &[u64],
) -> anyhow::Result<()> {
    let head = [
        ("conversation", conversation_json(conv)),
        ("turn_count", Value::from(conv.turn_count)),
    ];
    show_json::write(
        out,
        &head,
        conv.events.len(),
        |i| conv.events[i].span.end - conv.events[i].span.start,
        |buf, i| {
            let e = &conv.events[i];
            show_json::item(
                buf,
                &[("index", Some(i)), ("turn", Some(e.turn))],
                show_json::Event::Stored(conv.raw(i), e.kind.tag()),
                tokens[i],
            )
        },
    )
}

/// The `show --compacted --json` document, written as it is made: the
/// projected events with the raw event each came from (`null` for an
/// injected summary) and the projected turns' origins. `turn` is the raw
/// turn (0-based, as in `show --json`; an injected summary's is the first
/// turn it replaced); `projected_turn` an index into `turn_origins`.
pub fn write_projected_json(
    out: impl std::io::Write,
    conv: &Conversation,
    shown: &ProjectionShown<'_>,
) -> anyhow::Result<()> {
    let (p, tokens, projected_turn) = (shown.projection, shown.tokens, shown.turns);
    let origins: Vec<Value> = p.turn_origins.iter().map(TurnOrigin::to_json).collect();
    let head = [
        ("conversation", conversation_json(conv)),
        ("turn_count", Value::from(conv.turn_count)),
        ("projected_turn_count", Value::from(p.turn_origins.len())),
        ("turn_origins", Value::Array(origins)),
    ];
    let weight = |k: usize| match p.events[k] {
        Projected::Raw { index, .. } => conv.events[index].span.end - conv.events[index].span.start,
        Projected::Summary { .. } => 1024,
    };
    show_json::write(out, &head, p.events.len(), weight, |buf, k| {
        let e = &p.events[k];
        let (origin, event) = match *e {
            // As stored, unless the projection changed it.
            Projected::Raw {
                index,
                change: crate::core::ops::Alteration::None,
            } => (
                Some(index),
                show_json::Event::Stored(conv.raw(index), conv.events[index].kind.tag()),
            ),
            Projected::Raw { index, .. } => {
                (Some(index), show_json::Event::Value(p.plain(conv, e)))
            }
            Projected::Summary { .. } => (None, show_json::Event::Value(p.plain(conv, e))),
        };
        show_json::item(
            buf,
            &[
                ("index", Some(k)),
                ("turn", Some(p.turn_of(&conv.events, e))),
                ("projected_turn", Some(projected_turn[k])),
                ("origin", origin),
            ],
            event,
            tokens[k],
        )
    })
}

fn header(conv: &Conversation, what: &str) -> String {
    format!(
        "{}  {}  ({} format, {}, {}){what}",
        conv.display_id(),
        crate::core::visible::visible_line(conv.title.as_deref().unwrap_or("(untitled)")),
        conv.format.as_str(),
        crate::core::fmt::count(conv.events.len() as u64, "event"),
        crate::core::fmt::count(conv.turn_count as u64, "turn")
    )
}

fn raw_lines(conv: &Conversation, tokens: &[u64], p: &Projection) -> Vec<String> {
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
            thousands(tokens[i]),
            conv.excerpt(i, PREVIEW)
        ));
    }
    lines
}

fn projected_lines(conv: &Conversation, shown: &ProjectionShown<'_>, what: &str) -> Vec<String> {
    let (p, tokens, turns) = (shown.projection, shown.tokens, shown.turns);
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
                if change == crate::core::ops::Alteration::None {
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
            thousands(tokens[k]),
            p.excerpt(conv, e, PREVIEW)
        ));
    }
    lines
}
