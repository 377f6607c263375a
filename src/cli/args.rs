//! Command-line arguments.

use crate::core::ops::Mode;
use crate::core::ops::Strategy;
use crate::core::ops::SummarizerKind;
use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

use super::arg_values::{WindowArg, parse_window};
use super::change_args::{AutoArgs, CompactArgs, PolicyArgs, ResetArgs};

const AFTER_HELP: &str = "\
CONV is a conversation directory, its events.json, a jp-c<ID> id or bare <ID>
(also as jp://<ID>), or a unique fragment of its title or slug, looked up in
the workspace found from the current directory (and its JP user storage);
--active names the most recently active one.

Exit codes: 0 ok, 1 error, 2 usage.";

/// Inspect jp conversations: the raw event stream beside what the model is
/// sent after compactions; preview, apply and reset compactions.
/// What `--workspace` with no DIR stands for: the workspace found from the
/// current directory (no path is spelt so).
pub const FOUND_FROM_HERE: &str = "\u{1}found from here";

#[derive(Debug, Parser)]
#[command(
    name = "jp-inspect",
    version,
    about = "Inspect a jp conversation: the events, the view the model receives, and its compactions",
    long_about = "Opens a conversation of the jp CLI and shows, side by side, the raw event \
                  stream and the projected view the model actually receives after compaction \
                  overlays. Previews, applies and resets compactions, manual ones and the \
                  automatic ones of RFD D50 (with the staged policy). Every operation of the \
                  inspector is also a command, for scripts, with --json.",
    after_help = AFTER_HELP
)]
pub struct Cli {
    /// The conversation to open.
    #[arg(conflicts_with = "active")]
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub conv: Option<String>,

    /// Work on a temporary copy of the bundled demo conversation (every
    /// command; CONV may then be left out). Changes vanish at exit.
    #[arg(long, global = true, conflicts_with = "workspace")]
    pub demo: bool,

    /// The model's context window (`200k`, `1m`), overriding the table.
    #[arg(long, value_name = "N", value_parser = parse_window)]
    pub window: Option<u64>,

    /// Automatic compaction mode shown and previewed: single or staged.
    #[arg(long, value_name = "MODE", value_enum)]
    pub mode: Option<Mode>,

