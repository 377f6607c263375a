//! Properties of the projection over generated streams with arbitrary
//! compactions (proptest).

use jp_inspect::core::compact::fate::Alteration;
use jp_inspect::core::compact::fate::Projected;
use jp_inspect::core::compact::fate::TurnOrigin;
use jp_inspect::core::compact::projection::{self, Overlay};
use jp_inspect::core::model::compaction::{Compaction, Source, ToolCalls};
use jp_inspect::core::model::conversation::Conversation;
use jp_inspect::core::store::load::{self, Files};
use jp_inspect::core::{compact::estimate, model::encoding, model::timestamp};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::Path;

#[derive(Debug, Clone)]
enum Ev {
    TurnStart,
    Request(String),
    Reasoning(String),
    Message(String),
    Data(u8),
    Call {
        name: u8,
        arg: String,
        output: String,
        error: bool,
    },
    Delta,
    Unknown,
}

#[derive(Debug, Clone)]
struct Spec {
    from: usize,
    to: usize,
    summary: Option<String>,
    reasoning: bool,
    tools: Option<(u8, Option<u64>)>,
    auto: bool,
}

fn ev() -> impl Strategy<Value = Ev> {
    prop_oneof![
        3 => Just(Ev::TurnStart),
        3 => "[a-z ]{0,40}".prop_map(Ev::Request),
        2 => "[a-z ]{0,60}".prop_map(Ev::Reasoning),
        3 => "[a-zé ]{0,60}".prop_map(Ev::Message),
        1 => any::<u8>().prop_map(Ev::Data),
        4 => (0u8..3, "[a-z/.]{0,30}", "[a-z\n ]{0,200}", any::<bool>())
            .prop_map(|(name, arg, output, error)| Ev::Call { name, arg, output, error }),
        1 => Just(Ev::Delta),
        1 => Just(Ev::Unknown),
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        0usize..12,
        0usize..14,
        proptest::option::weighted(0.3, "[a-z ]{1,40}"),
        any::<bool>(),
        proptest::option::of((0u8..4, proptest::option::of(0u64..150))),
        any::<bool>(),
    )
        .prop_map(|(from, to, summary, reasoning, tools, auto)| Spec {
            from,
            to,
            summary,
            reasoning,
            tools,
            auto,
        })
}

fn tools_of(kind: u8, over: Option<u64>) -> ToolCalls {
    match kind {
        0 => ToolCalls::Strip {
            request: true,
            response: true,
            over,
        },
        1 => ToolCalls::Strip {
            request: true,
            response: false,
            over,
        },
        2 => ToolCalls::Strip {
            request: false,
            response: true,
            over,
        },
        _ => ToolCalls::Omit { over },
    }
}

fn compaction(s: &Spec, second: u32) -> Compaction {
    Compaction {
        timestamp: timestamp::parse(&format!("2026-02-01 00:00:{:02}.{second}", second % 60))
            .unwrap(),
        from_turn: s.from,
        to_turn: s.to,
        summary: s.summary.clone(),
        strip_reasoning: s.reasoning,
        reasoning_over: None,
        tool_calls: s.tools.map(|(k, o)| tools_of(k, o)),
        source: if s.auto { Source::Auto } else { Source::Manual },
        summarizer: None,
        authored: false,
        tool_overrides: Default::default(),
    }
}

/// The events of a stream as stored JSON values.
fn stored(events: &[Ev]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut call = 0;
    for (i, e) in events.iter().enumerate() {
        let ts = format!("2026-01-01 00:{:02}:{:02}.0", i / 60 % 60, i % 60);
        let mut v = match e {
            Ev::TurnStart => json!({"timestamp": ts, "type": "turn_start"}),
            Ev::Request(c) => json!({"timestamp": ts, "type": "chat_request", "content": c}),
            Ev::Reasoning(r) => json!({"timestamp": ts, "type": "chat_response", "reasoning": r}),
            Ev::Message(m) => json!({"timestamp": ts, "type": "chat_response", "message": m}),
            Ev::Data(n) => json!({"timestamp": ts, "type": "chat_response", "data": {"n": n}}),
            Ev::Call {
                name,
                arg,
                output,
                error,
            } => {
                call += 1;
                let id = format!("c{call}");
                let mut req = json!({"timestamp": ts, "type": "tool_call_request", "id": id,
                    "name": format!("tool{name}"), "arguments": {"path": arg}});
                encoding::encode_event(&mut req);
                out.push(req);
                json!({"timestamp": ts, "type": "tool_call_response", "id": id,
                    "content": output, "is_error": error})
            }
            Ev::Delta => json!({"type": "config_delta", "timestamp": ts, "delta": {"x": 1}}),
            Ev::Unknown => json!({"type": "later_thing", "timestamp": ts, "y": [1]}),
        };
        encoding::encode_event(&mut v);
        out.push(v);
    }
    out
}

