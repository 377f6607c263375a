//! Figures about the compactions a conversation holds.

use crate::core::compact::estimate;
use crate::core::compact::projection::{self, Overlay, Projection};
use crate::core::model::conversation::Conversation;

/// Projected event tokens of `conv` without the overlay at `position`.
fn tokens_without(conv: &Conversation, overlays: &[Overlay], position: usize) -> u64 {
    let without: Vec<Overlay> = overlays
        .iter()
        .filter(|o| o.position != position)
        .cloned()
        .collect();
    let p = projection::project(&conv.events, conv.turn_count, without);
    estimate::of_projection(&conv.events, &p).total_tokens()
}

/// For each overlay of `p` (stored and previewed, by position), the tokens
/// the projection saves thanks to it: the estimate without it minus the
/// estimate with everything.
pub fn saved_per_compaction(conv: &Conversation, p: &Projection) -> Vec<(usize, u64)> {
    let full = estimate::of_projection(&conv.events, p).total_tokens();
    p.overlays
        .iter()
        .map(|o| {
            (
                o.position,
                tokens_without(conv, &p.overlays, o.position).saturating_sub(full),
            )
        })
        .collect()
}
