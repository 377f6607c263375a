//! `[conversation.compaction.auto]`: the configuration of automatic
//! compaction, in the shape `jp` uses, with D50's and the staged-elision
//! ticket's constants as defaults.
//!
//! Precedence, lowest first: built-in defaults; the table in the
//! conversation's merged config; a `--config` file; command-line flags;
//! changes made in the inspector. Unknown keys and invalid values are errors
//! naming the key and the file.

use crate::core::compact::budget::Measure;
use crate::core::compact::rule::Rule;
use crate::core::model::compaction::ToolCalls;
use crate::core::summarize::config::SummarizerConfig;

/// The TOML table path, as people write it.
pub const TABLE: &str = "conversation.compaction.auto";

/// Where jp lets a config file hold jp-inspect's settings: a plugin's
/// `options`, which jp keeps, passes through its config inheritance and
/// hands over in `init`. jp refuses `conversation.compaction.auto` in its
/// own files ("unknown field `auto`, expected `rules`") and then runs no
/// command at all.
pub const PLUGIN_TABLE: &str = "plugins.command.inspect.options.auto";

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// RFD D50: one threshold, one rolling rule.
    Single,
    /// The ticket's T4: elide at a soft threshold, summarise at a hard one.
    Staged,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Single => "single",
            Mode::Staged => "staged",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "single" => Some(Mode::Single),
            "staged" => Some(Mode::Staged),
            _ => None,
        }
    }
}

/// A standing rule: what to compact and what to keep.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleConfig {
    pub keep_first: usize,
    pub keep_last: usize,
    pub reasoning: bool,
    /// With `reasoning`: only reasoning over this many bytes.
    pub reasoning_over: Option<u64>,
    pub tool_calls: Option<ToolCalls>,
    /// `Some` makes the rule summarise (with these instructions, if any).
    pub summary: Option<SummaryConfig>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SummaryConfig {
    pub instructions: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AutoConfig {
    pub enabled: bool,
    pub mode: Mode,
    pub min_turns: usize,
    // single (D50)
    pub trigger_ratio: f64,
    pub rule: RuleConfig,
    // staged (T4)
    pub soft_ratio: f64,
    pub hard_ratio: f64,
    pub recent_ratio: f64,
    pub recent_min_turns: usize,
    pub keep_first: usize,
    pub elide: RuleConfig,
    pub summary: SummaryConfig,
    /// A summary that cannot bring the context under the hard threshold
    /// must take at least this share of the usable window out beyond the
    /// boundary's elision, or it is not bought (0: always bought, as T4
    /// says).
    pub summary_min_gain: f64,
    // how summaries are made (jp-inspect's own table)
    pub summarizer: SummarizerConfig,
    /// What the thresholds measure: the whole context (default) or D50's
    /// literal events-only estimate.
    pub context: Measure,
    /// How the trigger turns characters into tokens: D50's characters / 4,
    /// or that corrected by the conversation's measured ratio.
    pub estimate: Estimate,
    /// jp's `conversation.compaction.rules`: what `compact` without a rule
    /// applies (`None`: jp's built-in default).
    pub rules: Option<Vec<Rule>>,
    /// The summarizer the user's own configuration defined, which a
    /// workspace or conversation config may choose.
    pub user_summarizer: Option<SummarizerConfig>,
    /// Where each effective setting came from, by key.
    pub origins: std::collections::BTreeMap<String, String>,
    /// Settings that were ignored, and why (said by every shell).
    pub notices: Vec<String>,
    /// D17's per-tool hints, by tool name (`*`: every configured tool
    /// without its own), as the policies they store as.
    pub tool_hints: std::collections::BTreeMap<String, ToolCalls>,
}

impl Default for AutoConfig {
    fn default() -> Self {
        AutoConfig {
            enabled: false,
            mode: Mode::Staged,
            min_turns: 5,
            trigger_ratio: 0.75,
            rule: RuleConfig {
                keep_first: 1,
                keep_last: 3,
                reasoning: true,
                reasoning_over: None,
                tool_calls: Some(ToolCalls::Strip {
                    request: true,
                    response: true,
                    over: None,
                }),
                summary: None,
            },
            soft_ratio: 0.6,
            hard_ratio: 0.85,
            recent_ratio: 0.3,
            recent_min_turns: 2,
            keep_first: 1,
            elide: RuleConfig {
                keep_first: 1,
                keep_last: 0,
                reasoning: true,
                reasoning_over: None,
                tool_calls: Some(ToolCalls::Strip {
                    request: true,
                    response: true,
                    over: Some(1024),
                }),
                summary: None,
            },
            summary: SummaryConfig::default(),
            summary_min_gain: 0.1,
            summarizer: SummarizerConfig::Digest,
            context: Measure::Context,
            estimate: Estimate::Characters,
            rules: None,
            user_summarizer: None,
            origins: std::collections::BTreeMap::new(),
            notices: Vec::new(),
            tool_hints: std::collections::BTreeMap::new(),
        }
    }
}

impl AutoConfig {
    /// The settings in which `other` differs from this, each as `name:
    /// this → other`. Where the settings came from, and notices, are not
    /// settings; no rules is jp's built-in default rule.
    pub fn differences(&self, other: &AutoConfig) -> Vec<String> {
        let rules = |c: &AutoConfig| {
            let default = [crate::core::compact::rule::Rule::jp_default()];
            format!("{:?}", c.rules.as_deref().unwrap_or(&default))
        };
        let fields = |c: &AutoConfig| -> Vec<(&'static str, String)> {
            vec![
                ("enabled", format!("{}", c.enabled)),
                ("mode", c.mode.as_str().to_string()),
                ("min_turns", c.min_turns.to_string()),
                ("trigger_ratio", c.trigger_ratio.to_string()),
                ("rule", format!("{:?}", c.rule)),
                ("soft_ratio", c.soft_ratio.to_string()),
                ("hard_ratio", c.hard_ratio.to_string()),
                ("recent_ratio", c.recent_ratio.to_string()),
                ("recent_min_turns", c.recent_min_turns.to_string()),
                ("keep_first", c.keep_first.to_string()),
                ("elide", format!("{:?}", c.elide)),
                ("summary", format!("{:?}", c.summary)),
                ("summary_min_gain", c.summary_min_gain.to_string()),
                ("summarizer", c.summarizer.name().to_string()),
                ("context", format!("{:?}", c.context)),
                ("estimate", c.estimate.as_str().to_string()),
                ("conversation.compaction.rules", rules(c)),
            ]
        };
        fields(self)
            .into_iter()
            .zip(fields(other))
            .filter(|((_, a), (_, b))| a != b)
            .map(|((name, a), (_, b))| format!("{name}: {a} → {b}"))
            .collect()
    }
}

/// How the trigger estimates tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Estimate {
    /// D50's characters / 4.
    #[default]
    Characters,
    /// Characters / 4 times the ratio `count` measured for the conversation
    /// (D50's estimate where none was measured).
    Measured,
}

impl Estimate {
    pub fn as_str(self) -> &'static str {
        match self {
            Estimate::Characters => "characters",
            Estimate::Measured => "measured",
        }
    }
}
