//! Writes a deterministic synthetic conversation for benchmarks and
//! measurements (never committed: regenerate it).
//!
//!     cargo run --release --example make_synthetic -- <dir> <megabytes|Nturns> [small] [Nc] [Nout]
//!
//! `100` writes about 100 MB; `1000t` writes 1 000 turns; `small` makes
//! every event tiny (for a million-event conversation: `166667t small`);
//! `4000c` appends 4 000 overlapping automatic compactions between turns;
//! `2000out` makes each tool result 2 000 characters.

use jp_inspect::synth::{self, Spec};
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(size)) = (args.first(), args.get(1)) else {
        eprintln!("usage: make_synthetic <dir> <megabytes|Nturns> [small] [Nc] [Nout]");
        std::process::exit(2);
    };
    let mut spec = match size.strip_suffix('t') {
        Some(turns) => Spec {
            turns: turns.parse().expect("a number of turns"),
            ..Spec::default()
        },
        None => Spec::of_size(size.parse::<usize>().expect("megabytes") << 20),
    };
    for a in &args[2..] {
        if let Some(n) = a.strip_suffix('c') {
            spec.compactions = n.parse().expect("a number of compactions");
        }
        if let Some(n) = a.strip_suffix("out") {
            spec.tool_output_chars = n.parse().expect("characters of tool output");
        }
    }
    if args[2..].iter().any(|a| a == "small") {
        spec.request_chars = 24;
        spec.reasoning_chars = 16;
        spec.message_chars = 24;
        spec.tool_calls_per_turn = 1;
        spec.tool_output_chars = 32;
    }
    let out = synth::write_conversation(&PathBuf::from(dir), 17_500_000_000, &spec).unwrap();
    let size = std::fs::metadata(out.join("events.json")).unwrap().len();
    eprintln!(
        "wrote {} ({} turns, {} events, {:.1} MB)",
        out.display(),
        spec.turns,
        spec.turns * spec.events_per_turn(),
        size as f64 / 1e6
    );
}
