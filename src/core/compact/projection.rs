//! The projection: raw stream -> what the model is sent (compaction.md).
//!
//! A pure function of the events and the overlays. Besides the projected
//! events it returns, per projected turn, where it came from, and per raw
//! event, its fate and which compaction decided it: that is what the bands
//! of the inspector show.

use crate::core::compact::jp_view::View;
use crate::core::compact::pairing::Pairing;
use crate::core::model::compaction::{Compaction, Source, ToolCalls};
use crate::core::model::conversation::Conversation;
use crate::core::model::event::{Event, Kind, ResponseKind, count_chars};
use std::collections::BTreeMap;

/// The request text `jp` injects before a summary.
pub const SUMMARY_REQUEST: &str = "[Summary of previous conversation]";

/// A compaction taking part in a projection.
#[derive(Debug, Clone, PartialEq)]
pub struct Overlay {
    pub compaction: Compaction,
    /// 0-based position among the stream's compaction events; previewed ones
    /// continue the numbering.
    pub position: usize,
    /// Not written yet: shown, not applied.
    pub preview: bool,
}

impl Overlay {
    pub fn source(&self) -> Source {
        self.compaction.source
    }
}

/// The valid compactions of a conversation, in stream order.
pub fn overlays(conv: &Conversation) -> Vec<Overlay> {
    conv.compactions()
        .filter_map(|c| {
            c.parsed.ok().map(|compaction| Overlay {
                compaction: compaction.clone(),
                position: c.position,
                preview: false,
            })
        })
        .collect()
}

/// `overlays(conv)` plus `extra` compactions previewed after them.
pub fn with_preview(conv: &Conversation, extra: &[Compaction]) -> Vec<Overlay> {
    let mut list = overlays(conv);
    let base = conv.compactions().count();
    list.extend(extra.iter().enumerate().map(|(i, c)| Overlay {
        compaction: c.clone(),
        position: base + i,
        preview: true,
    }));
    list
}

use super::fate::{Alteration, EventFate, Fate, Projected, SummaryPart, TurnOrigin};

/// The winning overlay per content type of one raw turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnPolicy {
    pub summary: Option<usize>,
    pub reasoning: Option<usize>,
    pub tools: Option<usize>,
}

impl TurnPolicy {
    /// Makes overlay `i` (compaction `c`) the winner of every content type
    /// it has an opinion on: callers paint in winning order, newest last.
    #[inline]
    pub fn paint(&mut self, c: &Compaction, i: usize) {
        if c.summary.is_some() {
            self.summary = Some(i);
        }
        if c.strip_reasoning {
            self.reasoning = Some(i);
        }
        if c.has_tool_policy() {
            self.tools = Some(i);
        }
    }
}

#[derive(Debug, Clone)]
pub struct Projection {
    pub overlays: Vec<Overlay>,
    pub events: Vec<Projected>,
    pub turn_origins: Vec<TurnOrigin>,
    /// One per raw event.
    pub fates: Vec<EventFate>,
    /// One per raw turn.
    pub policies: Vec<TurnPolicy>,
    /// For each raw event, its index in `events` if it is there.
    pub position_of_raw: Vec<Option<usize>>,
    /// Which request each response answers, for status lines: made when a
    /// tool policy needs it, else on first use.
    pub(super) pairing: std::sync::OnceLock<Pairing>,
    pub(super) view: View,
    /// Raw events projected (a prefix of the conversation's, for `as_of`).
    pub(super) len: usize,
}

/// The winners of each content type for each raw turn: the covering overlay
/// with the latest timestamp, ties going to the later one in the stream.
pub fn resolve_policies(overlays: &[Overlay], turn_count: usize) -> Vec<TurnPolicy> {
    let mut policies = vec![TurnPolicy::default(); turn_count];
    if turn_count == 0 {
        return policies;
    }
    let last = turn_count - 1;
    // Painting in (timestamp, stream order) order lets later paint win.
    let mut order: Vec<usize> = (0..overlays.len()).collect();
    order.sort_by_key(|&i| (overlays[i].compaction.timestamp, i));
    for i in order {
        let c = &overlays[i].compaction;
        if c.from_turn > c.to_turn || c.from_turn > last {
            continue;
        }
        for p in &mut policies[c.from_turn..=c.to_turn.min(last)] {
            p.paint(c, i);
        }
    }
    policies
}

/// What of an overlay's policies `decide` needs, besides which types it
/// wins: its tool policy and its reasoning threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds<'a> {
    pub tools: Option<ToolCalls>,
    pub reasoning_over: Option<u64>,
    /// The tools with a policy of their own (D17).
    pub overrides: &'a BTreeMap<String, ToolCalls>,
}

impl<'a> Bounds<'a> {
    pub fn of(c: &'a Compaction) -> Bounds<'a> {
        Bounds {
            tools: c.tool_calls,
            reasoning_over: c.reasoning_over,
            overrides: &c.tool_overrides,
        }
    }

    /// The policy for a call of the tool `name` names (asked only when
    /// some tool has one of its own).
    fn tools_for<'n>(&self, name: impl FnOnce() -> &'n str) -> Option<ToolCalls> {
        if self.overrides.is_empty() {
            return self.tools;
        }
        self.overrides.get(name()).copied().or(self.tools)
    }
}

