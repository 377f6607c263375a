//! A loaded conversation seen through the trigger's [`Stream`] trait.

use super::trigger::Stream;
use crate::core::compact::estimate;
use crate::core::compact::projection::{self, Overlay};
use crate::core::compact::range;
use crate::core::model::compaction::Compaction;
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp::Timestamp;
use std::borrow::Cow;

/// A conversation with a set of overlays (its own compactions, possibly
/// plus previewed ones).
pub struct ConversationStream<'a> {
    conv: &'a Conversation,
    overlays: Vec<Overlay>,
    turn_chars: Vec<u64>,
    overhead_chars: u64,
}

impl<'a> ConversationStream<'a> {
    /// `conv` seen through `overlays`, each request carrying
    /// `overhead_chars` besides the events.
    pub fn new(conv: &'a Conversation, overlays: Vec<Overlay>, overhead_chars: u64) -> Self {
        let p = projection::project(&conv.events, conv.turn_count, overlays.clone());
        let turn_chars = p.turn_chars(&conv.events, conv.turn_count);
        ConversationStream {
            conv,
            overlays,
            turn_chars,
            overhead_chars,
        }
    }
}

impl Stream for ConversationStream<'_> {
    fn turn_count(&self) -> usize {
        self.conv.turn_count
    }

    fn turn_chars(&self) -> &[u64] {
        &self.turn_chars
    }

    fn overhead_chars(&self) -> u64 {
        self.overhead_chars
    }

    fn after_last_compaction(&self) -> usize {
        let all: Vec<&Compaction> = self.overlays.iter().map(|o| &o.compaction).collect();
        range::after_last(&all)
    }

    fn after_last_summary(&self) -> usize {
        let summaries: Vec<&Compaction> = self
            .overlays
            .iter()
            .map(|o| &o.compaction)
            .filter(|c| c.summary.is_some())
            .collect();
        range::after_last(&summaries)
    }

    fn summary_ranges(&self) -> Cow<'_, [(usize, usize)]> {
        self.overlays
            .iter()
            .filter(|o| o.compaction.summary.is_some())
            .map(|o| (o.compaction.from_turn, o.compaction.to_turn))
            .collect()
    }

    fn latest_timestamp(&self) -> Option<Timestamp> {
        self.overlays.iter().map(|o| o.compaction.timestamp).max()
    }

    fn chars_with(&self, extra: &[Compaction]) -> u64 {
        let mut overlays = self.overlays.clone();
        let base = overlays.iter().map(|o| o.position + 1).max().unwrap_or(0);
        overlays.extend(extra.iter().enumerate().map(|(i, c)| Overlay {
            compaction: c.clone(),
            position: base + i,
            preview: true,
        }));
        let p = projection::project(&self.conv.events, self.conv.turn_count, overlays);
        estimate::of_projection(&self.conv.events, &p).total_chars()
    }
}
