//! The use-case layer every shell calls, on a temporary copy of the demo:
//! what a plan announces is what `apply` writes, resets and per-compaction
//! savings agree with each other, and the simulation grid is the sequential
//! runs in order.

use jp_inspect::core::auto::AutoConfig;
use jp_inspect::core::auto::run::Strategy;
use jp_inspect::core::auto::simulate;
use jp_inspect::core::compact::budget::Budget;
use jp_inspect::core::compact::range::Keeps;
use jp_inspect::core::compact::reset::Reset;
use jp_inspect::core::compact::{estimate, projection, rule};
use jp_inspect::core::error::Error;
use jp_inspect::core::model::conversation::Conversation;
use jp_inspect::core::model::timestamp;
use jp_inspect::core::ops::{self, RuleOptions, Why};
use jp_inspect::core::store::load;
use jp_inspect::core::summarize::config::SummarizerKind;
use jp_inspect::core::summarize::digest::Digest;

fn tokens(conv: &Conversation) -> u64 {
    estimate::of_projection(&conv.events, &projection::of(conv)).total_tokens()
}

#[test]
fn a_rule_plan_is_what_apply_writes() {
    let demo = jp_inspect::demo::materialize().unwrap();
    let conv = load::load(&demo.conversation_dir).unwrap();
    let spec = "r+t:10..14";
    let plan = preview(&conv, &[spec], false);
    assert_eq!(plan.additions.len(), 1);
    assert!(matches!(&plan.additions[0].why, Why::Rule { spec: s, .. } if s == spec));
    assert_eq!(plan.tokens.before, tokens(&conv));
    let saved = ops::write(
        &demo.conversation_dir,
        ops::Change::plan(&plan),
        ops::Guard::Strict,
    )
    .unwrap();
    assert_eq!(saved.appended, 1);
    let after = load::load(&demo.conversation_dir).unwrap();
    let written = after.valid_compactions();
    assert_eq!(written.last(), Some(&plan.additions[0].compaction));
    assert_eq!(tokens(&after), plan.tokens.after);
}

#[test]
fn a_rule_that_selects_nothing_is_skipped_with_its_reason() {
    let demo = jp_inspect::demo::materialize().unwrap();
    let conv = load::load(&demo.conversation_dir).unwrap();
    let plan = preview(&conv, &["r:500.."], false);
    assert!(plan.is_empty());
    assert_eq!(plan.skipped.len(), 1);
    assert!(
        plan.skipped[0]
            .reason
            .contains("selects none of the 32 turns")
    );
    assert_eq!(plan.tokens.before, plan.tokens.after);
}

/// A compaction saves what it saves: turns appended after it (the same in
/// the projection with and without it) move none of the figures.
#[test]
fn what_a_compaction_saves_stays_as_turns_come() {
    let demo = jp_inspect::demo::materialize().unwrap();
    let conv = load::load(&demo.conversation_dir).unwrap();
    let before = ops::saved_per_compaction(&conv, &projection::of(&conv), 0);
    for extra in 1..=7 {
        let path = demo.conversation_dir.join("events.json");
        let mut events: Vec<serde_json::Value> =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        events
            .push(serde_json::json!({"type": "turn_start", "timestamp": "2026-11-12 20:00:00.0"}));
        events.push(serde_json::json!({
            "type": "chat_request", "timestamp": "2026-11-12 20:00:01.0",
            "content": "x".repeat(extra * 3)
        }));
        std::fs::write(&path, serde_json::to_vec_pretty(&events).unwrap()).unwrap();
        let grown = load::load(&demo.conversation_dir).unwrap();
        let after = ops::saved_per_compaction(&grown, &projection::of(&grown), 0);
        assert_eq!(after, before, "after {extra} more turns");
    }
}

#[test]
fn resets_and_savings_agree() {
    let demo = jp_inspect::demo::materialize().unwrap();
    let conv = load::load(&demo.conversation_dir).unwrap();
    let count = conv.compactions().count();
    assert!(count >= 2, "the demo holds compactions");
    let full = tokens(&conv);
    let p = projection::of(&conv);
    let savings = ops::saved_per_compaction(&conv, &p, 0);
    // What a compaction saves is rounded from the characters it takes out,
    // the totals from theirs: the two agree to within one token each.
    let within_one = |a: i64, b: i64| (a - b).abs() <= 1;
    // The last one saves what removing it gives back...
    let (last, saved) = *savings.last().unwrap();
    let without =
        ops::preview_reset(&conv, Reset::Position(last + 1), &Budget::bare(None)).unwrap();
    assert_eq!(without.removes, 1);
    assert_eq!(without.tokens.before, full);
    let back = without.tokens.after as i64 - full as i64;
    assert!(within_one(saved, back), "{saved} saved, {back} given back");
    // ...and each saves what it adds to the ones before it, so they add up.
    let all = ops::preview_reset(&conv, Reset::All, &Budget::bare(None)).unwrap();
    let sum = savings.iter().map(|(_, s)| s).sum::<i64>();
    assert!(
        within_one(sum, all.tokens.after as i64 - full as i64),
        "{sum}"
    );
    assert_eq!(all.removes, count);
    assert_eq!(
        all.tokens.after,
        estimate::of_projection(
            &conv.events,
            &projection::project(&conv.events, conv.turn_count, Vec::new())
        )
        .total_tokens()
    );
    match ops::preview_reset(&conv, Reset::Position(count + 1), &Budget::bare(None)) {
        Err(e @ Error::NoSuchCompaction { .. }) => {
            assert!(e.is_usage());
            assert!(e.to_string().contains(&format!("has {count}")), "{e}");
        }
        other => panic!("expected NoSuchCompaction, got {other:?}"),
    }
}

