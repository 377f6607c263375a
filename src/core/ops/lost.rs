//! `lost`: what each compaction hid, what the model no longer knows of its
//! range, and what the compactions keep of the whole session. One use case
//! for `lost` and the review's page, so the two never count apart.

use crate::core::auto::AutoConfig;
use crate::core::compact::jp_view::View;
use crate::core::cost::Prices;
use crate::core::facts::Survival;
use crate::core::model::conversation::Conversation;

/// What a person asks `lost` of.
#[derive(Debug, Clone, Copy, Default)]
pub struct LostRequest {
    /// The window the figures are measured against, if not the model's.
    pub window: Option<u64>,
    /// Projected as jp-inspect does, or as today's jp (`--as-jp`).
    pub view: View,
    /// Judge again by asking this model or command (`--judge`), with the
    /// settings the user's own config defines for it; `None`: the
    /// offline judge by meaning alone.
    pub judge: Option<SummarizerKind>,
    /// Only compaction N (1-based), its facts listed whole.
    pub only: Option<usize>,
}

/// Every compaction with its ledger and its facts judged, and the session.
#[derive(Debug, Clone)]
pub struct Lost {
    /// `stats` with each compaction's ledger (`ledger`) and what the model
    /// still knows of its range (`knows`).
    pub stats: Stats,
    /// What all the compactions keep of all their ranges' facts.
    pub session: Survival,
}

/// What `conv`'s compactions lost under `config`, as `request` asks. With
/// a judge asked for, `before_asking` is shown its quote first, and the
/// judge is asked only when it says yes.
pub fn lost(
    conv: &Conversation,
    config: &AutoConfig,
    request: &LostRequest,
    prices: &Prices,
    before_asking: &mut dyn FnMut(&JudgeQuote) -> bool,
) -> Result<Lost, SummarizeError> {
    let mut stats = super::stats::stats(conv, config, request.window, request.view, true, prices);
    // One compaction asked for is listed whole: its range's facts are
    // bounded by the conversation already. Else the lists are bounded as
    // they are judged.
    let bound = request.only.is_none().then(|| {
        let chars = conv.events.iter().map(|e| e.chars).sum();
        super::stats_compactions::listing_bound(chars)
    });
    if let Some(only) = request.only {
        stats.compactions.retain(|e| e.position + 1 == only);
    }
    super::stats_compactions::with_knows(&mut stats.compactions, conv, request.view, bound);
    if let Some(kind) = request.judge {
        let p = crate::core::compact::projection::of_view(conv, request.view);
        let mut asked: Vec<(TurnRange, &mut Vec<crate::core::facts::Judged>)> = stats
            .compactions
            .iter_mut()
            .filter_map(|e| match (&e.facts, e.knows.as_mut()) {
                (Ok(f), Some(k)) => Some((f.range, k)),
                _ => None,
            })
            .collect();
        super::judge::ask(conv, config, &p, &mut asked, kind, prices, before_asking)?;
        // A list cut short keeps the offline count of what it left out.
        for e in stats.compactions.iter_mut().filter(|e| e.left_out == 0) {
            e.survival = e.knows.as_deref().map(crate::core::facts::Survival::of);
        }
    }
    let session = super::stats_compactions::session_knows(&stats.compactions);
    Ok(Lost { stats, session })
}

use super::judge::JudgeQuote;
use super::stats::Stats;
use crate::core::error::SummarizeError;
use crate::core::model::TurnRange;
use crate::core::summarize::config::SummarizerKind;
