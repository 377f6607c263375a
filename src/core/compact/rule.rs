//! The inline rule syntax `jp` users already type with `--compact=SPEC`:
//!
//! ```text
//! SPEC     = POLICIES [":" RANGE]
//! POLICIES = POLICY ("+" POLICY)*
//! POLICY   = r | reasoning | s | summarize | t | tools | t=MODE | tools=MODE
//! MODE     = strip | s | strip-requests | sreq | strip-responses | sres | omit | o
//! RANGE    = [BOUND] ".." [BOUND] | BOUND
//! BOUND    = N (1-based turn, N >= 1) | -N (N turns before the last)
//! ```
//!
//! As jp's next release has it, `r` and `t` may end in `,over=SIZE`: only
//! items larger than SIZE bytes (`16KB` = 16384; for a tool call each half
//! on its own size, for `omit` the pair's total). One extension: a range
//! may start at `last` (the turn after the last compaction).

use crate::core::compact::range::Bound;
use crate::core::model::byte_size;
use crate::core::model::compaction::ToolCalls;

/// A parsed rule: what to compact and, optionally, which turns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rule {
    pub summarize: bool,
    pub reasoning: bool,
    /// With `reasoning`: only reasoning larger than this many bytes.
    pub reasoning_over: Option<u64>,
    pub tools: Option<ToolCalls>,
    /// `None`: the configured `keep_first`/`keep_last` apply.
    pub range: Option<RangeSpec>,
    /// A configured rule's own bounds (`conversation.compaction.rules`),
    /// over the command's when it has no range.
    pub keeps: Option<crate::core::compact::range::Keeps>,
    /// A configured rule's own summary instructions.
    pub instructions: Option<String>,
    /// A summary's text, verbatim (`compact --summary TEXT`, jp's
    /// `summary.text`): no summarizer runs, and the summary is authored.
    pub text: Option<String>,
}

/// A range as written: either end may be open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeSpec {
    pub from: Option<Bound>,
    pub to: Option<Bound>,
}

impl Rule {
    /// What `jp conversation compact` applies when no rule is configured,
    /// and what jp writes into every conversation it saves as its
    /// `conversation.compaction.rules`: strip reasoning and tool calls,
    /// keeping the first and the last turn.
    pub fn jp_default() -> Rule {
        Rule {
            summarize: false,
            reasoning: true,
            reasoning_over: None,
            tools: Some(ToolCalls::Strip {
                request: true,
                response: true,
                over: None,
            }),
            range: None,
            keeps: Some(crate::core::compact::range::Keeps::default()),
            instructions: None,
            text: None,
        }
    }

    /// The policies in words: `summary`, `reasoning + tools`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.summarize {
            parts.push("summary".to_string());
        }
        if self.reasoning {
            parts.push(match self.reasoning_over {
                Some(n) => format!("reasoning>{}", crate::core::model::byte_size::label(n)),
                None => "reasoning".to_string(),
            });
        }
        if let Some(t) = self.tools {
            parts.push(match t {
                ToolCalls::Strip {
                    request: true,
                    response: true,
                    over: None,
                } => "tools".to_string(),
                other => format!("tools {}", other.label()),
            });
        }
        parts.join(" + ")
    }
}

use crate::core::error::RuleError;

/// Help text for the syntax, shown by the CLI and the TUI.
pub const SYNTAX_HELP: &str = "\
RULE = POLICIES[:RANGE]
  policies (join with +): r (strip reasoning), s (summarise),
    t (strip tool calls), t=sreq / t=sres (requests / responses only),
    t=omit (drop tool calls); add ,over=SIZE to r or t to touch only
    items over SIZE bytes (16KB, 1mb: binary; a call's halves each on
    their own size, omit on the pair's total)
  range (1-based turns): 2..6, 3.. (from 3), ..-3 (all but the last 3),
    -3 (= ..-3), 5 (= 5..), last.. (after the last compaction), .. (all)
  examples: s:..-3   r+t:2..   t=sreq:2..6   r,over=16kb+t=sres,over=1mb:..-3";

struct Parser<'a> {
    spec: &'a str,
    chars: Vec<char>,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn err<T>(&self, at: usize, message: impl Into<String>) -> Result<T, RuleError> {
        Err(RuleError {
            spec: self.spec.to_string(),
            at,
            message: message.into(),
        })
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, s: &str) -> bool {
        let n = s.chars().count();
        let end = self.pos + n;
        if end <= self.chars.len() && self.chars[self.pos..end].iter().copied().eq(s.chars()) {
            self.pos = end;
            true
        } else {
            false
        }
    }

    /// A run of characters that are not separators.
    fn word(&mut self, stop: &[char]) -> (usize, String) {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if stop.contains(&c) {
                break;
            }
            self.pos += 1;
        }
        (start, self.chars[start..self.pos].iter().collect())
    }

    fn found(&self, at: usize) -> String {
        match self.chars.get(at) {
            None => "the end".to_string(),
            Some(_) => {
                let rest: String = self.chars[at..].iter().take(12).collect();
                format!("`{rest}`")
            }
        }
    }
}

