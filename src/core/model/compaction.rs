//! The compaction event: an overlay that changes what the model sees of a
//! range of turns without touching the raw events.

use crate::core::model::byte_size;
use crate::core::model::timestamp::{self, Timestamp};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// Who created a compaction (RFD D50's `CompactionSource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Manual,
    Auto,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Manual => "manual",
            Source::Auto => "auto",
        }
    }
}

/// How tool calls of the covered turns are projected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolCalls {
    /// Blank requests' arguments and/or replace responses' content by a
    /// status line. With `over`, only calls whose own payload is larger than
    /// that many bytes are stripped.
    Strip {
        request: bool,
        response: bool,
        over: Option<u64>,
    },
    /// Drop requests and responses. With `over`, only pairs whose combined
    /// payload is larger than that many bytes.
    Omit { over: Option<u64> },
}

impl ToolCalls {
    /// jp's stored form: `{"policy": "strip", "request": …, "response": …}`
    /// or `{"policy": "omit"}`, with `over` as jp writes sizes.
    pub fn to_json(self) -> Value {
        let mut t = Map::new();
        match self {
            ToolCalls::Strip {
                request, response, ..
            } => {
                t.insert("policy".into(), json!("strip"));
                t.insert("request".into(), json!(request));
                t.insert("response".into(), json!(response));
            }
            ToolCalls::Omit { .. } => {
                t.insert("policy".into(), json!("omit"));
            }
        }
        if let Some(over) = self.over() {
            t.insert("over".into(), json!(byte_size::format(over)));
        }
        Value::Object(t)
    }

    /// D17's hint vocabulary: `keep`, `strip`, `strip-requests`,
    /// `strip-responses`, `omit`.
    pub fn from_hint(hint: &str) -> Option<ToolCalls> {
        let strip = |request, response| ToolCalls::Strip {
            request,
            response,
            over: None,
        };
        Some(match hint {
            "keep" => strip(false, false),
            "strip" => strip(true, true),
            "strip-requests" => strip(true, false),
            "strip-responses" => strip(false, true),
            "omit" => ToolCalls::Omit { over: None },
            _ => return None,
        })
    }

    /// The hint that stores as this policy (`over` aside).
    pub fn hint(self) -> &'static str {
        match self {
            ToolCalls::Strip {
                request: false,
                response: false,
                ..
            } => "keep",
            ToolCalls::Strip {
                request: true,
                response: true,
                ..
            } => "strip",
            ToolCalls::Strip { request: true, .. } => "strip-requests",
            ToolCalls::Strip { .. } => "strip-responses",
            ToolCalls::Omit { .. } => "omit",
        }
    }

    pub fn over(self) -> Option<u64> {
        match self {
            ToolCalls::Strip { over, .. } | ToolCalls::Omit { over } => over,
        }
    }

    /// The same policy with another `over` bound.
    pub fn with_over(self, over: Option<u64>) -> ToolCalls {
        match self {
            ToolCalls::Strip {
                request, response, ..
            } => ToolCalls::Strip {
                request,
                response,
                over,
            },
            ToolCalls::Omit { .. } => ToolCalls::Omit { over },
        }
    }

    /// A short label for tables: `strip`, `strip-requests`, `omit`, `strip>1024`.
    pub fn label(self) -> String {
        let base = match self {
            ToolCalls::Strip {
                request: true,
                response: true,
                ..
            } => "strip",
            ToolCalls::Strip {
                request: true,
                response: false,
                ..
            } => "strip-requests",
            ToolCalls::Strip {
                request: false,
                response: true,
                ..
            } => "strip-responses",
            ToolCalls::Strip { .. } => "strip-none",
            ToolCalls::Omit { .. } => "omit",
        };
        match self.over() {
            Some(n) => format!("{base}>{}", byte_size::label(n)),
            None => base.to_string(),
        }
    }
}

