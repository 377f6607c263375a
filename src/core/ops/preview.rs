//! Previews: what a rule, the automatic policy or a reset would change,
//! computed without writing.

use super::impact::{Impact, effects};
use super::plan::{Addition, Plan, PlanKind, PlanNote, Skipped, Tokens, Why, WithheldSummaries};
use super::rules::{Options as PlanOptions, plan_rules};
use crate::core::auto::{self, AutoConfig};
use crate::core::compact::budget::Budget;
use crate::core::compact::estimate;
use crate::core::compact::jp_view::{self, View};
use crate::core::compact::plan::{self, Outcome};
use crate::core::compact::projection::{self, Overlay};
use crate::core::compact::range::Keeps;
use crate::core::compact::reset::{self, Reset};
use crate::core::compact::rule::Rule;
use crate::core::error::{Error, Result};
use crate::core::model::compaction::{Compaction, Source};
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp::Timestamp;
use crate::core::store::edit::CompactionKey;
use crate::core::store::edit::Removal;
use crate::core::summarize::Summarizer;

/// How manual rules are planned.
pub struct RuleOptions<'a> {
    /// The range used by a rule without one.
    pub keeps: Keeps,
    pub summarizer: &'a dyn Summarizer,
    pub instructions: &'a str,
    /// The time the new compactions are stamped with.
    pub now: Timestamp,
    /// What the estimate before and after counts besides the events.
    pub budget: &'a Budget,
    /// Keep a compaction that changes nothing the model is sent (the same
    /// rule twice, a rule inside a summary); otherwise it is skipped with
    /// the reason.
    pub force: bool,
    /// D17's per-tool hints, stored in each compaction that is no summary.
    pub tool_hints:
        &'a std::collections::BTreeMap<String, crate::core::model::compaction::ToolCalls>,
}

impl<'a> RuleOptions<'a> {
    /// The options `config` gives (its summary instructions and tool
    /// hints), the default bounds, no compaction that changes nothing:
    /// every shell's rules are planned from these.
    pub fn of(
        config: &'a crate::core::auto::AutoConfig,
        summarizer: &'a dyn Summarizer,
        budget: &'a Budget,
        now: Timestamp,
    ) -> RuleOptions<'a> {
        RuleOptions {
            keeps: Default::default(),
            summarizer,
            instructions: config.instructions(),
            now,
            budget,
            force: false,
            tool_hints: &config.tool_hints,
        }
    }
}

/// The context of a request of `conv` seen through `overlays`.
fn tokens_with(conv: &Conversation, overlays: Vec<Overlay>, budget: &Budget) -> u64 {
    let p = projection::project(&conv.events, conv.turn_count, overlays);
    budget.context_tokens(estimate::of_projection(&conv.events, &p).total_chars())
}

/// Where today's jp would do more than jp-inspect with `compactions` (an
/// `over` bound it ignores), in words.
fn jp_differences<'a>(
    conv: &'a Conversation,
    compactions: impl Iterator<Item = &'a Compaction> + 'a,
) -> impl Iterator<Item = String> + 'a {
    compactions.filter_map(move |c| jp_view::difference(conv, c))
}

/// What `jp conversation compact` applies when given no rule: the
/// configured `conversation.compaction.rules`, else jp's built-in default
/// (strip reasoning and tool calls, keep the first and the last turn).
pub fn configured_rules(config: &AutoConfig) -> Vec<(String, Rule)> {
    match &config.rules {
        // What jp writes into every conversation it saves is still its
        // default, and is called so.
        Some(rules) if rules.as_slice() == [Rule::jp_default()] => {
            vec![("jp's default rule".to_string(), Rule::jp_default())]
        }
        Some(rules) => rules
            .iter()
            .enumerate()
            .map(|(i, r)| (format!("configured rule {}", i + 1), r.clone()))
            .collect(),
        None => vec![("jp's default rule".to_string(), Rule::jp_default())],
    }
}

