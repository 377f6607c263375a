//! The figures the docs quote, made by the commands that give them: each
//! sample is a block of a doc between `<!-- generated: NAME -->` and
//! `<!-- /generated -->` (a table, or a figure inside a sentence). The
//! test `doc_samples` compares each with what the binary says now;
//! `cargo run --example doc_samples` writes them (the test never does).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One generated part of a doc.
pub struct Sample {
    /// The doc, from the package's root.
    pub file: &'static str,
    pub name: &'static str,
    /// It reads `../shared`'s fixtures: it is checked only beside them.
    pub needs_shared: bool,
    /// The text the block holds, made by running `bin`.
    pub make: fn(bin: &Path, root: &Path) -> String,
}

pub fn all() -> Vec<Sample> {
    vec![
        Sample {
            file: "docs/automatic.md",
            name: "simulate-fixtures",
            needs_shared: true,
            make: simulate_fixtures,
        },
        Sample {
            file: "docs/automatic.md",
            name: "summary-min-gain-sweep",
            needs_shared: true,
            make: summary_min_gain_sweep,
        },
        Sample {
            file: "docs/automatic.md",
            name: "fixtures-200k-backstop-overflows",
            needs_shared: true,
            make: |bin, root| {
                thousands(&fixture_total(bin, root, "staged+backstop", 200_000)["overflows"])
            },
        },
        Sample {
            file: "docs/automatic.md",
            name: "fixtures-200k-staged-overflows",
            needs_shared: true,
            make: |bin, root| thousands(&fixture_total(bin, root, "staged", 200_000)["overflows"]),
        },
        Sample {
            file: "docs/context-and-cost.md",
            name: "trigger-ratio-sweep",
            needs_shared: true,
            make: trigger_ratio_sweep,
        },
        Sample {
            file: "README.md",
            name: "tools-fixtures",
            needs_shared: true,
            make: tools_fixtures,
        },
        Sample {
            file: "docs/headless.md",
            name: "demo-billed",
            needs_shared: false,
            make: |bin, _| money(&history_demo(bin)["cost"]["total"]),
        },
        Sample {
            file: "docs/headless.md",
            name: "demo-billed-without-cache",
            needs_shared: false,
            make: |bin, _| money(&history_demo(bin)["cost"]["without_cache"]),
        },
    ]
}

const OPEN: &str = "<!-- generated: ";
const CLOSE: &str = "<!-- /generated -->";

/// Where sample `name`'s text lies in `doc` (between its markers).
pub fn span(doc: &str, name: &str) -> Option<std::ops::Range<usize>> {
    let open = format!("{OPEN}{name} -->");
    let start = doc.find(&open)? + open.len();
    let end = start + doc[start..].find(CLOSE)?;
    Some(start..end)
}

/// A block's text as it stands between its markers: a table starts and
/// ends on a line of its own, a figure sits inside its sentence.
pub fn framed(doc: &str, name: &str, text: &str) -> String {
    let span = span(doc, name).expect("the sample's markers");
    let block = &doc[span];
    if block.starts_with('\n') {
        // The closing marker keeps its indent (a table inside a list item).
        let indent = block.rsplit('\n').next().unwrap_or("");
        let indent = if indent.trim().is_empty() { indent } else { "" };
        format!("\n{text}\n{indent}")
    } else {
        text.to_string()
    }
}

