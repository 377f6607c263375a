//! What the model still knows, measured with a key labelled by reading:
//! `../shared/fixtures/knows` holds the facts a reviewer wrote down for ten
//! of jp's conversations, and `../shared/tools/knows-score/score.py`
//! scores this build's `compact … --dry-run --summarizer digest` against
//! them. Each figure is held at what the rules reach, less a small margin,
//! so a change that loses a class of facts fails here. A corpus check: it
//! needs `../shared` and python3.

use crate::common;

use serde_json::Value;

/// Per kind: the least recall, precision and digest share (percent), as
/// reached on the key less a few points. `None`: not held (the
/// scorer gives no precision for implicit instructions). An implicit
/// instruction is context the key reads as steering ("the page looks
/// garbled on mobile"); it is not listed, since listing every sentence of
/// a discussion made instructions half noise, so only its floor in the
/// digest, which tells the requests whole, is held high.
const FLOORS: [(&str, u32, Option<u32>, Option<u32>); 8] = [
    ("file", 93, Some(95), Some(93)),
    ("command", 95, Some(95), Some(95)),
    ("error", 87, Some(88), Some(87)),
    ("instruction", 87, Some(88), Some(90)),
    ("instruction (implicit)", 25, None, Some(65)),
    ("decision", 48, Some(59), Some(57)),
    ("url", 95, Some(68), Some(95)),
    ("number", 57, Some(50), Some(71)),
];

fn percent(v: &Value) -> Option<u32> {
    let (hit, of) = (v.get(0)?.as_u64()?, v.get(1)?.as_u64()?);
    (of > 0).then(|| (hit * 100 / of) as u32)
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (the hand-labelled key and its scorer)"
)]
#[test]
fn the_facts_a_reviewer_listed_are_found_and_kept() {
    let shared = common::shared().expect("../shared");
    let scorer = shared.join("tools/knows-score/score.py");
    let out = std::process::Command::new("python3")
        .arg(&scorer)
        .args(["--bin", common::bin_path(), "--json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("JP_USER_DATA_DIR", "/nonexistent-jp-user-data")
        .output()
        .expect("python3 runs the scorer");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(v["errors"], serde_json::json!([]), "{v:#}");
    let totals = &v["totals"];
    let mut below = Vec::new();
    for (kind, found, precise, digest) in FLOORS {
        // The scorer's precision for instructions counts both strengths.
        let precise_kind = if kind.starts_with("instruction") {
            "instruction"
        } else {
            kind
        };
        let checks = [
            ("found", kind, Some(found)),
            ("precise", precise_kind, precise),
            ("digest", kind, digest),
        ];
        for (measure, k, floor) in checks {
            let Some(floor) = floor else { continue };
            let got = percent(&totals[measure][k]).unwrap_or(0);
            eprintln!("{kind:<24} {measure:<8} {got:>3} % (at least {floor} %)");
            if got < floor {
                below.push(format!("{kind} {measure}: {got} % < {floor} %"));
            }
        }
    }
    assert!(below.is_empty(), "{below:#?}");
}
