//! A compaction's impact: what each one a conversation holds or would
//! hold saves a request, stepwise in stream order.

use crate::core::compact::estimate;
use crate::core::compact::fate::Alteration;
use crate::core::compact::fate::{Projected, SummaryPart};
use crate::core::compact::projection::{self, Overlay, Projection};
use crate::core::compact::stepwise::Stepwise;
use crate::core::model::conversation::Conversation;

/// What one compaction does, given the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Impact {
    /// Estimated tokens it saves: the estimate with the compactions before
    /// it minus the estimate with it too. Negative when it lets back in
    /// what an earlier one took out (`t=sreq` over a full strip).
    pub saved: i64,
    /// Whether the model would be sent anything different at all.
    pub changes: bool,
    /// Tokens of the context before it.
    pub before: u64,
    /// Tokens at the start of that context it leaves as they were sent
    /// (the system prompt and tools included): where it breaks the prompt
    /// cache.
    pub kept: u64,
}

/// What the model is sent, compared without regard to which overlay made
/// it: a summary is its text, a raw event its index and change.
#[derive(PartialEq)]
enum Sent<'a> {
    Raw(usize, Alteration),
    Summary(Option<&'a str>, SummaryPart, usize),
}

fn sent<'a>(p: &'a Projection) -> Vec<Sent<'a>> {
    p.events
        .iter()
        .map(|e| match *e {
            Projected::Raw { index, change } => Sent::Raw(index, change),
            Projected::Summary {
                overlay,
                part,
                turn,
                ..
            } => Sent::Summary(
                p.overlays[overlay].compaction.summary.as_deref(),
                part,
                turn,
            ),
        })
        .collect()
}

/// The effect of each of `overlays[first..]`, applied in order over the
/// ones before it; the savings add up to the total. `overhead_chars` is
/// counted with the events (the system prompt and tools of a context), so
/// that they add up to the same estimate's difference exactly.
pub fn effects(
    conv: &Conversation,
    overlays: &[Overlay],
    first: usize,
    overhead_chars: u64,
) -> Vec<Impact> {
    let Some(mut steps) = Stepwise::new(&conv.events, conv.turn_count, overlays) else {
        return effects_by_prefix(conv, overlays, first, overhead_chars);
    };
    let start = steps.total_chars();
    for _ in 0..first {
        steps.step();
    }
    let tokens = |chars: u64| estimate::tokens(chars + overhead_chars);
    let rounded = |c: i64| c.signum() * estimate::tokens(c.unsigned_abs()) as i64;
    let mut saved_chars: i64 = start as i64 - steps.total_chars() as i64;
    (first..overlays.len())
        .map(|_| {
            let s = steps.step();
            let saved_before = rounded(saved_chars);
            saved_chars += s.chars_before as i64 - s.chars_after as i64;
            let before = tokens(s.chars_before);
            Impact {
                saved: rounded(saved_chars) - saved_before,
                changes: s.changes,
                before,
                kept: tokens(s.kept_chars).min(before),
            }
        })
        .collect()
}

/// [`effects`] by projecting every prefix of the overlays: quadratic in
/// them, for a stream whose turns are not contiguous (and as the
/// reference the tests hold the stepwise one to).
pub fn effects_by_prefix(
    conv: &Conversation,
    overlays: &[Overlay],
    first: usize,
    overhead_chars: u64,
) -> Vec<Impact> {
    let project =
        |n: usize| projection::project(&conv.events, conv.turn_count, overlays[..n].to_vec());
    let tokens = |p: &Projection| {
        estimate::tokens(estimate::of_projection(&conv.events, p).total_chars() + overhead_chars)
    };
    let chars = |p: &Projection| estimate::of_projection(&conv.events, p).total_chars();
    let mut before = project(first);
    let mut before_tokens = tokens(&before);
    let mut before_chars = chars(&before);
    // What each saves is rounded from the characters the compactions save,
    // summed from the stream's first one: a turn appended later (in both
    // the before and the after) moves none of them, the rows add up to
    // what they save together, and a preview says what `stats` will list.
    let mut saved_chars: i64 = chars(&project(0)) as i64 - before_chars as i64;
    (first..overlays.len())
        .map(|k| {
            let after = project(k + 1);
            let after_tokens = tokens(&after);
            let after_chars = chars(&after);
            let rounded = |c: i64| c.signum() * estimate::tokens(c.unsigned_abs()) as i64;
            let saved_before = rounded(saved_chars);
            saved_chars += before_chars as i64 - after_chars as i64;
            let saved = rounded(saved_chars) - saved_before;
            let (was, now) = (sent(&before), sent(&after));
            let same = was.iter().zip(&now).take_while(|(a, b)| a == b).count();
            let kept_chars: u64 = before.events[..same]
                .iter()
                .filter(|e| match e {
                    Projected::Raw { index, .. } => {
                        estimate::Category::of(&conv.events[*index].kind).is_some()
                    }
                    Projected::Summary { .. } => true,
                })
                .map(|e| before.chars(&conv.events, e))
                .sum();
            let effect = Impact {
                saved,
                changes: was != now,
                before: before_tokens,
                kept: estimate::tokens(kept_chars + overhead_chars).min(before_tokens),
            };
            (before, before_tokens, before_chars) = (after, after_tokens, after_chars);
            effect
        })
        .collect()
}

