//! What the model is still sent of a range, and the facts of ranges
//! judged against it: by a turn's kept events, then by the summaries that
//! stand for it. A simulation judges the same facts under many runs;
//! [`Verdicts`] keeps what was judged so that a fact whose turn is sent
//! the same way in another run is not judged again.

use super::{
    Fact, FactKind, Judged, Where, call_args, extract, gist, matching, meaning, occurrences,
    weights,
};
use crate::core::compact::fate::Alteration;
use crate::core::compact::fate::Projected;
use crate::core::compact::fate::SummaryPart;
use crate::core::compact::projection::Projection;
use crate::core::model::TurnRange;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind as EventKind;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// What the model is still sent of the turns of a range in projection
/// `p`: each turn's kept events (as sent: a stripped call its name alone),
/// and the summaries that stand for turns of it. A fact is judged against
/// its own turn's events and the summaries that stand for its turn.
#[derive(Debug, Clone, Default)]
pub struct Sent {
    /// Events sent whole (not stripped), by index: each carries its own
    /// facts.
    whole: Arc<HashSet<usize>>,
    /// The kept events' texts of each raw turn (0-based), one event a line
    /// (no window of the matching rule crosses a line).
    turns: Arc<HashMap<usize, String>>,
    /// The summaries sent, with the raw turns each stands for.
    summaries: Arc<Vec<(TurnRange, Arc<meaning::Gist>)>>,
    /// A summary being written, standing for every turn in place of the
    /// stored ones.
    edited: Option<Arc<meaning::Gist>>,
    /// How telling each word is in the conversation.
    weights: Arc<meaning::Weights>,
    /// The file reads (their calls, by index) whose result is not sent
    /// whole: what they read is gone however often the path is named.
    unread: Arc<HashSet<usize>>,
    /// Of each turn shown (0-based), which of its events are sent and how
    /// each is altered, as a hash: two projections that send a turn the
    /// same way name the same facts by its events.
    shapes: Arc<HashMap<usize, u64>>,
    /// Of each turn (0-based) some summaries stand for, which they are,
    /// as a hash.
    standing: Arc<HashMap<usize, u64>>,
    /// Of each turn some summaries stand for, those summaries (indices
    /// into `summaries`, in order): a long run sends thousands, and a
    /// fact is judged against those of its own turn only.
    covering: Arc<HashMap<usize, Vec<usize>>>,
}

impl Sent {
    pub fn of(conv: &Conversation, p: &Projection, range: TurnRange) -> Sent {
        Sent::of_facts(conv, p, range, None)
    }

