//! Which tools fill the context, and what each should get: per tool, its
//! calls and their weight, what was fetched again, and a suggested D17
//! hint with what it would save, measured by replaying the staged policy
//! with the hint against the replay without it (never guessed).

use super::tool_weight::{Weight, suggest, weigh};
use crate::core::auto::AutoConfig;
use crate::core::auto::run::Strategy;
use crate::core::auto::simulate;
use crate::core::compact::estimate::{self, Category};
use crate::core::compact::projection;
use crate::core::model::compaction::ToolCalls;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use crate::core::summarize::digest::Digest;
use std::collections::BTreeMap;

/// One tool's row.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ToolRow {
    pub name: String,
    pub calls: usize,
    /// Estimated tokens of its requests' arguments and its responses, as
    /// the raw stream holds them: over all tools they add up to `stats`'
    /// raw tool call and tool result figures.
    pub request_tokens: u64,
    pub response_tokens: u64,
    pub errors: usize,
    /// Calls that repeat an earlier one (same arguments) and got the same
    /// answer: the context had it already. A command run again for a new
    /// result is not counted.
    pub refetched: usize,
    /// Its share of the context a request would be sent now.
    pub share_now: f64,
    /// Its share of everything the session's requests were sent.
    pub share_session: f64,
    /// The hint its shape suggests (`strip-responses`, `strip-requests`,
    /// `omit`, `keep`), if any, and why.
    pub hint: Option<String>,
    pub why: Option<String>,
    /// Tokens the hint saves over the session's requests, by the staged
    /// policy's replay with it against the replay without it, at `window`.
    pub saves: Option<i64>,
    /// The TOML to paste, for jp's config (D17) and for today's jp.
    pub toml: Option<String>,
}

/// The report: rows by response tokens, the largest first.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolsReport {
    pub conversations: Vec<String>,
    /// The window the savings were replayed at (the conversations' own
    /// unless given).
    pub windows: Vec<u64>,
    /// Why each of `windows` was chosen.
    pub window_choices: Vec<WindowChoice>,
    pub tools: Vec<ToolRow>,
    pub request_tokens: u64,
    pub response_tokens: u64,
}

/// The TOML for `hint` of tool `name`: D17's place and the one today's jp
/// accepts (it refuses D17's).
fn toml_for(name: &str, hint: &str) -> String {
    let key = crate::core::store::hint_file::toml_key(name);
    format!(
        "[conversation.tools.{key}]\ncompaction = \"{hint}\"\n\n\
         # today's jp refuses the key above; it keeps this one for jp-inspect:\n\
         [plugins.command.inspect.options.tools.{key}]\ncompaction = \"{hint}\"\n"
    )
}

/// What `hint` for `name` saves over `conv`'s session: the staged
/// policy's replay with it against the one without, in tokens sent.
fn saves(
    conv: &Conversation,
    base: &AutoConfig,
    window: u64,
    baseline: u64,
    name: &str,
    hint: &str,
) -> Option<i64> {
    let policy = ToolCalls::from_hint(hint)?;
    let mut with = base.clone();
    with.tool_hints.insert(name.to_string(), policy);
    let run = simulate::run(conv, Strategy::Staged, window, &with, &Digest::default()).ok()?;
    Some(baseline as i64 - run.input_tokens as i64)
}

/// Why the hints of a conversation were replayed at the window they were.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "why")]
pub enum WindowChoice {
    /// `--window` gave it.
    Given,
    /// The conversation's own window, where the policy fires.
    Own,
    /// The policy never fires at the conversation's own window (`own`):
    /// the largest common window below it where it does.
    WhereItFires { own: u64 },
    /// The policy fires at no window tried: its own, where hints save
    /// nothing.
    NeverFires,
}

