//! jp-inspect: see what a `jp` conversation sends the model after its
//! compactions, and preview, apply and reset them.
//!
//! `core` is the UI-free library every other part goes through. Three
//! shells present it: `cli` (the headless command line), `tui` (the
//! inspector) and `plugin` (jp's `jp inspect`, relaying the other two);
//! `report` and `chart` render `ops` results as pages and SVG for them;
//! `app` chooses among the shells.

// The crate's own unit tests share the integration tests' kit, which names
// the crate as a dependent does.
#[cfg(test)]
extern crate self as jp_inspect;

/// The test kit: fixtures, the binary, jp and its oracle, a local server,
/// shared by the unit tests and `tests/it`.
#[cfg(test)]
#[path = "../tests/common/mod.rs"]
mod common;

pub mod app;
pub mod chart;
pub mod cli;
pub mod core;
pub mod demo;
pub mod keymap;
pub mod platform;
pub mod plugin;
pub mod report;
/// Synthetic conversations in jp's format, of any size, for tests,
/// benchmarks and the replay demo.
pub mod synth;
pub mod terminal_reset;
pub mod tui;
pub mod user_file;
