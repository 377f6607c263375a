//! `history --svg` and `simulate --svg`: standalone SVG charts, read back
//! with an XML parser; their series are the numbers the same command's
//! `--json` gives.

use crate::common;

use serde_json::Value;

fn run(args: &[&str]) -> Value {
    let out = common::binary().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn values(node: roxmltree::Node) -> Vec<f64> {
    node.attribute("data-values")
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect()
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-3)
}

#[test]
fn the_history_chart_is_the_real_context_curve() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("history.svg");
    let json = run(&[
        "history",
        "--demo",
        "--json",
        "--svg",
        file.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&file).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let requests = json["requests"].as_array().unwrap();
    let expected: Vec<f64> = requests
        .iter()
        .map(|r| r["ratio"].as_f64().unwrap() * 100.0)
        .collect();
    let line = doc
        .descendants()
        .find(|n| n.attribute("data-series") == Some("context"))
        .expect("the context series");
    assert!(close(&values(line), &expected));
    // Its points rise and fall with the values.
    let ys: Vec<f64> = line
        .attribute("points")
        .unwrap()
        .split(' ')
        .map(|p| p.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(ys.len(), expected.len());
    for k in 1..ys.len() {
        if expected[k] > expected[k - 1] + 0.5 {
            assert!(
                ys[k] < ys[k - 1],
                "request {k}: a higher value is drawn higher"
            );
        }
    }
    // A mark at each request that follows a compaction.
    let marks: Vec<usize> = doc
        .descendants()
        .filter_map(|n| n.attribute("data-x"))
        .map(|x| x.parse().unwrap())
        .collect();
    let after: Vec<usize> = requests
        .iter()
        .enumerate()
        .filter(|(_, r)| !r["compactions_since"].as_array().unwrap().is_empty())
        .map(|(k, _)| k + 1)
        .collect();
    assert_eq!(marks, after);
    assert_eq!(after.len(), 2, "the demo's two compactions");
    // The thresholds, a title naming the conversation, units, both schemes.
    let levels: Vec<f64> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("level"))
        .map(|n| n.attribute("data-value").unwrap().parse().unwrap())
        .collect();
    assert_eq!(levels, [60.0, 85.0]);
    assert!(text.contains("csvq: first release"));
    assert!(text.contains("% of the usable window"));
    assert!(text.contains("prefers-color-scheme: dark"));
}

#[test]
fn the_simulation_chart_draws_each_run_and_its_overflows_and_cost() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("simulate.svg");
    let json = run(&[
        "simulate",
        "--demo",
        "--windows",
        "64k,200k",
        "--json",
        "--svg",
        file.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&file).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 8);
    let plots: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("plot"))
        .collect();
    assert_eq!(plots.len(), 2, "one plot per window");
    for (plot, window) in plots.iter().zip([64_000, 200_000]) {
        for r in runs.iter().filter(|r| r["window"] == window) {
            let policy = r["policy"].as_str().unwrap();
            let usable = r["usable"].as_f64().unwrap();
            let expected: Vec<f64> = r["contexts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_f64().unwrap() / usable * 100.0)
                .collect();
            let line = plot
                .descendants()
                .find(|n| n.attribute("data-series") == Some(policy))
                .unwrap_or_else(|| panic!("{policy} at {window}"));
            assert!(close(&values(line), &expected), "{policy} at {window}");
        }
    }
    let bar = |policy: &str, group: &str, what: usize| -> f64 {
        doc.descendants()
            .filter(|n| {
                n.attribute("data-bar") == Some(policy) && n.attribute("data-group") == Some(group)
            })
            .nth(what)
            .unwrap()
            .attribute("data-value")
            .unwrap()
            .parse()
            .unwrap()
    };
    for r in runs {
        let group = if r["window"] == 64_000 { "64k" } else { "200k" };
        let policy = r["policy"].as_str().unwrap();
        assert_eq!(bar(policy, group, 0), r["overflows"].as_f64().unwrap());
        // What the provider bills, with jp's prompt cache, where it is
        // known (the demo's model is priced).
        let billed = r["billed"]["total"].as_f64().expect("a billed run");
        assert!(
            (bar(policy, group, 1) - billed).abs() < 1e-6,
            "{policy} {group}"
        );
    }
}

#[test]
fn a_chart_of_several_conversations_is_refused_and_nothing_is_written() {
    let (tmp, _dir) = common::workspace_with(&common::demo());
    let second = tmp.path().join(".jp/conversations/17950000000-second");
    common::copy_dir(&common::demo(), &second);
    let file = tmp.path().join("s.svg");
    let out = common::binary()
        .args(["simulate", "--svg", file.to_str().unwrap()])
        .current_dir(tmp.path())
        .env("JP_USER_DATA_DIR", tmp.path().join("none"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--svg draws one conversation"));
    assert!(!file.exists());
}