impl ToolsReport {
    /// Where the savings were replayed and why there, a line per window
    /// and reason: "at 400k: the staged policy never fires at the
    /// conversation's own 1m window; 400k is the largest common window
    /// where it does".
    pub fn replayed_at(&self) -> Vec<String> {
        use crate::core::fmt::human_tokens;
        let mut seen: Vec<(u64, WindowChoice, usize)> = Vec::new();
        for (w, c) in self.windows.iter().zip(&self.window_choices) {
            match seen.iter_mut().find(|(sw, sc, _)| sw == w && sc == c) {
                Some(s) => s.2 += 1,
                None => seen.push((*w, *c, 1)),
            }
        }
        let several = self.windows.len() > 1;
        seen.iter()
            .map(|&(w, c, n)| {
                let (at, whose) = if several {
                    let convs = crate::core::fmt::count(n as u64, "conversation");
                    let whose = if n == 1 { "its" } else { "their" };
                    (format!("{convs} at {}", human_tokens(w)), whose)
                } else {
                    (format!("at {}", human_tokens(w)), "the conversation's")
                };
                match c {
                    WindowChoice::Given => format!("{at}, as --window gives"),
                    WindowChoice::Own => format!("{at}, {whose} own window"),
                    WindowChoice::WhereItFires { own } => format!(
                        "{at}: the staged policy never fires at {whose} own {} window; {} is the \
                         largest common window where it does",
                        human_tokens(own),
                        human_tokens(w)
                    ),
                    WindowChoice::NeverFires => format!(
                        "{at}, {whose} own window: the staged policy fires neither there nor at a smaller \
                         common window, so a hint saves nothing"
                    ),
                }
            })
            .collect()
    }
}

impl ToolRow {
    /// What its hint does over the session, in words.
    pub fn effect(&self) -> String {
        use crate::core::fmt::thousands;
        match self.saves {
            Some(s) if s > 0 => format!("saves {} tok over the session", thousands(s as u64)),
            Some(s) if s < 0 => format!(
                "costs {} tok more over the session (it keeps whole what the elision strips)",
                thousands(s.unsigned_abs())
            ),
            Some(_) => "the same as without it: the elision already does this".to_string(),
            None => "not replayed".to_string(),
        }
    }
}

/// The window the hints are replayed at, and the tokens the staged policy
/// sends there without them: `given`, else the conversation's own window;
/// where the policy never fires at its own (a session that never got near
/// it), the largest common window at which it does, so that a hint's
/// saving says what it would do once compaction is needed.
fn replay_window(
    conv: &Conversation,
    config: &AutoConfig,
    given: Option<u64>,
    budget: &crate::core::compact::budget::Budget,
) -> (u64, WindowChoice, Option<u64>) {
    let own = budget.window.as_ref().map_or(200_000, |w| w.tokens);
    let run = |w: u64| simulate::run(conv, Strategy::Staged, w, config, &Digest::default()).ok();
    if let Some(w) = given {
        return (w, WindowChoice::Given, run(w).map(|r| r.input_tokens));
    }
    let first = run(own);
    if first.as_ref().is_some_and(|r| r.elisions + r.summaries > 0) {
        return (own, WindowChoice::Own, first.map(|r| r.input_tokens));
    }
    for w in [400_000, 200_000, 128_000, 64_000, 32_000]
        .into_iter()
        .filter(|&w| w < own)
    {
        if let Some(r) = run(w).filter(|r| r.elisions + r.summaries > 0) {
            return (w, WindowChoice::WhereItFires { own }, Some(r.input_tokens));
        }
    }
    (own, WindowChoice::NeverFires, first.map(|r| r.input_tokens))
}

/// The report for `convs`, each under its config; `window` overrides the
/// window the savings are replayed at. A tool's hint comes from its calls
/// in all of them; its saving is the sum of each one's replay with it.
pub fn tools(convs: &[(&Conversation, &AutoConfig)], window: Option<u64>) -> ToolsReport {
    weighed(convs, window, true)
}

/// The tools of `convs` together, each conversation under its own
/// configuration with `config_file` over it; `window` overrides the window
/// the savings are replayed at. The notices the configurations raised come
/// beside the report.
pub fn of_conversations(
    convs: &[Conversation],
    config_file: Option<&std::path::Path>,
    jp: Option<&crate::core::model::config::JpResolved>,
    window: Option<u64>,
) -> crate::core::error::Result<(ToolsReport, Vec<String>)> {
    let configs = convs
        .iter()
        .map(|c| crate::core::auto::config_for(c, config_file, jp))
        .collect::<crate::core::error::Result<Vec<_>>>()?;
    let notices = configs.iter().flat_map(|c| c.notices.clone()).collect();
    let pairs: Vec<_> = convs.iter().zip(&configs).collect();
    Ok((tools(&pairs, window), notices))
}

