//! `show` as one use case: the raw stream with each event's share of the
//! estimate (and, for a listing, its fate), or a projection (today's, as
//! jp sends it, or as a past request saw it) with each projected event's
//! share and projected turn. Nothing else is computed: `show` runs on
//! 100 MB conversations.

use crate::core::compact::estimate;
use crate::core::compact::fate::{Projected, TurnOrigin};
use crate::core::compact::jp_view::View;
use crate::core::compact::projection::{self, Projection};
use crate::core::model::conversation::Conversation;

/// What the person asked to see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShowRequest {
    /// The raw stream (`None`) or a projection in this view.
    pub projected: Option<View>,
    pub at: At,
    /// The raw stream's fates too (a listing marks them; JSON has none).
    pub fates: bool,
}

/// Which request's context a projection is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// The next request's.
    Now,
    /// The request before this 1-based turn's first answer (`--at`).
    Turn(usize),
    /// The request before this raw event (`--at-event`).
    Event(usize),
}

/// What `show` shows.
#[derive(Debug)]
pub enum Shown {
    Raw {
        /// Each event's share of the stream's estimate.
        tokens: Vec<u64>,
        /// Each event's fate, when asked.
        fates: Option<Projection>,
    },
    Projected {
        projection: Projection,
        /// Each projected event's share of the projection's estimate.
        tokens: Vec<u64>,
        /// Each projected event's projected turn (an index into the
        /// projection's turn origins).
        turns: Vec<usize>,
        /// The raw event the projection stops before, when it is of a past
        /// request.
        at: Option<usize>,
    },
}

/// A point that names no request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShowError {
    #[error("turns are numbered from 1")]
    TurnZero,
    #[error("turn {turn} has no answer to show the request of (the conversation has {turns})")]
    NoAnswer { turn: usize, turns: String },
    #[error("there is no event {event}; the conversation has {events} (numbered from 0)")]
    NoEvent { event: usize, events: usize },
}

pub fn show(conv: &Conversation, request: &ShowRequest) -> Result<Shown, ShowError> {
    let Some(view) = request.projected else {
        return Ok(Shown::Raw {
            tokens: estimate::raw_shares(&conv.events),
            fates: request.fates.then(|| projection::of(conv)),
        });
    };
    let at = match request.at {
        At::Now => None,
        At::Turn(0) => return Err(ShowError::TurnZero),
        At::Turn(t) => {
            Some(
                super::request_of_turn(conv, t - 1).ok_or_else(|| ShowError::NoAnswer {
                    turn: t,
                    turns: crate::core::fmt::count(conv.turn_count as u64, "turn"),
                })?,
            )
        }
        At::Event(n) if n > conv.events.len() => {
            return Err(ShowError::NoEvent {
                event: n,
                events: conv.events.len(),
            });
        }
        At::Event(n) => Some(n),
    };
    let projection = match at {
        Some(end) => projection::as_of(conv, end, view),
        None => projection::of_view(conv, view),
    };
    Ok(Shown::Projected {
        tokens: estimate::projected_shares(&conv.events, &projection),
        turns: projected_turns(conv, &projection),
        projection,
        at,
    })
}

/// The projected turn of each projected event.
fn projected_turns(conv: &Conversation, p: &Projection) -> Vec<usize> {
    // Raw turn -> projected turn, through the origins.
    let mut of_raw = vec![0; conv.turn_count];
    for (k, o) in p.turn_origins.iter().enumerate() {
        match *o {
            TurnOrigin::Kept(t) => of_raw[t] = k,
            TurnOrigin::Summary { from, to, .. } => of_raw[from..=to].fill(k),
        }
    }
    p.events
        .iter()
        .map(|e: &Projected| of_raw.get(p.turn_of(&conv.events, e)).copied().unwrap_or(0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::store::load;

    /// Two turns, the first summarised by a compaction.
    fn conv() -> Conversation {
        let events = r#"[
 {"type":"turn_start","timestamp":"2026-01-01 00:00:00"},
 {"type":"chat_request","timestamp":"2026-01-01 00:00:00","content":"first question"},
 {"type":"chat_response","timestamp":"2026-01-01 00:00:01","message":"first answer"},
 {"type":"turn_start","timestamp":"2026-01-01 00:01:00"},
 {"type":"chat_request","timestamp":"2026-01-01 00:01:00","content":"second question"},
 {"type":"chat_response","timestamp":"2026-01-01 00:01:01","message":"second answer"},
 {"type":"compaction","timestamp":"2026-01-01 00:02:00","from_turn":0,"to_turn":0,
  "summary":{"summary":"they asked once"},"source":"manual"}
]"#;
        load::of_events(events)
    }

    fn ask(projected: Option<View>, at: At) -> ShowRequest {
        ShowRequest {
            projected,
            at,
            fates: true,
        }
    }

    #[test]
    fn the_raw_stream_has_a_share_and_a_fate_per_event() {
        let c = conv();
        let Ok(Shown::Raw { tokens, fates }) = show(&c, &ask(None, At::Now)) else {
            panic!("raw asked, raw shown");
        };
        assert_eq!(tokens.len(), c.events.len());
        assert_eq!(
            tokens.iter().sum::<u64>(),
            estimate::raw_shares(&c.events).iter().sum::<u64>()
        );
        assert_eq!(fates.unwrap().fates.len(), c.events.len());
        let Ok(Shown::Raw { fates: None, .. }) = show(
            &c,
            &ShowRequest {
                fates: false,
                ..ask(None, At::Now)
            },
        ) else {
            panic!("no fates asked, none made");
        };
    }

    #[test]
    fn a_summary_is_one_projected_turn_and_the_points_are_checked() {
        let c = conv();
        let Ok(Shown::Projected {
            turns,
            projection,
            at,
            ..
        }) = show(&c, &ask(Some(View::Inspect), At::Now))
        else {
            panic!("a projection asked");
        };
        assert_eq!(at, None);
        assert_eq!(projection.turn_origins.len(), 2);
        assert!(matches!(
            projection.turn_origins[0],
            TurnOrigin::Summary { .. }
        ));
        // The summary's events are projected turn 0, the kept turn's 1.
        assert_eq!(turns.first(), Some(&0));
        assert_eq!(turns.last(), Some(&1));
        // As turn 2's request saw it: before the compaction was written.
        let Ok(Shown::Projected { at: Some(end), .. }) =
            show(&c, &ask(Some(View::Inspect), At::Turn(2)))
        else {
            panic!("turn 2 has an answer");
        };
        assert_eq!(end, 5);
        let err = |at| show(&c, &ask(Some(View::Inspect), at)).unwrap_err();
        assert_eq!(err(At::Turn(0)), ShowError::TurnZero);
        assert_eq!(
            err(At::Turn(3)).to_string(),
            "turn 3 has no answer to show the request of (the conversation has 2 turns)"
        );
        assert_eq!(
            err(At::Event(8)),
            ShowError::NoEvent {
                event: 8,
                events: 7
            }
        );
    }
}
