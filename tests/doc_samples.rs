//! The docs' figures are the binary's: each generated block of README.md
//! and docs/ (see `common/doc_samples.rs`) is made again by the command
//! that gives it and compared, so a change that moves a figure fails here
//! until `cargo run --example doc_samples` writes the docs again.

mod common;

use common::doc_samples::{all, framed, span};
use std::path::Path;

#[test]
fn every_generated_figure_in_the_docs_is_what_the_binary_says_now() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = Path::new(common::BINARY);
    let mut stale = Vec::new();
    for s in all() {
        if s.needs_shared && common::shared().is_none() {
            eprintln!(
                "SKIPPED {} in {}: it reads ../shared, absent here",
                s.name, s.file
            );
            continue;
        }
        let doc = std::fs::read_to_string(root.join(s.file)).unwrap();
        let at =
            span(&doc, s.name).unwrap_or_else(|| panic!("{}: no block named {}", s.file, s.name));
        let now = framed(&doc, s.name, &(s.make)(bin, root));
        if doc[at] != now {
            stale.push(format!(
                "{} ({}): the binary now says\n{now}",
                s.file, s.name
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "figures in the docs moved; `cargo build && cargo run --example doc_samples` writes them:\n{}",
        stale.join("\n\n")
    );
}