impl std::str::FromStr for Rule {
    type Err = RuleError;

    /// An inline rule as typed (`s:2..9`, `t=strip:..-3`).
    fn from_str(spec: &str) -> Result<Rule, RuleError> {
        parse(spec)
    }
}

/// Parses an inline rule.
pub fn parse(spec: &str) -> Result<Rule, RuleError> {
    let mut p = Parser {
        spec,
        chars: spec.trim().chars().collect(),
        pos: 0,
    };
    let mut rule = Rule::default();
    if p.chars.is_empty() {
        return p.err(0, "expected at least one policy: r, s or t (see `--help`)");
    }
    loop {
        let (at, name) = p.word(&['+', ':', '=', ',']);
        match name.as_str() {
            "r" | "reasoning" | "s" | "summarize" | "summarise" | "summary" => {
                if p.peek() == Some('=') {
                    return p.err(p.pos, format!("`{name}` takes no value"));
                }
                let reasoning = name.starts_with('r');
                let flag = if reasoning {
                    &mut rule.reasoning
                } else {
                    &mut rule.summarize
                };
                if *flag {
                    return p.err(at, format!("`{name}` given twice"));
                }
                *flag = true;
                if p.peek() == Some(',') {
                    if !reasoning {
                        // A summary replaces its whole range: there is
                        // nothing for a size to select.
                        return p.err(p.pos, format!("`{name}` takes no `over` threshold"));
                    }
                    rule.reasoning_over = Some(parse_over(&mut p)?);
                }
            }
            "t" | "tools" => {
                if rule.tools.is_some() {
                    return p.err(at, "tools policy given twice");
                }
                let mut tools = ToolCalls::Strip {
                    request: true,
                    response: true,
                    over: None,
                };
                if p.eat("=") {
                    let (mat, mode) = p.word(&['+', ':', ',']);
                    tools = match mode.as_str() {
                        "strip" | "s" => tools,
                        "strip-requests" | "sreq" => ToolCalls::Strip {
                            request: true,
                            response: false,
                            over: None,
                        },
                        "strip-responses" | "sres" => ToolCalls::Strip {
                            request: false,
                            response: true,
                            over: None,
                        },
                        "omit" | "o" => ToolCalls::Omit { over: None },
                        "" => {
                            return p.err(mat, "expected a tools mode: strip, sreq, sres or omit");
                        }
                        other => {
                            return p.err(
                                mat,
                                format!(
                                    "unknown tools mode `{other}`; expected strip (s), \
                                     strip-requests (sreq), strip-responses (sres) or omit (o)"
                                ),
                            );
                        }
                    };
                }
                if p.peek() == Some(',') {
                    let bytes = parse_over(&mut p)?;
                    tools = match tools {
                        ToolCalls::Strip {
                            request, response, ..
                        } => ToolCalls::Strip {
                            request,
                            response,
                            over: Some(bytes),
                        },
                        ToolCalls::Omit { .. } => ToolCalls::Omit { over: Some(bytes) },
                    };
                }
                rule.tools = Some(tools);
            }
            "" => {
                return p.err(
                    at,
                    format!("expected a policy (r, s, t, t=MODE), found {}", p.found(at)),
                );
            }
            other => {
                return p.err(
                    at,
                    format!(
                        "unknown policy `{other}`; expected r (reasoning), s (summarize) or t (tools)"
                    ),
                );
            }
        }
        match p.peek() {
            Some('+') => p.pos += 1,
            Some(':') => {
                p.pos += 1;
                rule.range = Some(parse_range(&mut p)?);
                break;
            }
            None => break,
            Some(_) => {
                let at = p.pos;
                return p.err(
                    at,
                    format!("expected `+`, `:` or the end, found {}", p.found(at)),
                );
            }
        }
    }
    if p.pos < p.chars.len() {
        let at = p.pos;
        return p.err(at, format!("unexpected {} after the range", p.found(at)));
    }
    Ok(rule)
}

