//! The settings `watch` reads: the conversation's own config with the
//! command line's overrides.

use crate::cli::change_args::PolicyArgs;
use crate::core::model::config::JpResolved;
use crate::core::model::conversation::Conversation;
use crate::core::ops::{self, AutoConfig};

impl PolicyArgs {
    /// The conversation's configuration, `--config` and `--mode` over it.
    pub fn config(
        &self,
        conv: &Conversation,
        jp: Option<&JpResolved>,
    ) -> crate::core::error::Result<AutoConfig> {
        ops::configured(conv, self.configured.config.as_deref(), self.mode, jp)
    }
}
