//! Twice the work, twice the time: each command as a script runs it (the
//! whole process, output into /dev/null) at n and 2n of one dimension —
//! compactions, turns, config files — so that the ratio of the medians
//! shows any cost growing faster than the work. README.md's table
//! ("Growth") holds the figures.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use std::path::Path;
use std::process::{Command, Stdio};

fn run(args: &[&str], cwd: Option<&Path>) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_jp-inspect"));
    c.args(args)
        .env(
            "JP_INSPECT_DATA_DIR",
            common::data_dir().join("no-user-data"),
        )
        .env("JP_USER_DATA_DIR", common::data_dir().join("no-user-data"))
        .env("JP_INSPECT_CACHE_DIR", "off")
        .stdout(Stdio::null());
    if let Some(dir) = cwd {
        c.current_dir(dir);
    }
    let status = c.status().unwrap();
    assert!(status.success(), "{args:?}");
}

/// Each of `commands` (CONV standing for the conversation) at both sizes.
fn pair(c: &mut Criterion, group: &str, sizes: [(usize, &Path); 2], commands: &[&[&str]]) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    for args in commands {
        for (n, dir) in sizes {
            let d = dir.to_str().unwrap();
            let args: Vec<&str> = args
                .iter()
                .map(|a| if *a == "CONV" { d } else { a })
                .collect();
            g.bench_function(
                format!("{} @ {n}", args.join(" ").replace(d, "CONV")),
                |b| b.iter(|| run(&args, None)),
            );
        }
    }
    g.finish();
}

fn compactions(c: &mut Criterion) {
    let (a, b) = (common::compacted(4_000), common::compacted(8_000));
    pair(
        c,
        "growth: compactions (500 turns)",
        [(4_000, &a), (8_000, &b)],
        &[
            &["stats", "CONV"],
            &["stats", "CONV", "--json"],
            &["lost", "CONV"],
            &["show", "CONV", "--compacted", "--json"],
            &["history", "CONV", "--json"],
            &[
                "auto",
                "CONV",
                "--dry-run",
                "--mode",
                "staged",
                "--window",
                "32k",
            ],
        ],
    );
}

fn turns(c: &mut Criterion) {
    let (a, b) = (common::turns(5_000), common::turns(10_000));
    pair(
        c,
        "growth: turns",
        [(5_000, &a), (10_000, &b)],
        &[
            &["simulate", "CONV"],
            &["stats", "CONV", "--json"],
            &["show", "CONV", "--compacted", "--json"],
            &["history", "CONV", "--json"],
            &[
                "auto",
                "CONV",
                "--dry-run",
                "--mode",
                "staged",
                "--window",
                "32k",
            ],
        ],
    );
}

fn config_files(c: &mut Criterion) {
    let mut g = c.benchmark_group("growth: config files of 512 KiB");
    g.sample_size(10);
    for n in [6, 12] {
        let root = common::config_heavy(n);
        g.bench_function(format!("stats DEMO --json @ {n}"), |b| {
            b.iter(|| run(&["stats", "17944860430", "--json"], Some(&root)))
        });
    }
    g.finish();
}

/// A turn jp appended to a conversation of n and 2n events, read again as
/// the inspector's follow reads it: the reload alone, and the reload with
/// the inspection the screen is drawn from. Within the process, so that
/// the figure is the append's cost and not the start-up's.
fn appends(c: &mut Criterion) {
    use jp_inspect::core::ops::read::{ReadRequest, read, whole};
    // The follow's read: only what jp appended to the conversation held.
    fn reload(
        dir: &std::path::Path,
        held: &jp_inspect::core::model::conversation::Conversation,
    ) -> jp_inspect::core::model::conversation::Conversation {
        read(ReadRequest {
            dir,
            since: Some(held),
            changes: false,
            config: None,
            jp: None,
        })
        .unwrap()
        .conversation
    }
    use jp_inspect::synth::{Spec, live};
    use jp_inspect::tui::inspection::Inspection;
    let mut g = c.benchmark_group("growth: appends (a turn jp appended, read again)");
    g.sample_size(10);
    for turns in [5_000, 10_000] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = common::tests_common::copy_dir(
            &common::turns(turns),
            &tmp.path().join("17500000000-conversation"),
        );
        let before = whole(&dir).unwrap();
        let n = before.events.len();
        live::append_turn(&dir, &Spec::default(), before.turn_count, false).unwrap();
        g.bench_function(format!("reload @ {n} events"), |b| {
            b.iter(|| reload(&dir, &before))
        });
        g.bench_function(format!("reload and inspect @ {n} events"), |b| {
            b.iter(|| {
                let conv = reload(&dir, &before);
                Inspection::build(std::sync::Arc::new(conv), &[], Default::default())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, compactions, turns, config_files, appends);
criterion_main!(benches);
