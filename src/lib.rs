//! jp-inspect: see what a `jp` conversation sends the model after its
//! compactions, and preview, apply and reset them.
//!
//! `core` is the UI-free library every other part goes through; `cli` is the
//! headless command line; `tui` is the inspector; `plugin` answers jp when
//! it runs us as `jp inspect`; `app` chooses among them.

pub mod app;
pub mod chart;
pub mod cli;
pub mod core;
pub mod demo;
pub mod keymap;
pub mod platform;
pub mod plugin;
pub mod report;
/// Numbers in words (`12,345 tokens`), under the name scripts know.
pub mod synth;
pub mod terminal_reset;
pub mod tui;
pub mod user_file;
