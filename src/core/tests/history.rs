//! Post-session review: what the model had in front of it at any moment.
//! The cross-check the feature rests on, on every fixture and the demo: the
//! projection "as of" a point equals the projection of a copy of the
//! conversation truncated at that point; the real context curve is that
//! projection's context at every request, and it drops right after each
//! compaction of the demo.

use crate::common;

use jp_inspect::core::compact::budget::{Budget, Measure};
use jp_inspect::core::compact::jp_view::View;
use jp_inspect::core::compact::{estimate, projection};
use jp_inspect::core::model::config;
use jp_inspect::core::model::conversation::Conversation;
use jp_inspect::core::store::load;
use serde_json::Value;
use std::fs;
use std::path::Path;

/// `conv` cut just before raw event `end`, written as jp would have had it
/// then, and loaded back.
fn truncated(conv: &Conversation, end: usize, tmp: &Path) -> Conversation {
    let dir = tmp.join(format!("{}-cut-{end}", conv.id.unwrap_or(17_000_000_000)));
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("base_config.json"), conv.base_config.to_string()).unwrap();
    let parts: Vec<std::borrow::Cow<'_, str>> = (0..end)
        .map(|i| std::borrow::Cow::Borrowed(conv.raw(i)))
        .collect();
    fs::write(
        dir.join("events.json"),
        jp_inspect::core::store::save::join_array(&parts),
    )
    .unwrap();
    load::load(&dir).unwrap()
}

fn plain(conv: &Conversation, p: &projection::Projection) -> Vec<Value> {
    p.events.iter().map(|e| p.plain(conv, e)).collect()
}

#[test]
fn as_of_a_point_is_the_projection_of_the_conversation_cut_there() {
    let tmp = tempfile::tempdir().unwrap();
    for dir in common::corpus() {
        let conv = load::load(&dir).unwrap();
        let n = conv.events.len();
        // Every point of small conversations; a spread of big ones, the
        // points right after each compaction included.
        let mut ends: Vec<usize> = (0..=n).step_by((n / 40).max(1)).collect();
        ends.extend(conv.compactions().map(|c| c.event + 1));
        ends.push(n);
        for end in ends {
            let cut = truncated(&conv, end, tmp.path());
            for view in [View::Inspect, View::Jp] {
                let as_of = projection::as_of(&conv, end, view);
                let whole = projection::of_view(&cut, view);
                assert_eq!(
                    plain(&conv, &as_of),
                    plain(&cut, &whole),
                    "{} before event {end} ({view:?})",
                    dir.display()
                );
                assert_eq!(as_of.turn_origins, whole.turn_origins);
            }
        }
    }
}

#[test]
fn the_curve_is_the_context_each_request_was_sent() {
    for dir in common::corpus() {
        let conv = load::load(&dir).unwrap();
        let budget_at =
            |i: usize| Budget::of_config(&config::merged(&conv, Some(i)), None, Measure::Context);
        let points = jp_inspect::core::auto::history::history(&conv, budget_at);
        assert!(!points.is_empty());
        for p in &points {
            let as_of = projection::as_of(&conv, p.raw_index, View::Inspect);
            let chars = estimate::of_projection(&conv.events, &as_of).total_chars();
            assert_eq!(
                p.context,
                budget_at(p.raw_index).context_tokens(chars),
                "{} request before event {}",
                dir.display(),
                p.raw_index
            );
        }
    }
}

#[test]
fn history_json_drops_right_after_each_compaction_of_the_demo() {
    let demo = common::demo();
    let out = common::binary()
        .args(["history", demo.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let v = common::json(&out);
    let requests = v["requests"].as_array().unwrap();
    let mut drops = 0;
    for w in requests.windows(2) {
        if !w[1]["compactions_since"].as_array().unwrap().is_empty() {
            assert!(
                w[1]["context"].as_u64() < w[0]["context"].as_u64(),
                "{} then {}",
                w[0],
                w[1]
            );
            drops += 1;
        }
    }
    assert_eq!(drops, 2, "the demo's two compactions");
    for r in requests {
        let ratio = r["ratio"].as_f64().unwrap();
        assert_eq!(r["overflow"], ratio > 1.0);
    }
    // `show --at TURN` prints what the request before that turn's first
    // answer saw: turn 12 is the first answered after compaction #1.
    let at = common::json(
        &common::binary()
            .args([
                "show",
                demo.to_str().unwrap(),
                "--compacted",
                "--at",
                "12",
                "--json",
            ])
            .output()
            .unwrap(),
    );
    assert!(
        at["turn_origins"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o.get("summary").is_some()),
        "the manual summary was in force at turn 12"
    );
    let before = common::json(
        &common::binary()
            .args([
                "show",
                demo.to_str().unwrap(),
                "--compacted",
                "--at",
                "11",
                "--json",
            ])
            .output()
            .unwrap(),
    );
    assert!(
        before["turn_origins"]
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o.get("kept").is_some()),
        "nothing was compacted yet at turn 11"
    );
}
