//! Plays jp on a conversation: appends turns the way jp writes them, under
//! jp's lock, for measuring the inspector or `watch` beside it.
//!
//!     cargo run --release --example play_jp -- <dir> <turns> [midflight] [pause_ms]
//!
//! `midflight` writes the file after every block, as jp's branch
//! `turn-midflight-persistence` does; `pause_ms` (default 1000) waits
//! between writes and between turns. Each write is reported on stdout.

use jp_inspect::synth::{Spec, live};
use std::path::PathBuf;
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(turns)) = (args.first(), args.get(1)) else {
        eprintln!("usage: play_jp <dir> <turns> [midflight] [pause_ms]");
        std::process::exit(2);
    };
    let dir = PathBuf::from(dir);
    let turns: usize = turns.parse().expect("a number of turns");
    let midflight = args.iter().any(|a| a == "midflight");
    let pause = Duration::from_millis(
        args.iter()
            .skip(2)
            .find_map(|a| a.parse().ok())
            .unwrap_or(1000),
    );
    let spec = Spec::default();
    let first = jp_inspect::core::ops::read::whole(&dir)
        .expect("a readable conversation")
        .turn_count;
    for t in first..first + turns {
        let mut q = live::Query::start(&dir).expect("jp's lock");
        let blocks = live::turn_blocks(&spec, t);
        let writes = if midflight {
            blocks
        } else {
            vec![blocks.concat()]
        };
        for (k, events) in writes.iter().enumerate() {
            std::thread::sleep(pause);
            q.write(events).expect("a write");
            println!("turn {} write {} ({} events)", t + 1, k + 1, events.len());
        }
        drop(q);
        println!("turn {} done, lock released", t + 1);
    }
}
