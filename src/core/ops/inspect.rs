//! What the inspector shows of a conversation, as data: the projection
//! (with a preview on top, or as the request before a past event saw it),
//! its estimate and the one without the preview, each event's share of the
//! tokens raw and projected, and every compaction with what it saves (and,
//! now, what it costs with the prompt cache). The inspector lays it out;
//! nothing here is drawn.

use crate::core::compact::estimate::{self, Estimate};
use crate::core::compact::jp_view::View;
use crate::core::compact::projection::{self, Projection};
use crate::core::cost::Prices;
use crate::core::model::compaction::Compaction;
use crate::core::model::conversation::Conversation;
use crate::core::ops::stats_compactions::CompactionEntry;

/// What a viewer asks to see.
#[derive(Debug, Clone, Copy)]
pub struct InspectRequest<'a> {
    /// Compactions shown on top, not written.
    pub preview: &'a [Compaction],
    pub view: View,
    /// As the request before this raw event saw it; `None`: now.
    pub as_of: Option<usize>,
    /// The prices a compaction's payback is billed at.
    pub prices: &'a Prices,
}

/// The conversation as a viewer shows it.
#[derive(Debug, Clone)]
pub struct Inspected {
    pub projection: Projection,
    pub estimate: Estimate,
    /// When previewing: the estimate without the previewed compactions.
    pub before: Option<Estimate>,
    /// Each raw and each projected event's tokens: cumulative shares, so
    /// a turn's events add up to the turn and the turns to the estimate.
    pub raw_shares: Vec<u64>,
    pub projected_shares: Vec<u64>,
    /// The raw stream's estimate (nothing compacted).
    pub raw_tokens: u64,
    /// The configured model.
    pub model: Option<String>,
    /// Tool calls of the last turn still waiting for their result (jp
    /// writing the turn as it runs); none for a moment of the past.
    pub waiting: Vec<usize>,
    /// Every compaction and previewed one; for a moment of the past only
    /// those appended by then.
    pub compactions: Vec<CompactionEntry>,
    /// Whether what each compaction saves is of this moment: not for a
    /// moment of the past, since it is a figure of the whole stream.
    pub saves_known: bool,
}

/// `conv` as `request` asks to see it.
pub fn inspect(conv: &Conversation, request: &InspectRequest<'_>) -> Inspected {
    // The merged config is read once here: it can be large.
    let merged = conv.merged_config();
    let overhead = estimate::Overhead::of_config(merged);
    let view = request.view;
    let p = match request.as_of {
        Some(end) => projection::as_of(conv, end, view),
        None => {
            let overlays = view.apply(projection::with_preview(conv, request.preview));
            projection::project(&conv.events, conv.turn_count, overlays)
        }
    };
    let estimate = estimate::estimate(conv, &p, &overhead);
    let before = (!request.preview.is_empty()).then(|| {
        let base = projection::of_view(conv, view);
        estimate::estimate(conv, &base, &overhead)
    });
    let entries =
        crate::core::ops::stats_compactions::compaction_entries(conv, &p, overhead.chars());
    let compactions = match request.as_of {
        None => {
            let billing = crate::core::cost::Billing::of_config(merged, request.prices);
            let at_time = crate::core::ops::stats_compactions::payback_at_time(
                conv,
                &Default::default(),
                None,
            );
            crate::core::ops::stats_compactions::with_payback(
                entries,
                &billing,
                super::cost::pace(conv),
                &at_time,
            )
        }
        Some(end) => entries
            .into_iter()
            .filter(|e| e.event.is_some_and(|i| i < end))
            .collect(),
    };
    Inspected {
        raw_shares: estimate::raw_shares(&conv.events),
        projected_shares: estimate::projected_shares(&conv.events, &p),
        raw_tokens: estimate::of_raw(&conv.events).total_tokens(),
        model: crate::core::model::config::model_id(merged).map(|m| m.to_string()),
        waiting: match request.as_of {
            Some(_) => Vec::new(),
            None => crate::core::compact::pairing::waiting(&conv.events),
        },
        projection: p,
        estimate,
        before,
        compactions,
        saves_known: request.as_of.is_none(),
    }
}