/// Manual compactions from `rules` (each seeing the ones before it).
pub fn preview_rules(
    conv: &Conversation,
    rules: &[(String, Rule)],
    opts: &RuleOptions<'_>,
) -> Result<Plan> {
    let outcomes = plan_rules(
        conv,
        rules,
        &PlanOptions {
            keeps: opts.keeps,
            source: Source::Manual,
            now: opts.now,
            summarizer: opts.summarizer,
            instructions: opts.instructions,
            tool_hints: opts.tool_hints,
        },
    )?;
    let mut planned: Vec<plan::Planned> = Vec::new();
    let mut skipped = Vec::new();
    for o in outcomes {
        match o {
            Outcome::Planned(p) => planned.push(*p),
            Outcome::Nothing { spec, reason } => skipped.push(Skipped {
                spec,
                reason,
                no_op: false,
            }),
        }
    }
    if !opts.force {
        let compactions: Vec<_> = planned.iter().map(|p| p.compaction.clone()).collect();
        let effects = additions_effects(conv, &compactions, opts.budget);
        let mut kept = Vec::new();
        for (k, (p, e)) in planned.into_iter().zip(effects).enumerate() {
            if e.changes {
                kept.push(p);
            } else {
                skipped.push(Skipped {
                    reason: why_nothing(conv, &compactions[..k], &p.compaction),
                    spec: p.spec,
                    no_op: true,
                });
            }
        }
        planned = kept;
    }
    let refs: Vec<&plan::Planned> = planned.iter().collect();
    let mut notes: Vec<PlanNote> = plan::timeline(conv.turn_count, &refs)
        .into_iter()
        .map(|(compacted, line)| PlanNote::Timeline { compacted, line })
        .collect();
    notes.extend(
        jp_differences(conv, planned.iter().map(|p| &p.compaction)).map(PlanNote::JpDiffers),
    );
    let compactions: Vec<_> = planned.iter().map(|p| p.compaction.clone()).collect();
    let effects = additions_effects(conv, &compactions, opts.budget);
    let additions: Vec<Addition> = planned
        .into_iter()
        .zip(effects)
        .enumerate()
        .map(|(k, (p, effect))| Addition {
            overlaps: latest_overlap(conv, &compactions[..k], p.compaction.range()),
            compaction: p.compaction,
            requested: p.requested,
            why: Why::Rule {
                spec: p.spec,
                rule: p.rule,
            },
            summarizer_input_chars: p.summarizer_input_chars,
            effect,
        })
        .collect();
    let additions_ranges = summary_ranges(&additions);
    let tokens = Tokens {
        before: tokens_with(conv, projection::overlays(conv), opts.budget),
        after: tokens_with(
            conv,
            projection::with_preview(conv, &compactions),
            opts.budget,
        ),
    };
    Ok(Plan {
        kind: PlanKind::Rules,
        additions,
        skipped,
        removal: Removal::None,
        removes: 0,
        notes,
        tokens,
        withheld: withheld(conv, opts.summarizer, opts.instructions, &additions_ranges),
    })
}

/// What a withheld summarizer would have been sent for the summaries
/// among `ranges`, if it was withheld and there are any.
fn withheld(
    conv: &Conversation,
    summarizer: &dyn Summarizer,
    instructions: &str,
    ranges: &[crate::core::model::TurnRange],
) -> Option<WithheldSummaries> {
    let destination = summarizer.withheld()?;
    if ranges.is_empty() {
        return None;
    }
    let count = crate::core::model::event::count_chars;
    let input_chars = ranges
        .iter()
        .map(|r| count(instructions) + count(&crate::core::summarize::transcript::render(conv, *r)))
        .sum();
    Some(WithheldSummaries {
        summarizer: summarizer.name().to_string(),
        destination,
        ranges: ranges.to_vec(),
        input_chars,
    })
}

