//! The options of the commands that change a conversation: `compact`,
//! `reset` and `auto`, and the settings they share with `watch`.

use super::arg_values::{WindowArg, parse_keep, parse_size};
use crate::core::ops::Keep;
use crate::core::ops::Mode;
use crate::core::ops::SummarizerKind;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CompactArgs {
    /// The conversation; with --active or --demo it may be left out, and
    /// the first word is then a rule if it reads as one.
    #[arg(required_unless_present_any = ["active", "demo"])]
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub conv: Option<String>,
    /// Compaction rules, e.g. `s:..-3`, `r+t:2..`, `t=sreq:2..6`. None: the
    /// configured `conversation.compaction.rules`, else jp's default (strip
    /// reasoning and tool calls, keep the first and the last turn), as
    /// `jp conversation compact` does.
    #[arg(value_name = "RULE")]
    pub rules: Vec<String>,
    /// Show what would be written; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// With --dry-run, make the summaries too: a dry run otherwise never
    /// runs a command or LLM summarizer, and says what it would send where.
    #[arg(long, requires = "dry_run")]
    pub summarize: bool,
    /// With --dry-run, judge what each range would keep again by asking a
    /// model or command (`openai`, `anthropic`, `command`, with the
    /// settings of your own config), the price printed first.
    #[arg(long, value_name = "NAME", value_enum, requires = "dry_run")]
    pub judge: Option<crate::core::ops::SummarizerKind>,
    /// Write a compaction even if it changes nothing the model is sent (the
    /// same rule twice, a rule inside a summary), and write an events.json
    /// that has other hard links or no write permission.
    #[arg(long)]
    pub force: bool,

    #[command(flatten)]
    pub configured: ConfigArgs,
    /// First turns kept when a rule gives no range: a count, `@N` (compact
    /// from turn N), `-N` (from N turns before the last), a duration after
    /// the conversation's start (`5h`), or `last-compaction` [default: 1].
    /// With no RULE, it is the bound of the configured rules (jp's default
    /// included).
    #[arg(long, value_name = "BOUND", value_parser = parse_keep, allow_hyphen_values = true)]
    pub keep_first: Option<Keep>,
    /// Last turns kept when a rule gives no range: a count (`-N` the same),
    /// `@N` (compact up to turn N), or a duration before now (`3h`)
    /// [default: 1]. With no RULE, as --keep-first.
    #[arg(long, value_name = "BOUND", value_parser = parse_keep, allow_hyphen_values = true)]
    pub keep_last: Option<Keep>,
    /// Only compact items larger than SIZE (`512KB`, `1MB`, binary, or a
    /// byte count): every reasoning and tools policy of the rules that has
    /// no `,over=` of its own. A tool call's halves are judged each on its
    /// own size, `omit` on the pair's total.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub over: Option<u64>,
    /// The summary's text, verbatim: written as an authored summary (no
    /// summarizer runs, no range ever grows over it). With no RULE, it
    /// summarises the turns --keep-first/--keep-last leave; with RULEs, the
    /// one that has `s`.
    #[arg(long, value_name = "TEXT", conflicts_with = "summarize")]
    pub summary: Option<String>,
    /// Print the result as JSON (exact text, for scripts).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct ResetWhich {
    /// Remove every compaction.
    #[arg(long)]
    pub all: bool,
    /// Remove only the automatic (`source: auto`) compactions.
    #[arg(long)]
    pub auto: bool,
    /// Remove one compaction by its 1-based position.
    #[arg(long, value_name = "N")]
    pub index: Option<usize>,
}

#[derive(Debug, Args)]
pub struct ResetArgs {
    /// The conversation: an id (jp-c<ID>, the number, jp://…), a path, or a
    /// unique fragment of its title; left out with --active or --demo.
    #[arg(required_unless_present_any = ["active", "demo"], conflicts_with = "active")]
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub conv: Option<String>,
    #[command(flatten)]
    pub which: ResetWhich,
    /// A TOML/JSON/YAML file over the conversation's own config; its
    /// `context` measure applies to the estimate. (A reset writes no
    /// summary, so it takes no `--summarizer`.)
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Show what would be removed; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Write an events.json that has other hard links or no write
    /// permission (its mode is kept).
    #[arg(long)]
    pub force: bool,
    /// Print the result as JSON (exact text, for scripts).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct AutoArgs {
    /// The conversation: an id (jp-c<ID>, the number, jp://…), a path, or a
    /// unique fragment of its title; left out with --active or --demo.
    #[arg(required_unless_present_any = ["active", "demo"], conflicts_with = "active")]
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub conv: Option<String>,
    /// Show what would be appended; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// With --dry-run, make the summaries too: a dry run otherwise never
    /// runs a command or LLM summarizer, and says what it would send where.
    #[arg(long, requires = "dry_run")]
    pub summarize: bool,
    /// Write an events.json that has other hard links or no write
    /// permission (its mode is kept).
    #[arg(long)]
    pub force: bool,
    /// Project as today's jp does: it ignores `over` bounds (and `source`),
    /// so a bounded compaction strips every tool call of its range.
    #[arg(long, requires = "dry_run")]
    pub as_jp: bool,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Print the result as JSON (exact text, for scripts).
    #[arg(long)]
    pub json: bool,
}

/// What `auto` and `watch` evaluate: the automatic policy, from the
/// conversation's config with these overrides.
#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// `single` (RFD D50) or `staged` (elide at the soft threshold,
    /// summarise at the hard one).
    #[arg(long, value_name = "MODE", value_enum)]
    pub mode: Option<Mode>,
    #[command(flatten)]
    pub window: WindowArg,
    #[command(flatten)]
    pub configured: ConfigArgs,
}

/// Where settings and summaries come from, alike for every command that can
/// write a summary (`compact`, `auto`, `watch`).
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// A TOML/JSON/YAML file with a `[conversation.compaction.auto]` table,
    /// applied over the conversation's own config.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Which summarizer writes summaries (default: the configured one,
    /// else digest; its settings from your own config).
    #[arg(long, value_name = "NAME", value_enum)]
    pub summarizer: Option<SummarizerKind>,
}