/// For each overlay of `p` (stored and previewed, by position), the tokens
/// it saves given the ones before it, so that the rows add up to the total.
/// `overhead_chars` (the system prompt and tools every request carries) is
/// counted as the previews count it, so a compaction saves one figure
/// everywhere: one rounding, of the whole context.
pub fn saved_per_compaction(
    conv: &Conversation,
    p: &Projection,
    overhead_chars: u64,
) -> Vec<(usize, i64)> {
    impact_per_compaction(conv, p, overhead_chars)
        .into_iter()
        .map(|(position, e)| (position, e.saved))
        .collect()
}

/// [`saved_per_compaction`] with the whole of each one's impact.
pub fn impact_per_compaction(
    conv: &Conversation,
    p: &Projection,
    overhead_chars: u64,
) -> Vec<(usize, Impact)> {
    p.overlays
        .iter()
        .zip(effects(conv, &p.overlays, 0, overhead_chars))
        .map(|(o, e)| (o.position, e))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::compaction::Compaction;
    use crate::core::store::load;
    use crate::synth::{self, Spec};
    use serde_json::json;

    fn conv(spec: &Spec) -> Conversation {
        load::of_events(synth::events_json(spec))
    }

    /// Overlays of every kind, over random ranges, with timestamps that
    /// go back and forth and tie (the winning order is by timestamp).
    fn random_overlays(conv: &Conversation, n: usize, seed: u64) -> Vec<Overlay> {
        let mut x = seed;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m.max(1)
        };
        let turns = conv.turn_count as u64;
        let mut list = projection::overlays(conv);
        let base = conv.compactions().count();
        for i in 0..n {
            let from = next(turns + 2);
            let to = from + next(turns / 2 + 2);
            let mut c = json!({"type": "compaction", "from_turn": from, "to_turn": to,
                "timestamp": format!("2026-09-{:02}T00:00:{:02}Z", 1 + next(28), next(3))});
            let texts = ["one", "two", "the same words"];
            match next(7) {
                0 => c["summary"] = json!({"summary": texts[next(3) as usize]}),
                1 => c["reasoning"] = json!("strip"),
                2 => c["reasoning"] = json!({"policy": "strip", "over": next(900)}),
                3 => c["tool_calls"] = json!({"policy": "omit", "over": next(20_000)}),
                4 => {
                    c["tool_calls"] =
                        json!({"policy": "strip", "request": next(2) == 0, "response": true})
                }
                5 => {
                    c["tool_calls"] = json!({"policy": "strip", "request": true,
                                             "response": next(2) == 0, "over": next(9_000)});
                    c["reasoning"] = json!("strip");
                }
                _ => {
                    c["summary"] = json!({"summary": texts[next(3) as usize]});
                    c["tool_calls"] = json!({"policy": "omit"});
                }
            }
            list.push(Overlay {
                compaction: Compaction::from_json(&c).unwrap(),
                position: base + i,
                preview: true,
            });
        }
        list
    }

    #[test]
    fn stepwise_effects_equal_projecting_every_prefix() {
        for (seed, compactions) in [(3, 0), (5, 40), (11, 7), (42, 120)] {
            let spec = Spec {
                turns: 30,
                tool_calls_per_turn: 3,
                tool_output_chars: 1_500,
                compactions,
                seed,
                ..Spec::default()
            };
            let conv = conv(&spec);
            let overlays = random_overlays(&conv, 80, seed * 7 + 1);
            for first in [0, 1, overlays.len() / 2] {
                assert_eq!(
                    effects(&conv, &overlays, first, 1_234),
                    effects_by_prefix(&conv, &overlays, first, 1_234),
                    "seed {seed}, {compactions} stored, from {first}"
                );
            }
        }
    }

    #[test]
    fn the_demo_and_its_compactions_agree_both_ways() {
        let demo = crate::demo::materialize().unwrap();
        let demo = load::load(&demo.conversation_dir).unwrap();
        let overlays = random_overlays(&demo, 60, 99);
        assert_eq!(
            effects(&demo, &overlays, 0, 0),
            effects_by_prefix(&demo, &overlays, 0, 0)
        );
    }
}
