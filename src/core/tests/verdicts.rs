//! Verdicts kept across the runs of a simulation change no verdict: every
//! fact of every run judged with what other runs judged is judged as it is
//! alone, whichever run comes first.

use crate::common;
use jp_inspect::core::compact::projection;
use jp_inspect::core::facts::{self, Judged, Verdicts};
use jp_inspect::core::model::TurnRange;
use jp_inspect::core::model::compaction::Compaction;
use jp_inspect::core::model::conversation::Conversation;
use jp_inspect::core::ops::{self, AutoConfig, Grid, Prices, Strategy, SummarizerKind};
use serde_json::json;

/// Each run's ranges judged, alone or with `verdicts` shared.
fn judged(
    conv: &Conversation,
    run: &[Compaction],
    verdicts: Option<&Verdicts>,
) -> Vec<Vec<Judged>> {
    let p = projection::project(
        &conv.events,
        conv.turn_count,
        projection::with_preview(conv, run),
    );
    let ranges: Vec<TurnRange> = run.iter().map(|c| c.range()).collect();
    let all = facts::occurrences(conv);
    let mut out = Vec::new();
    match verdicts {
        Some(v) => facts::judged_each_with(conv, &all, &p, &ranges, v, |_, j| out.push(j)),
        None => facts::judged_each(conv, &all, &p, &ranges, |_, j| out.push(j)),
    }
    out
}

#[test]
fn verdicts_shared_by_runs_are_each_runs_own() {
    let conv = ops::read::whole(&common::demo()).unwrap();
    let base = AutoConfig::default();
    let prices = Prices::default();
    let grid = Grid {
        policies: &Strategy::ALL,
        windows: &[16_000, 24_000, 32_000, 64_000],
        base: &base,
        summarizer: SummarizerKind::Digest,
        prices: &prices,
    };
    let mut runs: Vec<Vec<Compaction>> = ops::simulate_grid(&[&conv], &grid)
        .unwrap()
        .into_iter()
        .map(|(_, r)| r.compactions)
        .filter(|c| !c.is_empty())
        .collect();
    assert!(runs.len() >= 6, "runs that compact: {}", runs.len());
    // The same turns sent every other way: a call's request or its result
    // kept, both stripped, both left out; with or without a summary.
    let tools = [
        json!({"policy": "strip", "request": true, "response": true}),
        json!({"policy": "strip", "request": false, "response": true}),
        json!({"policy": "strip", "request": true, "response": false}),
        json!({"policy": "omit"}),
    ];
    for (from, to) in [(1, 4), (2, 9), (5, 12)] {
        for t in &tools {
            for summary in [None, Some("Fixed the parser; the tests pass.")] {
                let mut c = json!({"type": "compaction", "timestamp": "2030-01-01T00:00:00Z",
                    "from_turn": from, "to_turn": to, "tool_calls": t, "reasoning": "strip"});
                if let Some(s) = summary {
                    c["summary"] = json!({"summary": s});
                }
                runs.push(vec![Compaction::from_json(&c).unwrap()]);
            }
        }
    }
    let alone: Vec<_> = runs.iter().map(|r| judged(&conv, r, None)).collect();
    let judged_facts: usize = alone.iter().flatten().map(Vec::len).sum();
    assert!(judged_facts > 100, "facts judged: {judged_facts}");
    for order in [false, true] {
        let shared = Verdicts::default();
        let mut ks: Vec<usize> = (0..runs.len()).collect();
        if order {
            ks.reverse();
        }
        for k in ks {
            let with = judged(&conv, &runs[k], Some(&shared));
            let differs = with
                .iter()
                .flatten()
                .zip(alone[k].iter().flatten())
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("{}: {:?} alone, {:?} shared", b.fact.text, b.at, a.at));
            assert_eq!(differs, None, "run {k}, order reversed: {order}");
            assert_eq!(with, alone[k], "run {k}, order reversed: {order}");
        }
    }
}