/// A compaction as stored in `events.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compaction {
    pub timestamp: Timestamp,
    pub from_turn: usize,
    pub to_turn: usize,
    /// When present it replaces every model-visible event of the covered
    /// turns; `reasoning` and `tool_calls` are then ignored.
    pub summary: Option<String>,
    /// `true` = `"reasoning": "strip"`.
    pub strip_reasoning: bool,
    /// With `strip_reasoning`: only reasoning larger than this many bytes
    /// is stripped (jp writes `{"policy": "strip", "over": "16KB"}`).
    pub reasoning_over: Option<u64>,
    pub tool_calls: Option<ToolCalls>,
    pub source: Source,
    /// Which of jp-inspect's summarizers wrote `summary` (`digest`,
    /// `command`, `openai`, `anthropic`), which decides what it cost; `None`
    /// when no record says (jp's own, through an LLM).
    pub summarizer: Option<String>,
    /// The summary was written by a person, verbatim (jp's `"source":
    /// "authored"`): no model call made it, and no range may grow over it.
    pub authored: bool,
    /// Per-tool policies that replace `tool_calls` for the calls of the
    /// tools they name (jp's RFD D17): the hints of jp's config, resolved
    /// when the compaction was made. `keep` is a strip of neither half.
    pub tool_overrides: BTreeMap<String, ToolCalls>,
}

/// D17's hints resolved into a compaction's `tool_overrides` beside its
/// default `tool_calls`: a hint that strips takes the default's `over`
/// bound (the staged elision's hints strip only what is large, as the
/// elision does); `omit` is for noise, which is small, so it omits every
/// call; `keep` keeps every call; a hint the default already says is left
/// out.
pub fn resolve_hints(
    hints: &BTreeMap<String, ToolCalls>,
    default: Option<ToolCalls>,
) -> BTreeMap<String, ToolCalls> {
    let over = default.and_then(ToolCalls::over);
    hints
        .iter()
        .map(|(name, h)| {
            let policy = match h.hint() {
                "keep" | "omit" => *h,
                _ => h.with_over(over),
            };
            (name.clone(), policy)
        })
        .filter(|(_, p)| Some(*p) != default)
        .collect()
}

/// What a compaction does that its range doesn't say: jp projects these
/// exactly as written, so they stay, but a reader must be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Oddity {
    /// `to_turn < from_turn`: jp's projection skips it.
    Backwards,
    /// `to_turn` past the last turn: jp clamps it, so it covers every turn
    /// that comes, and D50's rolling range stays empty behind it.
    PastTheEnd,
}

impl Oddity {
    pub fn describe(self) -> &'static str {
        match self {
            Oddity::Backwards => "no effect: the range runs backwards",
            Oddity::PastTheEnd => {
                "covers every future turn as well: its range runs past the last turn"
            }
        }
    }
}

impl std::fmt::Display for Oddity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}

impl Compaction {
    /// What is odd about it in a conversation of `turn_count` turns.
    pub fn oddity(&self, turn_count: usize) -> Option<Oddity> {
        if self.to_turn < self.from_turn {
            Some(Oddity::Backwards)
        } else if self.to_turn >= turn_count {
            Some(Oddity::PastTheEnd)
        } else {
            None
        }
    }

    /// The turns it covers.
    pub fn range(&self) -> crate::core::model::turn_range::TurnRange {
        crate::core::model::turn_range::TurnRange {
            from: self.from_turn,
            to: self.to_turn,
        }
    }

    /// Whether it decides anything of tool calls: a default policy or a
    /// tool's own.
    pub fn has_tool_policy(&self) -> bool {
        self.tool_calls.is_some() || !self.tool_overrides.is_empty()
    }

