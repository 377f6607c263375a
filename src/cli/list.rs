//! `list`: the workspace's conversations.

use super::Context;
use super::args::ListArgs;
use super::output::{print_json, print_lines, thousands};
use crate::core::store::load;
use crate::core::store::lock;
use crate::core::store::workspace::{Entry, Location, lock_paths};
use serde_json::{Value, json};
use std::fs;

pub fn run(ctx: &Context, args: ListArgs) -> anyhow::Result<()> {
    let ws = ctx.require_workspace()?;
    let rows: Vec<Value> = ws.entries().iter().map(row).collect();
    if args.json {
        return print_json(&json!({
            "workspace": ws.root.display().to_string(),
            "conversations": rows,
        }));
    }
    let mut lines = vec![format!(
        "{:<16} {:>6} {:>7} {:>10} {:>5} {:<6}  title",
        "id", "turns", "events", "size", "comp", "locked"
    )];
    for r in &rows {
        let num = |k: &str| r[k].as_u64().map(thousands).unwrap_or_else(|| "?".into());
        lines.push(format!(
            "{:<16} {:>6} {:>7} {:>10} {:>5} {:<6}  {}{}",
            r["id"].as_str().unwrap_or_default(),
            num("turns"),
            num("events"),
            crate::core::compact::window::human_bytes(r["size"].as_u64().unwrap_or(0)),
            num("compactions"),
            if r["locked"] == true { "jp" } else { "" },
            r["title"].as_str().unwrap_or("(untitled)"),
            match r["error"].as_str() {
                Some(e) => format!("  [unreadable: {e}]"),
                None => String::new(),
            }
        ));
    }
    print_lines(lines)
}

fn row(entry: &Entry) -> Value {
    let size: u64 = fs::read_dir(&entry.dir)
        .map(|r| {
            r.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    let locked = entry.id.is_some_and(|id| {
        let (primary, other) = lock_paths(&entry.dir, id);
        lock::is_held(&primary) || other.is_some_and(|o| lock::is_held(&o))
    });
    let id = entry
        .id
        .map(|id| format!("jp-c{id}"))
        .unwrap_or_else(|| entry.dir_name());
    let location = match entry.location {
        Location::Workspace => "workspace",
        Location::User => "user",
    };
    match load::load(&entry.dir) {
        Ok(conv) => json!({
            "id": id,
            "title": conv.title,
            "path": entry.dir.display().to_string(),
            "location": location,
            "turns": conv.turn_count,
            "events": conv.events.len(),
            "size": size,
            "compactions": conv.compactions().count(),
            "locked": locked,
        }),
        Err(e) => json!({
            "id": id,
            "title": entry.title(),
            "path": entry.dir.display().to_string(),
            "location": location,
            "turns": null,
            "events": null,
            "size": size,
            "compactions": null,
            "locked": locked,
            "error": e.to_string(),
        }),
    }
}
