//! The integration tests, one binary: each module a subject, all of them
//! linking the library once (fifty binaries linked it fifty times, and a
//! change to one core file rebuilt them all before a test ran). One test
//! has a binary of its own: `tests/jp_boundaries` sets the process's
//! environment, which no test beside it may read meanwhile.

#[path = "../common/mod.rs"]
mod common;

mod any_text;
mod authored;
mod bounds;
mod bytes_kept;
mod charts;
mod cli;
mod cli_consistency;
mod cli_wording;
mod cloned_workspace;
mod config;
mod doc_samples;
mod facts;
mod figures_and_reasons;
mod hostile;
mod hostile_files;
mod jp_plugin;
mod jp_summarizer;
mod knows;
mod layers;
mod live;
mod numbers;
mod picker;
mod providers;
mod readme;
mod replay;
mod report;
mod request;
mod storage_links;
mod terminal;
mod tools;
mod tui;
mod tui_hostile;
mod tui_states;
mod watch;
