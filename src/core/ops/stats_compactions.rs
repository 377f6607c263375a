//! Each compaction as `stats` reports it: what it is, what it saves, what it
//! costs and buys with the prompt cache, what it hid and what the model still
//! knows of its range.

use crate::core::auto::AutoConfig;
use crate::core::compact::jp_view::{self, View};
use crate::core::compact::projection::{self, Projection};
use crate::core::model::TurnRange;
use crate::core::model::compaction::{Compaction, Source};
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp::{self, Timestamp};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// One compaction event (or previewed compaction), with what it saves.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionEntry {
    /// 0-based among the compaction events (a preview's: where it would be).
    pub position: usize,
    /// Its raw event; `None` for a preview.
    pub event: Option<usize>,
    /// What it is, or why it is left out of the projection.
    pub facts: Result<CompactionFacts, String>,
    /// What it hid (`stats` fills it in; the inspector's list doesn't need
    /// it to open).
    pub ledger: Option<crate::core::compact::ledger::LedgerEntry>,
    /// The facts of its range, judged against what is still sent (filled
    /// in with the ledger).
    pub knows: Option<Vec<crate::core::facts::Judged>>,
    /// How its range's facts fared, all of them (`knows` may list fewer:
    /// see [`with_knows`]).
    pub survival: Option<crate::core::facts::Survival>,
    /// Facts of its range `knows` leaves out, for the output's bound.
    pub left_out: usize,
    /// What it costs and buys with the prompt cache, in words too
    /// ([`with_payback`] fills it in).
    pub payback: Option<(crate::core::cost::Payback, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CompactionFacts {
    pub source: Source,
    pub range: TurnRange,
    pub policies: String,
    pub timestamp: Timestamp,
    /// Tokens a request saves with it (against the projection without it).
    pub saved: i64,
    /// Tokens of the context without it, and those at its start it leaves
    /// as they were (where it breaks the prompt cache).
    pub before: u64,
    pub kept: u64,
    /// Where today's jp would do more with it, in words.
    pub jp_differs: Option<String>,
    /// Something odd about it (a range past the end, an empty one).
    pub warning: Option<&'static str>,
}

impl Serialize for CompactionEntry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("position", &(self.position + 1))?;
        m.serialize_entry("event", &self.event)?;
        match &self.facts {
            Ok(f) => {
                m.serialize_entry("valid", &true)?;
                m.serialize_entry("source", &f.source)?;
                m.serialize_entry("from_turn", &f.range.from)?;
                m.serialize_entry("to_turn", &f.range.to)?;
                m.serialize_entry("policies", &f.policies)?;
                m.serialize_entry("timestamp", &timestamp::format(&f.timestamp))?;
                m.serialize_entry("tokens_saved", &f.saved)?;
                m.serialize_entry("jp_differs", &f.jp_differs)?;
                m.serialize_entry("warning", &f.warning)?;
                if let Some(l) = &self.ledger {
                    m.serialize_entry("hidden", &l.hidden)?;
                    m.serialize_entry("fetched_again", &l.fetched_again)?;
                }
                if let (Some(k), Some(survival)) = (&self.knows, &self.survival) {
                    m.serialize_entry("facts", k)?;
                    m.serialize_entry("survival", survival)?;
                    if self.left_out > 0 {
                        m.serialize_entry("facts_left_out", &self.left_out)?;
                    }
                }
                if let Some((p, text)) = &self.payback {
                    m.serialize_entry("payback", p)?;
                    m.serialize_entry("payback_text", text)?;
                }
            }
            Err(why) => {
                m.serialize_entry("valid", &false)?;
                m.serialize_entry("error", why)?;
            }
        }
        m.end()
    }
}

/// `entries` with what each costs and buys at the session's pace: for a
/// compaction the session's requests went on after, the context of the
/// request before it and what the request after it kept (`at_time`, by
/// position); else the context as it is now.
pub fn with_payback(
    mut entries: Vec<CompactionEntry>,
    billing: &crate::core::cost::Billing,
    pace: Option<std::time::Duration>,
    at_time: &std::collections::HashMap<usize, (u64, u64)>,
) -> Vec<CompactionEntry> {
    for e in &mut entries {
        if let Ok(f) = &e.facts {
            let (before, kept) = match (e.event, at_time.get(&e.position)) {
                (Some(_), Some(&t)) => t,
                _ => (f.before, f.kept),
            };
            let p = crate::core::cost::payback::payback(billing, before, kept, f.saved, pace);
            let text = p.sentence(billing);
            e.payback = Some((p, text));
        }
    }
    entries
}

/// For each compaction requests followed, the context of the request
/// before it and the tokens the request after it shared with that one
/// (only read when there is a compaction: it replays the session).
pub fn payback_at_time(
    conv: &Conversation,
    config: &AutoConfig,
    window_override: Option<u64>,
) -> std::collections::HashMap<usize, (u64, u64)> {
    let mut out = std::collections::HashMap::new();
    if conv.compactions().next().is_none() {
        return out;
    }
    let points = super::history(conv, config, window_override);
    for w in points.windows(2) {
        for &c in &w[1].compactions_since {
            out.insert(c, (w[0].context, w[1].kept));
        }
    }
    out
}

