//! The docs' figures are the binary's: each generated block of README.md
//! and docs/ (see `common/doc_samples.rs`) is made again by the command
//! that gives it and compared, so a change that moves a figure fails here
//! until `cargo run --example doc_samples` writes the docs again.

use crate::common;

use common::doc_samples::{all, framed, span};
use std::path::Path;

/// The samples that read only this repository's files (the demo).
#[test]
fn the_docs_figures_of_the_demo_are_what_the_binary_says_now() {
    check(false);
}

/// The samples that read `../shared`'s fixtures.
#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn the_docs_figures_of_the_fixtures_are_what_the_binary_says_now() {
    check(true);
}

/// Each sample that reads `../shared` (or not), made again and compared.
fn check(shared: bool) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = Path::new(common::bin_path());
    let mut stale = Vec::new();
    let mut compared = 0;
    for s in all().into_iter().filter(|s| s.needs_shared == shared) {
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
        compared += 1;
    }
    assert!(compared > 0, "no sample to compare");
    assert!(
        stale.is_empty(),
        "figures in the docs moved; `cargo build && cargo run --example doc_samples` writes them:\n{}",
        stale.join("\n\n")
    );
}
