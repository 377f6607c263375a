//! What today's jp does with a compaction (compaction.md, "Today's jp
//! versus jp-inspect"): it ignores `source` and `over`, so a compaction with
//! an `over` bound strips every tool call of its range, not only the large
//! ones. jp-inspect projects with `over` honoured by default; this says
//! where the two differ and projects as jp does on request (`--as-jp`, `J`).

use crate::core::model::byte_size::human as human_bytes;
use crate::core::model::compaction::{Compaction, ToolCalls};
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;

/// Whose projection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub enum View {
    /// jp-inspect's: `over` bounds honoured.
    #[default]
    #[serde(rename = "jp-inspect")]
    Inspect,
    /// Today's jp: `over` ignored.
    #[serde(rename = "today's jp")]
    Jp,
}

impl View {
    pub fn as_str(self) -> &'static str {
        match self {
            View::Inspect => "jp-inspect",
            View::Jp => "today's jp",
        }
    }
}

/// How a compaction with an `over` bound differs between jp and jp-inspect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverDifference {
    pub from_turn: usize,
    pub to_turn: usize,
    pub over: u64,
    /// Tool calls (requests) in the range: jp strips (or omits) them all.
    pub calls: usize,
    /// Of those, the ones jp-inspect's rule leaves as they are: every part
    /// the policy touches is within the bound.
    pub kept: usize,
    pub omit: bool,
}

impl OverDifference {
    /// In words, as the compaction list, `stats` and the preview say it.
    pub fn describe(&self) -> String {
        let turns = if self.from_turn == self.to_turn {
            format!("turn {}", self.from_turn + 1)
        } else {
            format!(
                "turns {}–{}",
                self.from_turn + 1,
                self.to_turn.saturating_add(1)
            )
        };
        format!(
            "jp {} all {} tool call{} in {turns}; jp-inspect's rule keeps {} under {}",
            if self.omit { "omits" } else { "strips" },
            self.calls,
            if self.calls == 1 { "" } else { "s" },
            self.kept,
            human_bytes(self.over)
        )
    }
}

/// How today's jp differs on `c`, in words: a reasoning threshold it cannot
/// read at all, else an `over` bound on tool calls it ignores.
pub fn difference(conv: &Conversation, c: &Compaction) -> Option<String> {
    if c.strip_reasoning && c.reasoning_over.is_some() && c.summary.is_none() {
        return Some(format!(
            "today's jp refuses to load this conversation: the compaction of turns {} has a \
             reasoning threshold, which only jp's next release (#994) reads; remove it \
             (`reset --index N`) to use a jp before it",
            c.range().human()
        ));
    }
    let parts: Vec<String> = [
        over_difference(conv, c).map(|d| d.describe()),
        overrides_difference(conv, c),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// What today's jp does instead of `c`'s per-tool policies (D17): it
/// reads only the default, so each tool with a policy of its own gets the
/// default, or is left alone without one.
pub fn overrides_difference(conv: &Conversation, c: &Compaction) -> Option<String> {
    if c.summary.is_some() || c.tool_overrides.is_empty() {
        return None;
    }
    let in_range = |turn: usize| c.from_turn <= turn && turn <= c.to_turn;
    let mut calls: std::collections::BTreeMap<&str, usize> = Default::default();
    for e in conv.events.iter().filter(|e| in_range(e.turn)) {
        if let Kind::ToolCallRequest { name, .. } = &e.kind
            && c.tool_overrides.contains_key(&**name)
        {
            *calls.entry(name).or_default() += 1;
        }
    }
    let each: Vec<String> = c
        .tool_overrides
        .iter()
        .filter(|(_, t)| Some(**t) != c.tool_calls.map(|d| d.with_over(t.over())))
        .map(|(name, t)| {
            let n = calls.get(name.as_str()).copied().unwrap_or(0);
            format!(
                "{name} ({} call{}, {})",
                n,
                if n == 1 { "" } else { "s" },
                t.hint()
            )
        })
        .collect();
    if each.is_empty() {
        return None;
    }
    let instead = match c.tool_calls {
        Some(d) => format!("applies `{}` to them", d.label()),
        None => "leaves them as they are".to_string(),
    };
    Some(format!(
        "today's jp ignores the per-tool policies of {}: {}; it {instead}",
        c.range().human(),
        each.join(", ")
    ))
}

/// The difference `c` makes between the two views, if it has an `over`
/// bound (a summary makes none: it replaces the turns either way).
pub fn over_difference(conv: &Conversation, c: &Compaction) -> Option<OverDifference> {
    if c.summary.is_some() {
        return None;
    }
    let tc = c.tool_calls?;
    let over = tc.over()?;
    let in_range = |turn: usize| c.from_turn <= turn && turn <= c.to_turn;
    let mut payloads: std::collections::HashMap<&str, (u64, u64)> = Default::default();
    let mut order: Vec<&str> = Vec::new();
    for e in conv.events.iter().filter(|e| in_range(e.turn)) {
        match &e.kind {
            Kind::ToolCallRequest { id, .. } => {
                order.push(id);
                payloads.entry(id).or_default().0 = e.payload;
            }
            Kind::ToolCallResponse { id, .. } => payloads.entry(id).or_default().1 = e.payload,
            _ => {}
        }
    }
    let kept = order
        .iter()
        .filter(|id| {
            let (req, res) = payloads[**id];
            match tc {
                ToolCalls::Strip {
                    request, response, ..
                } => !(request && req > over || response && res > over),
                ToolCalls::Omit { .. } => req + res <= over,
            }
        })
        .count();
    Some(OverDifference {
        from_turn: c.from_turn,
        to_turn: c.to_turn,
        over,
        calls: order.len(),
        kept,
        omit: matches!(tc, ToolCalls::Omit { .. }),
    })
}