    /// A short label of its policies: `summary`, `reasoning + tools(strip)`.
    pub fn policy_label(&self) -> String {
        if self.summary.is_some() {
            return if self.authored {
                "authored summary".to_string()
            } else {
                "summary".to_string()
            };
        }
        let mut parts = Vec::new();
        if self.strip_reasoning {
            parts.push(match self.reasoning_over {
                Some(n) => format!("reasoning>{}", byte_size::label(n)),
                None => "reasoning".to_string(),
            });
        }
        if let Some(t) = self.tool_calls {
            parts.push(format!("tools({})", t.label()));
        }
        if !self.tool_overrides.is_empty() {
            let each: Vec<String> = self
                .tool_overrides
                .iter()
                .map(|(name, t)| format!("{name}={}", t.hint()))
                .collect();
            parts.push(format!("per tool({})", each.join(", ")));
        }
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(" + ")
        }
    }

    /// The event object in the key order `jp` writes: `type`, `timestamp`,
    /// the range, the policies, then our `source` marker.
    pub fn to_json(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("type".into(), json!("compaction"));
        obj.insert(
            "timestamp".into(),
            json!(timestamp::format(&self.timestamp)),
        );
        obj.insert("from_turn".into(), json!(self.from_turn));
        obj.insert("to_turn".into(), json!(self.to_turn));
        if let Some(text) = &self.summary {
            let summary = if self.authored {
                json!({ "summary": text, "source": "authored" })
            } else {
                json!({ "summary": text })
            };
            obj.insert("summary".into(), summary);
        }
        if self.strip_reasoning {
            // The bare form whenever it can be: a jp before thresholds
            // refuses the whole conversation over the object form.
            let reasoning = match self.reasoning_over {
                Some(n) => json!({"policy": "strip", "over": byte_size::format(n)}),
                None => json!("strip"),
            };
            obj.insert("reasoning".into(), reasoning);
        }
        if let Some(tools) = self.tool_calls {
            obj.insert("tool_calls".into(), tools.to_json());
        }
        if !self.tool_overrides.is_empty() {
            let map: Map<String, Value> = self
                .tool_overrides
                .iter()
                .map(|(name, t)| (name.clone(), t.to_json()))
                .collect();
            obj.insert("tool_overrides".into(), Value::Object(map));
        }
        obj.insert("source".into(), json!(self.source.as_str()));
        if let (Some(by), Some(_)) = (&self.summarizer, &self.summary) {
            obj.insert("summarizer".into(), json!(by));
        }
        Value::Object(obj)
    }

    /// Parses and validates a stored compaction. The error says what is wrong
    /// in words a person can act on; such an event is skipped, never fatal.
    pub fn from_json(value: &Value) -> Result<Compaction, String> {
        let obj = value.as_object().ok_or("not a JSON object")?;
        let ts = match obj.get("timestamp") {
            Some(Value::String(s)) => {
                timestamp::parse(s).ok_or_else(|| format!("bad timestamp `{s}`"))?
            }
            Some(other) => return Err(format!("timestamp is {}, not a string", kind(other))),
            None => return Err("missing `timestamp`".into()),
        };
        let from_turn = turn_field(obj, "from_turn")?;
        let to_turn = turn_field(obj, "to_turn")?;

        // jp writes `source` only for an authored summary; a generated one
        // is the shape before `source` existed.
        let authored = obj.get("summary").is_some_and(Value::is_object)
            && obj
                .get("summary")
                .and_then(|s| s.get("source"))
                .and_then(Value::as_str)
                == Some("authored");
        let summary = match obj.get("summary") {
            None | Some(Value::Null) => None,
            Some(Value::Object(s)) => match s.get("summary") {
                Some(Value::String(text)) => Some(text.clone()),
                Some(other) => {
                    return Err(format!("summary.summary is {}, not a string", kind(other)));
                }
                None => return Err("summary object without a `summary` text".into()),
            },
            Some(other) => return Err(format!("summary is {}, not an object", kind(other))),
        };

        let (strip_reasoning, reasoning_over) = match obj.get("reasoning") {
            None | Some(Value::Null) => (false, None),
            Some(Value::String(s)) => (reasoning_policy(s)?, None),
            Some(Value::Object(r)) => parse_reasoning(r)?,
            Some(other) => {
                return Err(format!(
                    "reasoning is {}, not \"strip\" or {{\"policy\": \"strip\", \"over\": SIZE}}",
                    kind(other)
                ));
            }
        };

        let tool_calls = match obj.get("tool_calls") {
            None | Some(Value::Null) => None,
            Some(Value::Object(t)) => Some(parse_tool_calls(t)?),
            Some(other) => {
                return Err(format!(
                    "tool_calls is {}, not an object like {{\"policy\":\"strip\",\"request\":true,\"response\":true}}",
                    kind(other)
                ));
            }
        };

        // `jp` ignores `source`, so an unexpected value must not hide the
        // compaction; it is read as manual (the serde default).
        let source = match obj.get("source") {
            Some(Value::String(s)) if s == "auto" => Source::Auto,
            _ => Source::Manual,
        };

        let tool_overrides = match obj.get("tool_overrides") {
            None | Some(Value::Null) => BTreeMap::new(),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(name, v)| match v {
                    Value::Object(t) => parse_tool_calls(t)
                        .map(|p| (name.clone(), p))
                        .map_err(|e| format!("tool_overrides.{name}: {e}")),
                    other => Err(format!(
                        "tool_overrides.{name} is {}, not a tool_calls object",
                        kind(other)
                    )),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(format!(
                    "tool_overrides is {}, not an object of tool names",
                    kind(other)
                ));
            }
        };

        // jp drops it too; jp-inspect's record keeps it.
        let summarizer = obj
            .get("summarizer")
            .and_then(Value::as_str)
            .filter(|s| matches!(*s, "digest" | "command" | "openai" | "anthropic"))
            .map(str::to_owned);
        Ok(Compaction {
            timestamp: ts,
            from_turn,
            to_turn,
            summary,
            strip_reasoning,
            reasoning_over,
            tool_calls,
            source,
            summarizer,
            authored,
            tool_overrides,
        })
    }
}