fn run(bin: &Path, root: &Path, args: &[&str]) -> Value {
    let out = Command::new(bin)
        .args(args)
        .current_dir(root)
        .env("JP_USER_DATA_DIR", "/nonexistent-jp-user-data")
        .env("JP_INSPECT_DATA_DIR", "/nonexistent-jp-inspect-data")
        .output()
        .expect("the jp-inspect binary");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn history_demo(bin: &Path) -> Value {
    run(bin, Path::new("."), &["history", "--demo", "--json"])
}

/// `$12.16`, as every view writes a dollar figure.
fn money(v: &Value) -> String {
    jp_inspect::core::ops::Unit::Usd.format(v.as_f64().expect("a figure"))
}

fn thousands(v: &Value) -> String {
    jp_inspect::core::fmt::thousands(v.as_u64().expect("a count"))
}

/// The fixture conversations the docs' simulation reads.
pub fn fixtures(root: &Path) -> Vec<PathBuf> {
    let dir = root.join("../shared/fixtures/jp-conversations");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// README's tool hints: `tools` over the fixtures together, a row per
/// tool in the order it gives them (most response tokens first).
fn tools_fixtures(bin: &Path, root: &Path) -> String {
    let mut args: Vec<String> = vec!["tools".into()];
    args.extend(fixtures(root).iter().map(|d| d.display().to_string()));
    args.push("--json".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let v = run(bin, root, &args);
    let mut lines = vec![
        "| tool | calls | request tok | response tok | same answer again | hint | saves |"
            .to_string(),
        "|---|---|---|---|---|---|---|".to_string(),
    ];
    for t in v["tools"].as_array().expect("tools") {
        lines.push(format!(
            "| `{}` | {} | {} | {} | {} | {} | {} |",
            t["name"].as_str().expect("a name"),
            thousands(&t["calls"]),
            thousands(&t["request_tokens"]),
            thousands(&t["response_tokens"]),
            thousands(&t["refetched"]),
            t["hint"]
                .as_str()
                .map_or("—".to_string(), |h| format!("`{h}`")),
            signed(&t["saves"]),
        ));
    }
    lines.join("\n")
}

/// A token figure that may be negative (what a hint costs), or `—` for
/// none, as the text table writes it.
fn signed(v: &Value) -> String {
    match v.as_i64() {
        None => "—".to_string(),
        Some(n) if n < 0 => format!("-{}", jp_inspect::core::fmt::thousands(n.unsigned_abs())),
        Some(n) => jp_inspect::core::fmt::thousands(n as u64),
    }
}

/// `simulate` over the fixtures at four windows, as docs/automatic.md
/// runs it.
fn simulate_all(bin: &Path, root: &Path) -> Value {
    let dirs = fixtures(root);
    let mut args: Vec<String> = vec!["simulate".into()];
    args.extend(dirs.iter().map(|d| d.display().to_string()));
    args.extend(["--windows", "32k,64k,128k,200k", "--json"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(bin, root, &args)
}

/// The fixtures' total for one policy at one window.
fn fixture_total(bin: &Path, root: &Path, policy: &str, window: u64) -> Value {
    simulate_all(bin, root)["totals"]
        .as_array()
        .expect("totals")
        .iter()
        .find(|t| t["policy"] == policy && t["window"] == window)
        .cloned()
        .expect("that policy and window")
}

/// docs/automatic.md's table: `simulate` over the fixtures at four
/// windows, summed per policy and window.
fn simulate_fixtures(bin: &Path, root: &Path) -> String {
    let v = simulate_all(bin, root);
    let mut lines = vec![
        "| window | policy | requests | overflows | input tokens | summaries | cost | billed |"
            .to_string(),
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |".to_string(),
    ];
    for t in v["totals"].as_array().expect("totals") {
        let refused = t["refused"].as_u64().unwrap_or(0);
        let billed = if refused > 0 {
            format!("— ({refused} refused: not billed)")
        } else {
            money(&t["billed"]["total"])
        };
        lines.push(format!(
            "| {}k | {} | {} | {} | {} | {} | {} | {} |",
            t["window"].as_u64().unwrap() / 1000,
            t["policy"].as_str().unwrap(),
            thousands(&t["requests"]),
            thousands(&t["overflows"]),
            thousands(&t["input_tokens"]),
            thousands(&t["summaries"]),
            thousands(&t["cost"]),
            billed
        ));
    }
    lines.join("\n")
}

/// `simulate --sweep summary_min_gain=0,0.1` of `convs` (`--demo` when
/// empty): per window, the staged policy's summaries per 100 turns and its
/// bill, without the rule and with it.
fn sweep_cells(bin: &Path, root: &Path, convs: &[PathBuf]) -> Vec<String> {
    let mut args: Vec<String> = vec!["simulate".into()];
    if convs.is_empty() {
        args.push("--demo".into());
    }
    args.extend(convs.iter().map(|d| d.display().to_string()));
    args.extend(
        [
            "--windows",
            "32k,64k,128k,200k",
            "--sweep",
            "summary_min_gain=0,0.1",
            "--json",
        ]
        .map(String::from),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let v = run(bin, root, &args);
    let settings = v["settings"].as_array().expect("settings");
    let per = |setting: &Value, window: u64| -> (f64, String) {
        let runs: Vec<&Value> = setting["runs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["policy"] == "staged" && r["window"] == window)
            .collect();
        let turns: u64 = runs.iter().map(|r| r["turns"].as_u64().unwrap()).sum();
        let summaries: u64 = runs.iter().map(|r| r["summaries"].as_u64().unwrap()).sum();
        let t = setting["totals"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["policy"] == "staged" && t["window"] == window)
            .unwrap();
        let billed = if t["refused"].as_u64().unwrap_or(0) > 0 {
            "—".to_string()
        } else {
            money(&t["billed"]["total"])
        };
        (summaries as f64 * 100.0 / turns.max(1) as f64, billed)
    };
    [32_000, 64_000, 128_000, 200_000]
        .iter()
        .map(|&w| {
            let (a, ba) = per(&settings[0], w);
            let (b, bb) = per(&settings[1], w);
            let n = |x: f64| {
                if x == 0.0 {
                    "0".to_string()
                } else {
                    format!("{x:.1}")
                }
            };
            let bills = if ba == "—" && bb == "—" {
                " (refused: not billed)".to_string()
            } else {
                format!(" ({ba} → {bb})")
            };
            if a == 0.0 && b == 0.0 {
                "0 → 0".to_string()
            } else {
                format!("{} → {}{bills}", n(a), n(b))
            }
        })
        .collect()
}

/// docs/automatic.md's sweep of `summary_min_gain` on the demo and the
/// fixtures (a table inside a list item: indented two spaces).
fn summary_min_gain_sweep(bin: &Path, root: &Path) -> String {
    let demo = sweep_cells(bin, root, &[]);
    let fixtures = sweep_cells(bin, root, &fixtures(root));
    let mut lines = vec![
        "  | window | the demo | 8 real fixtures |".to_string(),
        "  | --- | ---: | ---: |".to_string(),
    ];
    for (k, w) in ["32k", "64k", "128k", "200k"].iter().enumerate() {
        lines.push(format!("  | {w} | {} | {} |", demo[k], fixtures[k]));
    }
    lines.join("\n")
}

/// docs/context-and-cost.md's table: `single` swept over `trigger_ratio`
/// and `staged` over soft/hard pairs, on the fixtures and the demo, each
/// row against no compaction at its window, a bill only where it compares.
fn trigger_ratio_sweep(bin: &Path, root: &Path) -> String {
    let mut convs: Vec<String> = fixtures(root)
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    convs.push(
        root.join("assets/demo")
            .join(jp_inspect::demo::DIR_NAME)
            .display()
            .to_string(),
    );
    let sweep = |setting: &str| -> Value {
        let mut args: Vec<&str> = vec!["simulate"];
        args.extend(convs.iter().map(String::as_str));
        args.extend(["--windows", "64k,128k,200k", "--sweep", setting, "--json"]);
        run(bin, root, &args)
    };
    let ratio = sweep("trigger_ratio=0.5,0.6,0.75,0.9");
    let pairs = sweep("soft/hard=0.5/0.8,0.6/0.85,0.7/0.9");
    let mut lines = vec![
        "| policy and setting | window | overflows | input tokens | input vs none | compactions | summaries | billed | billed vs none |".to_string(),
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |".to_string(),
    ];
    let base = ratio["baseline"].as_array().expect("the baseline").clone();
    let bill = |t: &Value| -> Option<f64> {
        (t["refused"].as_u64() == Some(0)).then(|| t["billed"]["total"].as_f64())?
    };
    let change = |a: f64, b: f64| format!("{:+.1}%", (a / b - 1.0) * 100.0).replace('-', "−");
    let mut row = |label: String, t: &Value| {
        let b = base
            .iter()
            .find(|b| b["window"] == t["window"])
            .expect("its window");
        let is_base = label == "none";
        let input = |t: &Value| t["input_tokens"].as_f64().unwrap();
        let billed = match bill(t) {
            Some(usd) => money(&Value::from(usd)),
            None => format!("— ({} refused)", t["refused"]),
        };
        let billed_vs = match (bill(t), bill(b)) {
            _ if is_base => String::new(),
            (Some(x), Some(y)) => change(x, y),
            _ => "—".into(),
        };
        lines.push(format!(
            "| {label} | {}k | {} | {} | {} | {} | {} | {billed} | {billed_vs} |",
            t["window"].as_u64().unwrap() / 1000,
            thousands(&t["overflows"]),
            thousands(&t["input_tokens"]),
            if is_base {
                String::new()
            } else {
                change(input(t), input(b))
            },
            t["elisions"].as_u64().unwrap() + t["summaries"].as_u64().unwrap(),
            thousands(&t["summaries"]),
        ));
    };
    for t in &base {
        row("none".into(), t);
    }
    for v in [&ratio, &pairs] {
        for s in v["settings"].as_array().expect("settings") {
            for t in s["totals"].as_array().expect("totals") {
                let label = format!(
                    "{} {}",
                    t["policy"].as_str().unwrap(),
                    s["setting"].as_str().unwrap()
                );
                row(label, t);
            }
        }
    }
    lines.join("\n")
}
