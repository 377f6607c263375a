//! Every conformance case (expected output produced by `jp`'s own code) must
//! project exactly: turn count, turn origins, and the projected events.

use crate::common;

use jp_inspect::core::compact::jp_view::View;
use jp_inspect::core::compact::projection;
use jp_inspect::core::model::encoding;
use jp_inspect::core::store::load;
use serde_json::Value;
use std::fs;
use std::path::Path;

/// Both views agree with jp wherever no `over` bound is involved (no case
/// has one: jp's code knows none).
fn run_case(case: &Path) -> Result<(), String> {
    run_case_in(case, View::Inspect)?;
    run_case_in(case, View::Jp).map_err(|e| format!("as today's jp: {e}"))
}

fn run_case_in(case: &Path, view: View) -> Result<(), String> {
    let conv_dir = fs::read_dir(case.join("conversations"))
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .next()
        .ok_or("no conversation in case")?;
    let expected: Value =
        serde_json::from_slice(&fs::read(case.join("expected.json")).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    let conv = load::load(&conv_dir).map_err(|e| e.to_string())?;
    let p = projection::of_view(&conv, view);
    common::oracle::compare(&conv, &p, &expected)?;
    let got: Vec<Value> = p.events.iter().map(|e| p.plain(&conv, e)).collect();
    // And encoded the way it would be written, against the file as `jp`
    // wrote it.
    for (i, (mut g, w)) in got
        .into_iter()
        .zip(expected["projected"].as_array().unwrap())
        .enumerate()
    {
        encoding::encode_event(&mut g);
        let mut w = w.clone();
        // Values stored plain in the input are written back encoded by `jp`
        // but verbatim by jp-inspect; compare only fully encoded inputs.
        encoding::decode_event(&mut w);
        encoding::encode_event(&mut w);
        if g != w {
            return Err(format!(
                "projected[{i}] encoded:\n expected {w}\n      got {g}"
            ));
        }
    }
    Ok(())
}

fn run_all(root: &Path) -> usize {
    let mut cases: Vec<_> = fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    cases.sort();
    let mut failures = Vec::new();
    for case in &cases {
        if let Err(e) = run_case(case) {
            failures.push(format!("{}: {e}", case.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    cases.len()
}

#[test]
fn bundled_conformance_cases_match_jp() {
    let n = run_all(&common::data().join("conformance"));
    assert!(n >= 22, "only {n} cases found");
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conformance corpus)"
)]
#[test]
fn shared_conformance_cases_match_jp() {
    let shared = common::shared().expect("../shared: a corpus check runs whole or is ignored");
    let n = run_all(&shared.join("fixtures/conformance"));
    eprintln!("{n} shared conformance cases match");
    assert!(n > 0, "no shared conformance case found");
}