fn reasoning_policy(s: &str) -> Result<bool, String> {
    match s {
        "strip" => Ok(true),
        other => Err(format!(
            "unknown reasoning policy `{other}` (the only one is `strip`)"
        )),
    }
}

/// jp's object form, `{"policy": "strip", "over": "16KB"}`: any other key
/// is a mistake (a misspelt `over` would strip everything), as jp says.
fn parse_reasoning(r: &Map<String, Value>) -> Result<(bool, Option<u64>), String> {
    if let Some(k) = r.keys().find(|k| *k != "policy" && *k != "over") {
        return Err(format!("unknown reasoning option `{k}` (expected `over`)"));
    }
    let strip = match r.get("policy") {
        Some(Value::String(s)) => reasoning_policy(s)?,
        Some(other) => {
            return Err(format!("reasoning.policy is {}, not a string", kind(other)));
        }
        None => return Err("reasoning object without a `policy`".into()),
    };
    let over = match r.get("over") {
        None => None,
        Some(v) => Some(byte_size::from_json(v).map_err(|e| format!("reasoning.over: {e}"))?),
    };
    Ok((strip, over))
}

fn parse_tool_calls(t: &Map<String, Value>) -> Result<ToolCalls, String> {
    let over = match t.get("over") {
        None => None,
        Some(v) => Some(byte_size::from_json(v).map_err(|e| format!("tool_calls.over: {e}"))?),
    };
    match t.get("policy").and_then(Value::as_str) {
        Some("strip") => {
            let flag = |name: &str| match t.get(name) {
                Some(Value::Bool(b)) => Ok(*b),
                Some(other) => Err(format!("tool_calls.{name} is {}, not a bool", kind(other))),
                None => Err(format!("tool_calls strip without `{name}`")),
            };
            Ok(ToolCalls::Strip {
                request: flag("request")?,
                response: flag("response")?,
                over,
            })
        }
        Some("omit") => Ok(ToolCalls::Omit { over }),
        Some(other) => Err(format!(
            "unknown tool_calls policy `{other}` (expected `strip` or `omit`)"
        )),
        None => Err("tool_calls without a `policy`".into()),
    }
}