/// The turns of the latest compaction before a new one over `range`
/// (the conversation's own, then the plan's earlier `planned`) that covers
/// any of the same turns.
fn latest_overlap(
    conv: &Conversation,
    planned: &[Compaction],
    range: crate::core::model::TurnRange,
) -> Option<crate::core::model::TurnRange> {
    conv.valid_compactions()
        .iter()
        .chain(planned)
        .rfind(|c| c.from_turn <= range.to && range.from <= c.to_turn)
        .map(Compaction::range)
}

/// The ranges of the additions that carry a summary.
fn summary_ranges(additions: &[Addition]) -> Vec<crate::core::model::TurnRange> {
    additions
        .iter()
        .filter(|a| a.compaction.summary.is_some())
        .map(Addition::range)
        .collect()
}

/// The effect of each of `compactions` appended, in order, after the
/// conversation's own.
fn additions_effects(
    conv: &Conversation,
    compactions: &[Compaction],
    budget: &Budget,
) -> Vec<Impact> {
    let stored = projection::overlays(conv).len();
    effects(
        conv,
        &projection::with_preview(conv, compactions),
        stored,
        budget.overhead_chars(),
    )
}

/// Why a compaction changes nothing the model is sent, in words, given the
/// stored compactions and the `earlier` ones planned before it.
fn why_nothing(conv: &Conversation, earlier: &[Compaction], c: &Compaction) -> String {
    let range = c.range();
    let before: Vec<Compaction> = projection::with_preview(conv, earlier)
        .into_iter()
        .map(|o| o.compaction)
        .collect();
    let covering = before.iter().find(|o| {
        let r = o.range();
        o.summary.is_some() && r.from <= range.from && range.to <= r.to
    });
    let touched = before.iter().any(|o| {
        let r = o.range();
        r.from <= range.to && range.from <= r.to
    });
    let what = match covering {
        Some(o) if c.summary.is_none() => format!(
            "turns {} are inside the summary of turns {}, which the model is sent instead",
            range.human(),
            o.range().human()
        ),
        _ if touched => format!(
            "the model already sees turns {} this way (an earlier compaction does the same)",
            range.human()
        ),
        _ => format!("turns {} hold nothing this rule takes out", range.human()),
    };
    format!("it changes nothing: {what}")
}

/// The first line of an explanation of the automatic policy: the mode, the
/// usable window and the context it is measured against (`auto` prints it,
/// the inspector's `auto` preview shows it).
pub fn auto_headline(config: &AutoConfig, usable: Option<u64>, context: u64) -> String {
    // The share agrees with the thresholds the policy weighs it against.
    let marks = [config.soft_ratio, config.hard_ratio, config.trigger_ratio];
    format!(
        "{} mode, usable window {}, context {} tokens{}",
        config.mode.as_str(),
        usable.map_or("unknown".into(), crate::core::fmt::human_tokens),
        crate::core::fmt::thousands(context),
        usable
            .map(|w| {
                let share =
                    crate::core::fmt::percent_beside(context as f64 / w.max(1) as f64, &marks, 1);
                format!(" ({share}%)")
            })
            .unwrap_or_default()
    )
}

/// What the inspector previews: the automatic policy now, or typed rules
/// (each with the text it was typed as).
#[derive(Debug, Clone, Copy)]
pub enum PreviewOf<'a> {
    Auto,
    Rules(&'a [(String, Rule)]),
}

/// The inspector's preview, asked for.
#[derive(Debug, Clone, Copy)]
pub struct PreviewAsk<'a> {
    pub of: PreviewOf<'a>,
    pub config: &'a AutoConfig,
    pub budget: &'a Budget,
    pub now: Timestamp,
    pub view: View,
    /// Call the configured summarizer (`S`); otherwise one that would send
    /// the range somewhere is withheld and says where.
    pub call_summarizer: bool,
}

