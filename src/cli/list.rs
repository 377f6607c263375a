//! `list`: the workspace's conversations, most recently active first.

use super::Context;
use super::args::ListArgs;
use super::output::{print_json, print_lines};
use crate::core::fmt::thousands;
use crate::core::ops::Location;
use crate::core::ops::catalog::{self, Listing};
use serde_json::{Value, json};

pub fn run(ctx: &Context, args: ListArgs) -> anyhow::Result<()> {
    let ws = ctx.require_workspace()?;
    let mut listings = catalog::quick(&ws);
    for l in &mut listings {
        l.details = Some(catalog::details(&l.dir).map_err(|e| e.to_string()));
    }
    let rows: Vec<Value> = listings.iter().map(row).collect();
    if args.json {
        return print_json(&json!({
            "workspace": ws.root.display().to_string(),
            "conversations": rows,
        }));
    }
    let mut lines = vec![format!(
        "{:<16} {:>6} {:>7} {:>10} {:>7} {:>7} {:<6} {:<19}  title",
        "id", "turns", "events", "size", "context", "man/aut", "locked", "last activity"
    )];
    for (r, l) in rows.iter().zip(&listings) {
        let num = |k: &str| r[k].as_u64().map(thousands).unwrap_or_else(|| "?".into());
        lines.push(format!(
            "{:<16} {:>6} {:>7} {:>10} {:>7} {:>7} {:<6} {:<19}  {}{}",
            l.id,
            num("turns"),
            num("events"),
            crate::core::model::byte_size::column(l.size),
            r["context_ratio"]
                .as_f64()
                .map_or("-".into(), |c| format!("{:.0}%", c * 100.0)),
            format!("{}/{}", num("manual"), num("auto")),
            if l.locked { "jp" } else { "" },
            l.when(),
            crate::core::visible::visible_line(l.title.as_deref().unwrap_or("(untitled)")),
            match r["error"].as_str() {
                Some(e) => format!("  [unreadable: {e}]"),
                None => String::new(),
            }
        ));
    }
    print_lines(lines)
}

fn row(l: &Listing) -> Value {
    let location = match l.location {
        Location::Workspace => "workspace",
        Location::User => "user",
    };
    let mut v = json!({
        "id": l.id,
        "title": l.title,
        "path": l.dir.display().to_string(),
        "location": location,
        "other_copy": l.twin.as_ref().map(|t| t.display().to_string()),
        "size": l.size,
        "locked": l.locked,
        "last_activity": l.last_activity.map(|t| crate::core::model::timestamp::format(&t)),
    });
    match &l.details {
        Some(Ok(d)) => {
            v["turns"] = json!(d.turns);
            v["events"] = json!(d.events);
            v["compactions"] = json!(d.manual + d.auto);
            v["manual"] = json!(d.manual);
            v["auto"] = json!(d.auto);
            v["context_ratio"] = json!(d.context_ratio);
        }
        Some(Err(e)) => {
            for k in [
                "turns",
                "events",
                "compactions",
                "manual",
                "auto",
                "context_ratio",
            ] {
                v[k] = Value::Null;
            }
            v["error"] = json!(e);
        }
        None => {}
    }
    v
}
