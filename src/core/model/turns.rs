//! Turn indexing, the index every compaction range refers to.
//!
//! A turn is a run of conversation events. A `turn_start` opens a new turn
//! only when the current turn already holds a conversation event, so events
//! before the first `turn_start` form an implicit turn 0 and a file with no
//! `turn_start` at all is one turn. Config deltas, compactions and unknown
//! events belong to the turn they sit in. `jp` applies ranges with exactly
//! this rule; any other would compact turns the user did not pick.

use crate::core::model::event::{Event, Kind};

/// Assigns each event its 0-based turn and returns the number of turns.
pub fn assign(events: &mut [Event]) -> usize {
    let mut turn = 0;
    let mut holds = false;
    for event in events.iter_mut() {
        if event.kind.is_conversation_event() {
            if event.kind == Kind::TurnStart && holds {
                turn += 1;
            }
            holds = true;
        }
        event.turn = turn;
    }
    if holds { turn + 1 } else { 0 }
}

/// Index of the first event of each turn (its first conversation event).
pub fn first_events(events: &[Event], turn_count: usize) -> Vec<usize> {
    let mut firsts = Vec::with_capacity(turn_count);
    for (i, e) in events.iter().enumerate() {
        if e.kind.is_conversation_event() && firsts.len() == e.turn {
            firsts.push(i);
        }
    }
    firsts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::event::{Event, Kind, ResponseKind, Span};

    fn ev(kind: Kind) -> Event {
        Event {
            span: Span { start: 0, end: 0 },
            timestamp: None,
            kind,
            turn: 99,
            chars: 0,
            payload: 0,
        }
    }

    fn turns(kinds: Vec<Kind>) -> (Vec<usize>, usize) {
        let mut events: Vec<Event> = kinds.into_iter().map(ev).collect();
        let n = assign(&mut events);
        (events.iter().map(|e| e.turn).collect(), n)
    }

    #[test]
    fn no_turn_start_is_one_turn() {
        let (t, n) = turns(vec![
            Kind::ChatRequest,
            Kind::ChatResponse(ResponseKind::Message),
            Kind::ChatRequest,
        ]);
        assert_eq!(t, vec![0, 0, 0]);
        assert_eq!(n, 1);
    }

    #[test]
    fn events_before_first_turn_start_are_turn_zero() {
        let (t, n) = turns(vec![Kind::ChatRequest, Kind::TurnStart, Kind::ChatRequest]);
        assert_eq!(t, vec![0, 1, 1]);
        assert_eq!(n, 2);
    }

    #[test]
    fn leading_turn_start_does_not_open_an_empty_turn() {
        let (t, n) = turns(vec![
            Kind::ConfigDelta,
            Kind::TurnStart,
            Kind::ChatRequest,
            Kind::ConfigDelta,
            Kind::TurnStart,
            Kind::ChatRequest,
        ]);
        assert_eq!(t, vec![0, 0, 0, 0, 1, 1]);
        assert_eq!(n, 2);
    }

    #[test]
    fn consecutive_turn_starts_each_open_a_turn() {
        let (t, n) = turns(vec![Kind::TurnStart, Kind::TurnStart, Kind::ChatRequest]);
        assert_eq!(t, vec![0, 1, 1]);
        assert_eq!(n, 2);
    }

    #[test]
    fn empty_and_config_only_streams_have_no_turns() {
        assert_eq!(turns(vec![]).1, 0);
        assert_eq!(
            turns(vec![Kind::ConfigDelta, Kind::Unknown("x".into())]).1,
            0
        );
    }
}
