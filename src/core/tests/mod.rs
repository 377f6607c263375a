//! The core's layers against real parts: real files, jp's lock held by real
//! processes, jp's own projection code, real summarizer processes and
//! servers. They name the layers behind `ops` (the store, the projection,
//! the simulation, the summarizers), which only the core can, and share the
//! test kit (`crate::common`) with the integration tests in `tests/it`.

mod auto;
mod conformance;
mod cost;
mod fuzz_regressions;
mod history;
mod jp_next;
mod jp_rewritten;
mod ledger;
mod ops;
mod properties;
mod provenance;
mod reliability;
mod reload;
mod show_output;
mod store;
mod summarizers;
mod verdicts;
