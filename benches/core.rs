//! Core benchmarks: load + project against a plain `serde_json` parse of the
//! same bytes, and the simulation's cost as conversations grow.

mod common;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use jp_inspect::core::model::conversation::Conversation;
use jp_inspect::core::ops::{self, AutoConfig, Measure, Strategy, SummarizerKind, View};
use jp_inspect::synth::Spec;
use std::fs;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

fn load(dir: &Path) -> Conversation {
    ops::read::whole(dir).unwrap()
}

/// The events' tokens of what `conv` sends.
fn events_tokens(conv: &Conversation) -> u64 {
    let p = ops::project::project(conv, View::default());
    ops::project::tokens(ops::project::chars_sent(conv, &p))
}

/// The file read (from the page cache after the first time), parsed,
/// projected and estimated.
fn load_and_project(dir: &Path) -> u64 {
    events_tokens(&load(dir))
}

fn load_bench(c: &mut Criterion, name: &str, dir: &Path, samples: usize) {
    let events = fs::read(dir.join("events.json")).unwrap();
    let bytes = events.len() as u64;
    let mut g = c.benchmark_group(name);
    g.sample_size(samples);
    g.measurement_time(Duration::from_secs(if samples <= 10 { 20 } else { 5 }));
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("serde_json::from_slice::<Value>", |b| {
        b.iter(|| black_box(serde_json::from_slice::<serde_json::Value>(&events).unwrap()))
    });
    g.bench_function("read + load + project + estimate", |b| {
        b.iter(|| black_box(load_and_project(dir)))
    });
    g.finish();
}

fn real(c: &mut Criterion) {
    let dir = common::largest_real();
    load_bench(c, "largest real conversation", &dir, 50);
    show_json_bench(c, "largest real conversation", &dir, 50);
    provenance_and_context(c, &dir);
    history_bench(c, "largest real conversation", &dir, 50);
    thresholds(c, &dir);
    facts_bench(c, &dir);
    report_bench(c, "largest real conversation", &dir, 20);
}

/// `report`: the review (history, stats with the ledger and what the model
/// knows, tools) and its page, beside what `history` and `lost` cost
/// together, which it should cost about.
fn report_bench(c: &mut Criterion, name: &str, dir: &Path, samples: usize) {
    let conv = load(dir);
    let config = AutoConfig::default();
    let prices = jp_inspect::core::ops::Prices::default();
    let mut g = c.benchmark_group(format!("{name}, report"));
    g.sample_size(samples);
    g.bench_function("history + lost (for scale)", |b| {
        b.iter(|| {
            let points = ops::history(&conv, &config, None);
            let cost = ops::cost::session(&conv, &config, &points, &prices);
            let lost = ops::lost::lost(
                &conv,
                &config,
                &ops::lost::LostRequest::default(),
                &prices,
                &mut |_| false,
            )
            .unwrap();
            black_box((cost.total, lost.stats.compactions.len()))
        })
    });
    g.bench_function("tools, weighed without a replay (for scale)", |b| {
        b.iter(|| {
            black_box(
                ops::tools::weighed(&[(&conv, &config)], None, false)
                    .tools
                    .len(),
            )
        })
    });
    let request = ops::review::ReviewRequest::default();
    g.bench_function("the review (ops::review)", |b| {
        b.iter(|| {
            black_box(
                ops::review::review(&conv, &config, &request, &prices, &mut |_| false).unwrap(),
            )
        })
    });
    let review = ops::review::review(&conv, &config, &request, &prices, &mut |_| false).unwrap();
    g.bench_function("the HTML page of a review", |b| {
        b.iter(|| {
            let r = jp_inspect::report::render(
                &conv,
                &review,
                jp_inspect::report::Format::Html,
                jp_inspect::report::Options::default(),
                "report",
            );
            black_box(r.main.len())
        })
    });
    g.finish();
}

