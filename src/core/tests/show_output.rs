//! `show --json` and `show --compacted --json` are written by hand from
//! the stored text, for speed; they must stay byte for byte what
//! serde_json writes for the documents as values (the way they were
//! written before), on the demo and every fixture.

use crate::common;

use jp_inspect::core::compact::estimate;
use jp_inspect::core::compact::fate::TurnOrigin;
use jp_inspect::core::compact::jp_view::View;
use jp_inspect::core::compact::projection;
use jp_inspect::core::ops::stats::ConversationRef;
use jp_inspect::core::store::load;
use serde_json::{Value, json};

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap() + "\n"
}

fn raw_document(dir: &std::path::Path) -> String {
    let conv = load::load(dir).unwrap();
    let tokens = estimate::raw_shares(&conv.events);
    let events: Vec<Value> = (0..conv.events.len())
        .map(|i| {
            json!({
                "index": i,
                "turn": conv.events[i].turn,
                "event": conv.plain(i),
                "tokens": tokens[i],
            })
        })
        .collect();
    pretty(&json!({
        "conversation": ConversationRef::of(&conv),
        "turn_count": conv.turn_count,
        "events": events,
    }))
}

fn projected_document(dir: &std::path::Path, view: View) -> String {
    let conv = load::load(dir).unwrap();
    let p = projection::of_view(&conv, view);
    let tokens = estimate::projected_shares(&conv.events, &p);
    let mut of_raw = vec![0; conv.turn_count];
    for (k, o) in p.turn_origins.iter().enumerate() {
        match *o {
            TurnOrigin::Kept(t) => of_raw[t] = k,
            TurnOrigin::Summary { from, to, .. } => of_raw[from..=to].fill(k),
        }
    }
    let events: Vec<Value> = p
        .events
        .iter()
        .enumerate()
        .map(|(k, e)| {
            let turn = p.turn_of(&conv.events, e);
            json!({
                "index": k,
                "turn": turn,
                "projected_turn": of_raw.get(turn).copied().unwrap_or(0),
                "origin": match e {
                    jp_inspect::core::compact::fate::Projected::Raw { index, .. } => json!(index),
                    jp_inspect::core::compact::fate::Projected::Summary { .. } => Value::Null,
                },
                "event": p.plain(&conv, e),
                "tokens": tokens[k],
            })
        })
        .collect();
    let origins: Vec<Value> = p.turn_origins.iter().map(TurnOrigin::to_json).collect();
    pretty(&json!({
        "conversation": ConversationRef::of(&conv),
        "turn_count": conv.turn_count,
        "projected_turn_count": p.turn_origins.len(),
        "turn_origins": origins,
        "events": events,
    }))
}

#[test]
fn show_json_is_what_serde_json_writes_for_the_document() {
    let mut checked = 0;
    for dir in common::corpus() {
        let d = dir.to_str().unwrap();
        let cases = [
            (vec!["show", d, "--json"], raw_document(&dir)),
            (
                vec!["show", d, "--compacted", "--json"],
                projected_document(&dir, View::Inspect),
            ),
            (
                vec!["show", d, "--compacted", "--as-jp", "--json"],
                projected_document(&dir, View::Jp),
            ),
        ];
        for (args, expected) in cases {
            let out = common::run_anywhere(&args);
            assert!(out.status.success(), "{args:?}: {}", common::stderr(&out));
            let got = String::from_utf8(out.stdout).unwrap();
            if got != expected {
                let at = got
                    .bytes()
                    .zip(expected.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(got.len().min(expected.len()));
                panic!(
                    "{args:?} differs at byte {at}: ours {:?}, serde's {:?}",
                    &got[at.saturating_sub(40)..(at + 40).min(got.len())],
                    &expected[at.saturating_sub(40)..(at + 40).min(expected.len())]
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 3);
}

/// An event the fast path leaves to serde_json (an object with a key
/// twice, which a parsed value holds once) still comes out as serde_json
/// writes it.
#[test]
fn an_event_with_a_key_twice_is_written_as_its_value() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = common::demo_copy(tmp.path());
    common::edit_events(&dir, |events| {
        events.push(json!({"type": "chat_request", "timestamp": "2026-11-20 09:00:00.0", "content": "marker-x"}));
    });
    let text = std::fs::read_to_string(dir.join("events.json")).unwrap();
    let doubled = text.replace(
        "\"content\": \"marker-x\"",
        "\"content\": \"marker-x\", \"extra\": {\"k\": 1, \"k\": 2}",
    );
    assert_ne!(doubled, text);
    std::fs::write(dir.join("events.json"), doubled).unwrap();
    let out = common::run_anywhere(&["show", dir.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let got = String::from_utf8(out.stdout).unwrap();
    assert!(
        got.contains("\"k\": 2") && !got.contains("\"k\": 1"),
        "one key, the last value"
    );
    assert_eq!(got, raw_document(&dir));
}
