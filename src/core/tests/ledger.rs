//! The loss ledger: what each compaction hid, on the demo (known facts) and
//! on every real conversation (consistency), through `lost` and `stats`.

use crate::common;

use jp_inspect::core::compact::{jp_view::View, ledger, projection};
use jp_inspect::core::store::load;

#[test]
fn the_demos_compactions_hid_what_their_ranges_held() {
    let conv = load::load(&common::demo()).unwrap();
    let p = projection::of_view(&conv, View::default());
    let l = ledger::of(&conv, &p);
    assert_eq!(l.len(), 2);
    // #1, a manual summary of turns 2..5: the parser work.
    let one = &l[0];
    assert!(one.hidden.items.iter().any(|i| i.tool == "fs_read_file"
        && i.target.as_deref() == Some("src/parser.rs")
        && i.fate == "summarised"));
    assert!(one.hidden.items.iter().all(|i| (2..=5).contains(&i.turn)));
    assert_eq!(one.hidden.errors, 1, "one cargo_test failed in turn 3");
    assert!(
        one.hidden
            .items
            .iter()
            .any(|i| i.error && i.tool == "cargo_test")
    );
    // What the model still knows of it: its summary names the parser.
    let knows = jp_inspect::core::ops::knows::judged(&conv, &p, p.overlays[0].compaction.range());
    assert!(
        knows.iter().any(|j| j.fact.key == "src/parser.rs"
            && j.kept
            && j.at == Some(jp_inspect::core::ops::Where::Summary)),
        "{knows:?}"
    );
    // The model ran cargo_test with the same arguments after it, and got
    // a new answer (the fix had landed): a run for a new result, which is
    // no re-fetch of what the compaction hid.
    assert!(one.fetched_again.is_empty(), "{:?}", one.fetched_again);
    // #2, automatic, strips the large results of turns 6..8 (over 1 KiB).
    let two = &l[1];
    let targets: Vec<&str> = two
        .hidden
        .items
        .iter()
        .filter_map(|i| i.target.as_deref())
        .collect();
    assert_eq!(targets, stripped_by_hand(&common::demo()));
    assert!(
        two.hidden
            .items
            .iter()
            .all(|i| i.fate == "stripped" && i.tokens > 1000)
    );
}

/// The paths of the tool results the demo's second compaction strips,
/// counted from the raw file by format.md's rules alone: turns begin at
/// `turn_start`, a result's content is base64 of its text, and a result
/// is stripped when its text is over the compaction's `over` (1 KiB).
fn stripped_by_hand(dir: &std::path::Path) -> Vec<String> {
    use base64::Engine as _;
    let events: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("events.json")).unwrap()).unwrap();
    let second = events
        .iter()
        .filter(|e| e["type"] == "compaction")
        .nth(1)
        .unwrap();
    assert_eq!(second["tool_calls"]["over"], "1KB");
    let (from, to) = (
        second["from_turn"].as_u64().unwrap(),
        second["to_turn"].as_u64().unwrap(),
    );
    let text = |v: &serde_json::Value| {
        let s = v.as_str().unwrap_or_default();
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .unwrap_or_else(|| s.to_string())
    };
    let (mut turn, mut paths) = (None::<u64>, std::collections::HashMap::new());
    let mut out = Vec::new();
    for e in &events {
        match e["type"].as_str() {
            Some("turn_start") => turn = Some(turn.map_or(0, |t| t + 1)),
            Some("tool_call_request") => {
                paths.insert(e["id"].clone(), text(&e["arguments"]["path"]));
            }
            Some("tool_call_response")
                if turn.is_some_and(|t| (from..=to).contains(&t))
                    && text(&e["content"]).len() > 1024 =>
            {
                out.push(paths[&e["id"]].clone());
            }
            _ => {}
        }
    }
    out
}

#[test]
fn every_real_conversations_ledger_adds_up() {
    for dir in common::corpus() {
        let conv = load::load(&dir).unwrap();
        let p = projection::of_view(&conv, View::default());
        for e in ledger::of(&conv, &p) {
            let items: u64 = e.hidden.items.iter().map(|i| i.tokens).sum();
            assert!(
                items <= e.hidden.tokens,
                "{}: items {items} > {}",
                dir.display(),
                e.hidden.tokens
            );
            assert!(
                e.hidden.errors <= e.hidden.tool_results,
                "{}",
                dir.display()
            );
        }
    }
}

#[test]
fn lost_says_it_and_stats_json_carries_it() {
    let out = common::binary().args(["lost", "--demo"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("#1  manual turns 2..5"), "{text}");
    // What it hid and what it saves are two figures, and the line says
    // how they differ (the list beside it says "saved 23,211").
    assert!(
        text.contains(": 23,313 tok (it saves a request this less what is sent in their place)"),
        "{text}"
    );
    assert!(
        text.contains("src/parser.rs") && !text.contains("fetched again after it"),
        "{text}"
    );
    let lost = common::json(
        &common::binary()
            .args(["lost", "--demo", "--json"])
            .output()
            .unwrap(),
    );
    let stats = common::json(
        &common::binary()
            .args(["stats", "--demo", "--json"])
            .output()
            .unwrap(),
    );
    // `lost` carries what `stats` does, and what the model still knows.
    let mut carried = lost["compactions"].clone();
    for c in carried.as_array_mut().unwrap() {
        let c = c.as_object_mut().unwrap();
        assert!(c.remove("facts").is_some() && c.remove("survival").is_some());
    }
    assert_eq!(carried, stats["compactions"]);
    let c = &stats["compactions"][1];
    assert_eq!(c["hidden"]["items"].as_array().unwrap().len(), 2);
    // Each compaction's facts, judged, and how they fared per kind.
    let one = &lost["compactions"][0];
    let facts = one["facts"].as_array().unwrap();
    assert!(facts.iter().any(|f| f["kind"] == "file"
        && f["text"].as_str().unwrap().starts_with("src/parser.rs")
        && f["kept"] == true
        && f["where"] == "summary"));
    let files = &one["survival"]["file"];
    assert_eq!(
        files["total"].as_u64().unwrap() as usize,
        facts.iter().filter(|f| f["kind"] == "file").count()
    );
}