    /// [`Sent::of`] for judging `facts` only: the text of a turn is read
    /// only where one of them is not sent whole with its own event (most
    /// of a run that elides keeps its messages whole: reading every event
    /// of every run again was most of what judging a simulation cost).
    pub fn of_facts(
        conv: &Conversation,
        p: &Projection,
        range: TurnRange,
        facts: Option<&[Fact]>,
    ) -> Sent {
        let mut whole = HashSet::new();
        let mut summaries = Vec::new();
        let mut shown = Vec::new();
        for e in &p.events {
            match *e {
                Projected::Raw { index, change } => {
                    let turn = conv.events[index].turn;
                    if turn < range.from || turn > range.to {
                        continue;
                    }
                    if change == Alteration::None {
                        whole.insert(index);
                    }
                    shown.push((e, turn));
                }
                Projected::Summary { .. } => {
                    if let Some((r, s)) = summary_over(p, e, range) {
                        summaries.push((r, gist(conv, s)));
                    }
                }
            }
        }
        let needed: Option<HashSet<usize>> = facts.map(|facts| {
            facts
                .iter()
                .filter(|f| !whole.contains(&f.event))
                .map(|f| f.turn.saturating_sub(1))
                .collect()
        });
        let turns = turn_texts(conv, p, &shown, |t| {
            needed.as_ref().is_none_or(|n| n.contains(&t))
        });
        let shapes = shapes_of(&shown);
        // An endless range ends at the last turn there is.
        let to = range.to.min(conv.turn_count);
        let covering = covering_of(&summaries, TurnRange { to, ..range });
        let standing = standing_of(&summaries, &covering);
        let shown: Vec<usize> = shown
            .iter()
            .filter_map(|(e, _)| match **e {
                Projected::Raw { index, .. } => Some(index),
                Projected::Summary { .. } => None,
            })
            .collect();
        // Reads whose call is sent (whole or as its name) but whose
        // result is not sent whole.
        let pairing = crate::core::compact::pairing::Pairing::of(&conv.events);
        let unread = shown
            .into_iter()
            .filter(|&i| match &conv.events[i].kind {
                EventKind::ToolCallRequest { name, .. } => {
                    call_args::operation(name) == "read"
                        && pairing
                            .partner(i, conv.events.len())
                            .is_some_and(|r| !whole.contains(&r))
                }
                _ => false,
            })
            .collect();
        Sent {
            whole: Arc::new(whole),
            turns: Arc::new(turns),
            summaries: Arc::new(summaries),
            edited: None,
            weights: weights(conv),
            unread: Arc::new(unread),
            shapes: Arc::new(shapes),
            standing: Arc::new(standing),
            covering: Arc::new(covering),
        }
    }

    /// The same events, with `summary` the one summary that stands for
    /// the range (a summary being written).
    pub fn with_summary(&self, summary: &str) -> Sent {
        Sent {
            whole: self.whole.clone(),
            turns: self.turns.clone(),
            summaries: Arc::new(Vec::new()),
            edited: Some(Arc::new(meaning::Gist::of(summary))),
            weights: self.weights.clone(),
            unread: self.unread.clone(),
            shapes: self.shapes.clone(),
            standing: self.standing.clone(),
            covering: self.covering.clone(),
        }
    }

    /// Where `fact` is still named, if it is.
    pub fn names(&self, fact: &Fact, siblings: &matching::Siblings) -> Option<Where> {
        let by_events = self.names_by_events(fact, siblings);
        if by_events && !self.unread(fact) {
            return Some(Where::KeptEvent);
        }
        match self.by_summary(fact, siblings) {
            meaning::Verdict::Conveyed => Some(Where::Summary),
            _ if by_events => Some(Where::Named),
            meaning::Verdict::Partly => Some(Where::Partly),
            meaning::Verdict::Missing => None,
        }
    }

    /// Whether an event still sent keeps `fact`: names it, and, of a file
    /// read, still sends what was read.
    pub fn keeps_by_events(&self, fact: &Fact, siblings: &matching::Siblings) -> bool {
        !self.unread(fact) && self.names_by_events(fact, siblings)
    }

    /// A file read whose result is no longer sent.
    fn unread(&self, fact: &Fact) -> bool {
        fact.kind == FactKind::File && self.unread.contains(&fact.event)
    }

    /// Whether an event the model is still sent names `fact`: the same
    /// whatever a summary of the range says.
    pub fn names_by_events(&self, fact: &Fact, siblings: &matching::Siblings) -> bool {
        let turn = fact.turn.saturating_sub(1);
        // Its own event, sent as it was, carries it whole.
        self.whole.contains(&fact.event)
            || self
                .turns
                .get(&turn)
                .is_some_and(|t| matching::names(fact, t, siblings))
    }

    /// Whether a summary of its turn conveys `fact` (the one being
    /// written, when there is one).
    pub fn names_by_summary(&self, fact: &Fact, siblings: &matching::Siblings) -> bool {
        self.by_summary(fact, siblings) == meaning::Verdict::Conveyed
    }