/// How a conversation event that no summary covers is projected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub fate: Fate,
    pub by: Option<usize>,
    /// For kept events: how they are changed.
    pub change: Alteration,
}

impl Verdict {
    const KEPT: Verdict = Verdict {
        fate: Fate::Kept,
        by: None,
        change: Alteration::None,
    };

    /// Whether the event is in the projected view.
    pub fn is_sent(&self) -> bool {
        matches!(self.fate, Fate::Kept) || self.change != Alteration::None
    }
}

/// The fate of conversation event `e` under the reasoning and tool winners
/// of its turn (a summary winner is handled by the caller). `of` gives the
/// bounds of an overlay index; `pair` is the bytes of both halves of the
/// call `e` belongs to, which `omit` with `over` judges. A threshold is
/// strict (`size > over`), and a turn's winner decides alone: a newer
/// thresholded overlay leaves small items that an older one stripped.
/// `tool` names the tool of a call (a response's, by its request), asked
/// only when the winner has per-tool policies.
pub fn decide<'a, 'n>(
    e: &Event,
    policy: &TurnPolicy,
    of: &dyn Fn(usize) -> Bounds<'a>,
    pair: u64,
    tool: impl FnOnce() -> &'n str,
) -> Verdict {
    if let (Some(r), Kind::ChatResponse(ResponseKind::Reasoning)) = (policy.reasoning, &e.kind) {
        if of(r).reasoning_over.is_none_or(|n| e.payload > n) {
            return Verdict {
                fate: Fate::Stripped,
                by: Some(r),
                change: Alteration::None,
            };
        }
        return Verdict::KEPT;
    }
    let Some(t) = policy.tools.filter(|_| e.kind.is_tool()) else {
        return Verdict::KEPT;
    };
    let Some(tools) = of(t).tools_for(|| match &e.kind {
        Kind::ToolCallRequest { name, .. } => &**name,
        _ => tool(),
    }) else {
        return Verdict::KEPT;
    };
    match tools {
        ToolCalls::Omit { over } => {
            let size = match &e.kind {
                Kind::ToolCallRequest { .. } | Kind::ToolCallResponse { .. } => pair,
                _ => e.payload,
            };
            if over.is_none_or(|n| size > n) {
                return Verdict {
                    fate: Fate::Omitted,
                    by: Some(t),
                    change: Alteration::None,
                };
            }
            Verdict::KEPT
        }
        ToolCalls::Strip {
            request,
            response,
            over,
        } => {
            let big = over.is_none_or(|n| e.payload > n);
            let change = match e.kind {
                Kind::ToolCallRequest { .. } if request && big => Alteration::EmptyArguments,
                Kind::ToolCallResponse { .. } if response && big => Alteration::StatusLine,
                _ => Alteration::None,
            };
            if change == Alteration::None {
                Verdict::KEPT
            } else {
                Verdict {
                    fate: Fate::Stripped,
                    by: Some(t),
                    change,
                }
            }
        }
    }
}

/// `[compacted] <tool>: success|error`
pub fn status_line(tool: &str, is_error: bool) -> String {
    let status = if is_error { "error" } else { "success" };
    format!("[compacted] {tool}: {status}")
}

/// Characters the model is sent for raw event `e` changed by `change`;
/// `tool_name` names the tool of a stripped response's status line.
pub fn sent_chars<'a>(e: &Event, change: Alteration, tool_name: impl FnOnce() -> &'a str) -> u64 {
    match (change, &e.kind) {
        (Alteration::EmptyArguments, Kind::ToolCallRequest { name, .. }) => count_chars(name) + 2,
        (Alteration::StatusLine, Kind::ToolCallResponse { is_error, .. }) => {
            // "[compacted] " + name + ": " + status
            12 + count_chars(tool_name()) + 2 + if *is_error { 5 } else { 7 }
        }
        _ => e.chars,
    }
}

/// Characters of the injected request and response of a summary.
pub fn summary_chars(text: &str) -> u64 {
    SUMMARY_REQUEST.len() as u64 + count_chars(text)
}

/// Projects `events` (with `turn_count` turns) through `overlays`, as
/// jp's next release does.
pub fn project(events: &[Event], turn_count: usize, overlays: Vec<Overlay>) -> Projection {
    project_in(events, turn_count, overlays, View::Inspect)
}