    /// A TOML file with a [conversation.compaction.auto] table.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Start following the conversation (refresh when jp appends events).
    #[arg(long)]
    pub follow: bool,
    /// Play the conversation back turn by turn into a temporary copy, as
    /// jp writes it, with the inspector following and automatic compaction
    /// on: D50 live (Space pauses, + and - change the pace).
    #[arg(long)]
    pub replay: bool,
    /// The time between two turns of a replay (2s, 500ms).
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = humantime::parse_duration, requires = "replay")]
    pub pace: std::time::Duration,

    /// The workspace root (the directory holding .jp/); by default found by
    /// walking up from the current directory.
    /// (`--workspace` alone: the one found from here.)
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        num_args = 0..=1,
        default_missing_value = FOUND_FROM_HERE
    )]
    pub workspace: Option<PathBuf>,

    /// Instead of CONV: the workspace's most recently active conversation
    /// (its `last_activated_at`).
    #[arg(long, global = true)]
    pub active: bool,

    /// Write a conversation found through a `.jp` that is a link out of
    /// its workspace (refused otherwise: a cloned workspace can point it
    /// at another's conversations).
    #[arg(long, global = true)]
    pub allow_linked_storage: bool,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the event stream, a line per event (or the projected view).
    Show(ShowArgs),
    /// List the workspace's conversations.
    List(ListArgs),
    /// Token figures: raw and projected, by category, window, thresholds,
    /// and the compactions with what each saves.
    Stats(StatsArgs),
    /// What each compaction hid: the tool calls it stripped, omitted or
    /// summarised (by tool, with their paths and commands, the errors
    /// among them), the reasoning and messages, their tokens; the calls the
    /// model made again after it; and what the model no longer knows of its
    /// range (files, commands, errors, instructions, decisions, links,
    /// figures), kept or lost, per kind.
    Lost(LostArgs),
    /// Add manual compactions, one per RULE.
    #[command(after_help = crate::core::ops::SYNTAX_HELP)]
    Compact(CompactArgs),
    /// Remove compactions: all, the automatic ones, or one.
    Reset(ResetArgs),
    /// Evaluate automatic compaction now (D50 or the staged policy) and
    /// apply what it returns; prints why either way.
    Auto(AutoArgs),
    /// Replay conversations from their first turn under each policy and
    /// window, and compare what the model would have been sent.
    Simulate(SimulateArgs),
    /// Run automatic compaction by itself beside jp: at every turn boundary
    /// (jp releasing a conversation's lock after new events), evaluate the
    /// policy and append what it fires.
    Watch(WatchArgs),
    /// The session's real context curve: every request with the context it
    /// was sent (the compactions appended before it, none after), against
    /// the window in force, the compactions appended in between, and what
    /// it was billed with jp's prompt cache.
    History(HistoryArgs),
    /// The context windows jp-inspect knows and where each comes from;
    /// with --refresh, ask the providers' models endpoints as jp does (the
    /// endpoint and key variable from your own jp config only) and keep
    /// their answers, which then win over the bundled table.
    Models(ModelsArgs),
    /// How far D50's estimate (characters / 4) is off: the request jp
    /// would send, counted by the provider's token-counting endpoint, as a
    /// whole and per part; or offline with OpenAI's tokenizer (--offline).
    Count(CountArgs),
    /// The request body jp sends at a point, as JSON: its provider code's
    /// shape for the projected events (what `count` has counted), with the
    /// system parts and tools of the config in force.
    Request(RequestArgs),
    /// Which tools fill the context: per tool, calls, request and response
    /// tokens, errors, calls made again, its share of the context, and a
    /// suggested D17 hint with what the staged policy's replay saves with
    /// it. With no CONV, the workspace's conversations together.
    Tools(ToolsArgs),
    /// One page of what the session's compactions did, to hand to someone:
    /// a self-contained HTML file (inline SVG and CSS, no script, nothing
    /// fetched) or Markdown with its charts beside it. The context curve,
    /// each compaction (what it hid, saved, cost and lost, its summary), the
    /// bill with and without compaction, the tools; likely secrets redacted.
    Report(ReportArgs),
    /// Print a shell completion script: `jp-inspect completions bash >
    /// ~/.local/share/bash-completion/completions/jp-inspect`.
    Completions {
        /// The shell to write the script for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man pages (roff): jp-inspect(1) and one per command
    /// (jp-inspect-show(1), …); with --dir, write each to its own file there.
    Man {
        /// Write jp-inspect.1 and jp-inspect-<command>.1 into this folder.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// Ask the providers now (each whose key variable is set, or those
    /// named with --provider) and keep the answers with their date.
    #[arg(long)]
    pub refresh: bool,
    /// Only these providers.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub provider: Vec<crate::core::ops::Provider>,
    /// How long one call may take (`30s`, `500ms`).
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    pub timeout: std::time::Duration,
    /// Print the result as JSON (exact text, for scripts).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CountArgs {
    /// The conversation: an id (jp-c<ID>, the number, jp://…), a path, or a
    /// unique fragment of its title; left out with --active or --demo.
    #[arg(required_unless_present_any = ["active", "demo"], conflicts_with = "active")]
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub conv: Option<String>,
    /// Count the request sent at this turn's first answer (1-based);
    /// default: the next request, after the last event.
    #[arg(long, value_name = "TURN")]
    pub at: Option<usize>,
    /// Count with OpenAI's o200k_base tokenizer, here, without a key: exact
    /// for OpenAI's current models, an indication for the others.
    #[arg(long)]
    pub offline: bool,
    /// How long one call may take (`30s`, `500ms`).
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    pub timeout: std::time::Duration,
    /// Print the result as JSON (exact text, for scripts).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RequestArgs {
    /// The conversation: an id (jp-c<ID>, the number, jp://…), a path, or a
    /// unique fragment of its title; left out with --active or --demo.
    #[arg(required_unless_present_any = ["active", "demo"], conflicts_with = "active")]
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub conv: Option<String>,
    /// Whose shape: default the conversation's model's provider.
    #[arg(long, value_enum)]
    pub provider: Option<crate::core::ops::Provider>,
    /// The request sent at this turn's first answer (1-based); default:
    /// the next request, after the last event.
    #[arg(long, value_name = "TURN")]
    pub at: Option<usize>,
    /// Print the body with what it is (provider, model, point, notes) as
    /// one JSON object; otherwise the body alone on stdout, the rest on
    /// stderr.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// Conversations (ids, paths or title fragments); none: every
    /// conversation of the workspace.
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub conv: Vec<String>,
    /// The window the hints' savings are replayed at (default: each
    /// conversation's own).
    #[arg(long, value_name = "N", value_parser = parse_window)]
    pub window: Option<u64>,
    /// A TOML/JSON/YAML file of compaction settings and tool hints,
    /// applied over each conversation's own config.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print the result as JSON (exact text, for scripts).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The conversation: an id (jp-c<ID>, the number, jp://…), a path, or a
    /// unique fragment of its title; left out with --active or --demo.
    #[arg(required_unless_present_any = ["active", "demo"], conflicts_with = "active")]
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub conv: Option<String>,
    #[command(flatten)]
    pub window: WindowArg,
    /// A file with a `[conversation.compaction.auto]` table (its `context`
    /// measure and thresholds apply).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Also write the context curve as a standalone SVG chart to FILE.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Print the result as JSON (exact text, for scripts).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Conversations to watch (id, path or title fragment); none: every
    /// conversation of the workspace and its user storage, new ones too.
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub convs: Vec<String>,
    /// Evaluate every watched conversation now, then exit.
    #[arg(long)]
    pub once: bool,
    /// Evaluate even where the configuration leaves it disabled.
    #[arg(long)]
    pub enable: bool,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// One JSON object per line.
    #[arg(long)]
    pub json: bool,
    /// Also say why nothing fired.
    #[arg(short, long)]
    pub verbose: bool,
    /// Say what would be appended at each boundary, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// With --dry-run, make the summaries too: a dry run otherwise never
    /// calls the summarizer.
    #[arg(long, requires = "dry_run")]
    pub summarize: bool,
}

#[derive(Debug, Args, Default)]
pub struct ShowArgs {
    /// The conversation: an id (jp-c<ID>, the number, jp://…), a path, or a
    /// unique fragment of its title; left out with --active or --demo.
    #[arg(required_unless_present_any = ["active", "demo"], conflicts_with = "active")]
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub conv: Option<String>,
    /// Show the projected view (what the model is sent) instead of the raw
    /// stream.
    #[arg(long)]
    pub compacted: bool,
    /// Project as today's jp does: it ignores `over` bounds (and `source`),
    /// so a bounded compaction strips every tool call of its range
    /// (implies --compacted).
    #[arg(long)]
    pub as_jp: bool,
    /// What the model had in front of it at turn TURN (1-based): the
    /// request before that turn's first answer, with only the compactions
    /// appended before it (implies --compacted).
    #[arg(long, value_name = "TURN", conflicts_with = "at_event")]
    pub at: Option<usize>,
    /// The same, just before raw event N (0-based, as `show --json` numbers
    /// events).
    #[arg(long, value_name = "N")]
    pub at_event: Option<usize>,
    /// Print the result as JSON (exact text, for scripts).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print the result as JSON (exact text, for scripts).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The conversation: an id (jp-c<ID>, the number, jp://…), a path, or a
    /// unique fragment of its title; left out with --active or --demo.
    #[arg(required_unless_present_any = ["active", "demo"], conflicts_with = "active")]
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub conv: Option<String>,
    /// The file to write [default: jp-c<ID>-report.html in the current
    /// folder]; `-` prints the report (a Markdown one without its charts).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// html (one self-contained file) or markdown (its charts written
    /// beside it as SVG files) [default: from FILE's extension, else html].
    #[arg(long, value_enum)]
    pub format: Option<ReportFormat>,
    /// Add the policies × windows comparison of `simulate` (summaries by
    /// the offline digest).
    #[arg(long)]
    pub simulate: bool,
    /// The windows --simulate compares [default: simulate's].
    #[arg(long, value_delimiter = ',', value_parser = parse_window, requires = "simulate")]
    pub windows: Vec<u64>,
    /// Keep likely secrets (API keys, bearer tokens, private keys,
    /// `password=` values) as the conversation holds them.
    #[arg(long)]
    pub no_redact: bool,
    /// Keep the home folder's absolute path instead of `~`.
    #[arg(long)]
    pub full_paths: bool,
    /// Judge the facts again by asking a model or command, as `lost
    /// --judge` does (the price printed first).
    #[arg(long, value_name = "NAME", value_enum)]
    pub judge: Option<SummarizerKind>,
    #[command(flatten)]
    pub window: WindowArg,
    /// A TOML file with a `[conversation.compaction.auto]` table.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Project as today's jp does (see `stats --as-jp`).
    #[arg(long)]
    pub as_jp: bool,
    /// Say what was written as JSON (the files, what was redacted).
    #[arg(long)]
    pub json: bool,
}

/// `--format`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Html,
    Markdown,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The conversation: an id (jp-c<ID>, the number, jp://…), a path, or a
    /// unique fragment of its title; left out with --active or --demo.
    #[arg(required_unless_present_any = ["active", "demo"], conflicts_with = "active")]
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub conv: Option<String>,
    #[command(flatten)]
    pub window: WindowArg,
    /// A TOML file with a `[conversation.compaction.auto]` table (its
    /// thresholds and `context` measure apply).
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    /// Project as today's jp does: it ignores `over` bounds (and `source`),
    /// so a bounded compaction strips every tool call of its range.
    #[arg(long)]
    pub as_jp: bool,

    /// Print the result as JSON (exact text, for scripts).

    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct LostArgs {
    #[command(flatten)]
    pub stats: StatsArgs,
    /// Judge the facts again by asking a model or command: each
    /// compaction's facts and what is still sent of its range go to it
    /// (one call a compaction), with the settings your own config defines
    /// for that summarizer (anthropic works with its defaults). The price
    /// is printed first; the offline judge by meaning is the default.
    #[arg(long, value_name = "NAME", value_enum)]
    pub judge: Option<SummarizerKind>,
    /// Only compaction N (1-based, as listed), its facts listed whole: the
    /// listing of all is bounded by the conversation's size.
    #[arg(long, value_name = "N")]
    pub compaction: Option<usize>,
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Conversations to simulate; none: every conversation of the
    /// workspace, with totals per policy and window.
    #[arg(add = clap_complete::ArgValueCompleter::new(super::complete::conversations))]
    pub convs: Vec<String>,
    /// Context windows to simulate [default: 32k,64k,128k,200k and each
    /// conversation's own].
    #[arg(long, value_delimiter = ',', value_parser = parse_window)]
    pub windows: Vec<u64>,
    /// Policies to compare [default: none,single,staged,staged+backstop;
    /// with --sweep, the one the swept setting changes].
    #[arg(long, value_delimiter = ',', value_enum)]
    pub policies: Vec<Strategy>,
    /// Run the simulation once per value of one setting and compare them:
    /// `trigger_ratio=0.5,0.6,0.75,0.9`, `soft_ratio=…`, `hard_ratio=…`,
    /// `recent_ratio=…`, soft/hard pairs `soft/hard=0.5/0.8,0.6/0.9`, or
    /// `summary_min_gain=0,0.1` (0: every summary the hard stage asks for).
    #[arg(long, value_name = "SETTING=VALUES", value_parser = parse_sweep)]
    pub sweep: Option<crate::core::ops::Sweep>,
    /// A TOML file changing the policies' parameters.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Which summarizer writes summaries.
    #[arg(long, value_name = "NAME", value_enum, default_value = "digest")]
    pub summarizer: SummarizerKind,
    /// Project as today's jp does: it ignores `over` bounds (and `source`),
    /// so a bounded compaction strips every tool call of its range.
    #[arg(long)]
    pub as_jp: bool,
    /// Also write the runs as a standalone SVG chart to FILE: per window,
    /// a context curve per policy; then the overflows and the cost per
    /// policy (one conversation).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Print the result as JSON (exact text, for scripts).
    #[arg(long)]
    pub json: bool,
}

fn parse_sweep(s: &str) -> Result<crate::core::ops::Sweep, String> {
    crate::core::ops::Sweep::parse(s)
}

// The core's choices as clap's value lists, here so the core stays free of
// the command line: each is parsed once, into the core's own type.

impl ValueEnum for Mode {
    fn value_variants<'a>() -> &'a [Self] {
        &[Mode::Single, Mode::Staged]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()))
    }
}

impl ValueEnum for Strategy {
    fn value_variants<'a>() -> &'a [Self] {
        &Strategy::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()))
    }
}

impl ValueEnum for SummarizerKind {
    fn value_variants<'a>() -> &'a [Self] {
        &SummarizerKind::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()))
    }
}

impl ValueEnum for crate::core::ops::Provider {
    fn value_variants<'a>() -> &'a [Self] {
        &crate::core::ops::Provider::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}
