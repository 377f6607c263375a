//! The rules a person asked for, as both shells take them: rules as
//! typed, or the configured ones (jp's default among them) with the
//! bounds given; `--summary`'s text for the one summarising rule (alone,
//! an `s` rule over what the bounds leave); `--over` narrowing every
//! reasoning and tools policy without a bound of its own.

use super::preview::configured_rules;
use crate::core::auto::AutoConfig;
use crate::core::compact::range::{Keep, Keeps};
use crate::core::compact::rule::{self, Rule};
use crate::core::error::RuleError;

/// What was given.
#[derive(Debug, Clone, Default)]
pub struct Asked<'a> {
    /// Rules as typed; none: the configured ones.
    pub rules: &'a [String],
    /// A summary's text, verbatim.
    pub summary: Option<&'a str>,
    pub keep_first: Option<Keep>,
    pub keep_last: Option<Keep>,
    /// Items larger than this many bytes only.
    pub over: Option<u64>,
}

/// Why what was asked makes no rules.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    #[error(transparent)]
    Rule(#[from] RuleError),
    #[error("--summary: the text is empty")]
    EmptySummary,
    #[error("--summary gives a summary's text, and no rule summarises: add `s` to one (`s:2..9`)")]
    NoSummarisingRule,
    #[error("--summary gives one text, and more than one rule summarises (`{0}` too)")]
    SummarisingTwice(String),
    #[error("--over narrows a reasoning or tools policy, and no rule has one: add `r` or `t`")]
    NothingToNarrow,
}

/// The rules to plan, each with what it is called, and the bounds of a
/// rule that gives no range.
pub fn rules_asked(
    asked: &Asked<'_>,
    config: &AutoConfig,
) -> Result<(Vec<(String, Rule)>, Keeps), AskError> {
    let keeps = Keeps {
        keep_first: asked.keep_first.unwrap_or(Keep::Turns(1)),
        keep_last: asked.keep_last.unwrap_or(Keep::Turns(1)),
    };
    let mut rules = if asked.summary.is_some() && asked.rules.is_empty() {
        // The text alone stands for the turns the bounds leave, whatever
        // rules are configured.
        vec![(
            "s".to_string(),
            Rule {
                summarize: true,
                ..Default::default()
            },
        )]
    } else if asked.rules.is_empty() {
        // The configured rules with the bounds given here: `--keep-first
        // 3` means three, whatever the default rule says.
        configured_rules(config)
            .into_iter()
            .map(|(name, mut r)| {
                if asked.keep_first.is_some() || asked.keep_last.is_some() {
                    let mut keeps = r.keeps.unwrap_or_default();
                    if let Some(k) = asked.keep_first {
                        keeps.keep_first = k;
                    }
                    if let Some(k) = asked.keep_last {
                        keeps.keep_last = k;
                    }
                    r.keeps = Some(keeps);
                }
                (name, r)
            })
            .collect()
    } else {
        asked
            .rules
            .iter()
            .map(|s| rule::parse(s).map(|r| (s.clone(), r)))
            .collect::<Result<Vec<_>, _>>()?
    };
    if let Some(text) = asked.summary {
        give_text(&mut rules, text)?;
    }
    if let Some(over) = asked.over {
        narrow(&mut rules, over)?;
    }
    Ok((rules, keeps))
}

/// The one summarising rule's text.
fn give_text(rules: &mut [(String, Rule)], text: &str) -> Result<(), AskError> {
    if text.trim().is_empty() {
        return Err(AskError::EmptySummary);
    }
    let mut summarising = rules.iter_mut().filter(|(_, r)| r.summarize);
    let Some((_, first)) = summarising.next() else {
        return Err(AskError::NoSummarisingRule);
    };
    first.text = Some(text.to_string());
    if let Some((spec, _)) = summarising.next() {
        return Err(AskError::SummarisingTwice(spec.clone()));
    }
    Ok(())
}

/// Every reasoning and tools policy without a bound of its own, narrowed
/// to items larger than `over`.
fn narrow(rules: &mut [(String, Rule)], over: u64) -> Result<(), AskError> {
    let mut narrowed = false;
    for (_, r) in rules.iter_mut() {
        if r.reasoning {
            r.reasoning_over = r.reasoning_over.or(Some(over));
            narrowed = true;
        }
        if let Some(t) = r.tools {
            r.tools = Some(t.with_over(t.over().or(Some(over))));
            narrowed = true;
        }
    }
    if narrowed {
        Ok(())
    } else {
        Err(AskError::NothingToNarrow)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_alone_is_an_s_rule_and_keeps_override_the_configured_bounds() {
        let config = AutoConfig::default();
        let (rules, _) = rules_asked(
            &Asked {
                summary: Some("what happened"),
                ..Default::default()
            },
            &config,
        )
        .unwrap();
        assert_eq!(rules.len(), 1);
        assert!(rules[0].1.summarize);
        assert_eq!(rules[0].1.text.as_deref(), Some("what happened"));
        let (rules, keeps) = rules_asked(
            &Asked {
                keep_first: Some(Keep::Turns(3)),
                ..Default::default()
            },
            &config,
        )
        .unwrap();
        assert_eq!(keeps.keep_first, Keep::Turns(3));
        assert_eq!(rules[0].1.keeps.map(|k| k.keep_first), Some(Keep::Turns(3)));
    }

    #[test]
    fn what_cannot_be_done_says_why() {
        let config = AutoConfig::default();
        let typed = ["t:2..3".to_string()];
        let no_s = Asked {
            rules: &typed,
            summary: Some("x"),
            ..Default::default()
        };
        assert!(matches!(
            rules_asked(&no_s, &config),
            Err(AskError::NoSummarisingRule)
        ));
        let typed = ["s:2..3".to_string()];
        let no_policy = Asked {
            rules: &typed,
            over: Some(1024),
            ..Default::default()
        };
        assert!(matches!(
            rules_asked(&no_policy, &config),
            Err(AskError::NothingToNarrow)
        ));
        let bad = ["q:1".to_string()];
        assert!(matches!(
            rules_asked(
                &Asked {
                    rules: &bad,
                    ..Default::default()
                },
                &config
            ),
            Err(AskError::Rule(_))
        ));
    }
}
