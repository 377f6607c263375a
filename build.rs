//! Tells the tests whether `../shared` (jp's real conversations, its
//! programs, the conformance corpus) is beside this checkout: the corpus
//! checks that need it are then ignored by name, so that `cargo test`'s
//! summary shows them as skipped instead of passing silently.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(shared_absent)");
    println!("cargo::rerun-if-changed=../shared");
    // The suite run as a fresh clone runs it (`.ci/run`'s second run)
    // hides `../shared` from the tests: they are ignored then too, never
    // passed by returning early.
    println!("cargo::rerun-if-env-changed=JP_INSPECT_WITHOUT_SHARED");
    let hidden = std::env::var_os("JP_INSPECT_WITHOUT_SHARED").is_some_and(|v| !v.is_empty());
    if hidden || !std::path::Path::new("../shared").is_dir() {
        println!("cargo::rustc-cfg=shared_absent");
    }
}