    /// All a verdict on `fact` (occurrence `k`, `unique` among its range's
    /// files) depends on in this projection: whether its event is sent
    /// whole, whether a read of it is gone, how its turn is sent and which
    /// summaries stand for it.
    fn key(&self, k: usize, unique: bool, fact: &Fact) -> VerdictKey {
        let turn = fact.turn.saturating_sub(1);
        let whole = self.whole.contains(&fact.event);
        let summaries = match &self.edited {
            Some(gist) => gist.id,
            None => self.standing.get(&turn).copied().unwrap_or(0),
        };
        VerdictKey {
            k,
            unique,
            whole,
            unread: self.unread(fact),
            shape: match whole {
                true => 0,
                false => self.shapes.get(&turn).copied().unwrap_or(0),
            },
            summaries,
        }
    }

    /// How the summaries of its turn carry `fact`: the best of them.
    pub fn by_summary(&self, fact: &Fact, siblings: &matching::Siblings) -> meaning::Verdict {
        let turn = fact.turn.saturating_sub(1);
        let judge = |gist: &meaning::Gist| meaning::verdict(fact, gist, &self.weights, siblings);
        match &self.edited {
            Some(gist) => judge(gist),
            None => {
                let mut best = meaning::Verdict::Missing;
                let covering = self.covering.get(&turn).map_or(&[][..], Vec::as_slice);
                for &k in covering {
                    match judge(&self.summaries[k].1) {
                        meaning::Verdict::Conveyed => return meaning::Verdict::Conveyed,
                        meaning::Verdict::Partly => best = meaning::Verdict::Partly,
                        meaning::Verdict::Missing => {}
                    }
                }
                best
            }
        }
    }
}

/// The facts of each of `ranges` judged against projection `p`, as
/// [`judged`] judges one, found and judged once for all: a fact of turns
/// many compactions cover is judged once, so `lost` on thousands of
/// overlapping compactions costs a pass over the conversation, not one
/// per compaction.
pub fn judged_many(conv: &Conversation, p: &Projection, ranges: &[TurnRange]) -> Vec<Vec<Judged>> {
    if ranges.is_empty() {
        return Vec::new();
    }
    judged_among(conv, &occurrences(conv), p, ranges)
}

/// [`judged_many`] with the occurrences found already (`all`: of the whole
/// conversation, or of at least the turns of `ranges`). A fact's being
/// fixed is judged by its range, so the same occurrences serve any ranges.
pub fn judged_among(
    conv: &Conversation,
    all: &[Fact],
    p: &Projection,
    ranges: &[TurnRange],
) -> Vec<Vec<Judged>> {
    let mut out = Vec::with_capacity(ranges.len());
    judged_each(conv, all, p, ranges, |_, judged| out.push(judged));
    out
}

/// [`judged_among`], each range's facts handed to `each` (with the range's
/// index) as soon as they are judged: a caller that keeps only a bounded
/// part of each never holds every range's facts at once (thousands of
/// compactions over the same turns list the same facts again).
pub fn judged_each(
    conv: &Conversation,
    all: &[Fact],
    p: &Projection,
    ranges: &[TurnRange],
    mut each: impl FnMut(usize, Vec<Judged>),
) {
    if ranges.is_empty() {
        return;
    }
    let from = ranges.iter().map(|r| r.from).min().unwrap_or(0);
    let to = ranges.iter().map(|r| r.to).max().unwrap_or(0);
    let scope = TurnRange { from, to };
    let sent = Sent::of_facts(conv, p, scope, Some(all));
    // By occurrence (its index in `all`) and, for a file, whether its name
    // is the only one of the range's files.
    let mut cache: HashMap<(usize, bool), Option<Where>> = HashMap::new();
    for (index, &r) in ranges.iter().enumerate() {
        let facts = extract::select_indexed(all, r);
        let siblings = matching::Siblings::of_indexed(&facts);
        let ats: Vec<Option<Where>> = facts
            .iter()
            .map(|(k, fact)| {
                let unique = siblings.unique(fact);
                *cache
                    .entry((*k, unique))
                    .or_insert_with(|| sent.names(fact, &siblings))
            })
            .collect();
        each(index, in_order(facts, ats));
    }
}