#[test]
fn the_simulation_grid_is_the_sequential_runs_in_order() {
    let demo = jp_inspect::demo::materialize().unwrap();
    let conv = load::load(&demo.conversation_dir).unwrap();
    let base = AutoConfig::default();
    let digest = Digest::default();
    let windows = [32_000, 128_000];
    let prices = jp_inspect::core::ops::Prices::default();
    let ask = ops::Grid {
        policies: &Strategy::ALL,
        windows: &windows,
        base: &base,
        summarizer: SummarizerKind::Digest,
        prices: &prices,
    };
    let grid = ops::simulate_grid(&[&conv], &ask).unwrap();
    let mut k = 0;
    for p in Strategy::ALL {
        for w in windows {
            let (job, run) = &grid[k];
            assert_eq!((job.policy, job.window), (p, w));
            let alone = simulate::run(&conv, p, w, &base, &digest).unwrap();
            assert_eq!(run.input_tokens, alone.input_tokens);
            assert_eq!(run.overflows, alone.overflows);
            assert_eq!(run.firings.len(), alone.firings.len());
            // The grid prices each run as pricing the lone run does.
            let billed = ops::cost::bill_run(&conv, &alone, &base, &prices);
            assert_eq!(run.billed, Some(billed));
            k += 1;
        }
    }
    assert_eq!(grid.len(), k);
}

fn preview(conv: &Conversation, specs: &[&str], force: bool) -> ops::Plan {
    let digest = Digest::default();
    let rules: Vec<_> = specs
        .iter()
        .map(|s| (s.to_string(), rule::parse(s).unwrap()))
        .collect();
    ops::preview_rules(
        conv,
        &rules,
        &RuleOptions {
            keeps: Keeps::default(),
            summarizer: &digest,
            instructions: "",
            now: timestamp::parse("2026-11-20 09:00:00").unwrap(),
            budget: &Budget::bare(None),
            force,
            tool_hints: &Default::default(),
        },
    )
    .unwrap()
}

#[test]
fn each_addition_saves_given_the_ones_before_and_can_raise_the_estimate() {
    let demo = jp_inspect::demo::materialize().unwrap();
    let conv = load::load(&demo.conversation_dir).unwrap();
    // The demo's auto compaction strips tool calls of turns 6..8 (over 1 KiB);
    // stripping only the requests there lets the responses back in.
    let plan = preview(&conv, &["r:12..14", "t=sreq:6..8", "r+t:20..22"], false);
    assert_eq!(plan.additions.len(), 3);
    let saved: Vec<i64> = plan.additions.iter().map(|a| a.effect.saved).collect();
    assert!(saved[0] > 0 && saved[2] > 0, "{saved:?}");
    assert!(saved[1] < 0, "{saved:?}");
    assert!(plan.additions[1].raises().unwrap().contains("lets back in"));
    // Rounded from what they save, the totals from the whole: within one.
    let sum = saved.iter().sum::<i64>();
    let totals = plan.tokens.before as i64 - plan.tokens.after as i64;
    assert!((sum - totals).abs() <= 1, "{sum} saved, totals {totals}");
}

#[test]
fn a_compaction_that_changes_nothing_is_skipped_unless_forced() {
    let demo = jp_inspect::demo::materialize().unwrap();
    let conv = load::load(&demo.conversation_dir).unwrap();
    // The same rule twice, and a rule inside the demo's summary of 2..5.
    let plan = preview(
        &conv,
        &["r+t:10..12", "r+t:10..12", "r:3..4", "r:30..31"],
        false,
    );
    assert_eq!(plan.additions.len(), 1);
    let reasons: Vec<&str> = plan.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(
        reasons[2].contains("turns 30..31 hold nothing this rule takes out"),
        "{reasons:?}"
    );
    assert!(
        reasons[0].contains("already sees turns 10..12"),
        "{reasons:?}"
    );
    assert!(
        reasons[1].contains("inside the summary of turns 2..5"),
        "{reasons:?}"
    );
    // Each is one the person may insist on (the CLI's --force, which the
    // CLI names; the core speaks of no flag).
    assert!(plan.skipped.iter().all(|s| s.no_op), "{:?}", plan.skipped);
    assert!(reasons.iter().all(|r| !r.contains("--force")));
    let forced = preview(&conv, &["r+t:10..12", "r+t:10..12", "r:3..4"], true);
    assert_eq!(forced.additions.len(), 3);
    assert_eq!(forced.additions[1].effect.saved, 0);
    assert!(!forced.additions[1].effect.changes);
}
