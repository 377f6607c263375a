//! `compact` as one use case: from what the person asked (rules as typed,
//! bounds, a summary's text, where settings and summaries come from) to
//! the plan, what the model would still know of each range, and the
//! write. The command line builds a [`CompactRequest`], makes this one
//! call and presents the [`Compacted`].

use super::asked::{AskError, Asked, rules_asked};
use super::plan::Plan;
use super::preview::{RuleOptions, preview_rules};
use crate::core::compact::range::Keep;
use crate::core::compact::threshold::{self, Reached};
use crate::core::error::Error;
use crate::core::facts::Judged;
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp::Timestamp;
use crate::core::store::save::Saved;
use crate::core::summarize::config::SummarizerKind;
use std::path::{Path, PathBuf};

/// What the person asked `compact` for.
#[derive(Debug, Clone, Default)]
pub struct CompactRequest {
    /// Rules as typed; none: the configured ones.
    pub rules: Vec<String>,
    /// A summary's text, verbatim (`--summary`).
    pub summary: Option<String>,
    pub keep_first: Option<Keep>,
    pub keep_last: Option<Keep>,
    /// Items larger than this many bytes only.
    pub over: Option<u64>,
    /// A file applied over the conversation's own configuration.
    pub config_file: Option<PathBuf>,
    /// What jp handed over, under `jp inspect`: read in place of its files.
    pub jp: Option<crate::core::model::config::JpResolved>,
    /// The summarizer asked for; none: the configured one.
    pub summarizer: Option<SummarizerKind>,
    /// Plan and judge; write nothing.
    pub dry_run: bool,
    /// In a dry run, make the summaries too (a command or LLM summarizer is
    /// otherwise never called for a plan that isn't written).
    pub summarize: bool,
    /// Judge what each range keeps again by asking this model or command
    /// (`--judge`), its price shown first; `None`: by meaning alone.
    pub judge: Option<SummarizerKind>,
    /// Keep a compaction that changes nothing, and write an unusual file.
    pub force: bool,
    /// The time the new compactions are stamped with.
    pub now: Timestamp,
}

/// What `compact` did, or would do.
#[derive(Debug)]
pub struct Compacted {
    /// The conversation as it was read, before the write.
    pub conv: Conversation,
    /// What the configuration had to say (a setting ignored, a file left
    /// out).
    pub notices: Vec<String>,
    pub plan: Plan,
    /// What the model would still know of each addition's range; `None`
    /// for a summary not made.
    pub knows: Vec<Option<Vec<Judged>>>,
    /// The items each addition's size threshold reaches, in stream order;
    /// `None` for one without a threshold (it reaches its whole range).
    pub reached: Vec<Option<Vec<Reached>>>,
    /// The write, if one was made.
    pub written: Option<Saved>,
}

/// Why nothing was planned or written.
#[derive(Debug, thiserror::Error)]
pub enum CompactError {
    /// What was asked makes no rules (a usage error but for a bad rule).
    #[error(transparent)]
    Asked(AskError),
    #[error(transparent)]
    Failed(#[from] Error),
}

/// Plans what `request` asks of the conversation in `dir`, judges it, and
/// writes it unless it is a dry run or plans nothing. With a judge asked
/// for, `before_asking` is shown its quote first, and the judge is asked
/// only when it says yes.
pub fn compact(
    dir: &Path,
    request: &CompactRequest,
    prices: &crate::core::cost::Prices,
    before_asking: &mut dyn FnMut(&super::judge::JudgeQuote) -> bool,
) -> Result<Compacted, CompactError> {
    let conv = crate::core::store::load::load(dir)?;
    let config =
        crate::core::auto::config_for(&conv, request.config_file.as_deref(), request.jp.as_ref())?;
    let (rules, keeps) = rules_asked(
        &Asked {
            rules: &request.rules,
            summary: request.summary.as_deref(),
            keep_first: request.keep_first,
            keep_last: request.keep_last,
            over: request.over,
        },
        &config,
    )
    .map_err(CompactError::Asked)?;
    let chosen = crate::core::summarize::chosen(request.summarizer, &config.summarizer)
        .map_err(Error::from)?;
    let summarizer =
        crate::core::summarize::for_preview(chosen.as_ref(), !request.dry_run || request.summarize);
    let budget = super::budget(&conv, &config, None);
    let plan = preview_rules(
        &conv,
        &rules,
        &RuleOptions {
            keeps,
            force: request.force,
            ..RuleOptions::of(&config, summarizer.as_ref(), &budget, request.now)
        },
    )?;
    let written = super::write::unless_dry(dir, &plan, request.dry_run, request.force)?;
    // What the model would still know of each range, judged as `lost`
    // judges what is written.
    let mut knows = super::knows::of_additions(&conv, &plan, Default::default());
    if let Some(kind) = request.judge {
        let p = super::knows::projected_with(&conv, &plan, Default::default());
        let mut asked: Vec<_> = plan
            .additions
            .iter()
            .zip(knows.iter_mut())
            .filter_map(|(a, k)| k.as_mut().map(|k| (a.range(), k)))
            .collect();
        super::judge::ask(&conv, &config, &p, &mut asked, kind, prices, before_asking)
            .map_err(|e| CompactError::Failed(e.into()))?;
    }
    let reached = plan
        .additions
        .iter()
        .map(|a| threshold::reached(&conv, &a.compaction))
        .collect();
    Ok(Compacted {
        conv,
        notices: config.notices.clone(),
        plan,
        knows,
        reached,
        written,
    })
}