fn conversation(values: &[Value]) -> Conversation {
    let text = serde_json::to_string_pretty(values).unwrap() + "\n";
    load::parse(
        Path::new("/t/17000000000-prop"),
        Files {
            events: text.into_bytes(),
            base_config: Some(b"{}".to_vec()),
            metadata: None,
        },
    )
    .unwrap()
}

/// The stream with `compactions` inserted at the given positions.
fn with_compactions(events: &[Ev], compactions: &[(usize, Compaction)]) -> Conversation {
    let mut values = stored(events);
    let mut inserts: Vec<(usize, Value)> = compactions
        .iter()
        .map(|(at, c)| ((*at).min(values.len()), c.to_json()))
        .collect();
    inserts.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    for (at, v) in inserts {
        values.insert(at, v);
    }
    conversation(&values)
}

fn plain_projection(conv: &Conversation) -> (Vec<Value>, Vec<(bool, usize, usize)>) {
    let p = projection::of(conv);
    let events = p.events.iter().map(|e| p.plain(conv, e)).collect();
    let origins = p
        .turn_origins
        .iter()
        .map(|o| match *o {
            TurnOrigin::Kept(t) => (false, t, t),
            TurnOrigin::Summary { from, to, .. } => (true, from, to),
        })
        .collect();
    (events, origins)
}

fn tokens(conv: &Conversation, overlays: Vec<Overlay>) -> u64 {
    let p = projection::project(&conv.events, conv.turn_count, overlays);
    estimate::of_projection(&conv.events, &p).total_chars()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn projection_never_changes_raw_events(
        events in proptest::collection::vec(ev(), 0..60),
        specs in proptest::collection::vec((0usize..80, spec()), 0..5),
    ) {
        let cs: Vec<(usize, Compaction)> = specs.iter().enumerate()
            .map(|(i, (at, s))| (*at, compaction(s, i as u32))).collect();
        let conv = with_compactions(&events, &cs);
        // The projection only borrows the conversation, so its raw events
        // can't change; what can is an unchanged event read otherwise
        // than its raw text says.
        let p = projection::of(&conv);
        for e in &p.events {
            if let Projected::Raw { index, change: Alteration::None } = e {
                prop_assert_eq!(p.plain(&conv, e), conv.plain(*index));
            }
        }
    }

    #[test]
    fn reasoning_strip_and_omit_never_increase_the_estimate(
        events in proptest::collection::vec(ev(), 0..60),
        specs in proptest::collection::vec((0usize..80, spec()), 0..4),
        from in 0usize..12, to in 0usize..14, reasoning in any::<bool>(), omit in any::<bool>(),
    ) {
        let cs: Vec<(usize, Compaction)> = specs.iter().enumerate()
            .map(|(i, (at, s))| (*at, compaction(s, i as u32))).collect();
        let conv = with_compactions(&events, &cs);
        let base = projection::overlays(&conv);
        let before = tokens(&conv, base.clone());
        let extra = compaction(&Spec {
            from, to, summary: None, reasoning,
            tools: omit.then_some((3, None)), auto: true,
        }, 59);
        let mut with = base;
        with.push(Overlay { compaction: extra, position: 99, preview: true });
        prop_assert!(tokens(&conv, with) <= before);
    }

    #[test]
    fn order_of_compactions_with_distinct_timestamps_does_not_matter(
        events in proptest::collection::vec(ev(), 1..50),
        specs in proptest::collection::vec(spec(), 1..5),
        positions in proptest::collection::vec(0usize..80, 5),
        shuffle in proptest::collection::vec(0usize..80, 5),
    ) {
        let cs: Vec<Compaction> = specs.iter().enumerate().map(|(i, s)| compaction(s, i as u32)).collect();
        let a: Vec<(usize, Compaction)> = cs.iter().cloned().enumerate().map(|(i, c)| (positions[i], c)).collect();
        // The same compactions, elsewhere in the stream and in another order.
        let mut b: Vec<(usize, Compaction)> = cs.iter().cloned().enumerate().map(|(i, c)| (shuffle[i], c)).collect();
        b.reverse();
        let ca = with_compactions(&events, &a);
        let cb = with_compactions(&events, &b);
        prop_assert_eq!(plain_projection(&ca), plain_projection(&cb));
    }

    #[test]
    fn reset_all_restores_the_identity(
        events in proptest::collection::vec(ev(), 0..60),
        specs in proptest::collection::vec((0usize..80, spec()), 0..5),
    ) {
        let cs: Vec<(usize, Compaction)> = specs.iter().enumerate()
            .map(|(i, (at, s))| (*at, compaction(s, i as u32))).collect();
        let conv = with_compactions(&events, &cs);
        let text = jp_inspect::core::store::save::render(&conv, &jp_inspect::core::store::edit::Edit::remove(
            jp_inspect::core::store::edit::Removal::All)).unwrap().0;
        let reset = conversation(&serde_json::from_str::<Vec<Value>>(&text).unwrap());
        let (projected, origins) = plain_projection(&reset);
        let originals: Vec<Value> = (0..reset.events.len()).map(|i| reset.plain(i)).collect();
        prop_assert_eq!(projected, originals);
        let identity: Vec<(bool, usize, usize)> = (0..reset.turn_count).map(|t| (false, t, t)).collect();
        prop_assert_eq!(origins, identity);
        // And the raw events are exactly the ones without compactions.
        prop_assert_eq!(reset.events.len(), conv.events.len() - cs.len());
    }

    #[test]
    fn turn_origins_cover_every_raw_turn_once_in_order(
        events in proptest::collection::vec(ev(), 0..80),
        specs in proptest::collection::vec((0usize..80, spec()), 0..6),
    ) {
        let cs: Vec<(usize, Compaction)> = specs.iter().enumerate()
            .map(|(i, (at, s))| (*at, compaction(s, i as u32))).collect();
        let conv = with_compactions(&events, &cs);
        let (_, origins) = plain_projection(&conv);
        let mut next = 0;
        for (_, from, to) in origins {
            prop_assert_eq!(from, next);
            prop_assert!(to >= from);
            next = to + 1;
        }
        prop_assert_eq!(next, conv.turn_count);
    }
}

