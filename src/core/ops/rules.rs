//! Planning manual compactions from rules: resolve each rule's range, grow
//! a summary over the summaries it touches, and ask the summarizer for its
//! text. The one planning step that calls out, so it lives above the
//! summarizers; what it yields is `compact::plan`'s data.

use crate::core::compact::plan::{self, Outcome, Planned};
use crate::core::compact::range;
use crate::core::compact::range::Keeps;
use crate::core::compact::rule::Rule;
use crate::core::error::PlanError;
use crate::core::model::compaction::{Compaction, Source};
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp::Timestamp;
use crate::core::summarize::{self, Summarizer};

/// Options of a planning run.
pub struct Options<'a> {
    pub keeps: Keeps,
    pub source: Source,
    pub now: Timestamp,
    pub summarizer: &'a dyn Summarizer,
    pub instructions: &'a str,
    /// D17's per-tool hints, stored in each compaction that is no summary.
    pub tool_hints:
        &'a std::collections::BTreeMap<String, crate::core::model::compaction::ToolCalls>,
}

/// Plans one compaction per rule, each seeing the ones planned before it.
pub fn plan_rules(
    conv: &Conversation,
    rules: &[(String, Rule)],
    opts: &Options<'_>,
) -> Result<Vec<Outcome>, PlanError> {
    let stored = conv.valid_compactions();
    let mut planned: Vec<Compaction> = Vec::new();
    let mut outcomes = Vec::new();
    for (spec, rule) in rules {
        let existing: Vec<&Compaction> = stored.iter().chain(planned.iter()).collect();
        let Some(requested) = plan::requested(conv, &existing, rule, opts.keeps, opts.now) else {
            outcomes.push(Outcome::Nothing {
                spec: spec.clone(),
                reason: plan::nothing_reason(
                    conv.turn_count,
                    rule,
                    rule.keeps.unwrap_or(opts.keeps),
                ),
            });
            continue;
        };
        let authored = rule.summarize && rule.text.is_some();
        let (range, summary, input_chars) = match (rule.summarize, &rule.text) {
            (true, Some(text)) => {
                let range = range::fit_summary(requested, &existing, true)?;
                (range, Some(text.clone()), 0)
            }
            (true, None) => {
                let range = range::fit_summary(requested, &existing, false)?;
                let s = opts.summarizer.summarize(&summarize::Request {
                    conversation: conv,
                    range,
                    instructions: rule.instructions.as_deref().unwrap_or(opts.instructions),
                })?;
                (range, Some(s.text), s.input_chars)
            }
            (false, _) => (requested, None, 0),
        };
        let compaction = Compaction {
            timestamp: plan::next_timestamp(opts.now, &existing),
            from_turn: range.from,
            to_turn: range.to,
            summary,
            strip_reasoning: rule.reasoning,
            reasoning_over: rule.reasoning_over.filter(|_| rule.reasoning),
            tool_calls: rule.tools,
            source: opts.source,
            summarizer: (rule.summarize && !authored).then(|| opts.summarizer.name().to_string()),
            authored,
            tool_overrides: if rule.summarize {
                Default::default()
            } else {
                crate::core::model::compaction::resolve_hints(opts.tool_hints, rule.tools)
            },
        };
        planned.push(compaction.clone());
        outcomes.push(Outcome::Planned(Box::new(Planned {
            spec: spec.clone(),
            rule: rule.clone(),
            requested,
            compaction,
            summarizer_input_chars: input_chars,
        })));
    }
    Ok(outcomes)
}
