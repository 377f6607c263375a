//! `list`: the workspace's conversations, most recently active first.

use super::Context;
use super::args::ListArgs;
use super::output::{print_json, print_lines};
use crate::core::fmt::thousands;
use crate::core::ops::Location;
use crate::core::ops::catalog::{self, Listing};

pub fn run(ctx: &Context, args: ListArgs) -> anyhow::Result<()> {
    let ws = ctx.require_workspace()?;
    let mut listings = catalog::quick(&ws);
    for l in &mut listings {
        l.details = Some(catalog::details(&l.dir).map_err(|e| e.to_string()));
    }
    let rows: Vec<Row> = listings.iter().map(row).collect();
    if args.json {
        return print_json(&ListJson {
            workspace: ws.root.display().to_string(),
            conversations: &rows,
        });
    }
    let mut lines = vec![format!(
        "{:<16} {:>6} {:>7} {:>10} {:>7} {:>7} {:<6} {:<19}  title",
        "id", "turns", "events", "size", "context", "man/aut", "locked", "last activity"
    )];
    for (r, l) in rows.iter().zip(&listings) {
        let d = r.details.as_ref();
        let num = |n: Option<usize>| n.map_or_else(|| "?".into(), |n| thousands(n as u64));
        lines.push(format!(
            "{:<16} {:>6} {:>7} {:>10} {:>7} {:>7} {:<6} {:<19}  {}{}",
            l.id,
            num(d.and_then(|d| d.turns)),
            num(d.and_then(|d| d.events)),
            crate::core::model::byte_size::column(l.size),
            d.and_then(|d| d.context_ratio)
                .map_or("-".into(), |c| format!("{:.0}%", c * 100.0)),
            format!(
                "{}/{}",
                num(d.and_then(|d| d.manual)),
                num(d.and_then(|d| d.auto))
            ),
            if l.locked { "jp" } else { "" },
            l.when(),
            crate::core::visible::visible_line(l.title.as_deref().unwrap_or("(untitled)")),
            match d.and_then(|d| d.error.as_deref()) {
                Some(e) => format!("  [unreadable: {e}]"),
                None => String::new(),
            }
        ));
    }
    print_lines(lines)
}

/// What `list --json` prints.
#[derive(serde::Serialize)]
struct ListJson<'a> {
    workspace: String,
    conversations: &'a [Row],
}

/// A conversation of the list: what its folder says, then what reading it
/// added (every figure `null` and the error said, for one unreadable).
#[derive(serde::Serialize)]
struct Row {
    id: String,
    title: Option<String>,
    path: String,
    location: &'static str,
    other_copy: Option<String>,
    size: u64,
    locked: bool,
    last_activity: Option<String>,
    #[serde(flatten)]
    details: Option<Read>,
}

#[derive(serde::Serialize, Default)]
struct Read {
    turns: Option<usize>,
    events: Option<usize>,
    compactions: Option<usize>,
    manual: Option<usize>,
    auto: Option<usize>,
    context_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

fn row(l: &Listing) -> Row {
    let location = match l.location {
        Location::Workspace => "workspace",
        Location::User => "user",
    };
    Row {
        id: l.id.clone(),
        title: l.title.clone(),
        path: l.dir.display().to_string(),
        location,
        other_copy: l.twin.as_ref().map(|t| t.display().to_string()),
        size: l.size,
        locked: l.locked,
        last_activity: l
            .last_activity
            .map(|t| crate::core::model::timestamp::format(&t)),
        details: match &l.details {
            Some(Ok(d)) => Some(Read {
                turns: Some(d.turns),
                events: Some(d.events),
                compactions: Some(d.manual + d.auto),
                manual: Some(d.manual),
                auto: Some(d.auto),
                context_ratio: d.context_ratio,
                error: None,
            }),
            Some(Err(e)) => Some(Read {
                error: Some(e.clone()),
                ..Read::default()
            }),
            None => None,
        },
    }
}
