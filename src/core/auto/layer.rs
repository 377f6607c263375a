//! Reading one configuration source: the typed values of the
//! `[conversation.compaction.auto]` table and of jp's rules, each error
//! naming the key and the file.

use super::config::{RuleConfig, SummaryConfig};
use crate::core::compact::range::Keep;
use crate::core::compact::range::Keeps;
use crate::core::compact::rule::Rule;
use crate::core::error::ConfigError;
use crate::core::model::compaction::ToolCalls;
use crate::core::store::jp_config::Trust;
use crate::core::summarize::anthropic;
use crate::core::summarize::config::{DEFAULT_TIMEOUT, SummarizerConfig};
use serde_json::{Map, Value};
use std::time::Duration;

/// The keys of a compaction rule (ours and jp's).
const RULE_KEYS: [&str; 5] = [
    "keep_first",
    "keep_last",
    "reasoning",
    "tool_calls",
    "summary",
];

/// `jp` configs may wrap a value with its merge strategy.
pub(super) fn unwrap(v: &Value) -> &Value {
    crate::core::model::config::unwrap_value(v)
}

pub(super) struct Layer<'a> {
    pub(super) origin: &'a str,
    pub(super) trust: Trust,
}

impl Layer<'_> {
    pub(super) fn err<T>(&self, key: &str, message: impl Into<String>) -> Result<T, ConfigError> {
        Err(ConfigError {
            origin: self.origin.to_string(),
            key: key.to_string(),
            message: message.into(),
        })
    }

    /// `key` is not one of `known`: the nearest of them offered.
    pub(super) fn unknown<T>(&self, key: &str, k: &str, known: &[&str]) -> Result<T, ConfigError> {
        self.err(key, crate::core::fmt::unknown_key(k, known))
    }

    pub(super) fn table<'v>(
        &self,
        key: &str,
        v: &'v Value,
    ) -> Result<&'v Map<String, Value>, ConfigError> {
        match unwrap(v) {
            Value::Object(o) => Ok(o),
            other => self.err(key, format!("expected a table, found {}", describe(other))),
        }
    }

    pub(super) fn boolean(&self, key: &str, v: &Value) -> Result<bool, ConfigError> {
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

    pub(super) fn count(&self, key: &str, v: &Value) -> Result<usize, ConfigError> {
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

    pub(super) fn ratio(&self, key: &str, v: &Value) -> Result<f64, ConfigError> {
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

    /// A share from 0 (none) to 1.
    pub(super) fn share(&self, key: &str, v: &Value) -> Result<f64, ConfigError> {
        match unwrap(v).as_f64() {
            Some(r) if (0.0..=1.0).contains(&r) => Ok(r),
            _ => self.err(
                key,
                format!(
                    "expected a share from 0 to 1 (e.g. 0.1), found {}",
                    describe(v)
                ),
            ),
        }
    }

    pub(super) fn string(&self, key: &str, v: &Value) -> Result<String, ConfigError> {
        unwrap(v).as_str().map(str::to_owned).map_or_else(
            || self.err(key, format!("expected a string, found {}", describe(v))),
            Ok,
        )
    }

    pub(super) fn seconds(&self, key: &str, v: &Value) -> Result<Duration, ConfigError> {
        match unwrap(v).as_f64() {
            Some(s) if s > 0.0 && s < 86_400.0 => Ok(Duration::from_secs_f64(s)),
            _ => self.err(
                key,
                format!("expected seconds (e.g. 30), found {}", describe(v)),
            ),
        }
    }

    /// `"strip"` (or a bool), or jp's table with a threshold:
    /// `{ policy = "strip", over = "16KB" }`.
    pub(super) fn reasoning(
        &self,
        key: &str,
        v: &Value,
    ) -> Result<(bool, Option<u64>), ConfigError> {
        match unwrap(v) {
            Value::String(s) if s == "strip" => Ok((true, None)),
            Value::Bool(b) => Ok((*b, None)),
            Value::Object(t) => {
                const KNOWN: [&str; 2] = ["policy", "over"];
                if let Some(k) = t.keys().find(|k| !KNOWN.contains(&k.as_str())) {
                    return self.unknown(&format!("{key}.{k}"), k, &KNOWN);
                }
                match t.get("policy").map(unwrap) {
                    Some(Value::String(s)) if s == "strip" => {}
                    Some(other) => {
                        return self.err(
                            &format!("{key}.policy"),
                            format!("expected \"strip\", found {}", describe(other)),
                        );
                    }
                    None => return self.err(key, "a reasoning table needs `policy = \"strip\"`"),
                }
                let over = match t.get("over") {
                    Some(o) => Some(self.size(&format!("{key}.over"), o)?),
                    None => None,
                };
                Ok((true, over))
            }
            other => self.err(
                key,
                format!(
                    "expected \"strip\" or {{ policy = \"strip\", over = \"16KB\" }}, found {}",
                    describe(other)
                ),
            ),
        }
    }

    /// A byte size as jp reads one: a count, or `"16KB"`, `"1MB"` (binary).
    pub(super) fn size(&self, key: &str, v: &Value) -> Result<u64, ConfigError> {
        crate::core::model::byte_size::from_json(unwrap(v)).or_else(|e| self.err(key, e))
    }

    pub(super) fn tool_calls(
        &self,
        key: &str,
        v: &Value,
    ) -> Result<Option<ToolCalls>, ConfigError> {
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
                    const KNOWN: [&str; 4] = ["policy", "request", "response", "over"];
                    if !KNOWN.contains(&k.as_str()) {
                        return self.unknown(&format!("{key}.{k}"), k, &KNOWN);
                    }
                }
                let over = match t.get("over") {
                    Some(o) => Some(self.size(&format!("{key}.over"), o)?),
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

    pub(super) fn summary(&self, key: &str, v: &Value) -> Result<SummaryConfig, ConfigError> {
        let t = self.table(key, v)?;
        let mut s = SummaryConfig::default();
        for (k, v) in t {
            let path = format!("{key}.{k}");
            match k.as_str() {
                "instructions" => s.instructions = Some(self.string(&path, v)?),
                // `jp`'s summary rules may name a model; ours come from the
                // summarizer table.
                "model" => {}
                _ => return self.unknown(&path, k, &["instructions", "model"]),
            }
        }
        Ok(s)
    }

    pub(super) fn rule(
        &self,
        key: &str,
        v: &Value,
        into: &mut RuleConfig,
    ) -> Result<(), ConfigError> {
        for (k, v) in self.table(key, v)? {
            let path = format!("{key}.{k}");
            match k.as_str() {
                "keep_first" => into.keep_first = self.count(&path, v)?,
                "keep_last" => into.keep_last = self.count(&path, v)?,
                "reasoning" => (into.reasoning, into.reasoning_over) = self.reasoning(&path, v)?,
                "tool_calls" => into.tool_calls = self.tool_calls(&path, v)?,
                "summary" => into.summary = Some(self.summary(&path, v)?),
                _ => return self.unknown(&path, k, &RULE_KEYS),
            }
        }
        Ok(())
    }

    /// One of jp's `conversation.compaction.rules`: keeps as counts or
    /// durations (`"5h"`), jp's defaults (keep first 1, last 1).
    pub(super) fn jp_rule(&self, key: &str, v: &Value) -> Result<Rule, ConfigError> {
        let mut keeps = Keeps::default();
        let mut rule = Rule::default();
        for (k, v) in self.table(key, v)? {
            let path = format!("{key}.{k}");
            match k.as_str() {
                "keep_first" => keeps.keep_first = self.keep(&path, v)?,
                "keep_last" => keeps.keep_last = self.keep(&path, v)?,
                "reasoning" => (rule.reasoning, rule.reasoning_over) = self.reasoning(&path, v)?,
                "tool_calls" => rule.tools = self.tool_calls(&path, v)?,
                "summary" => {
                    rule.summarize = true;
                    rule.instructions = self.summary(&path, v)?.instructions;
                }
                _ => return self.unknown(&path, k, &RULE_KEYS),
            }
        }
        rule.keeps = Some(keeps);
        Ok(rule)
    }

    /// A turn count, or jp's duration form (`"5h"`).
    pub(super) fn keep(&self, key: &str, v: &Value) -> Result<Keep, ConfigError> {
        let parsed = match unwrap(v) {
            Value::Number(n) => n
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map(Keep::Turns),
            Value::String(s) => Keep::parse(s),
            _ => None,
        };
        if let (None, Value::String(text)) = (&parsed, unwrap(v))
            && let Some(why) = Keep::too_long(text)
        {
            return self.err(key, why);
        }
        parsed.map_or_else(
            || {
                self.err(
                    key,
                    format!(
                        "expected a turn count (3), \"@N\" (a turn), \"-N\" (from the end), a \
                         duration (\"5h\") or \"last-compaction\", found {}",
                        describe(v)
                    ),
                )
            },
            Ok,
        )
    }

    pub(super) fn summarizer(
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
                | SummarizerConfig::OpenAi { timeout, .. }
                | SummarizerConfig::Anthropic { timeout, .. } => *timeout,
                SummarizerConfig::Digest => DEFAULT_TIMEOUT,
            },
        };
        const KNOWN: [&str; 9] = [
            "kind",
            "command",
            "directory",
            "cost_per_call",
            "timeout_secs",
            "base_url",
            "model",
            "api_key_env",
            "max_tokens",
        ];
        if let Some(k) = t.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return self.unknown(&format!("{key}.{k}"), k, &KNOWN);
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
                let directory = match get_str("directory")? {
                    Some(d) if std::path::Path::new(&d).is_absolute() => Some(d.into()),
                    Some(_) => {
                        return self.err(
                            &format!("{key}.directory"),
                            "must be an absolute path (where the command runs)",
                        );
                    }
                    None => match current {
                        SummarizerConfig::Command { directory, .. } => directory.clone(),
                        _ => None,
                    },
                };
                let cost_per_call = match t.get("cost_per_call") {
                    Some(v) => match unwrap(v).as_f64() {
                        Some(c) if c.is_finite() && c >= 0.0 => Some(c),
                        _ => {
                            return self.err(
                                &format!("{key}.cost_per_call"),
                                format!("expected US dollars, 0 or more, found {}", describe(v)),
                            );
                        }
                    },
                    None => match current {
                        SummarizerConfig::Command { cost_per_call, .. } => *cost_per_call,
                        _ => None,
                    },
                };
                Ok(SummarizerConfig::Command {
                    command,
                    timeout,
                    directory,
                    cost_per_call,
                })
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
                if t.contains_key("max_tokens") {
                    return self.err(
                        &format!("{key}.max_tokens"),
                        "only the anthropic summarizer takes max_tokens",
                    );
                }
                Ok(SummarizerConfig::OpenAi {
                    base_url,
                    model,
                    api_key_env,
                    timeout,
                })
            }
            "anthropic" => {
                // Settings not given keep the current anthropic ones, else the defaults.
                let (base_url, model, api_key_env, max_tokens) = match current {
                    SummarizerConfig::Anthropic {
                        base_url,
                        model,
                        api_key_env,
                        max_tokens,
                        ..
                    } => (
                        base_url.clone(),
                        model.clone(),
                        api_key_env.clone(),
                        *max_tokens,
                    ),
                    _ => (
                        anthropic::DEFAULT_BASE_URL.to_string(),
                        anthropic::DEFAULT_MODEL.to_string(),
                        anthropic::DEFAULT_KEY_ENV.to_string(),
                        anthropic::DEFAULT_MAX_TOKENS,
                    ),
                };
                let max_tokens = match t.get("max_tokens") {
                    Some(v) => match self.count(&format!("{key}.max_tokens"), v)? {
                        0 => {
                            return self.err(&format!("{key}.max_tokens"), "must be at least 1");
                        }
                        n => u32::try_from(n).unwrap_or(u32::MAX),
                    },
                    None => max_tokens,
                };
                Ok(SummarizerConfig::Anthropic {
                    base_url: get_str("base_url")?.unwrap_or(base_url),
                    model: get_str("model")?.unwrap_or(model),
                    api_key_env: get_str("api_key_env")?.unwrap_or(api_key_env),
                    max_tokens,
                    timeout,
                })
            }
            other => self.err(
                &format!("{key}.kind"),
                format!(
                    "unknown summarizer \"{other}\"; expected \"digest\", \"command\", \"openai\" \
                     or \"anthropic\""
                ),
            ),
        }
    }
}

pub(super) fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}
