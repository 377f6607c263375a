//! The settings `compact`, `auto` and `watch` read: the conversation's own
//! config with the command line's overrides, read the same way by all three.

use crate::cli::change_args::ConfigArgs;
use crate::cli::change_args::PolicyArgs;
use crate::core::auto;
use crate::core::model::conversation::Conversation;
use crate::core::ops::AutoConfig;
use crate::core::ops::Summarizer;
use crate::core::summarize;

impl ConfigArgs {
    /// The conversation's configuration: jp's files, then `--config`.
    pub fn config(&self, conv: &Conversation) -> anyhow::Result<AutoConfig> {
        Ok(auto::config_for(conv, self.config.as_deref())?)
    }

    /// `--summarizer`, else the configured one.
    pub fn summarizer(&self, config: &AutoConfig) -> anyhow::Result<Box<dyn Summarizer>> {
        Ok(summarize::chosen(self.summarizer, &config.summarizer)?)
    }
}

impl PolicyArgs {
    /// The conversation's configuration with `--mode` over it.
    pub fn config(&self, conv: &Conversation) -> anyhow::Result<AutoConfig> {
        let mut config = self.configured.config(conv)?;
        if let Some(mode) = self.mode {
            config.mode = mode;
        }
        Ok(config)
    }

    pub fn summarizer(&self, config: &AutoConfig) -> anyhow::Result<Box<dyn Summarizer>> {
        self.configured.summarizer(config)
    }
}
