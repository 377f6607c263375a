//! `history` as one use case: every request of the session with the
//! context it was sent, what each was billed, and the budget its ratios
//! are of.

use super::cost::SessionCost;
use crate::core::auto::AutoConfig;
use crate::core::auto::history::HistoryPoint;
use crate::core::compact::budget::Budget;
use crate::core::cost::Prices;
use crate::core::model::conversation::Conversation;

/// The session as it was sent.
#[derive(Debug)]
pub struct Session {
    /// Each request, in order.
    pub points: Vec<HistoryPoint>,
    /// What each request was billed, and the whole session.
    pub cost: SessionCost,
    /// Today's budget: the window the ratios are said of.
    pub budget: Budget,
}

/// `conv`'s requests against its window (or `window`), billed at `prices`.
pub fn session(
    conv: &Conversation,
    config: &AutoConfig,
    window: Option<u64>,
    prices: &Prices,
) -> Session {
    let points = super::history(conv, config, window);
    let cost = super::cost::session(conv, config, &points, prices);
    Session {
        points,
        cost,
        budget: super::budget(conv, config, window),
    }
}