/// What `lost` and the preview add: the facts of every compaction's range,
/// found and judged; beside the projection they come with.
fn facts_bench(c: &mut Criterion, dir: &Path) {
    let conv = load(dir);
    let p = ops::project::project(&conv, View::default());
    let all = jp_inspect::core::model::TurnRange {
        from: 0,
        to: conv.turn_count.saturating_sub(1),
    };
    let mut g = c.benchmark_group("largest real conversation, facts");
    g.sample_size(30);
    g.bench_function("project (for scale)", |b| {
        b.iter(|| ops::project::project(&conv, View::default()).events.len())
    });
    g.bench_function("facts of the whole conversation, found", |b| {
        b.iter(|| jp_inspect::core::ops::knows::found_afresh(&conv, all).len())
    });
    g.bench_function("facts of the whole conversation, judged", |b| {
        b.iter(|| jp_inspect::core::ops::knows::judged(&conv, &p, all).len())
    });
    g.finish();
}

/// Load + project with size-bounded compactions appended: what reading
/// `over` costs, as a byte count and as jp's size strings.
fn thresholds(c: &mut Criterion, dir: &Path) {
    let forms: [(&str, &[&str]); 2] = [
        (
            "byte counts",
            &[
                r#"{"policy":"strip","request":true,"response":true,"over":1024}"#,
                r#"{"policy":"strip","request":false,"response":true,"over":2048}"#,
                r#"{"policy":"omit","over":4096}"#,
            ],
        ),
        (
            "size strings",
            &[
                r#"{"policy":"strip","request":true,"response":true,"over":"1KB"}"#,
                r#"{"policy":"strip","request":false,"response":true,"over":"2KB"}"#,
                r#"{"policy":"omit","over":"4KB"}"#,
            ],
        ),
    ];
    let base: Vec<serde_json::Value> =
        serde_json::from_slice(&fs::read(dir.join("events.json")).unwrap()).unwrap();
    let mut g = c.benchmark_group("largest real conversation, thresholded compactions");
    g.sample_size(50);
    for (what, tool_calls) in forms {
        let mut events = base.clone();
        for (k, t) in tool_calls.iter().enumerate() {
            let compaction = format!(
                r#"{{"type":"compaction","timestamp":"2030-01-01 00:00:0{k}.0","from_turn":0,"to_turn":{k},"tool_calls":{t}}}"#
            );
            events.push(serde_json::from_str(&compaction).unwrap());
        }
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join(dir.file_name().unwrap());
        fs::create_dir_all(&copy).unwrap();
        let _ = fs::copy(dir.join("base_config.json"), copy.join("base_config.json"));
        let _ = fs::copy(dir.join("metadata.json"), copy.join("metadata.json"));
        fs::write(
            copy.join("events.json"),
            serde_json::to_vec(&events).unwrap(),
        )
        .unwrap();
        g.bench_function(format!("{what}: read + load + project + estimate"), |b| {
            b.iter(|| black_box(load_and_project(&copy)))
        });
    }
    g.finish();
}

/// `history` as it is now made: the real context curve, then every
/// request through the prompt-cache model (one pass each), against the
/// curve alone.
fn history_bench(c: &mut Criterion, name: &str, dir: &Path, samples: usize) {
    let conv = load(dir);
    let config = AutoConfig::default();
    let prices = jp_inspect::core::ops::Prices::default();
    let mut g = c.benchmark_group(format!("{name}, history"));
    g.sample_size(samples);
    g.bench_function("the real context curve, one pass", |b| {
        b.iter(|| black_box(jp_inspect::core::ops::history(&conv, &config, None).len()))
    });
    g.bench_function("the curve + the cache model and prices", |b| {
        b.iter(|| {
            let points = jp_inspect::core::ops::history(&conv, &config, None);
            black_box(jp_inspect::core::ops::cost::session(&conv, &config, &points, &prices).total)
        })
    });
    let points = jp_inspect::core::ops::history(&conv, &config, None);
    g.bench_function("the cache model alone", |b| {
        b.iter(|| {
            black_box(jp_inspect::core::ops::cost::session(&conv, &config, &points, &prices).total)
        })
    });
    g.finish();
}

