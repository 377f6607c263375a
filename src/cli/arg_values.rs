//! How option values are read: a turn bound, a size, a token count, and
//! the window option several commands share.

use crate::core::ops::Keep;
use clap::Args;

#[derive(Debug, Args)]
pub struct WindowArg {
    /// The model's context window in tokens (`200k`, `1m`, `128000`),
    /// overriding the table of known models.
    #[arg(long, value_name = "N", value_parser = parse_window)]
    pub window: Option<u64>,
}

pub fn parse_keep(s: &str) -> Result<Keep, String> {
    if let Some(why) = Keep::too_long(s) {
        return Err(why);
    }
    Keep::parse(s)
        .ok_or_else(|| {
            format!("`{s}` is not a bound: try 3 (turns), @4 (a turn), -4 (from the end), 5h or last-compaction")
        })
}

pub fn parse_size(s: &str) -> Result<u64, String> {
    crate::core::model::byte_size::parse(s)
}

pub fn parse_window(s: &str) -> Result<u64, String> {
    crate::core::fmt::parse_tokens(s)
        .ok_or_else(|| format!("`{s}` is not a token count (try 200k, 1m or 128000)"))
}
