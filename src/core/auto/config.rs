//! `[conversation.compaction.auto]`: the configuration of automatic
//! compaction, in the shape `jp` uses, with D50's and the staged-elision
//! ticket's constants as defaults.
//!
//! Precedence, lowest first: built-in defaults; the table in the
//! conversation's merged config; a `--config` file; command-line flags;
//! changes made in the inspector. Unknown keys and invalid values are errors
//! naming the key and the file.

use crate::core::compact::budget::Measure;
use crate::core::compact::plan::Keeps;
use crate::core::compact::range::Keep;
use crate::core::compact::rule::Rule;
use crate::core::model::compaction::ToolCalls;
use crate::core::store::jp_config::{self, Trust};
use crate::core::summarize::config::{DEFAULT_INSTRUCTIONS, DEFAULT_TIMEOUT, SummarizerConfig};
use serde_json::{Map, Value};
use std::path::Path;
use std::time::Duration;

/// The TOML table path, as people write it.
pub const TABLE: &str = "conversation.compaction.auto";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    // how summaries are made (jp-inspect's own table)
    pub summarizer: SummarizerConfig,
    /// What the thresholds measure: the whole context (default) or D50's
    /// literal events-only estimate.
    pub context: Measure,
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
                tool_calls: Some(ToolCalls::Strip {
                    request: true,
                    response: true,
                    over: Some(1024),
                }),
                summary: None,
            },
            summary: SummaryConfig::default(),
            summarizer: SummarizerConfig::Digest,
            context: Measure::Context,
            rules: None,
            user_summarizer: None,
            origins: std::collections::BTreeMap::new(),
            notices: Vec::new(),
        }
    }
}

/// A bad key or value, naming where it came from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: `{key}`: {message}")]
pub struct ConfigError {
    pub origin: String,
    pub key: String,
    pub message: String,
}

/// `jp` configs may wrap a value with its merge strategy.
fn unwrap(v: &Value) -> &Value {
    match v {
        Value::Object(o) if o.contains_key("value") && o.len() <= 2 => &o["value"],
        other => other,
    }
}

struct Layer<'a> {
    origin: &'a str,
    trust: Trust,
}