#[test]
fn over_strips_only_calls_larger_than_it() {
    let events = vec![
        Ev::TurnStart,
        Ev::Request("go".into()),
        Ev::Call {
            name: 0,
            arg: "a".into(),
            output: "x".repeat(100),
            error: false,
        },
        Ev::Call {
            name: 1,
            arg: "b".into(),
            output: "y".repeat(2000),
            error: true,
        },
        Ev::Message("done".into()),
    ];
    let c = compaction(
        &Spec {
            from: 0,
            to: 0,
            summary: None,
            reasoning: false,
            tools: Some((0, Some(1000))),
            auto: false,
        },
        1,
    );
    let conv = with_compactions(&events, &[(99, c)]);
    let p = projection::of(&conv);
    let plain: Vec<Value> = p.events.iter().map(|e| p.plain(&conv, e)).collect();
    let responses: Vec<&Value> = plain
        .iter()
        .filter(|e| e["type"] == "tool_call_response")
        .collect();
    assert_eq!(responses[0]["content"], "x".repeat(100));
    assert_eq!(responses[1]["content"], "[compacted] tool1: error");
    assert_eq!(responses[1]["is_error"], true);
    // Requests are small (`{"path":"a"}`): under the bound, kept.
    let requests: Vec<&Value> = plain
        .iter()
        .filter(|e| e["type"] == "tool_call_request")
        .collect();
    assert_eq!(requests[0]["arguments"]["path"], "a");
    assert_eq!(requests[1]["arguments"]["path"], "b");
}

#[test]
fn omit_over_judges_the_pair() {
    let events = vec![
        Ev::Request("go".into()),
        Ev::Call {
            name: 0,
            arg: "a".repeat(50),
            output: "x".repeat(40),
            error: false,
        },
        Ev::Call {
            name: 1,
            arg: "b".into(),
            output: "y".repeat(10),
            error: false,
        },
    ];
    let c = compaction(
        &Spec {
            from: 0,
            to: 0,
            summary: None,
            reasoning: false,
            tools: Some((3, Some(60))),
            auto: false,
        },
        1,
    );
    let conv = with_compactions(&events, &[(99, c)]);
    let p = projection::of(&conv);
    let names: Vec<String> = p
        .events
        .iter()
        .map(|e| p.plain(&conv, e))
        .filter(|e| e["type"] == "tool_call_request")
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect();
    // The first pair is over 60 bytes together and goes; the second stays.
    assert_eq!(names, vec!["tool1".to_string()]);
}
