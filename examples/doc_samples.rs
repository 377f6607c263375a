//! Writes the docs' generated figures (`<!-- generated: NAME -->` blocks)
//! from what the binary says now: `cargo build && cargo run --example
//! doc_samples`. `tests/it/doc_samples.rs` checks them; it never writes.

#[path = "../tests/common/doc_samples.rs"]
mod doc_samples;

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = root.join("target/debug/jp-inspect");
    if !bin.is_file() {
        eprintln!("{}: build it first (cargo build)", bin.display());
        std::process::exit(1);
    }
    let shared = root.join("../shared").is_dir();
    for s in doc_samples::all() {
        if s.needs_shared && !shared {
            eprintln!("left as it is: {} in {} (needs ../shared)", s.name, s.file);
            continue;
        }
        let path = root.join(s.file);
        let doc = std::fs::read_to_string(&path).unwrap();
        let at = doc_samples::span(&doc, s.name)
            .unwrap_or_else(|| panic!("{}: no block named {}", s.file, s.name));
        let now = doc_samples::framed(&doc, s.name, &(s.make)(&bin, root));
        if doc[at.clone()] == now {
            continue;
        }
        let mut out = doc.clone();
        out.replace_range(at, &now);
        std::fs::write(&path, out).unwrap();
        eprintln!("wrote {} in {}", s.name, s.file);
    }
}