fn parse_range(p: &mut Parser<'_>) -> Result<RangeSpec, RuleError> {
    let start = p.pos;
    if p.pos == p.chars.len() {
        return p.err(start, "expected a range after `:` (e.g. 2..6, ..-3, 5)");
    }
    let from = parse_bound(p, true)?;
    let dots = p.pos;
    if p.eat("..") {
        let to = if p.pos < p.chars.len() {
            parse_bound(p, false)?
        } else {
            None
        };
        // Known backwards without the conversation: both ends counted the
        // same way. (A mixed range is checked against the turns later.)
        let backwards = match (from, to) {
            (Some(Bound::Absolute(a)), Some(Bound::Absolute(b))) => a > b,
            (Some(Bound::FromEnd(a)), Some(Bound::FromEnd(b))) => a < b,
            _ => false,
        };
        if backwards {
            let text = |r: std::ops::Range<usize>| p.chars[r].iter().collect::<String>();
            let (a, b) = (text(start..dots), text(dots + 2..p.pos));
            return p.err(
                start,
                format!("the range `{a}..{b}` runs backwards; did you mean `{b}..{a}`?"),
            );
        }
        return Ok(RangeSpec { from, to });
    }
    match from {
        // A single `-N` means `..-N`; a single `N` means `N..`.
        Some(Bound::FromEnd(n)) => Ok(RangeSpec {
            from: None,
            to: Some(Bound::FromEnd(n)),
        }),
        Some(b) => Ok(RangeSpec {
            from: Some(b),
            to: None,
        }),
        None => {
            let at = p.pos;
            p.err(
                at,
                format!("expected a turn number, -N or `..`, found {}", p.found(at)),
            )
        }
    }
}

fn parse_bound(p: &mut Parser<'_>, is_start: bool) -> Result<Option<Bound>, RuleError> {
    let at = p.pos;
    if is_start && p.eat("last") {
        return Ok(Some(Bound::AfterLastCompaction));
    }
    let negative = p.eat("-");
    let digits_at = p.pos;
    while p.peek().is_some_and(|c| c.is_ascii_digit()) {
        p.pos += 1;
    }
    let digits: String = p.chars[digits_at..p.pos].iter().collect();
    if digits.is_empty() {
        if negative {
            return p.err(
                digits_at,
                format!("expected a number after `-`, found {}", p.found(digits_at)),
            );
        }
        // An open start is fine where `..` follows.
        return if is_start && p.chars[p.pos..].starts_with(&['.', '.']) {
            Ok(None)
        } else if is_start {
            p.err(
                at,
                format!(
                    "expected a turn number (1 or more), -N or `..`, found {}",
                    p.found(at)
                ),
            )
        } else {
            p.err(
                at,
                format!("expected a turn number or -N, found {}", p.found(at)),
            )
        };
    }
    let n: usize = digits
        .parse()
        .ok()
        .ok_or(())
        .or_else(|_| p.err(digits_at, format!("turn number `{digits}` is too large")))?;
    if negative {
        Ok(Some(Bound::FromEnd(n)))
    } else if n == 0 {
        p.err(at, "turn numbers start at 1 (0 is not a turn)")
    } else {
        Ok(Some(Bound::Absolute(n - 1)))
    }
}