fn turn_field(obj: &Map<String, Value>, name: &str) -> Result<usize, String> {
    match obj.get(name) {
        None => Err(format!("missing `{name}`")),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("{name} is {v}, not a turn index (0 or more)")),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Value {
        json!({"type":"compaction","timestamp":"2026-11-30 10:00:00.5","from_turn":1,"to_turn":9})
    }

    #[test]
    fn round_trips_in_jp_key_order() {
        let mut v = base();
        v["reasoning"] = json!("strip");
        v["tool_calls"] = json!({"policy":"strip","request":true,"response":true});
        v["source"] = json!("auto");
        let c = Compaction::from_json(&v).unwrap();
        assert_eq!(c.source, Source::Auto);
        let out = serde_json::to_string(&c.to_json()).unwrap();
        assert_eq!(
            out,
            r#"{"type":"compaction","timestamp":"2026-11-30 10:00:00.5","from_turn":1,"to_turn":9,"reasoning":"strip","tool_calls":{"policy":"strip","request":true,"response":true},"source":"auto"}"#
        );
    }

    #[test]
    fn over_is_read_as_a_count_or_a_size_and_written_as_jp_writes_it() {
        for over in [json!(1024), json!("1KB"), json!("1kb"), json!("1 KiB")] {
            let mut v = base();
            v["tool_calls"] = json!({"policy":"strip","request":true,"response":true,"over":over});
            let c = Compaction::from_json(&v).unwrap();
            assert_eq!(c.tool_calls.unwrap().over(), Some(1024), "{over}");
            assert_eq!(c.to_json()["tool_calls"]["over"], "1KB");
        }
        let mut v = base();
        v["tool_calls"] = json!({"policy":"omit","over":"4KB"});
        let c = Compaction::from_json(&v).unwrap();
        assert_eq!(c.tool_calls, Some(ToolCalls::Omit { over: Some(4096) }));
    }

    #[test]
    fn a_reasoning_threshold_is_jps_object_and_only_then() {
        let mut v = base();
        v["reasoning"] = json!({"policy": "strip", "over": "16KB"});
        let c = Compaction::from_json(&v).unwrap();
        assert!(c.strip_reasoning);
        assert_eq!(c.reasoning_over, Some(16 * 1024));
        assert_eq!(
            c.to_json()["reasoning"],
            json!({"policy": "strip", "over": "16KB"})
        );
        assert_eq!(c.policy_label(), "reasoning>16KB");
        // Without a threshold, the object reads as the bare policy and is
        // written back bare, the form every jp reads.
        v["reasoning"] = json!({"policy": "strip"});
        let c = Compaction::from_json(&v).unwrap();
        assert_eq!((c.strip_reasoning, c.reasoning_over), (true, None));
        assert_eq!(c.to_json()["reasoning"], "strip");
    }

    #[test]
    fn a_bad_threshold_says_where_and_why() {
        for (field, value, says) in [
            (
                "reasoning",
                json!({"policy": "strip", "oer": "1KB"}),
                "unknown reasoning option `oer`",
            ),
            (
                "reasoning",
                json!({"policy": "keep", "over": 1}),
                "unknown reasoning policy `keep`",
            ),
            ("reasoning", json!({"over": 1}), "without a `policy`"),
            (
                "reasoning",
                json!({"policy": "strip", "over": null}),
                "reasoning.over: null",
            ),
            (
                "reasoning",
                json!({"policy": "strip", "over": "1.5MB"}),
                "reasoning.over",
            ),
            (
                "tool_calls",
                json!({"policy": "omit", "over": -1}),
                "tool_calls.over: -1",
            ),
            (
                "tool_calls",
                json!({"policy": "omit", "over": "1TB"}),
                "unit `tb`",
            ),
            ("reasoning", json!(true), "not \"strip\""),
        ] {
            let mut v = base();
            v[field] = value;
            let e = Compaction::from_json(&v).unwrap_err();
            assert!(e.contains(says), "{e}");
        }
    }

    #[test]
    fn absent_source_is_manual() {
        assert_eq!(
            Compaction::from_json(&base()).unwrap().source,
            Source::Manual
        );
    }

    #[test]
    fn rejects_every_shape_jp_refuses() {
        let cases: Vec<(Value, &str)> = vec![
            (
                json!({"type":"compaction","timestamp":"2026-11-30 10:00:00","from_turn":1}),
                "missing `to_turn`",
            ),
            (
                json!({"type":"compaction","timestamp":"2026-11-30 10:00:00","from_turn":-1,"to_turn":2}),
                "not a turn index",
            ),
            (
                json!({"type":"compaction","timestamp":"soon","from_turn":1,"to_turn":2}),
                "bad timestamp",
            ),
            (
                json!({"type":"compaction","timestamp":"2026-11-30 10:00:00","from_turn":1,"to_turn":2,"tool_calls":"strip"}),
                "not an object",
            ),
            (
                json!({"type":"compaction","timestamp":"2026-11-30 10:00:00","from_turn":1,"to_turn":2,"tool_calls":{"policy":"strip"}}),
                "without `request`",
            ),
            (
                json!({"type":"compaction","timestamp":"2026-11-30 10:00:00","from_turn":1,"to_turn":2,"reasoning":"keep"}),
                "unknown reasoning",
            ),
            (
                json!({"type":"compaction","timestamp":"2026-11-30 10:00:00","from_turn":1,"to_turn":2,"tool_calls":{"policy":"drop"}}),
                "unknown tool_calls policy",
            ),
            (
                json!({"type":"compaction","timestamp":"2026-11-30 10:00:00","from_turn":1,"to_turn":2,"summary":"text"}),
                "not an object",
            ),
            (
                json!({"type":"compaction","timestamp":"2026-11-30 10:00:00","from_turn":1.5,"to_turn":2}),
                "not a turn index",
            ),
        ];
        for (v, want) in cases {
            let err = Compaction::from_json(&v).unwrap_err();
            assert!(err.contains(want), "{v}: {err}");
        }
    }
}
