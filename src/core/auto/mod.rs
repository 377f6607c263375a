//! Automatic compaction: RFD D50's trigger and the staged policy
//! (auto.md).

pub mod config;

pub use config::{AutoConfig, ConfigError, Mode};

use super::config as conv_config;
use super::conversation::Conversation;
use std::path::Path;

/// The configuration for `conv`: defaults, then the conversation's own merged
/// config, then `file` if given.
pub fn config_for(conv: &Conversation, file: Option<&Path>) -> Result<AutoConfig, ConfigError> {
    let mut c = AutoConfig::default();
    let merged = conv_config::merged(conv, None);
    let origin = format!(
        "{} (base config and config deltas of {})",
        conv.dir.display(),
        conv.display_id()
    );
    c.apply_document(&merged, &origin)?;
    if let Some(f) = file {
        c.apply_file(f)?;
    }
    Ok(c)
}