/// What the provenance records and the context accounting add to opening a
/// conversation: the same load from disk with and without them.
fn provenance_and_context(c: &mut Criterion, dir: &Path) {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp
        .path()
        .join(".jp/conversations")
        .join(dir.file_name().unwrap());
    fs::create_dir_all(&copy).unwrap();
    for f in ["events.json", "base_config.json", "metadata.json"] {
        let _ = fs::copy(dir.join(f), copy.join(f));
    }
    let records = tmp.path().join(".jp/jp-inspect");
    fs::create_dir_all(&records).unwrap();
    let id = ops::jp_files::id_of_dir(&copy).unwrap();
    fs::write(
        records.join(format!("{id}.json")),
        r#"{"compactions": [{"timestamp": "2030-01-01 00:00:00.0", "from_turn": 0, "to_turn": 0, "source": "auto", "over": 1024}]}"#,
    )
    .unwrap();
    let mut g = c.benchmark_group("largest real conversation, from disk");
    let config = AutoConfig::default();
    g.bench_function("load with provenance + project + events estimate", |b| {
        b.iter(|| black_box(load_and_project(&copy)))
    });
    g.bench_function("load with provenance + project + context", |b| {
        b.iter(|| {
            let conv = load(&copy);
            let p = ops::project::project(&conv, View::default());
            let budget = ops::budget_of(conv.merged_config(), None, &config);
            black_box(budget.context_tokens(ops::project::chars_sent(&conv, &p)))
        })
    });
    g.finish();
}

/// Reading a conversation jp has saved (its config fully resolved, in its
/// mergeable forms) against reading the original: load, the merged and
/// resolved config, the budget and the context, as `stats` does.
fn jp_saved(c: &mut Criterion) {
    let Some((original, saved)) = common::largest_and_jp_saved() else {
        eprintln!("../shared/fixtures/jp-rewritten is absent: skipping the jp-saved benchmark");
        return;
    };
    let mut g = c.benchmark_group("largest real conversation, as jp saved it");
    for (what, dir) in [("original", &original), ("jp's save", &saved)] {
        g.bench_function(format!("{what}: load + project + config + context"), |b| {
            b.iter(|| {
                let conv = load(dir);
                let p = ops::project::project(&conv, View::default());
                let config = ops::configured(&conv, None, None, None).unwrap();
                let budget = ops::budget(&conv, &config, None);
                black_box(budget.context_tokens(ops::project::chars_sent(&conv, &p)))
            })
        });
    }
    g.finish();
}

