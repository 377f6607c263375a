//! jp's range bounds (#945) as `--keep-first`/`--keep-last` and in its
//! config: `@N` an absolute turn, `-N` a count from the end, and the legacy
//! `last` read as `last-compaction`. Resolved as jp resolves them, on the
//! demo (32 turns, its last compaction ending at turn 30).

use crate::common;

use serde_json::Value;

fn range(keeps: &[&str]) -> Option<(u64, u64)> {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    let mut args = vec![
        "compact",
        conv.to_str().unwrap(),
        "--dry-run",
        "--json",
        "--force",
    ];
    args.extend(keeps);
    let plan: Value = common::json(&common::jp_inspect(&args, tmp.path()));
    let c = plan["compactions"].as_array()?.first()?.clone();
    Some((c["from_turn"].as_u64()?, c["to_turn"].as_u64()?))
}

fn last_compacted_turn() -> u64 {
    let events: Vec<Value> =
        serde_json::from_slice(&std::fs::read(common::demo().join("events.json")).unwrap())
            .unwrap();
    events
        .iter()
        .filter(|e| e["type"] == "compaction")
        .filter_map(|e| e["to_turn"].as_u64())
        .max()
        .unwrap()
}

#[test]
fn every_bound_resolves_as_jp_resolves_it() {
    // 32 turns: 0-based 0..=31.
    assert_eq!(range(&["--keep-first", "3"]), Some((3, 30)));
    assert_eq!(
        range(&["--keep-first", "@4"]),
        Some((3, 30)),
        "@4 is turn 4"
    );
    assert_eq!(
        range(&["--keep-first", "-4"]),
        Some((27, 30)),
        "from 4 before the last"
    );
    assert_eq!(range(&["--keep-last", "-4"]), range(&["--keep-last", "4"]));
    assert_eq!(
        range(&["--keep-last", "@20"]),
        Some((1, 19)),
        "up to turn 20"
    );
    let after = last_compacted_turn() + 1;
    let expected = (after <= 30).then_some((after, 30));
    assert_eq!(range(&["--keep-first", "last-compaction"]), expected);
    assert_eq!(
        range(&["--keep-first", "last"]),
        expected,
        "jp's legacy spelling"
    );
}

#[test]
fn a_bound_that_is_none_says_which_forms_there_are() {
    let tmp = tempfile::tempdir().unwrap();
    let out = common::jp_inspect(&["compact", "--demo", "--keep-first", "@0"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
    let said = common::stderr(&out);
    assert!(
        said.contains("@4 (a turn)") && said.contains("last-compaction"),
        "{said}"
    );
}