/// The inspector's preview: the configured summarizer, withheld unless
/// asked to call it, then the plan of the automatic policy or the rules.
pub fn preview(conv: &Conversation, ask: &PreviewAsk<'_>) -> Result<Plan> {
    let configured = crate::core::summarize::from_config(&ask.config.summarizer);
    let summarizer = crate::core::summarize::for_preview(configured.as_ref(), ask.call_summarizer);
    match ask.of {
        PreviewOf::Auto => preview_auto(
            conv,
            ask.config,
            ask.budget,
            summarizer.as_ref(),
            ask.now,
            ask.view,
        ),
        // A no-op is said in the preview, never written.
        PreviewOf::Rules(rules) => preview_rules(
            conv,
            rules,
            &RuleOptions::of(ask.config, summarizer.as_ref(), ask.budget, ask.now),
        ),
    }
}

/// What automatic compaction would append now. Asking for it is asking,
/// whatever `enabled` says.
pub fn preview_auto(
    conv: &Conversation,
    config: &AutoConfig,
    budget: &Budget,
    summarizer: &dyn Summarizer,
    now: Timestamp,
    view: View,
) -> Result<Plan> {
    let mut config = config.clone();
    config.enabled = true;
    let instructions = config.instructions().to_string();
    let decision = auto::evaluate_now(
        conv,
        view.apply(projection::overlays(conv)),
        budget,
        &config,
        summarizer,
        now,
    )?;
    let mut plan = Plan {
        kind: PlanKind::Auto,
        tokens: Tokens {
            before: decision.estimate,
            after: decision.estimate_after,
        },
        notes: decision
            .notes
            .iter()
            .cloned()
            .map(PlanNote::Trigger)
            .chain(
                jp_differences(conv, decision.actions.iter().map(|a| &a.compaction))
                    .map(PlanNote::JpDiffers),
            )
            .collect(),
        additions: {
            let compactions: Vec<_> = decision
                .actions
                .iter()
                .map(|a| a.compaction.clone())
                .collect();
            decision
                .actions
                .into_iter()
                .zip(additions_effects(conv, &compactions, budget))
                .enumerate()
                .map(|(k, (a, effect))| Addition {
                    overlaps: latest_overlap(conv, &compactions[..k], a.compaction.range()),
                    requested: a.requested,
                    why: Why::Auto(a.kind),
                    compaction: a.compaction,
                    summarizer_input_chars: 0,
                    effect,
                })
                .collect()
        },
        skipped: Vec::new(),
        removal: Removal::None,
        removes: 0,
        withheld: None,
    };
    plan.withheld = withheld(
        conv,
        summarizer,
        &instructions,
        &summary_ranges(&plan.additions),
    );
    Ok(plan)
}

/// What `reset` would remove, and the context after it. A position that
/// doesn't exist is an error naming the count.
pub fn preview_reset(conv: &Conversation, which: Reset, budget: &Budget) -> Result<Plan> {
    let removal = removal(conv, which)?;
    Ok(Plan {
        kind: PlanKind::Reset(which),
        additions: Vec::new(),
        skipped: Vec::new(),
        removes: reset::count(conv, which),
        removal,
        notes: Vec::new(),
        tokens: Tokens {
            before: tokens_with(conv, projection::overlays(conv), budget),
            after: tokens_with(conv, reset::remaining(conv, which), budget),
        },
        withheld: None,
    })
}

/// The removal a reset makes, checked against the conversation as loaded.
fn removal(conv: &Conversation, reset: Reset) -> Result<Removal> {
    Ok(match reset {
        Reset::All => Removal::All,
        Reset::Auto => Removal::Auto,
        Reset::Position(n) => {
            let count = conv.compactions().count();
            let key = n
                .checked_sub(1)
                .and_then(|p| CompactionKey::of_position(conv, p))
                .ok_or(Error::NoSuchCompaction { position: n, count })?;
            Removal::Exact(vec![key])
        }
    })
}
