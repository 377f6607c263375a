//! Summarizers: turn the raw events of a range of turns into a summary text.
//!
//! A summary is generated once, eagerly, and stored in the compaction event.
//! Every summarizer reads the *raw* events of the (extended) range, never a
//! projected view, so a summary is never built from another summary.

pub mod digest;
pub mod transcript;

use super::conversation::Conversation;
use super::range::TurnRange;
use std::fmt;

/// Instructions given to model-backed summarizers when none are configured.
pub const DEFAULT_INSTRUCTIONS: &str = "\
Summarise the following part of a coding session between a user and an AI \
pair programmer, so the assistant can continue the work without it. Keep: \
what the user asked for, decisions and conclusions, files and paths touched, \
commands and tools run with their outcomes (especially errors), and anything \
left open. Be concise and factual; do not invent details.";

/// What to summarise.
pub struct Request<'a> {
    pub conversation: &'a Conversation,
    pub range: TurnRange,
    pub instructions: &'a str,
}

/// Why a summary could not be made; nothing is written then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummarizeError {
    pub summarizer: String,
    pub message: String,
}

impl fmt::Display for SummarizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "summarizer `{}`: {}", self.summarizer, self.message)
    }
}

impl std::error::Error for SummarizeError {}

/// What a summary cost, for the simulation's accounting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub text: String,
    /// Characters the summarizer read (the rendered raw range).
    pub input_chars: u64,
}

pub trait Summarizer: Send + Sync {
    fn name(&self) -> &str;
    fn summarize(&self, request: &Request<'_>) -> Result<Summary, SummarizeError>;
}

/// The summarizer called `name`, configured by `config` where it needs
/// settings (a command line, an endpoint).
pub fn by_name(
    name: &str,
    config: &crate::core::auto::config::SummarizerConfig,
) -> Result<Box<dyn Summarizer>, SummarizeError> {
    match name {
        "digest" => Ok(Box::new(digest::Digest::default())),
        other => Err(SummarizeError {
            summarizer: other.to_string(),
            message: format!(
                "unknown summarizer (configured: {}); known: digest",
                config.name()
            ),
        }),
    }
}