/// [`tools`]; with `replay` false, no hint's saving is replayed (each
/// replays the staged policy over the whole session): every figure but
/// `saves`, `windows` and `window_choices`, for the report, which shows
/// the weights and hints only.
pub fn weighed(
    convs: &[(&Conversation, &AutoConfig)],
    window: Option<u64>,
    replay: bool,
) -> ToolsReport {
    let mut rows: BTreeMap<String, (Weight, u128, u128, Option<i64>)> = BTreeMap::new();
    let mut windows = Vec::new();
    let mut window_choices = Vec::new();
    let (mut now_total, mut session_total) = (0u128, 0u128);
    let (mut req_tokens, mut res_tokens) = (0u64, 0u64);
    let mut apportioned: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut present: Vec<Vec<String>> = Vec::new();
    for (conv, config) in convs {
        let (by, session) = weigh(conv);
        let budget = super::budget(conv, config, window);
        let now = estimate::of_projection(&conv.events, &projection::of(conv)).total_chars()
            + budget.overhead_chars();
        now_total += now as u128;
        session_total += session;
        // Tokens as `stats` rounds them: a category's total, shared out.
        let raw = estimate::of_raw(&conv.events);
        let req = estimate::apportion(
            &by.values().map(|w| w.request_chars).collect::<Vec<_>>(),
            raw.tokens(Category::ToolRequests),
        );
        let res = estimate::apportion(
            &by.values().map(|w| w.response_chars).collect::<Vec<_>>(),
            raw.tokens(Category::ToolResponses),
        );
        req_tokens += raw.tokens(Category::ToolRequests);
        res_tokens += raw.tokens(Category::ToolResponses);
        for (k, name) in by.keys().enumerate() {
            let a = apportioned.entry(name.clone()).or_default();
            a.0 += req[k];
            a.1 += res[k];
        }
        present.push(by.keys().cloned().collect());
        for (name, weight) in by {
            let row = rows.entry(name).or_default();
            row.0.calls += weight.calls;
            row.0.errors += weight.errors;
            row.0.refetched += weight.refetched;
            row.0.request_chars += weight.request_chars;
            row.0.response_chars += weight.response_chars;
            row.0.referred += weight.referred;
            row.0.quoted += weight.quoted;
            row.1 += weight.now_chars as u128;
            row.2 += weight.session_chars;
        }
    }
    // Each tool's hint from all its calls, then replayed where it occurs.
    let hints: BTreeMap<String, &'static str> = rows
        .iter()
        .filter_map(|(name, r)| suggest(name, &r.0).map(|(h, _)| (name.clone(), h)))
        .collect();
    for ((conv, config), names) in convs.iter().zip(&present).filter(|_| replay) {
        let budget = super::budget(conv, config, window);
        let (w, choice, baseline) = replay_window(conv, config, window, &budget);
        windows.push(w);
        window_choices.push(choice);
        let Some(baseline) = baseline else {
            continue;
        };
        for name in names {
            let Some(h) = hints.get(name) else {
                continue;
            };
            let saved = saves(conv, config, w, baseline, name, h);
            if let Some(row) = rows.get_mut(name) {
                row.3 = match (row.3, saved) {
                    (Some(a), Some(b)) => Some(a + b),
                    (a, b) => a.or(b),
                };
            }
        }
    }
    let share = |part: u128, whole: u128| {
        if whole == 0 {
            0.0
        } else {
            part as f64 / whole as f64
        }
    };
    let mut tools: Vec<ToolRow> = rows
        .into_iter()
        .map(|(name, (w, now, session, saved))| {
            // Replayed, a hint is suggested only where it saves something.
            let hint = suggest(&name, &w).filter(|_| !replay || saved.is_some_and(|s| s > 0));
            let (request_tokens, response_tokens) =
                apportioned.get(&name).copied().unwrap_or_default();
            ToolRow {
                calls: w.calls,
                request_tokens,
                response_tokens,
                errors: w.errors,
                refetched: w.refetched,
                share_now: share(now, now_total),
                share_session: share(session, session_total),
                saves: hint.as_ref().and(saved),
                toml: hint.as_ref().map(|(h, _)| toml_for(&name, h)),
                why: hint.as_ref().map(|(_, why)| why.clone()),
                hint: hint.map(|(h, _)| h.to_string()),
                name,
            }
        })
        .collect();
    tools.sort_by(|a, b| {
        (b.response_tokens, b.request_tokens, &a.name).cmp(&(
            a.response_tokens,
            a.request_tokens,
            &b.name,
        ))
    });
    ToolsReport {
        conversations: convs.iter().map(|(c, _)| c.display_id()).collect(),
        windows,
        window_choices,
        tools,
        request_tokens: req_tokens,
        response_tokens: res_tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::{ToolRow, ToolsReport, WindowChoice, toml_for};

    fn report(windows: &[(u64, WindowChoice)]) -> ToolsReport {
        ToolsReport {
            conversations: Vec::new(),
            windows: windows.iter().map(|w| w.0).collect(),
            window_choices: windows.iter().map(|w| w.1).collect(),
            tools: Vec::new(),
            request_tokens: 0,
            response_tokens: 0,
        }
    }

    /// The window a saving was replayed at says why it was that one.
    #[test]
    fn the_replay_window_says_why() {
        let one = report(&[(400_000, WindowChoice::WhereItFires { own: 1_000_000 })]);
        assert_eq!(
            one.replayed_at(),
            [
                "at 400k: the staged policy never fires at the conversation's own 1m window; \
              400k is the largest common window where it does"
            ]
        );
        assert_eq!(
            report(&[(4_000, WindowChoice::Given)]).replayed_at(),
            ["at 4k, as --window gives"]
        );
        let many = report(&[
            (200_000, WindowChoice::Own),
            (1_000_000, WindowChoice::NeverFires),
            (200_000, WindowChoice::Own),
        ]);
        let lines = many.replayed_at();
        assert_eq!(lines[0], "2 conversations at 200k, their own window");
        assert!(
            lines[1].starts_with("1 conversation at 1m, its own window:")
                && lines[1].ends_with("so a hint saves nothing"),
            "{lines:?}"
        );
    }

    /// A hint that sends more says what it costs.
    #[test]
    fn a_negative_saving_says_what_it_costs() {
        let row = |saves| ToolRow {
            name: "fs_grep_files".into(),
            calls: 1,
            request_tokens: 0,
            response_tokens: 0,
            errors: 0,
            refetched: 0,
            share_now: 0.0,
            share_session: 0.0,
            hint: Some("keep".into()),
            why: None,
            saves,
            toml: None,
        };
        assert_eq!(
            row(Some(-57_479)).effect(),
            "costs 57,479 tok more over the session (it keeps whole what the elision strips)"
        );
        assert_eq!(
            row(Some(5_995)).effect(),
            "saves 5,995 tok over the session"
        );
    }

    /// Every snippet `tools` prints parses as TOML, back to the tool's
    /// own name, in both tables.
    #[test]
    fn every_snippet_parses_back_to_the_tools_name() {
        for name in [
            "fs_read_file",
            "",
            "a\u{1b}]0;x\u{7}",
            "del\u{7f}",
            "zero\u{200b}width",
            "rtl\u{202e}txt",
            "quote\"and\\slash",
            "mcp.server/read",
            "new\nline",
        ] {
            let text = toml_for(name, "omit");
            let doc: toml::Table =
                toml::from_str(&text).unwrap_or_else(|e| panic!("{name:?}: {e}\n{text}"));
            assert!(doc["conversation"]["tools"].get(name).is_some(), "{name:?}");
            assert_eq!(
                doc["plugins"]["command"]["inspect"]["options"]["tools"][name]["compaction"]
                    .as_str(),
                Some("omit"),
                "{name:?}"
            );
        }
    }
}

/// One call of the tool being listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The raw index of its request.
    pub raw: usize,
    pub turn: usize,
    pub text: String,
}

/// The calls of `tool` in `conv`, in stream order, each with its
/// arguments in a line.
pub fn calls_of(conv: &Conversation, tool: &str) -> Vec<Call> {
    conv.events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.kind {
            Kind::ToolCallRequest { name, .. } if &**name == tool => Some(Call {
                raw: i,
                turn: e.turn,
                text: crate::core::visible::one_line(
                    &conv
                        .plain(i)
                        .get("arguments")
                        .map(|a| a.to_string())
                        .unwrap_or_default(),
                    160,
                ),
            }),
            _ => None,
        })
        .collect()
}