/// `project` with the tool calls paired as `view` pairs them.
fn project_in(
    events: &[Event],
    turn_count: usize,
    overlays: Vec<Overlay>,
    view: View,
) -> Projection {
    let pairing = std::sync::OnceLock::new();
    if overlays.iter().any(|o| o.compaction.has_tool_policy()) {
        let _ = pairing.set(view.pairing(events));
    }
    let policies = resolve_policies(&overlays, turn_count);
    let bounds: Vec<Bounds> = overlays.iter().map(|o| Bounds::of(&o.compaction)).collect();
    let of = |i: usize| bounds[i];
    let turn_origins = origins(&policies);
    let mut out = Vec::with_capacity(events.len() + 3);
    let mut fates = Vec::with_capacity(events.len());
    let mut position_of_raw = vec![None; events.len()];
    let mut injected_for_turn: Option<usize> = None;

    for (i, e) in events.iter().enumerate() {
        if let Kind::Compaction(_) = e.kind {
            fates.push(EventFate {
                fate: Fate::Overlay,
                by: None,
            });
            continue;
        }
        let policy = if e.kind.is_conversation_event() {
            policies.get(e.turn).copied().unwrap_or_default()
        } else {
            // Config deltas and unknown events pass through untouched.
            TurnPolicy::default()
        };
        if let (Some(s), true) = (policy.summary, e.kind.is_conversation_event()) {
            let run_start = e.turn == 0 || policies[e.turn - 1].summary != Some(s);
            if run_start && injected_for_turn != Some(e.turn) {
                injected_for_turn = Some(e.turn);
                for part in [
                    SummaryPart::TurnStart,
                    SummaryPart::Request,
                    SummaryPart::Response,
                ] {
                    out.push(Projected::Summary {
                        overlay: s,
                        part,
                        turn: e.turn,
                        at: i,
                    });
                }
            }
            fates.push(EventFate {
                fate: Fate::Summarized,
                by: Some(s),
            });
            continue;
        }
        let pair = match pairing.get() {
            Some(p) if e.kind.is_tool() => p.pair_bytes(events, i),
            _ => 0,
        };
        let name = || pairing.get().map_or("unknown", |p| p.name(events, i));
        let d = decide(e, &policy, &of, pair, name);
        if d.is_sent() {
            position_of_raw[i] = Some(out.len());
            out.push(Projected::Raw {
                index: i,
                change: d.change,
            });
        }
        fates.push(EventFate {
            fate: d.fate,
            by: d.by,
        });
    }

    Projection {
        overlays,
        events: out,
        turn_origins,
        fates,
        policies,
        position_of_raw,
        pairing,
        view,
        len: events.len(),
    }
}

/// Per projected turn, its origin: contiguous runs of turns won by the same
/// summary collapse into one.
fn origins(policies: &[TurnPolicy]) -> Vec<TurnOrigin> {
    let mut out: Vec<TurnOrigin> = Vec::new();
    for (t, p) in policies.iter().enumerate() {
        match (p.summary, out.last_mut()) {
            (Some(s), Some(TurnOrigin::Summary { to, overlay, .. }))
                if *overlay == s && *to + 1 == t =>
            {
                *to = t;
            }
            (Some(s), _) => out.push(TurnOrigin::Summary {
                from: t,
                to: t,
                overlay: s,
            }),
            (None, _) => out.push(TurnOrigin::Kept(t)),
        }
    }
    out
}

// Here rather than beside `View`, so that the view, which only names whose
// projection, doesn't import the projection.
impl View {
    /// `overlays` as this view applies them.
    pub fn apply(self, mut overlays: Vec<Overlay>) -> Vec<Overlay> {
        if self == View::Jp {
            // Today's jp knows neither `over` nor per-tool policies.
            for o in &mut overlays {
                o.compaction.tool_calls = o.compaction.tool_calls.map(|t| t.with_over(None));
                o.compaction.reasoning_over = None;
                o.compaction.tool_overrides.clear();
            }
        }
        overlays
    }

    /// How this view pairs the tool calls of `events`.
    pub fn pairing(self, events: &[Event]) -> Pairing {
        match self {
            View::Inspect => Pairing::of(events),
            View::Jp => Pairing::as_today(events),
        }
    }

    /// `events` projected through `overlays` in this view.
    pub fn project(
        self,
        events: &[Event],
        turn_count: usize,
        overlays: Vec<Overlay>,
    ) -> Projection {
        project_in(events, turn_count, self.apply(overlays), self)
    }
}

/// What the model was sent just before raw event `end`: the projection of
/// the stream's first `end` events, with the compactions appended before
/// it and none after (compaction events sit in the stream in the order they
/// were appended).
pub fn as_of(conv: &Conversation, end: usize, view: View) -> Projection {
    let end = end.min(conv.events.len());
    let events = &conv.events[..end];
    let turn_count = events
        .iter()
        .filter(|e| e.kind.is_conversation_event())
        .map(|e| e.turn + 1)
        .max()
        .unwrap_or(0);
    let appended: Vec<usize> = conv.compactions().map(|c| c.event).collect();
    let overlays = overlays(conv)
        .into_iter()
        .filter(|o| appended[o.position] < end)
        .collect();
    view.project(events, turn_count, overlays)
}

/// The projection of `conv` with its own compactions, in `view`.
pub fn of_view(conv: &Conversation, view: View) -> Projection {
    view.project(&conv.events, conv.turn_count, overlays(conv))
}

/// The projection of `conv` with its own compactions, as jp-inspect sees it.
pub fn of(conv: &Conversation) -> Projection {
    project(&conv.events, conv.turn_count, overlays(conv))
}