/// Of a projected event, the summary it sends when that summary stands
/// for a turn of `range`, with the turns it stands for.
pub fn summary_over<'a>(
    p: &'a Projection,
    e: &Projected,
    range: TurnRange,
) -> Option<(TurnRange, &'a str)> {
    let Projected::Summary {
        overlay,
        part: SummaryPart::Response,
        ..
    } = *e
    else {
        return None;
    };
    let c = &p.overlays[overlay].compaction;
    let r = c.range();
    (r.from <= range.to && r.to >= range.from)
        .then_some(())
        .and(c.summary.as_deref())
        .map(|s| (r, s))
}

/// An event's text as the model is sent it: a call's tool name and
/// arguments, a message's text.
fn sent_text(conv: &Conversation, i: usize) -> String {
    match &conv.events[i].kind {
        EventKind::ToolCallRequest { name, .. } => format!("{name} {}", conv.text(i)),
        _ => conv.text(i),
    }
}

/// The facts of `range` judged against projection `p`, most important
/// first, each kind in stream order.
pub fn judged(conv: &Conversation, p: &Projection, range: TurnRange) -> Vec<Judged> {
    judged_many(conv, p, &[range]).pop().unwrap_or_default()
}

/// Of each turn in `shown` that `wanted`, its sent events' texts, lower
/// case, one event a line.
fn turn_texts(
    conv: &Conversation,
    p: &Projection,
    shown: &[(&Projected, usize)],
    wanted: impl Fn(usize) -> bool,
) -> HashMap<usize, String> {
    let mut turns: HashMap<usize, String> = HashMap::new();
    for &(e, turn) in shown {
        if !wanted(turn) {
            continue;
        }
        let Projected::Raw { index, change } = *e else {
            continue;
        };
        let text = match change {
            Alteration::None => sent_text(conv, index),
            _ => crate::core::search::value_text(&p.plain(conv, e)),
        };
        let t = turns.entry(turn).or_default();
        t.push_str(&text.to_lowercase());
        t.push('\n');
    }
    turns
}

/// The raw events of `range` that `p` sends, with their turns.
fn shown_in<'a>(
    conv: &Conversation,
    p: &'a Projection,
    range: TurnRange,
) -> Vec<(&'a Projected, usize)> {
    p.events
        .iter()
        .filter_map(|e| match *e {
            Projected::Raw { index, .. } => {
                let turn = conv.events[index].turn;
                (range.from <= turn && turn <= range.to).then_some((e, turn))
            }
            Projected::Summary { .. } => None,
        })
        .collect()
}

/// Of each turn in `shown`, its events and their alterations as a hash.
fn shapes_of(shown: &[(&Projected, usize)]) -> HashMap<usize, u64> {
    let mut shapes: HashMap<usize, u64> = HashMap::new();
    for &(e, turn) in shown {
        if let Projected::Raw { index, change } = *e {
            let h = shapes.entry(turn).or_default();
            *h = mix(mix(*h, index as u64), change as u64);
        }
    }
    shapes
}

/// Of each turn of `range`, the summaries that stand for it, in order
/// (indices into `summaries`).
fn covering_of(
    summaries: &[(TurnRange, Arc<meaning::Gist>)],
    range: TurnRange,
) -> HashMap<usize, Vec<usize>> {
    let mut covering: HashMap<usize, Vec<usize>> = HashMap::new();
    for (k, (r, _)) in summaries.iter().enumerate() {
        for t in r.from.max(range.from)..=r.to.min(range.to) {
            covering.entry(t).or_default().push(k);
        }
    }
    covering
}

/// Of each turn some summaries stand for, which they are, in order, as a
/// hash (what [`Sent::by_summary`] reads).
fn standing_of(
    summaries: &[(TurnRange, Arc<meaning::Gist>)],
    covering: &HashMap<usize, Vec<usize>>,
) -> HashMap<usize, u64> {
    covering
        .iter()
        .map(|(&t, ks)| (t, ks.iter().fold(0, |h, &k| mix(h, summaries[k].1.id))))
        .collect()
}

