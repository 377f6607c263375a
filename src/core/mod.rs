//! The core: a pure, UI-free library of what jp-inspect knows about JP
//! conversations. No terminal, no printing.
//!
//! - `store`: the files on disk — loading, saving under jp's lock, base64,
//!   workspaces and name resolution. Most of the core's file I/O is here.
//! - `model`: what a conversation is — events, compaction events, turns,
//!   the merged config. Pure.
//! - `compact`: compaction as a function of data — the projection, ranges,
//!   rules, resets, the size estimate, windows, planning. Pure.
//! - `facts`: what the model no longer knows after a compaction — the
//!   files, commands, errors, instructions, decisions, links and figures
//!   of a range, judged against what is still sent. Pure.
//! - `auto`: D50's trigger, the staged policy and the simulation. Pure,
//!   except that reading a `--config` file reads that file.
//! - `summarize`: turning a range of raw events into summary text; the
//!   `command` and `openai` summarizers run a process or call HTTP.
//! - `ops`: the use cases every shell calls (preview, apply, reset,
//!   simulate), each returning one plan type.
//! - `providers`: the LLM providers' models and token-counting endpoints,
//!   asked only by `models --refresh` and `count`, and their cached answers.
//! - `cost`: what a session costs as the provider bills it — prices, jp's
//!   prompt cache per provider, the bill of a run of requests. Pure.
//! - `cut`: cutting text for a budget, always on a character's boundary.
//! - `fmt`: numbers in words (`12,345 tokens`), for messages and shells.
//! - `visible`: text from a conversation made safe for a terminal, the one
//!   path every human-readable output takes.
//!
//! Outside the core only `ops` and the plain data layers (`model`, `error`,
//! `fmt`, `visible`) can be named; every other layer is private to it
//! (`mod`, not `pub mod`), so the compiler, not a scan of the source, keeps
//! a shell, `report/`, `chart/`, a benchmark or a test from reaching past
//! `ops`:
//!
//! ```compile_fail,E0603
//! use jp_inspect::core::store::load::load;
//! ```
//! ```compile_fail,E0603
//! use jp_inspect::core::compact::projection::of;
//! ```
//! ```compile_fail,E0603
//! use jp_inspect::core::auto::simulate::run;
//! ```
//! ```compile_fail,E0603
//! use jp_inspect::core::summarize::digest::Digest;
//! ```
//! ```compile_fail,E0603
//! use jp_inspect::core::facts::Fact;
//! ```
//!
//! while the same things through `ops` compile:
//!
//! ```
//! use jp_inspect::core::ops::{self, View};
//! fn sent(dir: &std::path::Path) -> u64 {
//!     let conv = ops::read::whole(dir).unwrap();
//!     ops::project::chars_sent(&conv, &ops::project::project(&conv, View::default()))
//! }
//! ```
//!
//! The core's own tests against real parts, which name those layers, live
//! inside it (`tests/`).

mod auto;
mod compact;
mod cost;
mod cut;
pub mod error;
mod facts;
pub mod fmt;
pub mod model;
pub mod ops;
mod parallel;
mod providers;
mod redact;
mod search;
mod store;
mod summarize;
pub mod visible;

#[cfg(test)]
mod tests;

/// The layers the fuzz targets (`fuzz/`) feed directly: a fuzzer drives
/// the parsers and the projection, which no shell may. Only with the
/// `fuzzing` feature, which no build of the product turns on.
#[cfg(feature = "fuzzing")]
pub mod fuzzing {
    pub use super::compact::{estimate, fate, projection, range, rule};
    pub use super::store::{edit, extends_glob, jp_config, load, save};
}
