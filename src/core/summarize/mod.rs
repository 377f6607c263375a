//! Summarizers: turn the raw events of a range of turns into a summary text.
//!
//! A summary is generated once, eagerly, and stored in the compaction event.
//! Every summarizer reads the *raw* events of the (extended) range, never a
//! projected view, so a summary is never built from another summary.

pub mod anthropic;
pub mod command;
pub mod config;
pub mod digest;
mod http;
pub mod judge;
mod lines;
pub mod memo;

#[cfg(test)]
mod cut_tests;
pub mod openai;
mod paths;
pub mod transcript;
mod turn_read;

// The summarizers' error lives with the core's errors; each summarizer
// names it through here.
use crate::core::error::SummarizeError;
use crate::core::model::TurnRange;
use crate::core::model::conversation::Conversation;

/// What to summarise.
pub struct Request<'a> {
    pub conversation: &'a Conversation,
    pub range: TurnRange,
    pub instructions: &'a str,
}

/// The most checklist items a model is given; past them the list says how
/// many more there are.
const CHECKLIST_MAX: usize = 120;

/// `request`'s instructions with the range's facts as a checklist: a
/// model-written summary is held to the same facts as the digest, and its
/// survival is reported the same way.
pub fn instructions_with_checklist(request: &Request<'_>) -> String {
    let facts = crate::core::facts::checklist(request.conversation, request.range);
    if facts.is_empty() {
        return request.instructions.to_string();
    }
    let mut out = format!(
        "{}\n\nThe summary must name each of these facts of the conversation (a path, a \
         command as run, an error and whether it was fixed, the user's instructions word for \
         word, the decisions, links and figures):\n",
        request.instructions.trim_end()
    );
    for f in facts.iter().take(CHECKLIST_MAX) {
        out.push_str(&format!("- {}: {}\n", f.kind.as_str(), f.text));
    }
    if facts.len() > CHECKLIST_MAX {
        out.push_str(&format!(
            "- and {} more of the same kinds\n",
            facts.len() - CHECKLIST_MAX
        ));
    }
    out
}

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
    /// Where a call sends the range, in words (`https://… (model)`, `the
    /// command `…``); `None` for one that stays inside this process.
    fn destination(&self) -> Option<String> {
        None
    }
    /// For a stand-in that did not call the summarizer: where the real one
    /// would have sent the range.
    fn withheld(&self) -> Option<String> {
        None
    }
}

/// A summarizer a preview or dry run does not call: the range and the size
/// of what would be sent are known, the summary is a placeholder that is
/// never written (a plan made with it says so, and apply refuses it).
pub struct Withheld<'a> {
    inner: &'a dyn Summarizer,
    destination: String,
}

impl Summarizer for Withheld<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn summarize(&self, request: &Request<'_>) -> Result<Summary, SummarizeError> {
        let range = transcript::render(request.conversation, request.range);
        Ok(Summary {
            text: format!(
                "(summary not made: the `{}` summarizer was not called)",
                self.inner.name()
            ),
            input_chars: crate::core::model::event::count_chars(request.instructions)
                + crate::core::model::event::count_chars(&range),
        })
    }

    fn withheld(&self) -> Option<String> {
        Some(self.destination.clone())
    }
}

/// The summarizer a preview uses: `inner` itself when it stays inside
/// this process or `call` says to call it, else a [`Withheld`] stand-in,
/// so nothing is sent or run for a summary nobody asked to pay for.
pub fn for_preview<'a>(inner: &'a dyn Summarizer, call: bool) -> Box<dyn Summarizer + 'a> {
    match inner.destination() {
        Some(destination) if !call => Box::new(Withheld { inner, destination }),
        _ => Box::new(Passthrough(inner)),
    }
}

struct Passthrough<'a>(&'a dyn Summarizer);

impl Summarizer for Passthrough<'_> {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn summarize(&self, request: &Request<'_>) -> Result<Summary, SummarizeError> {
        self.0.summarize(request)
    }
    fn destination(&self) -> Option<String> {
        self.0.destination()
    }
}

/// The summarizer asked for by name (`--summarizer`), else the
/// configured one: how every shell chooses.
pub fn chosen(
    asked: Option<SummarizerKind>,
    config: &SummarizerConfig,
) -> Result<Box<dyn Summarizer>, SummarizeError> {
    match asked {
        Some(kind) => by_name(kind, config),
        None => Ok(from_config(config)),
    }
}