impl Layer<'_> {
    fn err<T>(&self, key: &str, message: impl Into<String>) -> Result<T, ConfigError> {
        Err(ConfigError {
            origin: self.origin.to_string(),
            key: key.to_string(),
            message: message.into(),
        })
    }

    fn table<'v>(&self, key: &str, v: &'v Value) -> Result<&'v Map<String, Value>, ConfigError> {
        match unwrap(v) {
            Value::Object(o) => Ok(o),
            other => self.err(key, format!("expected a table, found {}", describe(other))),
        }
    }

    fn boolean(&self, key: &str, v: &Value) -> Result<bool, ConfigError> {
        unwrap(v).as_bool().map_or_else(
            || {
                self.err(
                    key,
                    format!("expected true or false, found {}", describe(v)),
                )
            },
            Ok,
        )
    }

    fn count(&self, key: &str, v: &Value) -> Result<usize, ConfigError> {
        unwrap(v)
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map_or_else(
                || {
                    self.err(
                        key,
                        format!("expected a whole number (0 or more), found {}", describe(v)),
                    )
                },
                Ok,
            )
    }

    fn ratio(&self, key: &str, v: &Value) -> Result<f64, ConfigError> {
        match unwrap(v).as_f64() {
            Some(r) if r > 0.0 && r <= 1.0 => Ok(r),
            _ => self.err(
                key,
                format!(
                    "expected a ratio above 0 and at most 1 (e.g. 0.75), found {}",
                    describe(v)
                ),
            ),
        }
    }

    fn string(&self, key: &str, v: &Value) -> Result<String, ConfigError> {
        unwrap(v).as_str().map(str::to_owned).map_or_else(
            || self.err(key, format!("expected a string, found {}", describe(v))),
            Ok,
        )
    }

    fn seconds(&self, key: &str, v: &Value) -> Result<Duration, ConfigError> {
        match unwrap(v).as_f64() {
            Some(s) if s > 0.0 && s < 86_400.0 => Ok(Duration::from_secs_f64(s)),
            _ => self.err(
                key,
                format!("expected seconds (e.g. 30), found {}", describe(v)),
            ),
        }
    }

    fn reasoning(&self, key: &str, v: &Value) -> Result<bool, ConfigError> {
        match unwrap(v) {
            Value::String(s) if s == "strip" => Ok(true),
            Value::Bool(b) => Ok(*b),
            other => self.err(
                key,
                format!("expected \"strip\", found {}", describe(other)),
            ),
        }
    }

    fn tool_calls(&self, key: &str, v: &Value) -> Result<Option<ToolCalls>, ConfigError> {
        let strip = |request, response| ToolCalls::Strip {
            request,
            response,
            over: None,
        };
        match unwrap(v) {
            Value::String(s) => match s.as_str() {
                "strip" | "s" => Ok(Some(strip(true, true))),
                "strip-requests" | "strip_requests" | "sreq" => Ok(Some(strip(true, false))),
                "strip-responses" | "strip_responses" | "sres" => Ok(Some(strip(false, true))),
                "omit" | "o" => Ok(Some(ToolCalls::Omit { over: None })),
                "keep" | "none" => Ok(None),
                other => self.err(
                    key,
                    format!(
                        "unknown mode \"{other}\"; expected \"strip\", \"strip-requests\", \
                         \"strip-responses\", \"omit\" or a table"
                    ),
                ),
            },
            Value::Object(t) => {
                for k in t.keys() {
                    if !["policy", "request", "response", "over"].contains(&k.as_str()) {
                        return self.err(&format!("{key}.{k}"), "unknown key");
                    }
                }
                let over = match t.get("over") {
                    Some(o) => Some(self.count(&format!("{key}.over"), o)? as u64),
                    None => None,
                };
                let flag = |name: &str| match t.get(name) {
                    Some(b) => self.boolean(&format!("{key}.{name}"), b),
                    None => Ok(true),
                };
                match t.get("policy").map(unwrap).and_then(Value::as_str) {
                    Some("strip") | None => Ok(Some(ToolCalls::Strip {
                        request: flag("request")?,
                        response: flag("response")?,
                        over,
                    })),
                    Some("omit") => Ok(Some(ToolCalls::Omit { over })),
                    Some(other) => self.err(
                        &format!("{key}.policy"),
                        format!("unknown policy \"{other}\"; expected \"strip\" or \"omit\""),
                    ),
                }
            }
            other => self.err(
                key,
                format!("expected a mode or a table, found {}", describe(other)),
            ),
        }
    }

    fn summary(&self, key: &str, v: &Value) -> Result<SummaryConfig, ConfigError> {
        let t = self.table(key, v)?;
        let mut s = SummaryConfig::default();
        for (k, v) in t {
            let path = format!("{key}.{k}");
            match k.as_str() {
                "instructions" => s.instructions = Some(self.string(&path, v)?),
                // `jp`'s summary rules may name a model; ours come from the
                // summarizer table.
                "model" => {}
                _ => return self.err(&path, "unknown key"),
            }
        }
        Ok(s)
    }

    fn rule(&self, key: &str, v: &Value, into: &mut RuleConfig) -> Result<(), ConfigError> {
        for (k, v) in self.table(key, v)? {
            let path = format!("{key}.{k}");
            match k.as_str() {
                "keep_first" => into.keep_first = self.count(&path, v)?,
                "keep_last" => into.keep_last = self.count(&path, v)?,
                "reasoning" => into.reasoning = self.reasoning(&path, v)?,
                "tool_calls" => into.tool_calls = self.tool_calls(&path, v)?,
                "summary" => into.summary = Some(self.summary(&path, v)?),
                _ => return self.err(&path, "unknown key"),
            }
        }
        Ok(())
    }

    /// One of jp's `conversation.compaction.rules`: keeps as counts or
    /// durations (`"5h"`), jp's defaults (keep first 1, last 1).
    fn jp_rule(&self, key: &str, v: &Value) -> Result<Rule, ConfigError> {
        let mut keeps = Keeps::default();
        let mut rule = Rule {
            summarize: false,
            reasoning: false,
            tools: None,
            range: None,
            keeps: None,
            instructions: None,
        };
        for (k, v) in self.table(key, v)? {
            let path = format!("{key}.{k}");
            match k.as_str() {
                "keep_first" => keeps.keep_first = self.keep(&path, v)?,
                "keep_last" => keeps.keep_last = self.keep(&path, v)?,
                "reasoning" => rule.reasoning = self.reasoning(&path, v)?,
                "tool_calls" => rule.tools = self.tool_calls(&path, v)?,
                "summary" => {
                    rule.summarize = true;
                    rule.instructions = self.summary(&path, v)?.instructions;
                }
                _ => return self.err(&path, "unknown key"),
            }
        }
        rule.keeps = Some(keeps);
        Ok(rule)
    }

    /// A turn count, or jp's duration form (`"5h"`).
    fn keep(&self, key: &str, v: &Value) -> Result<Keep, ConfigError> {
        let parsed = match unwrap(v) {
            Value::Number(n) => n
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map(Keep::Turns),
            Value::String(s) => Keep::parse(s),
            _ => None,
        };
        parsed.map_or_else(
            || {
                self.err(
                    key,
                    format!(
                        "expected a turn count or a duration such as \"5h\", found {}",
                        describe(v)
                    ),
                )
            },
            Ok,
        )
    }

    fn summarizer(
        &self,
        key: &str,
        v: &Value,
        current: &SummarizerConfig,
    ) -> Result<SummarizerConfig, ConfigError> {
        let t = self.table(key, v)?;
        let kind = match t.get("kind") {
            Some(k) => self.string(&format!("{key}.kind"), k)?,
            None => current.name().to_string(),
        };
        let get_str = |name: &str| -> Result<Option<String>, ConfigError> {
            t.get(name)
                .map(|v| self.string(&format!("{key}.{name}"), v))
                .transpose()
        };
        let timeout = match t.get("timeout_secs") {
            Some(v) => self.seconds(&format!("{key}.timeout_secs"), v)?,
            None => match current {
                SummarizerConfig::Command { timeout, .. }
                | SummarizerConfig::OpenAi { timeout, .. } => *timeout,
                SummarizerConfig::Digest => DEFAULT_TIMEOUT,
            },
        };
        for k in t.keys() {
            if ![
                "kind",
                "command",
                "timeout_secs",
                "base_url",
                "model",
                "api_key_env",
            ]
            .contains(&k.as_str())
            {
                return self.err(&format!("{key}.{k}"), "unknown key");
            }
        }
        match kind.as_str() {
            "digest" => Ok(SummarizerConfig::Digest),
            "command" => {
                let command = match (get_str("command")?, current) {
                    (Some(c), _) => c,
                    (None, SummarizerConfig::Command { command, .. }) => command.clone(),
                    (None, _) => {
                        return self.err(
                            &format!("{key}.command"),
                            "the command summarizer needs a command line",
                        );
                    }
                };
                Ok(SummarizerConfig::Command { command, timeout })
            }
            "openai" => {
                let (base, model, env) = match current {
                    SummarizerConfig::OpenAi {
                        base_url,
                        model,
                        api_key_env,
                        ..
                    } => (
                        Some(base_url.clone()),
                        Some(model.clone()),
                        api_key_env.clone(),
                    ),
                    _ => (None, None, None),
                };
                let base_url = get_str("base_url")?
                    .or(base)
                    .unwrap_or_else(|| "https://api.openai.com/v1".into());
                let model = match get_str("model")?.or(model) {
                    Some(m) => m,
                    None => {
                        return self.err(
                            &format!("{key}.model"),
                            "the openai summarizer needs a model",
                        );
                    }
                };
                let api_key_env = get_str("api_key_env")?.or(env);
                Ok(SummarizerConfig::OpenAi {
                    base_url,
                    model,
                    api_key_env,
                    timeout,
                })
            }
            other => self.err(
                &format!("{key}.kind"),
                format!(
                    "unknown summarizer \"{other}\"; expected \"digest\", \"command\" or \"openai\""
                ),
            ),
        }
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

impl AutoConfig {
    /// Applies one layer: the `auto` table (already located), from `origin`.
    pub fn apply(&mut self, auto: &Value, origin: &str) -> Result<(), ConfigError> {
        self.apply_trusted(auto, origin, Trust::User)
    }

    /// Applies a `[conversation.compaction.auto]` table from a source
    /// trusted as far as `trust`.
    pub fn apply_trusted(
        &mut self,
        auto: &Value,
        origin: &str,
        trust: Trust,
    ) -> Result<(), ConfigError> {
        let l = Layer { origin, trust };
        let t = l.table(TABLE, auto)?;
        for (k, v) in t {
            let key = format!("{TABLE}.{k}");
            match k.as_str() {
                "enabled" => self.enabled = l.boolean(&key, v)?,
                "mode" => {
                    let s = l.string(&key, v)?;
                    self.mode = Mode::parse(&s).map_or_else(
                        || {
                            l.err(
                                &key,
                                format!("unknown mode \"{s}\"; expected \"single\" or \"staged\""),
                            )
                        },
                        Ok,
                    )?;
                }
                "min_turns" => self.min_turns = l.count(&key, v)?,
                "trigger_ratio" => self.trigger_ratio = l.ratio(&key, v)?,
                "soft_ratio" => self.soft_ratio = l.ratio(&key, v)?,
                "hard_ratio" => self.hard_ratio = l.ratio(&key, v)?,
                "recent_ratio" => self.recent_ratio = l.ratio(&key, v)?,
                "recent_min_turns" => self.recent_min_turns = l.count(&key, v)?,
                "keep_first" => self.keep_first = l.count(&key, v)?,
                "rule" => l.rule(&key, v, &mut self.rule)?,
                "elide" => l.rule(&key, v, &mut self.elide)?,
                "summary" => self.summary = l.summary(&key, v)?,
                "summarizer" => match l.trust {
                    Trust::User => {
                        self.summarizer = l.summarizer(&key, v, &self.summarizer)?;
                        self.user_summarizer = Some(self.summarizer.clone());
                    }
                    Trust::Shared => {
                        if !self.choose_summarizer(v) {
                            self.notices.push(format!(
                                "{origin}: `{key}` ignored: a workspace or conversation config may only \
                                 choose `digest` or the summarizer your own config defines \
                                 (commands, endpoints, models and keys come only from your \
                                 $XDG_CONFIG_HOME/jp config, --config or flags)"
                            ));
                            continue;
                        }
                    }
                },
                "context" => {
                    let s = l.string(&key, v)?;
                    self.context = Measure::parse(&s).map_or_else(
                        || {
                            l.err(
                                &key,
                                format!(
                                    "unknown measure \"{s}\"; expected \"context\" (system prompt, \
                                     tools and events against the usable window) or \"events\" \
                                     (D50's literal estimate)"
                                ),
                            )
                        },
                        Ok,
                    )?;
                }
                _ => return l.err(&key, "unknown key"),
            }
            self.origins.insert(key, origin.to_string());
        }
        if self.soft_ratio > self.hard_ratio {
            return l.err(
                &format!("{TABLE}.soft_ratio"),
                format!(
                    "the soft threshold ({}) must not be above the hard one ({})",
                    self.soft_ratio, self.hard_ratio
                ),
            );
        }
        Ok(())
    }

    /// A workspace or conversation config choosing a summarizer: `digest`,
    /// or the kind the user's own config defined, by `kind` alone. Whether
    /// the choice was allowed.
    fn choose_summarizer(&mut self, v: &Value) -> bool {
        let kind = match unwrap(v) {
            Value::String(s) => Some(s.as_str()),
            Value::Object(t) if t.keys().all(|k| k == "kind") => {
                t.get("kind").and_then(Value::as_str)
            }
            _ => None,
        };
        match (kind, &self.user_summarizer) {
            (Some("digest"), _) => {
                self.summarizer = SummarizerConfig::Digest;
                true
            }
            (Some(k), Some(defined)) if defined.name() == k => {
                self.summarizer = defined.clone();
                true
            }
            _ => false,
        }
    }

    /// Applies the compaction settings of a whole config document (a jp
    /// config file, a conversation's merged config, a `--config` file):
    /// `[conversation.compaction.auto]` and jp's `conversation.compaction.
    /// rules`.
    pub fn apply_document(&mut self, doc: &Value, origin: &str) -> Result<(), ConfigError> {
        self.apply_source(doc, origin, Trust::User)
    }

    /// `apply_document` for a source trusted as far as `trust`.
    pub fn apply_source(
        &mut self,
        doc: &Value,
        origin: &str,
        trust: Trust,
    ) -> Result<(), ConfigError> {
        let Some(compaction) = unwrap(doc)
            .get("conversation")
            .map(unwrap)
            .and_then(|c| c.get("compaction"))
        else {
            return Ok(());
        };
        if let Some(rules) = unwrap(compaction).get("rules") {
            let l = Layer { origin, trust };
            let key = "conversation.compaction.rules";
            let list = match unwrap(rules) {
                Value::Array(a) => a,
                other => {
                    return l.err(
                        key,
                        format!("expected a list of rules, found {}", describe(other)),
                    );
                }
            };
            let parsed = list
                .iter()
                .enumerate()
                .map(|(i, r)| l.jp_rule(&format!("{key}[{i}]"), r))
                .collect::<Result<Vec<_>, _>>()?;
            self.rules = Some(parsed);
            self.origins.insert(key.to_string(), origin.to_string());
        }
        match unwrap(compaction).get("auto") {
            Some(auto) => self.apply_trusted(auto, origin, trust),
            None => Ok(()),
        }
    }

    /// Reads a file (TOML, JSON, JSON5 or YAML by its extension) of the
    /// user's own and applies its compaction settings.
    pub fn apply_file(&mut self, path: &Path) -> Result<(), ConfigError> {
        let origin = path.display().to_string();
        let doc = jp_config::parse_file(path).map_err(|e| ConfigError {
            origin: origin.clone(),
            key: TABLE.into(),
            message: match e {
                crate::core::error::Error::Invalid { message, .. } => message,
                other => other.to_string(),
            },
        })?;
        self.apply_source(&doc, &origin, Trust::User)
    }

    /// The same policy as today's jp would apply its compactions: `over`
    /// bounds ignored, so the rules strip every tool call of their range.
    pub fn as_jp(&self) -> AutoConfig {
        let mut c = self.clone();
        for rule in [&mut c.rule, &mut c.elide] {
            rule.tool_calls = rule.tool_calls.map(|t| t.with_over(None));
        }
        c
    }

    /// The instructions for model-backed summarizers.
    pub fn instructions(&self) -> &str {
        self.summary
            .instructions
            .as_deref()
            .or(self
                .rule
                .summary
                .as_ref()
                .and_then(|s| s.instructions.as_deref()))
            .unwrap_or(DEFAULT_INSTRUCTIONS)
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