/// `entries` with what each compaction in force hid.
pub fn with_ledger(
    mut entries: Vec<CompactionEntry>,
    conv: &Conversation,
    p: &Projection,
) -> Vec<CompactionEntry> {
    let mut ledger: std::collections::HashMap<usize, crate::core::compact::ledger::LedgerEntry> =
        crate::core::compact::ledger::of(conv, p)
            .into_iter()
            .map(|l| (l.position, l))
            .collect();
    for e in &mut entries {
        e.ledger = ledger.remove(&e.position);
    }
    entries
}

/// `entries` with what the model still knows of each compaction's range in
/// `view` (`lost`: every compaction's facts, found and judged in one pass).
/// With a `bound`, the lists keep that many facts in all (see
/// [`listing_bound`]): each compaction's whole while room is left, then its
/// lost facts first (the grave ones first), the rest counted in
/// `left_out`, their survival whole), cut as each range is judged: what is held stays
/// within the bound however many compactions cover the same turns.
pub(super) fn with_knows(
    entries: &mut [CompactionEntry],
    conv: &Conversation,
    view: View,
    bound: Option<usize>,
) {
    use crate::core::facts::{self, Survival};
    let p = projection::of_view(conv, view);
    let at: std::collections::HashMap<usize, usize> = entries
        .iter()
        .enumerate()
        .map(|(k, e)| (e.position, k))
        .collect();
    // Only the entries asked for are judged (`lost --compaction N`: one).
    let (ranges, judged_for): (Vec<_>, Vec<usize>) = p
        .overlays
        .iter()
        .filter_map(|o| Some((o.compaction.range(), *at.get(&o.position)?)))
        .unzip();
    let all = facts::occurrences(conv);
    let mut room = bound.unwrap_or(usize::MAX);
    facts::judged_each(conv, &all, &p, &ranges, |i, mut judged| {
        let e = &mut entries[judged_for[i]];
        e.survival = Some(Survival::of(&judged));
        if judged.len() > room {
            judged.sort_by_key(|j| (j.kept, !j.is_grave(), j.fact.kind, j.fact.event));
            e.left_out = judged.len() - room;
            judged.truncate(room);
            judged.shrink_to_fit();
        }
        room -= judged.len();
        e.knows = Some(judged);
    });
}

/// The most facts listed over all compactions for a conversation of
/// `chars` characters: a fixed share of it (and a floor), so what `lost`
/// and the report list grows with the conversation, not with the square
/// of it (compactions over the same turns list the same facts again).
pub fn listing_bound(chars: u64) -> usize {
    1_000 + (chars / 200) as usize
}

/// What the whole session still knows: every judged compaction's facts
/// counted together, as `lost` totals them in text and in JSON.
pub(super) fn session_knows(entries: &[CompactionEntry]) -> crate::core::facts::Survival {
    let mut session = crate::core::facts::Survival::default();
    for k in entries.iter().filter_map(|e| e.survival.as_ref()) {
        session.add(k);
    }
    session
}

/// Every compaction of `conv` and every previewed one in `p`, with what
/// each saves a request (`overhead_chars`: what every request carries
/// besides the events).
pub fn compaction_entries(
    conv: &Conversation,
    p: &Projection,
    overhead_chars: u64,
) -> Vec<CompactionEntry> {
    let impact: std::collections::HashMap<usize, super::Impact> =
        super::impact::impact_per_compaction(conv, p, overhead_chars)
            .into_iter()
            .collect();
    let facts = |position: usize, x: &Compaction| CompactionFacts {
        source: x.source,
        range: x.range(),
        policies: x.policy_label(),
        timestamp: x.timestamp,
        saved: impact.get(&position).map_or(0, |i| i.saved),
        before: impact.get(&position).map_or(0, |i| i.before),
        kept: impact.get(&position).map_or(0, |i| i.kept),
        jp_differs: jp_view::difference(conv, x),
        warning: x.oddity(conv.turn_count).map(|o| o.describe()),
    };
    let mut entries: Vec<CompactionEntry> = conv
        .compactions()
        .map(|c| CompactionEntry {
            position: c.position,
            event: Some(c.event),
            ledger: None,
            knows: None,
            survival: None,
            left_out: 0,
            payback: None,
            facts: match c.parsed {
                Ok(x) => Ok(facts(c.position, x)),
                Err(why) => Err(why.to_string()),
            },
        })
        .collect();
    for o in p.overlays.iter().filter(|o| o.preview) {
        entries.push(CompactionEntry {
            position: o.position,
            event: None,
            ledger: None,
            knows: None,
            survival: None,
            left_out: 0,
            payback: None,
            facts: Ok(facts(o.position, &o.compaction)),
        });
    }
    entries
}