/// Folds `x` into the hash `h`, order mattering.
fn mix(h: u64, x: u64) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x6a70).hash_one((h, x))
}

/// What a verdict on one occurrence of a fact depends on (see
/// [`Sent::key`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct VerdictKey {
    k: usize,
    unique: bool,
    whole: bool,
    unread: bool,
    shape: u64,
    summaries: u64,
}

/// Verdicts kept across projections of one conversation (the runs of a
/// simulation, judged on several threads): a fact is judged again only
/// where its turn is sent differently or other summaries stand for it.
#[derive(Debug, Default)]
pub struct Verdicts(std::sync::Mutex<HashMap<VerdictKey, Option<Where>>>);

impl Verdicts {
    fn get(&self, key: &VerdictKey) -> Option<Option<Where>> {
        self.lock().get(key).copied()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<VerdictKey, Option<Where>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// [`judged_each`] with `verdicts` kept from other projections of the same
/// conversation: a turn's text is read only for facts no verdict holds.
/// Every range's facts are held at once (a simulation's ranges are merged,
/// a few per run).
pub fn judged_each_with(
    conv: &Conversation,
    all: &[Fact],
    p: &Projection,
    ranges: &[TurnRange],
    verdicts: &Verdicts,
    mut each: impl FnMut(usize, Vec<Judged>),
) {
    if ranges.is_empty() {
        return;
    }
    let from = ranges.iter().map(|r| r.from).min().unwrap_or(0);
    let to = ranges.iter().map(|r| r.to).max().unwrap_or(0);
    let scope = TurnRange { from, to };
    let mut sent = Sent::of_facts(conv, p, scope, Some(&[]));
    let selected: Vec<(Vec<(usize, Fact)>, matching::Siblings)> = ranges
        .iter()
        .map(|&r| {
            let facts = extract::select_indexed(all, r);
            let siblings = matching::Siblings::of_indexed(&facts);
            (facts, siblings)
        })
        .collect();
    // The turns whose text a verdict still needs.
    let mut needed: HashSet<usize> = HashSet::new();
    for (facts, siblings) in &selected {
        for (k, fact) in facts {
            let key = sent.key(*k, siblings.unique(fact), fact);
            if !key.whole && verdicts.get(&key).is_none() {
                needed.insert(fact.turn.saturating_sub(1));
            }
        }
    }
    if !needed.is_empty() {
        let shown = shown_in(conv, p, scope);
        sent.turns = Arc::new(turn_texts(conv, p, &shown, |t| needed.contains(&t)));
    }
    for (index, (facts, siblings)) in selected.into_iter().enumerate() {
        // A run's range is most of a long conversation: its facts are
        // judged on every core, not one per run.
        let ats = crate::core::parallel::map(&facts, |(k, fact)| {
            let key = sent.key(*k, siblings.unique(fact), fact);
            match verdicts.get(&key) {
                Some(at) => at,
                None => {
                    let at = sent.names(fact, &siblings);
                    verdicts.lock().insert(key, at);
                    at
                }
            }
        });
        each(index, in_order(facts, ats));
    }
}

/// `facts` with the verdict on each (`ats`, in the same order), most
/// important kind first, each kind in stream order.
fn in_order(facts: Vec<(usize, Fact)>, ats: Vec<Option<Where>>) -> Vec<Judged> {
    let mut out: Vec<Judged> = facts
        .into_iter()
        .zip(ats)
        .map(|((_, fact), at)| Judged {
            fact,
            kept: at.is_some_and(Where::keeps),
            at,
            by: None,
            quote: None,
        })
        .collect();
    out.sort_by_key(|j| (j.fact.kind, j.fact.event));
    out
}
