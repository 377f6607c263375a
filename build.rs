//! Tells the tests whether `../shared` (jp's real conversations, its
//! programs, the conformance corpus) is beside this checkout: the corpus
//! checks that need it are then ignored by name, so that `cargo test`'s
//! summary shows them as skipped instead of passing silently.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(shared_absent)");
    println!("cargo::rerun-if-changed=../shared");
    if !std::path::Path::new("../shared").is_dir() {
        println!("cargo::rustc-cfg=shared_absent");
    }
}
