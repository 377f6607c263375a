//! Layering `[conversation.compaction.auto]` and jp's compaction keys onto
//! an [`AutoConfig`], source by source, each value checked and named.

/// The keys of jp-inspect's table, for "did you mean".
const KEYS: [&str; 16] = [
    "enabled",
    "mode",
    "min_turns",
    "trigger_ratio",
    "soft_ratio",
    "hard_ratio",
    "recent_ratio",
    "recent_min_turns",
    "keep_first",
    "summary_min_gain",
    "rule",
    "elide",
    "summary",
    "summarizer",
    "estimate",
    "context",
];

use super::config::{AutoConfig, Estimate, Mode, PLUGIN_TABLE, TABLE};
use super::layer::{Layer, describe, unwrap};
use crate::core::compact::budget::Measure;
use crate::core::compact::rule::Rule;
use crate::core::error::ConfigError;
use crate::core::model::compaction::ToolCalls;
use crate::core::store::jp_config::Trust;
use crate::core::summarize::config::{DEFAULT_INSTRUCTIONS, SummarizerConfig};
use serde_json::Value;
use std::path::Path;

/// Whose file a document is: jp-inspect's own (`--config`, a
/// conversation's config) or one of jp's config files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Ours,
    Jps,
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
        self.apply_table(auto, TABLE, origin, trust)
    }

    /// Applies jp-inspect's table found at `table` (the legacy place, or
    /// the plugin options jp keeps).
    fn apply_table(
        &mut self,
        auto: &Value,
        table: &str,
        origin: &str,
        trust: Trust,
    ) -> Result<(), ConfigError> {
        let l = Layer { origin, trust };
        let t = l.table(table, auto)?;
        for (k, v) in t {
            let key = format!("{table}.{k}");
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
                "summary_min_gain" => self.summary_min_gain = l.share(&key, v)?,
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
                "estimate" => {
                    let s = l.string(&key, v)?;
                    self.estimate = match s.as_str() {
                        "chars" | "characters" => Estimate::Characters,
                        "measured" => Estimate::Measured,
                        _ => {
                            return l.err(
                                &key,
                                format!(
                                    "unknown estimate \"{s}\"; expected \"characters\" \
                                     (D50's characters / 4) or \"measured\" (that times the \
                                     ratio `jp-inspect count` measured)"
                                ),
                            );
                        }
                    };
                }
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
                _ => return l.err(&key, crate::core::fmt::unknown_key(k, &KEYS)),
            }
            self.origins.insert(key, origin.to_string());
        }
        if self.soft_ratio > self.hard_ratio {
            return l.err(
                &format!("{table}.soft_ratio"),
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
        self.apply_source_as(doc, origin, trust, Place::Ours)
    }

    /// `apply_source` for one of jp's own config files: jp-inspect's table
    /// in the place jp refuses is still read, and the file's owner told
    /// where jp takes it.
    pub fn apply_jp_file(
        &mut self,
        doc: &Value,
        origin: &str,
        trust: Trust,
    ) -> Result<(), ConfigError> {
        self.apply_source_as(doc, origin, trust, Place::Jps)
    }

    fn apply_source_as(
        &mut self,
        doc: &Value,
        origin: &str,
        trust: Trust,
        place: Place,
    ) -> Result<(), ConfigError> {
        use crate::core::model::config::unwrap_section;
        let section = |v: &Value, path: &[&str]| -> Option<Value> {
            let mut at = unwrap(v);
            for key in path {
                at = unwrap_section(key, at.get(*key)?);
            }
            Some(at.clone())
        };
        if let Some(compaction) = section(doc, &["conversation", "compaction"]) {
            if let Some(rules) = unwrap(&compaction).get("rules") {
                // jp's own setting, in whatever form jp or a person wrote
                // it: one that can't be read is said (key, file, what was
                // found) and left out, so everything else still works.
                if let Err(e) = self.apply_rules(rules, origin, trust) {
                    self.notices
                        .push(format!("{e}; these rules are left out, the others apply"));
                }
            }
            if let Some(auto) = unwrap(&compaction).get("auto") {
                if place == Place::Jps {
                    self.notices.push(format!(
                        "{origin}: jp refuses `[{TABLE}]` in its config files (\"unknown field \
                         `auto`\") and then runs no command at all; move the table to \
                         `[{PLUGIN_TABLE}]`, where jp keeps it for jp-inspect (read here \
                         either way)"
                    ));
                }
                self.apply_table(unwrap_section("auto", auto), TABLE, origin, trust)?;
            }
        }
        if let Some(tools) = section(doc, &["conversation", "tools"]) {
            let found = self.apply_hints(&tools, "conversation.tools", origin)?;
            if place == Place::Jps && !found.is_empty() {
                self.notices.push(format!(
                    "{origin}: today's jp refuses `compaction` in `[conversation.tools.{}]` \
                     (\"unknown field `compaction`\", RFD D17 is a draft) and then runs no \
                     command at all; put the hint in \
                     `[plugins.command.inspect.options.tools.{}]` (read here either way)",
                    found[0], found[0]
                ));
            }
        }
        if let Some(tools) = section(doc, &["plugins", "command", "inspect", "options", "tools"]) {
            self.apply_hints(&tools, "plugins.command.inspect.options.tools", origin)?;
        }
        match section(doc, &["plugins", "command", "inspect", "options", "auto"]) {
            Some(auto) => self.apply_table(&auto, PLUGIN_TABLE, origin, trust),
            None => Ok(()),
        }
    }

    /// `*`'s hint given to every tool the conversation's config names
    /// without one of its own, as jp's `*` defaults reach each tool.
    pub fn expand_tool_hints(&mut self, merged: &Value) {
        let Some(all) = self.tool_hints.remove("*") else {
            return;
        };
        let tools = merged
            .pointer("/conversation/tools")
            .map(unwrap)
            .and_then(Value::as_object);
        for name in tools.into_iter().flat_map(|t| t.keys()) {
            if name != "*" {
                self.tool_hints.entry(name.clone()).or_insert(all);
            }
        }
    }

    /// D17's `compaction` hint of each tool of a `tools` table (`keep`,
    /// `strip`, `strip-requests`, `strip-responses`, `omit`); the tools
    /// that had one.
    fn apply_hints(
        &mut self,
        tools: &Value,
        key: &str,
        origin: &str,
    ) -> Result<Vec<String>, ConfigError> {
        let l = Layer {
            origin,
            trust: Trust::User,
        };
        let mut found = Vec::new();
        let Some(tools) = unwrap(tools).as_object() else {
            return Ok(found);
        };
        for (name, tool) in tools {
            let Some(hint) = unwrap(tool).get("compaction") else {
                continue;
            };
            let path = format!("{key}.{name}.compaction");
            let text = l.string(&path, hint)?;
            let Some(policy) = ToolCalls::from_hint(&text) else {
                return l.err(
                    &path,
                    format!(
                        "unknown hint `{text}` (expected keep, strip, strip-requests, \
                         strip-responses or omit)"
                    ),
                );
            };
            self.tool_hints.insert(name.clone(), policy);
            self.origins.insert(path, origin.to_string());
            found.push(name.clone());
        }
        Ok(found)
    }

    /// One source's `conversation.compaction.rules`, layered over the
    /// sources before it as jp layers them.
    fn apply_rules(
        &mut self,
        rules: &Value,
        origin: &str,
        trust: Trust,
    ) -> Result<(), ConfigError> {
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
        // Layered as jp layers them (`vec_with_strategy`): the first
        // replaces the built-in default, later ones append unless their
        // wrapper says `replace` or `prepend`.
        let strategy = crate::core::model::config::strategy_of(rules);
        // Appending extends what is there, so many files of rules cost
        // what they hold, not its square.
        let rules = match (self.rules.take(), strategy) {
            (None, _) | (_, Some("replace")) => parsed,
            (Some(prev), Some("prepend")) => parsed.into_iter().chain(prev).collect(),
            (Some(mut prev), _) => {
                prev.extend(parsed);
                prev
            }
        };
        // jp writes its default into every conversation it saves: that is
        // no setting of anyone's.
        if rules != [Rule::jp_default()] {
            self.origins.insert(key.to_string(), origin.to_string());
        }
        self.rules = Some(rules);
        Ok(())
    }

    /// Reads a file (TOML, JSON, JSON5 or YAML by its extension) of the
    /// user's own and applies its compaction settings.
    pub fn apply_file(&mut self, path: &Path) -> Result<(), ConfigError> {
        let origin = path.display().to_string();
        let doc = crate::core::store::config_file::parse_file(path).map_err(|e| ConfigError {
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
            rule.reasoning_over = None;
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
mod tests {
    use super::*;
    use crate::core::model::compaction::ToolCalls;
    use serde_json::json;
    use std::time::Duration;

    #[test]
    fn defaults_are_d50_and_the_ticket() {
        let c = AutoConfig::default();
        assert!(!c.enabled);
        assert_eq!(c.trigger_ratio, 0.75);
        assert_eq!(c.min_turns, 5);
        assert_eq!((c.rule.keep_first, c.rule.keep_last), (1, 3));
        assert_eq!(
            (c.soft_ratio, c.hard_ratio, c.recent_ratio),
            (0.6, 0.85, 0.3)
        );
        assert_eq!(c.recent_min_turns, 2);
        assert_eq!(c.elide.tool_calls.unwrap().over(), Some(1024));
    }

    /// `files_for` keeps of a config file only what `compaction_part`
    /// picks: every form the settings are read in must survive the cut.
    #[test]
    fn the_compaction_part_of_a_document_is_read_as_the_whole() {
        use crate::core::model::config::compaction_part;
        let rules = json!([{"keep_first": "2", "keep_last": "1", "reasoning": "strip"}]);
        let auto = json!({"mode": "single", "hard_ratio": 0.8, "soft_ratio": 0.5});
        let docs = [
            json!({"conversation": {"compaction": {"auto": auto, "rules": rules}},
                   "assistant": {"system_prompt": "long"}, "extends": ["a/*.toml"]}),
            json!({"conversation": {"value": {"compaction": {"auto": auto}, "tools": {}},
                                    "strategy": "merge"}}),
            json!({"conversation": {"compaction": {"value": {"auto": auto}},
                                    "tools": {"*": {"run": "ask"}}}}),
            json!({"conversation": {"compaction": {"rules": {"value": rules,
                   "strategy": "replace", "discard_when_merged": false}}}}),
            json!({"conversation": {"value": {"compaction": {"auto": auto}}, "tools": 1}}),
            json!({"conversation": {"compaction": {"auto": {"hard_ratio": "high"}}}}),
            json!({"conversation": "not a table", "extends": "b.toml"}),
            json!({"value": {"conversation": {"compaction": {"auto": auto}}}, "strategy": "merge"}),
            json!({"assistant": {}}),
            json!({"plugins": {"command": {"inspect": {"run": "unattended",
                   "options": {"auto": auto, "other": 1}}, "ticket": {}}}}),
            json!({"plugins": {"value": {"command": {"inspect": {"options":
                   {"value": {"auto": {"mode": "single"}}, "strategy": "merge"}}}}}}),
            json!([1, 2]),
        ];
        for doc in docs {
            let read = |d: &Value| {
                let mut c = AutoConfig::default();
                let result = c
                    .apply_source(d, "f", Trust::Shared)
                    .map_err(|e| e.to_string());
                (c, result)
            };
            let part = compaction_part(&doc);
            assert_eq!(read(&part), read(&doc), "{doc}");
            assert_eq!(part.get("extends"), doc.get("extends"), "{doc}");
            assert!(!part.to_string().contains("system_prompt"), "{part}");
        }
    }

    #[test]
    fn layers_override_in_order() {
        let mut c = AutoConfig::default();
        c.apply_document(
            &json!({"conversation": {"compaction": {"auto": {"enabled": true, "mode": "single", "trigger_ratio": 0.5}}}}),
            "base_config.json",
        )
        .unwrap();
        c.apply(
            &json!({"trigger_ratio": 0.9, "rule": {"keep_last": 5, "tool_calls": "omit"}}),
            "x.toml",
        )
        .unwrap();
        assert!(c.enabled);
        assert_eq!(c.mode, Mode::Single);
        assert_eq!(c.trigger_ratio, 0.9);
        assert_eq!(c.rule.keep_last, 5);
        assert_eq!(c.rule.tool_calls, Some(ToolCalls::Omit { over: None }));
    }

    #[test]
    fn errors_name_the_key_and_the_file() {
        let mut c = AutoConfig::default();
        let e = c
            .apply(&json!({"trigger_ratio": 2}), "auto.toml")
            .unwrap_err();
        assert_eq!(e.key, "conversation.compaction.auto.trigger_ratio");
        assert!(e.to_string().starts_with("auto.toml: "), "{e}");
        let e = c
            .apply(&json!({"rule": {"keep_lats": 2}}), "auto.toml")
            .unwrap_err();
        assert_eq!(e.key, "conversation.compaction.auto.rule.keep_lats");
        assert!(e.message.contains("did you mean `keep_last`?"), "{e}");
        // Every nested table offers its nearest key too.
        for (doc, near) in [
            (json!({"elide": {"tool_cals": "strip"}}), "tool_calls"),
            (json!({"summary": {"instructons": "x"}}), "instructions"),
            (json!({"rule": {"reasoning": {"polcy": "strip"}}}), "policy"),
            (
                json!({"elide": {"tool_calls": {"respnse": true}}}),
                "response",
            ),
            (
                json!({"summarizer": {"kind": "command", "comand": "x"}}),
                "command",
            ),
        ] {
            let e = AutoConfig::default().apply(&doc, "f").unwrap_err();
            assert!(
                e.message.contains(&format!("did you mean `{near}`?")),
                "{doc}: {e}"
            );
        }
        let e = c.apply(&json!({"soft_ratoi": 0.5}), "f").unwrap_err();
        assert!(e.message.contains("did you mean `soft_ratio`?"), "{e}");
        let e = c.apply(&json!({"zzzzzzzz": 1}), "f").unwrap_err();
        assert!(e.message.contains("expected one of enabled, mode"), "{e}");
        let e = c.apply(&json!({"mode": "tiered"}), "f").unwrap_err();
        assert!(e.message.contains("unknown mode"));
        let e = c
            .apply(&json!({"soft_ratio": 0.9, "hard_ratio": 0.8}), "f")
            .unwrap_err();
        assert!(e.message.contains("must not be above"));
    }

    #[test]
    fn tool_calls_table_with_over() {
        let mut c = AutoConfig::default();
        c.apply(&json!({"elide": {"tool_calls": {"policy": "strip", "request": false, "response": true, "over": 2048}}}), "f")
            .unwrap();
        assert_eq!(
            c.elide.tool_calls,
            Some(ToolCalls::Strip {
                request: false,
                response: true,
                over: Some(2048)
            })
        );
    }

    /// jp's next release writes sizes as strings and a reasoning threshold
    /// as a table: read them as it does.
    #[test]
    fn thresholds_as_jps_next_release_writes_them() {
        let mut c = AutoConfig::default();
        c.apply(
            &json!({"elide": {
                "tool_calls": {"policy": "strip", "request": false, "response": true, "over": "1MB"},
                "reasoning": {"policy": "strip", "over": "16KB"}
            }}),
            "f",
        )
        .unwrap();
        assert_eq!(c.elide.tool_calls.and_then(ToolCalls::over), Some(1 << 20));
        assert_eq!(
            (c.elide.reasoning, c.elide.reasoning_over),
            (true, Some(16 << 10))
        );
        let as_jp = c.as_jp();
        assert_eq!(as_jp.elide.reasoning_over, None);
        for (bad, says) in [
            (
                json!({"elide": {"reasoning": {"policy": "strip", "oer": "1KB"}}}),
                "elide.reasoning.oer",
            ),
            (
                json!({"elide": {"reasoning": {"policy": "keep"}}}),
                "elide.reasoning.policy",
            ),
            (
                json!({"elide": {"tool_calls": {"policy": "omit", "over": "1.5MB"}}}),
                "unknown size unit",
            ),
        ] {
            let e = AutoConfig::default().apply(&bad, "f").unwrap_err();
            assert!(
                format!("{} {}", e.key, e.message).contains(says),
                "{} {}",
                e.key,
                e.message
            );
        }
    }

    #[test]
    fn reads_a_toml_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auto.toml");
        std::fs::write(
            &path,
            "[conversation.compaction.auto]\nmode = \"single\"\n[conversation.compaction.auto.rule]\nkeep_last = 4\n\
             [conversation.compaction.auto.summarizer]\nkind = \"command\"\ncommand = \"cat\"\ntimeout_secs = 5\n",
        )
        .unwrap();
        let mut c = AutoConfig::default();
        c.apply_file(&path).unwrap();
        assert_eq!(c.mode, Mode::Single);
        assert_eq!(c.rule.keep_last, 4);
        assert_eq!(
            c.summarizer,
            SummarizerConfig::Command {
                command: "cat".into(),
                timeout: Duration::from_secs(5),
                directory: None,
                cost_per_call: None,
            }
        );
        std::fs::write(
            &path,
            "[conversation.compaction.auto]\nmin_turns = \"five\"\n",
        )
        .unwrap();
        let e = c.apply_file(&path).unwrap_err().to_string();
        assert!(e.contains("auto.toml"), "{e}");
        assert!(e.contains("min_turns"), "{e}");
    }

    #[test]
    fn anthropic_needs_no_settings_and_later_layers_refine_it() {
        let mut c = AutoConfig::default();
        c.apply(&json!({"summarizer": {"kind": "anthropic"}}), "user.toml")
            .unwrap();
        assert_eq!(c.summarizer, SummarizerConfig::anthropic_defaults());
        // A later layer changes one setting and keeps the others.
        c.apply(
            &json!({"summarizer": {"model": "claude-opus-4-1", "max_tokens": 500}}),
            "x.toml",
        )
        .unwrap();
        let SummarizerConfig::Anthropic {
            model,
            max_tokens,
            api_key_env,
            base_url,
            ..
        } = &c.summarizer
        else {
            panic!("{:?}", c.summarizer)
        };
        assert_eq!((model.as_str(), *max_tokens), ("claude-opus-4-1", 500));
        assert_eq!(api_key_env, "ANTHROPIC_API_KEY");
        assert_eq!(base_url, "https://api.anthropic.com");
    }
}
