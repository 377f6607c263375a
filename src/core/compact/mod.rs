//! Compaction as functions of data: the projection (what the model sees),
//! ranges, the rule syntax, resets, the size estimate, context windows,
//! planning manual compactions, and one-line excerpts of events.

pub mod budget;
pub mod estimate;
pub mod excerpt;
pub mod fate;
pub mod jp_view;
pub mod ledger;
pub mod pairing;
pub mod plan;
pub mod projected_event;
pub mod projection;
pub mod range;
pub mod reset;
pub mod rule;
pub mod stepwise;
pub mod threshold;
pub mod window;
