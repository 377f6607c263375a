//! What a size threshold selects. A range says which turns a compaction
//! covers; an `over` bound picks an unforeseeable part of them, so a
//! preview names each item it reaches (as jp's next release does) and says
//! so when it reaches none.

use crate::core::compact::pairing::Pairing;
use crate::core::model::compaction::{Compaction, ToolCalls};
use crate::core::model::conversation::Conversation;
use crate::core::model::event::{Kind, ResponseKind};

/// One item a thresholded compaction takes out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    /// 0-based raw turn.
    pub turn: usize,
    /// `reasoning`, a tool's name, or the half reached:
    /// `fs_read_file (response)`.
    pub item: String,
    /// The bytes the threshold judged.
    pub bytes: u64,
}

/// The items `c`'s bounded policies reach, in stream order; `None` when it
/// has no threshold (it reaches everything in its range) or is a summary
/// (which replaces the range whatever its other policies say).
pub fn reached(conv: &Conversation, c: &Compaction) -> Option<Vec<Reached>> {
    let tools_over = c.tool_calls.and_then(ToolCalls::over);
    let reasoning_over = c.reasoning_over.filter(|_| c.strip_reasoning);
    if c.summary.is_some() || (tools_over.is_none() && reasoning_over.is_none()) {
        return None;
    }
    let pairing = Pairing::of(&conv.events);
    let mut out = Vec::new();
    for (i, e) in conv.events.iter().enumerate() {
        if e.turn < c.from_turn || e.turn > c.to_turn || !e.kind.is_conversation_event() {
            continue;
        }
        let mut push = |item: String, bytes: u64| {
            out.push(Reached {
                turn: e.turn,
                item,
                bytes,
            })
        };
        match (&e.kind, c.tool_calls) {
            (Kind::ChatResponse(ResponseKind::Reasoning), _)
                if c.strip_reasoning && reasoning_over.is_none_or(|n| e.payload > n) =>
            {
                push("reasoning".into(), e.payload);
            }
            // A pair goes whole: said once, from its request.
            (Kind::ToolCallRequest { name, .. }, Some(ToolCalls::Omit { over })) => {
                let pair = pairing.pair_bytes(&conv.events, i);
                if over.is_none_or(|n| pair > n) {
                    push(name.to_string(), pair);
                }
            }
            (
                Kind::ToolCallRequest { name, .. },
                Some(ToolCalls::Strip {
                    request: true,
                    over,
                    ..
                }),
            ) if over.is_none_or(|n| e.payload > n) => {
                push(format!("{name} (request)"), e.payload);
            }
            (
                Kind::ToolCallResponse { .. },
                Some(ToolCalls::Strip {
                    response: true,
                    over,
                    ..
                }),
            ) if over.is_none_or(|n| e.payload > n) => {
                let name = pairing.name(&conv.events, i);
                push(format!("{name} (response)"), e.payload);
            }
            _ => {}
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::compaction::Source;
    use crate::core::model::timestamp;

    fn conv() -> Conversation {
        let events = r#"[
 {"type":"turn_start","timestamp":"2026-01-01 00:00:00"},
 {"type":"chat_request","timestamp":"2026-01-01 00:00:00","content":"hi"},
 {"type":"chat_response","timestamp":"2026-01-01 00:00:01","reasoning":"0123456789"},
 {"type":"tool_call_request","timestamp":"2026-01-01 00:00:02","id":"a","name":"read","arguments":{"p":"x"}},
 {"type":"tool_call_response","timestamp":"2026-01-01 00:00:03","id":"a","content":"0123456789012345678901234567890123456789","is_error":false},
 {"type":"chat_response","timestamp":"2026-01-01 00:00:04","message":"done"}
]"#;
        crate::core::store::load::of_events(events)
    }

    fn compaction(tool_calls: Option<ToolCalls>, reasoning_over: Option<u64>) -> Compaction {
        Compaction {
            timestamp: timestamp::parse("2026-01-02 00:00:00").unwrap(),
            from_turn: 0,
            to_turn: 0,
            summary: None,
            strip_reasoning: reasoning_over.is_some(),
            reasoning_over,
            tool_calls,
            source: Source::Manual,
            summarizer: None,
            authored: false,
            tool_overrides: Default::default(),
        }
    }

    #[test]
    fn each_half_on_its_own_size_omit_on_the_pair() {
        let c = conv();
        let strip = |over| {
            compaction(
                Some(ToolCalls::Strip {
                    request: true,
                    response: true,
                    over: Some(over),
                }),
                None,
            )
        };
        // The request is 9 bytes (`{"p":"x"}`), the response 40.
        let items = reached(&c, &strip(20)).unwrap();
        assert_eq!(
            items,
            vec![Reached {
                turn: 0,
                item: "read (response)".into(),
                bytes: 40
            }]
        );
        assert_eq!(reached(&c, &strip(40)).unwrap(), vec![], "strictly over");
        assert_eq!(reached(&c, &strip(8)).unwrap().len(), 2);
        let omit = compaction(Some(ToolCalls::Omit { over: Some(45) }), None);
        assert_eq!(
            reached(&c, &omit).unwrap(),
            vec![Reached {
                turn: 0,
                item: "read".into(),
                bytes: 49
            }]
        );
        let reasoning = compaction(None, Some(9));
        assert_eq!(reached(&c, &reasoning).unwrap()[0].item, "reasoning");
        assert_eq!(reached(&c, &compaction(None, Some(10))).unwrap(), vec![]);
        // No threshold: the range says it all.
        assert_eq!(
            reached(&c, &compaction(Some(ToolCalls::Omit { over: None }), None)),
            None
        );
    }
}
