//! Which request each tool call response answers: what names a stripped
//! response's status line and what an `omit` with `over` weighs.
//!
//! A call id is not unique (a provider may reuse one across the streaming
//! cycles of a turn), so jp's next release pairs by occurrence: a response
//! answers the oldest request of its own turn with its id that has no
//! response yet; one with none is `unknown`. Today's jp names a response by
//! the last request anywhere in the stream with its id, and knows no
//! `over`: `Pairing::as_today` is that, for the view that projects as
//! today's jp does.

use crate::core::model::event::{Event, Kind};
// Seeded per process, so a crafted stream of call ids can't make the
// maps slow; several times faster than std's SipHash on short ids.
use foldhash::HashMap;
use foldhash::HashMapExt as _;

const NONE: u32 = u32::MAX;

/// For every event, the one its tool call half is paired with.
#[derive(Debug, Clone, Default)]
pub struct Pairing {
    partner: Vec<u32>,
}

/// The tool calls of the last turn still waiting for their result, in
/// order. jp writes a call before it runs it, so a turn followed while it
/// grows has them; only the last turn is looked at, since jp answers an
/// earlier turn's calls before the next turn starts.
pub fn waiting(events: &[Event]) -> Vec<usize> {
    let Some(last) = events.last() else {
        return Vec::new();
    };
    let from = events.partition_point(|e| e.turn < last.turn);
    let turn = &events[from..];
    let pairing = Pairing::of(turn);
    turn.iter()
        .enumerate()
        .filter(|(i, e)| {
            matches!(e.kind, Kind::ToolCallRequest { .. })
                && pairing.partner(*i, turn.len()).is_none()
        })
        .map(|(i, _)| from + i)
        .collect()
}

impl Pairing {
    /// Pairs by occurrence within each turn, as jp's next release does.
    /// Depends only on earlier events, so it holds for every prefix of
    /// `events` too (a partner at or past a prefix's end is no partner).
    pub fn of(events: &[Event]) -> Pairing {
        let mut partner = vec![NONE; events.len()];
        // The requests of one (turn, id) still waiting, oldest first: a
        // queue threaded through `next`, so that the usual unique id costs
        // no allocation of its own.
        let mut next = vec![NONE; events.len()];
        let mut pending: HashMap<(usize, &str), (u32, u32)> = HashMap::new();
        for (i, e) in events.iter().enumerate() {
            match &e.kind {
                Kind::ToolCallRequest { id, .. } => match pending.get_mut(&(e.turn, &**id)) {
                    Some((_, tail)) if *tail != NONE => {
                        next[*tail as usize] = i as u32;
                        *tail = i as u32;
                    }
                    Some(queue) => *queue = (i as u32, i as u32),
                    None => {
                        pending.insert((e.turn, id), (i as u32, i as u32));
                    }
                },
                Kind::ToolCallResponse { id, .. } => {
                    if let Some((head, tail)) = pending.get_mut(&(e.turn, &**id))
                        && *head != NONE
                    {
                        let r = *head as usize;
                        partner[i] = r as u32;
                        partner[r] = i as u32;
                        *head = next[r];
                        if *head == NONE {
                            *tail = NONE;
                        }
                    }
                }
                _ => {}
            }
        }
        Pairing { partner }
    }

    /// Today's jp: a response is named by the last request in `events`
    /// with its id, wherever it is; no sizes are paired.
    pub fn as_today(events: &[Event]) -> Pairing {
        let mut last: HashMap<&str, usize> = HashMap::new();
        for (i, e) in events.iter().enumerate() {
            if let Kind::ToolCallRequest { id, .. } = &e.kind {
                last.insert(id, i);
            }
        }
        let mut partner = vec![NONE; events.len()];
        for (i, e) in events.iter().enumerate() {
            if let Kind::ToolCallResponse { id, .. } = &e.kind
                && let Some(&r) = last.get(&**id)
            {
                partner[i] = r as u32;
            }
        }
        Pairing { partner }
    }

    /// The event paired with event `i` among `events`' first `len`.
    pub fn partner(&self, i: usize, len: usize) -> Option<usize> {
        let p = *self.partner.get(i)?;
        (p != NONE && (p as usize) < len).then_some(p as usize)
    }

    /// The tool a response names in its status line: its request's name,
    /// else `unknown`.
    pub fn name<'a>(&self, events: &'a [Event], i: usize) -> &'a str {
        match self.partner(i, events.len()).map(|r| &events[r].kind) {
            Some(Kind::ToolCallRequest { name, .. }) => name,
            _ => "unknown",
        }
    }

    /// The bytes of both halves of the call event `i` belongs to (its own
    /// alone when its partner is missing), which an `omit` with `over`
    /// judges so that a pair is never half removed.
    pub fn pair_bytes(&self, events: &[Event], i: usize) -> u64 {
        let own = events[i].payload;
        match self.partner(i, events.len()) {
            Some(p) => own.saturating_add(events[p].payload),
            None => own,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::event::Span;

    fn event(turn: usize, kind: Kind, payload: u64) -> Event {
        Event {
            span: Span { start: 0, end: 0 },
            timestamp: None,
            kind,
            turn,
            chars: payload,
            payload,
        }
    }

    fn request(turn: usize, id: &str, name: &str, payload: u64) -> Event {
        event(
            turn,
            Kind::ToolCallRequest {
                id: id.into(),
                name: name.into(),
            },
            payload,
        )
    }

    fn response(turn: usize, id: &str, payload: u64) -> Event {
        event(
            turn,
            Kind::ToolCallResponse {
                id: id.into(),
                is_error: false,
            },
            payload,
        )
    }

    #[test]
    fn a_reused_id_pairs_by_occurrence_within_its_turn() {
        let events = vec![
            request(0, "c", "read", 10),
            response(0, "c", 100),
            request(0, "c", "grep", 20),
            response(0, "c", 200),
            // Another turn's response: no request of its turn has the id.
            response(1, "c", 5),
        ];
        let p = Pairing::of(&events);
        assert_eq!(p.name(&events, 1), "read");
        assert_eq!(p.name(&events, 3), "grep");
        assert_eq!(p.name(&events, 4), "unknown");
        assert_eq!(p.pair_bytes(&events, 0), 110);
        assert_eq!(p.pair_bytes(&events, 3), 220);
        assert_eq!(p.pair_bytes(&events, 4), 5);
        // Today's jp names all three by the last request with the id.
        let today = Pairing::as_today(&events);
        assert_eq!(
            [1, 3, 4].map(|i| today.name(&events, i)),
            ["grep", "grep", "grep"]
        );
    }

    #[test]
    fn parallel_calls_with_one_id_pair_oldest_first() {
        let events = vec![
            request(0, "c", "a", 1),
            request(0, "c", "b", 2),
            request(0, "c", "c", 3),
            response(0, "c", 10),
            response(0, "c", 20),
            request(0, "c", "d", 4),
            response(0, "c", 30),
            response(0, "c", 40),
        ];
        let p = Pairing::of(&events);
        let names: Vec<&str> = [3, 4, 6, 7].map(|i| p.name(&events, i)).to_vec();
        assert_eq!(names, ["a", "b", "c", "d"]);
        assert_eq!(p.pair_bytes(&events, 2), 33);
    }

    #[test]
    fn a_prefix_sees_no_partner_past_its_end() {
        let events = vec![request(0, "a", "read", 10), response(0, "a", 100)];
        let p = Pairing::of(&events);
        assert_eq!(p.pair_bytes(&events[..1], 0), 10);
        assert_eq!(p.pair_bytes(&events, 0), 110);
    }
}