/// The time `watch` (or any write) holds jp's lock: take it, re-read and
/// parse the file, render, write the temp file, fsync, rename, release.
fn write_under_lock(c: &mut Criterion) {
    let dir = common::largest_real();
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp
        .path()
        .join(".jp/conversations")
        .join(dir.file_name().unwrap());
    fs::create_dir_all(&copy).unwrap();
    let original = fs::read(dir.join("events.json")).unwrap();
    for f in ["base_config.json", "metadata.json"] {
        let _ = fs::copy(dir.join(f), copy.join(f));
    }
    fs::write(copy.join("events.json"), &original).unwrap();
    // The plan made once, outside the lock: the first turn's reasoning
    // stripped, as `compact CONV r:1..1` plans it.
    let conv = load(&copy);
    let config = AutoConfig::default();
    let rules = [("r:1..1".to_string(), "r:1..1".parse().unwrap())];
    let plan = ops::preview(
        &conv,
        &ops::PreviewAsk {
            of: ops::PreviewOf::Rules(&rules),
            config: &config,
            budget: &ops::budget(&conv, &config, None),
            now: jp_inspect::core::model::timestamp::parse("2030-01-01 00:00:00").unwrap(),
            view: View::default(),
            call_summarizer: false,
        },
    )
    .unwrap();
    assert!(!plan.is_empty(), "the plan appends a compaction");
    let mut g = c.benchmark_group("largest real conversation, write");
    g.bench_function("append one compaction under jp's lock", |b| {
        b.iter_batched(
            || fs::write(copy.join("events.json"), &original).unwrap(),
            |()| {
                black_box(ops::write(&copy, ops::Change::plan(&plan), ops::Guard::Strict).unwrap())
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn hundred_mb(c: &mut Criterion) {
    load_bench(c, "generated 100 MB", &common::hundred_mb(), 10);
    show_json_bench(c, "generated 100 MB", &common::hundred_mb(), 10);
    history_bench(c, "generated 100 MB", &common::hundred_mb(), 10);
    report_bench(c, "generated 100 MB", &common::hundred_mb(), 10);
}

/// The whole process, as a script meets it: start-up on an empty
/// conversation, and `show --json`, `show --compacted --json` and
/// `stats --json` on the largest real conversation and on 100 MB (output
/// into /dev/null, no user data of the machine's).
fn whole_process(c: &mut Criterion) {
    let empty = common::data_dir().join("empty/17500000001-empty");
    fs::create_dir_all(&empty).unwrap();
    fs::write(empty.join("events.json"), "[]\n").unwrap();
    fs::write(empty.join("base_config.json"), "{}\n").unwrap();
    let run = |args: &[&str]| {
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_jp-inspect"))
            .args(args)
            .env(
                "JP_INSPECT_DATA_DIR",
                common::data_dir().join("no-user-data"),
            )
            .env("JP_USER_DATA_DIR", common::data_dir().join("no-user-data"))
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{args:?}");
    };
    let mut g = c.benchmark_group("whole process");
    g.sample_size(20);
    let e = empty.to_str().unwrap();
    g.bench_function("start-up: stats --json of an empty conversation", |b| {
        b.iter(|| run(&["stats", e, "--json"]))
    });
    // jp's own kind of workspace, its config files remembered between
    // runs (as every run after the first finds them) or not at all.
    let (root, id) = common::configured_workspace();
    let cache = common::data_dir().join("configured-workspace-cache");
    for (what, cache_dir) in [
        ("remembered", cache.to_str().unwrap()),
        ("not remembered", "off"),
    ] {
        g.bench_function(
            format!(
                "largest real in a workspace extending 65 config files, {what}: stats CONV --json"
            ),
            |b| {
                b.iter(|| {
                    let status = std::process::Command::new(env!("CARGO_BIN_EXE_jp-inspect"))
                        .args(["stats", &id, "--json"])
                        .current_dir(&root)
                        .env("JP_INSPECT_CACHE_DIR", cache_dir)
                        .env("JP_USER_DATA_DIR", common::data_dir().join("no-user-data"))
                        .stdout(std::process::Stdio::null())
                        .status()
                        .unwrap();
                    assert!(status.success());
                })
            },
        );
    }
    for (name, dir, samples) in [
        ("largest real", common::largest_real(), 20),
        ("100 MB", common::hundred_mb(), 10),
    ] {
        g.sample_size(samples);
        let d = dir.to_str().unwrap();
        for args in [
            vec!["show", d, "--json"],
            vec!["show", d, "--compacted", "--json"],
            vec!["stats", d, "--json"],
        ] {
            g.bench_function(
                format!("{name}: {}", args.join(" ").replace(d, "CONV")),
                |b| b.iter(|| run(&args)),
            );
        }
        // The yardstick: jp's own load + project + serialise of the same
        // file, when `../shared` brings jp's code along.
        if let Some(oracle) = common::jp_oracle() {
            g.bench_function(format!("{name}: jp's own code, oracle project CONV"), |b| {
                b.iter(|| {
                    let status = std::process::Command::new(&oracle)
                        .args(["project", d])
                        .stdout(std::process::Stdio::null())
                        .status()
                        .unwrap();
                    assert!(status.success(), "jp refused {d}");
                })
            });
        }
    }
    g.finish();
}

/// `show --json` and `show --compacted --json` past the load: the document
/// made and written as it goes (into a sink; the process adds the load).
fn show_json_bench(c: &mut Criterion, name: &str, dir: &Path, samples: usize) {
    use jp_inspect::core::ops::show::{At, ShowRequest, Shown, show};
    let conv = load(dir);
    let ask = |projected| ShowRequest {
        projected,
        at: At::Now,
        fates: false,
    };
    let mut g = c.benchmark_group(format!("{name}, show --json"));
    g.sample_size(samples);
    g.throughput(Throughput::Bytes(
        fs::metadata(dir.join("events.json")).unwrap().len(),
    ));
    g.bench_function("show --json", |b| {
        b.iter(|| {
            let Ok(Shown::Raw { tokens, .. }) = show(&conv, &ask(None)) else {
                unreachable!()
            };
            jp_inspect::cli::write_raw_json(std::io::sink(), &conv, &tokens).unwrap()
        })
    });
    // What `show` does after the read: the projection, its events'
    // shares and turns, and the writing.
    let projected = ask(Some(jp_inspect::core::ops::View::Inspect));
    g.bench_function("show --compacted --json", |b| {
        b.iter(|| {
            let Ok(Shown::Projected {
                projection,
                tokens,
                turns,
                ..
            }) = show(&conv, &projected)
            else {
                unreachable!()
            };
            let shown = jp_inspect::cli::ProjectionShown {
                projection: &projection,
                tokens: &tokens,
                turns: &turns,
            };
            jp_inspect::cli::write_projected_json(std::io::sink(), &conv, &shown).unwrap()
        })
    });
    g.finish();
}

fn simulate_fixtures(c: &mut Criterion) {
    let dirs = common::fixtures();
    if dirs.is_empty() {
        eprintln!("../shared is absent: simulating the bundled demo only");
    }
    let mut convs: Vec<Conversation> = dirs.iter().map(|d| load(d)).collect();
    if convs.is_empty() {
        convs.push(load(&common::largest_real()));
    }
    let convs: Vec<&Conversation> = convs.iter().collect();
    let base = AutoConfig::default();
    let prices = ops::Prices::default();
    let windows = [32_000, 64_000, 128_000, 200_000];
    // The grid `simulate` runs: every run on one of the machine's cores.
    let grid = |base| ops::Grid {
        policies: &Strategy::ALL,
        windows: &windows,
        base,
        summarizer: SummarizerKind::Digest,
        prices: &prices,
    };
    let mut g = c.benchmark_group("simulate");
    g.sample_size(10);
    g.bench_function(
        format!("{} conversations x 3 policies x 4 windows", convs.len()),
        |b| b.iter(|| black_box(ops::simulate_grid(&convs, &grid(&base)).unwrap())),
    );
    // The same replay measuring the events alone (D50's literal estimate):
    // the work the grid did before the context counted the system prompt
    // and tools, which make the policies fire earlier and more often.
    let events_only = AutoConfig {
        context: Measure::Events,
        ..AutoConfig::default()
    };
    g.bench_function(
        format!(
            "{} conversations x 3 policies x 4 windows, events only",
            convs.len()
        ),
        |b| b.iter(|| black_box(ops::simulate_grid(&convs, &grid(&events_only)).unwrap())),
    );
    for turns in [1_000usize, 10_000] {
        let dir = common::generated(
            &format!("{turns}-turns"),
            &Spec {
                turns,
                tool_output_chars: 2_000,
                ..Spec::default()
            },
        );
        let conv = load(&dir);
        let one = ops::Grid {
            policies: &[Strategy::Staged],
            windows: &[32_000],
            ..grid(&base)
        };
        g.bench_function(format!("{turns} turns, staged, 32k"), |b| {
            b.iter(|| black_box(ops::simulate_grid(&[&conv], &one).unwrap()))
        });
    }
    g.finish();
}

/// A reload after jp appended a turn (the file rewritten whole, as jp
/// does): what is parsed again, against a whole read of the same file.
fn reload_after_append(c: &mut Criterion) {
    for (label, source) in [
        ("the demo (1.6 MB)", common::tests_common::demo()),
        ("generated 100 MB", common::hundred_mb()),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir =
            common::tests_common::copy_dir(&source, &tmp.path().join("17500000000-conversation"));
        let before = load(&dir);
        // jp's rewrite: the same text, one turn more before the closing `]`.
        let text = std::fs::read_to_string(dir.join("events.json")).unwrap();
        let body = text.trim_end().strip_suffix(']').unwrap().trim_end();
        let turn = r#"{"timestamp": "2026-11-13 09:00:00.0", "type": "turn_start"},
  {"timestamp": "2026-11-13 09:00:01.0", "type": "chat_request", "content": "one more"}"#;
        std::fs::write(dir.join("events.json"), format!("{body},\n  {turn}\n]\n")).unwrap();
        let mut g = c.benchmark_group(format!("reload after an append: {label}"));
        g.sample_size(10);
        g.bench_function("reload (the appended events parsed)", |b| {
            b.iter(|| {
                ops::read::read(ops::read::ReadRequest {
                    dir: &dir,
                    since: Some(&before),
                    changes: false,
                    config: None,
                    jp: None,
                })
                .unwrap()
            })
        });
        g.bench_function("load (the whole file parsed)", |b| b.iter(|| load(&dir)));
        g.finish();
    }
}

criterion_group!(
    benches,
    real,
    jp_saved,
    write_under_lock,
    simulate_fixtures,
    hundred_mb,
    reload_after_append,
    whole_process
);
criterion_main!(benches);