/// `,over=SIZE` after a policy: only items larger than SIZE (jp's sizes:
/// `1024`, `4k`, `16KB`, `1mb`, binary).
fn parse_over(p: &mut Parser<'_>) -> Result<u64, RuleError> {
    p.pos += 1;
    let kat = p.pos;
    if !p.eat("over=") {
        return p.err(
            kat,
            format!("expected `over=SIZE` after `,`, found {}", p.found(kat)),
        );
    }
    let (nat, n) = p.word(&['+', ':', ',']);
    if p.peek() == Some(',') {
        let at = p.pos;
        return p.err(at, "one `over` per policy (the only option)");
    }
    byte_size::parse(&n).or_else(|e| p.err(nat, format!("expected a size (1024, 16KB, 1MB): {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(request: bool, response: bool) -> Option<ToolCalls> {
        Some(ToolCalls::Strip {
            request,
            response,
            over: None,
        })
    }

    #[test]
    fn examples_from_the_spec() {
        let r = parse("s:..-3").unwrap();
        assert!(r.summarize && !r.reasoning && r.tools.is_none());
        assert_eq!(
            r.range,
            Some(RangeSpec {
                from: None,
                to: Some(Bound::FromEnd(3))
            })
        );

        let r = parse("r+t:2..").unwrap();
        assert!(r.reasoning);
        assert_eq!(r.tools, strip(true, true));
        assert_eq!(
            r.range,
            Some(RangeSpec {
                from: Some(Bound::Absolute(1)),
                to: None
            })
        );

        let r = parse("t=sreq:2..6").unwrap();
        assert_eq!(r.tools, strip(true, false));
        assert_eq!(
            r.range,
            Some(RangeSpec {
                from: Some(Bound::Absolute(1)),
                to: Some(Bound::Absolute(5))
            })
        );

        let r = parse("reasoning+tools=omit:..").unwrap();
        assert_eq!(r.tools, Some(ToolCalls::Omit { over: None }));
        assert_eq!(
            r.range,
            Some(RangeSpec {
                from: None,
                to: None
            })
        );
    }

    #[test]
    fn single_bounds() {
        assert_eq!(
            parse("r:-3").unwrap().range,
            Some(RangeSpec {
                from: None,
                to: Some(Bound::FromEnd(3))
            })
        );
        assert_eq!(
            parse("r:5").unwrap().range,
            Some(RangeSpec {
                from: Some(Bound::Absolute(4)),
                to: None
            })
        );
        assert_eq!(
            parse("r:-0").unwrap().range,
            Some(RangeSpec {
                from: None,
                to: Some(Bound::FromEnd(0))
            })
        );
    }

    #[test]
    fn no_range_means_configured_keeps() {
        assert_eq!(parse("t=sres").unwrap().range, None);
        assert_eq!(parse("t=sres").unwrap().tools, strip(false, true));
    }

    #[test]
    fn over_extension() {
        assert_eq!(
            parse("t=strip,over=4k:..").unwrap().tools,
            Some(ToolCalls::Strip {
                request: true,
                response: true,
                over: Some(4096)
            })
        );
        assert_eq!(
            parse("t=o,over=100").unwrap().tools,
            Some(ToolCalls::Omit { over: Some(100) })
        );
    }

    /// The examples of jp's own `--compact` help.
    #[test]
    fn jps_threshold_examples() {
        let r = parse("t=sres,over=1mb").unwrap();
        assert_eq!(
            r.tools,
            Some(ToolCalls::Strip {
                request: false,
                response: true,
                over: Some(1 << 20)
            })
        );
        let r = parse("r,over=16kb+t=sres,over=1mb:..-3").unwrap();
        assert!(r.reasoning);
        assert_eq!(r.reasoning_over, Some(16 << 10));
        assert_eq!(r.tools.and_then(ToolCalls::over), Some(1 << 20));
        assert_eq!(
            r.range,
            Some(RangeSpec {
                from: None,
                to: Some(Bound::FromEnd(3))
            })
        );
        assert!(parse("summary:..-3").unwrap().summarize);
    }

    #[test]
    fn errors_say_what_was_expected_and_where() {
        // Ranges that are fine however the ends compare.
        for spec in ["s:2..2", "s:-5..-2", "s:5..-2", "s:-2..5"] {
            assert!(parse(spec).is_ok(), "{spec}");
        }
        let cases = [
            ("", 0, "at least one policy"),
            ("x", 0, "unknown policy `x`"),
            ("r=strip", 1, "takes no value"),
            ("t=zap", 2, "unknown tools mode `zap`"),
            ("s:0..3", 2, "start at 1"),
            ("s:..x", 4, "expected a turn number or -N"),
            ("s:", 2, "expected a range"),
            ("s:1..2..3", 6, "unexpected"),
            ("r+", 2, "expected a policy"),
            ("r+r", 2, "given twice"),
            ("t,over=lots", 7, "expected a size"),
            ("t,over=1.5mb", 7, "unknown size unit"),
            ("s,over=1kb", 1, "takes no `over` threshold"),
            ("r,size=1kb", 2, "expected `over=SIZE`"),
            ("r,over=1kb,over=2kb", 10, "one `over` per policy"),
            ("s:-", 3, "number after `-`"),
            ("r s", 0, "unknown policy `r s`"),
            ("s:5..2", 2, "`5..2` runs backwards; did you mean `2..5`?"),
            (
                "r+t:-2..-5",
                4,
                "`-2..-5` runs backwards; did you mean `-5..-2`?",
            ),
        ];
        for (spec, at, want) in cases {
            let e = parse(spec).unwrap_err();
            assert!(e.message.contains(want), "{spec}: {e}");
            assert_eq!(e.at, at, "{spec}: {e}");
        }
    }

    #[test]
    fn last_is_after_last_compaction() {
        assert_eq!(
            parse("r:last..").unwrap().range,
            Some(RangeSpec {
                from: Some(Bound::AfterLastCompaction),
                to: None
            })
        );
    }
}
