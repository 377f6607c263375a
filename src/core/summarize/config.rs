//! Which summarizer writes summaries and how to reach it, as configured;
//! owned here so that `auto` depends on `summarize` and not the other way.

use std::time::Duration;

/// Where the summarizer is configured (jp-inspect's own table).
pub const SUMMARIZER_TABLE: &str = "conversation.compaction.auto.summarizer";

/// How long a command or HTTP summarizer may take by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// Instructions given to model-backed summarizers when none are configured.
pub const DEFAULT_INSTRUCTIONS: &str = "\
Summarise the following part of a coding session between a user and an AI \
pair programmer, so the assistant can continue the work without it. Keep: \
what the user asked for, decisions and conclusions, files and paths touched, \
commands and tools run with their outcomes (especially errors), and anything \
left open. Be concise and factual; do not invent details.";

/// Which summarizer writes summaries, and how to reach it.
#[derive(Debug, Clone, PartialEq)]
pub enum SummarizerConfig {
    Digest,
    Command {
        command: String,
        timeout: Duration,
        /// Where it runs (`directory` in the user's own config). Else a
        /// fresh private directory: never the workspace's, whose files a
        /// cloned repository chose (`python3 -m`, `npx`, relative paths
        /// would run them).
        directory: Option<std::path::PathBuf>,
        /// What one call costs, in US dollars, when the user says
        /// (`cost_per_call`): a command may be free (a local model) or call
        /// a paid one; jp-inspect can't tell which.
        cost_per_call: Option<f64>,
    },
    OpenAi {
        base_url: String,
        model: String,
        api_key_env: Option<String>,
        timeout: Duration,
    },
    Anthropic {
        base_url: String,
        model: String,
        api_key_env: String,
        max_tokens: u32,
        timeout: Duration,
    },
}

impl SummarizerConfig {
    pub fn name(&self) -> &'static str {
        self.kind().as_str()
    }

    /// Anthropic with every setting at its default.
    pub fn anthropic_defaults() -> Self {
        use super::anthropic::{
            DEFAULT_BASE_URL, DEFAULT_KEY_ENV, DEFAULT_MAX_TOKENS, DEFAULT_MODEL,
        };
        SummarizerConfig::Anthropic {
            base_url: DEFAULT_BASE_URL.into(),
            model: DEFAULT_MODEL.into(),
            api_key_env: DEFAULT_KEY_ENV.into(),
            max_tokens: DEFAULT_MAX_TOKENS,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    pub fn kind(&self) -> SummarizerKind {
        match self {
            SummarizerConfig::Digest => SummarizerKind::Digest,
            SummarizerConfig::Command { .. } => SummarizerKind::Command,
            SummarizerConfig::OpenAi { .. } => SummarizerKind::OpenAi,
            SummarizerConfig::Anthropic { .. } => SummarizerKind::Anthropic,
        }
    }
}

/// Which summarizer, without its settings: what `--summarizer` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummarizerKind {
    Digest,
    /// A command the user configured, given the transcript on stdin.
    Command,
    OpenAi,
    Anthropic,
}

impl SummarizerKind {
    pub const ALL: [SummarizerKind; 4] = [
        SummarizerKind::Digest,
        SummarizerKind::Command,
        SummarizerKind::OpenAi,
        SummarizerKind::Anthropic,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SummarizerKind::Digest => "digest",
            SummarizerKind::Command => "command",
            SummarizerKind::OpenAi => "openai",
            SummarizerKind::Anthropic => "anthropic",
        }
    }
}
