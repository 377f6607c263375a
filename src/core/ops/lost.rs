//! `lost`: what each compaction hid, what the model no longer knows of its
//! range, and what the compactions keep of the whole session. One use case
//! for `lost` and the review's page, so the two never count apart.

use super::stats::Stats;
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

/// What `conv`'s compactions lost under `config`, as `request` asks.
pub fn lost(
    conv: &Conversation,
    config: &AutoConfig,
    request: &LostRequest,
    prices: &Prices,
) -> Lost {
    let mut stats = super::stats::stats(conv, config, request.window, request.view, true, prices);
    super::stats_compactions::with_knows(&mut stats.compactions, conv, request.view);
    let session = super::stats_compactions::session_knows(&stats.compactions);
    Lost { stats, session }
}