/// The summarizer configured by `config`.
pub fn from_config(config: &SummarizerConfig) -> Box<dyn Summarizer> {
    match backed(config) {
        None => Box::new(digest::Digest::default()),
        Some(Backed::Command(c)) => Box::new(c),
        Some(Backed::OpenAi(o)) => Box::new(o),
        Some(Backed::Anthropic(a)) => Box::new(a),
    }
}

/// A summarizer that asks a model or a command, as itself: what a judge
/// asks too.
pub(crate) enum Backed {
    Command(command::CommandSummarizer),
    OpenAi(openai::OpenAi),
    Anthropic(anthropic::Anthropic),
}

/// The model or command `config` defines; `None` for the digest.
pub(crate) fn backed(config: &SummarizerConfig) -> Option<Backed> {
    Some(match config {
        SummarizerConfig::Digest => return None,
        SummarizerConfig::Command {
            command,
            timeout,
            directory,
            ..
        } => Backed::Command(command::CommandSummarizer {
            command: command.clone(),
            timeout: *timeout,
            directory: directory.clone(),
        }),
        SummarizerConfig::OpenAi {
            base_url,
            model,
            api_key_env,
            timeout,
        } => Backed::OpenAi(openai::OpenAi {
            base_url: base_url.clone(),
            model: model.clone(),
            api_key_env: api_key_env.clone(),
            timeout: *timeout,
        }),
        SummarizerConfig::Anthropic {
            base_url,
            model,
            api_key_env,
            max_tokens,
            timeout,
        } => Backed::Anthropic(anthropic::Anthropic {
            base_url: base_url.clone(),
            model: model.clone(),
            api_key_env: api_key_env.clone(),
            max_tokens: *max_tokens,
            timeout: *timeout,
        }),
    })
}

/// A model's answer as a summary, or an error when it holds no text (an
/// empty summary would replace turns with nothing).
fn summary(
    endpoint: &http::Endpoint<'_>,
    text: &str,
    instructions: &str,
    range: &str,
) -> Result<Summary, SummarizeError> {
    if text.is_empty() {
        return Err(endpoint.err("the response holds no summary text"));
    }
    Ok(Summary {
        text: text.to_string(),
        input_chars: crate::core::model::event::count_chars(instructions)
            + crate::core::model::event::count_chars(range),
    })
}

/// The summarizer of `kind` (`--summarizer`), with the settings `config`
/// holds for it; `anthropic` works
/// without settings (its defaults and `ANTHROPIC_API_KEY`).
pub fn by_name(
    kind: SummarizerKind,
    config: &SummarizerConfig,
) -> Result<Box<dyn Summarizer>, SummarizeError> {
    let err = |message: String| SummarizeError {
        summarizer: kind.as_str().to_string(),
        message,
    };
    match kind {
        SummarizerKind::Digest => Ok(Box::new(digest::Digest::default())),
        _ if config.kind() == kind => Ok(from_config(config)),
        SummarizerKind::Anthropic => Ok(from_config(&SummarizerConfig::anthropic_defaults())),
        SummarizerKind::Command => Err(err(format!(
            "no command configured: set `command` in [{SUMMARIZER_TABLE}] (kind = \"command\") \
             of {}",
            user_config_places()
        ))),
        SummarizerKind::OpenAi => Err(err(format!(
            "no endpoint configured: set `base_url` and `model` in [{SUMMARIZER_TABLE}] \
             (kind = \"openai\") of {}",
            user_config_places()
        ))),
    }
}

use config::{SUMMARIZER_TABLE, SummarizerConfig, SummarizerKind};

/// The files that may define a summarizer, in words: the user's own, never
/// a workspace's or a conversation's (those may only choose one).
pub fn user_config_places() -> String {
    let global = crate::core::store::jp_config::user_global_dir()
        .map(|d| format!("{}/config.toml", d.display()))
        .unwrap_or_else(|| "$XDG_CONFIG_HOME/jp/config.toml".into());
    format!(
        "your own jp config ({global}) or a --config file; a workspace's or a conversation's \
         config may only choose a summarizer defined there"
    )
}
