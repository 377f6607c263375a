//! What the model no longer knows after a compaction: the facts of its
//! range a reader would need to carry on (files, commands, errors, the
//! user's instructions, decisions, links and figures), each judged against
//! what the model is still sent of its turn (the summary that stands for
//! it, and the turn's events the projection keeps).
//!
//! Extraction ([`extract`]) and matching ([`matching`]) are deterministic;
//! docs/headless.md ("What was lost") states the rules.

pub mod asks;
pub mod call_args;
pub mod calls;
pub mod extract;
mod links;
pub mod matching;
pub mod meaning;
mod per_event;
pub mod prose;
pub mod scan;
mod sent;
mod words;

pub use sent::{Sent, Verdicts, judged, judged_each, judged_each_with, judged_many, summary_over};

use crate::core::model::TurnRange;
use crate::core::model::conversation::Conversation;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The kinds of fact, most important first: the order lost facts are
/// listed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FactKind {
    Instruction,
    Error,
    File,
    Command,
    Decision,
    Url,
    Number,
}

impl FactKind {
    pub const ALL: [FactKind; 7] = [
        FactKind::Instruction,
        FactKind::Error,
        FactKind::File,
        FactKind::Command,
        FactKind::Decision,
        FactKind::Url,
        FactKind::Number,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FactKind::Instruction => "instruction",
            FactKind::Error => "error",
            FactKind::File => "file",
            FactKind::Command => "command",
            FactKind::Decision => "decision",
            FactKind::Url => "url",
            FactKind::Number => "number",
        }
    }

    /// Whether the kind enters a figure ("knows K/N", "keeps", the `!`
    /// marks). Files, commands, errors and instructions are found with a
    /// precision over 90 % on the labelled keys; decisions, links and
    /// figures are found with about 55–75 %, so a figure counting them
    /// would move with what the extraction mistook for a fact. Those are
    /// listed, never counted.
    pub fn counted(self) -> bool {
        matches!(
            self,
            FactKind::Instruction | FactKind::Error | FactKind::File | FactKind::Command
        )
    }

    /// The plural a survival line counts in ("3 of 5 files").
    pub fn plural(self) -> &'static str {
        match self {
            FactKind::Instruction => "instructions",
            FactKind::Error => "errors",
            FactKind::File => "files",
            FactKind::Command => "commands",
            FactKind::Decision => "decisions",
            FactKind::Url => "links",
            FactKind::Number => "figures",
        }
    }
}

/// One fact of a range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fact {
    pub kind: FactKind,
    /// As a reader would write it down: a path with its operation, a
    /// command line, an error's telling line, a sentence, a link, a figure.
    pub text: String,
    /// 1-based, as people count turns.
    pub turn: usize,
    /// What must still be named for the fact to be known (a path, a
    /// command's words, a sentence): see [`matching`].
    #[serde(skip)]
    pub key: String,
    /// The raw event it was found in.
    #[serde(skip)]
    pub event: usize,
    /// Of an error: whether a later turn of the range succeeded at what
    /// failed (the same tool on the same target).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixed: Option<bool>,
    /// Of an error: the turn (1-based) something later succeeded at what
    /// failed, anywhere after it.
    #[serde(skip)]
    pub fixed_turn: Option<usize>,
    /// Of a command: whether it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<bool>,
}

/// The most characters of a fact a listing shows: a listing line is read,
/// not searched; `--json` has the whole text.
pub const SHOWN_MAX: usize = 240;

impl Fact {
    /// The fact as a listing shows it: a figure first, then where it was
    /// said (a reader must see which figure of the sentence is meant);
    /// anything else as written. Cut at a word, with `…`, to [`SHOWN_MAX`].
    pub fn shown(&self) -> String {
        self.shown_within(SHOWN_MAX)
    }

    /// [`Fact::shown`] cut to `max` characters (`usize::MAX`: whole, for a
    /// view that wraps it).
    pub fn shown_within(&self, max: usize) -> String {
        let text = self.text.split_whitespace().collect::<Vec<_>>().join(" ");
        if self.kind == FactKind::Number && !self.key.is_empty() && self.key != text {
            return format!("{} — in “{}”", self.key, around(&text, &self.key, 8));
        }
        crate::core::cut::clip_words(&text, max)
    }
}

/// The `words` words either side of `key`'s first place in `text`, `…`
/// where more was left out; the start of `text` when `key` isn't in it.
fn around(text: &str, key: &str, words: usize) -> String {
    let Some(at) = text.find(key) else {
        return crate::core::cut::clip_words(text, SHOWN_MAX / 2);
    };
    let before: Vec<&str> = text[..at].split_whitespace().collect();
    let after: Vec<&str> = text[at + key.len()..].split_whitespace().collect();
    // The key's own word may be cut by the split: keep what touches it.
    let glued_before = !text[..at].ends_with(char::is_whitespace) && !before.is_empty();
    let glued_after = !text[at + key.len()..].starts_with(char::is_whitespace) && !after.is_empty();
    let from = before
        .len()
        .saturating_sub(words + usize::from(glued_before));
    let to = (words + usize::from(glued_after)).min(after.len());
    let mut out = String::new();
    if from > 0 {
        out.push_str("… ");
    }
    out.push_str(&before[from..].join(" "));
    if !before[from..].is_empty() && !glued_before {
        out.push(' ');
    }
    out.push_str(key);
    if !after[..to].is_empty() && !glued_after {
        out.push(' ');
    }
    out.push_str(&after[..to].join(" "));
    if to < after.len() {
        out.push_str(" …");
    }
    crate::core::cut::clip_words(&out, SHOWN_MAX)
}

impl Fact {
    /// A fact of `kind` found in event `event` of `turn` (1-based), shown
    /// as `text` and known by `key`; nothing yet said of how it ended.
    pub fn new(kind: FactKind, text: String, key: String, turn: usize, event: usize) -> Fact {
        Fact {
            kind,
            text,
            turn,
            key,
            event,
            fixed: None,
            fixed_turn: None,
            failed: None,
        }
    }
}

#[cfg(test)]
impl Fact {
    /// A fact of turn 1 for a unit test, shown as `text`, known by `key`.
    pub(crate) fn sample(kind: FactKind, text: &str, key: &str) -> Fact {
        Fact::new(kind, text.into(), key.into(), 1, 0)
    }
}

/// Where a kept fact is still named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Where {
    /// An event of the range the projection still sends.
    KeptEvent,
    /// The summary that stands for the range.
    Summary,
    /// A file read whose call is still sent but whose result is not: its
    /// path is named, its contents are gone. Not kept.
    Named,
    /// The summary conveys part of it (some of what it asks, chose or
    /// ran, not all): not kept, and not wholly lost.
    Partly,
}

impl Where {
    /// Whether the model still knows the fact there.
    pub fn keeps(self) -> bool {
        matches!(self, Where::KeptEvent | Where::Summary)
    }
}

/// A fact, judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Judged {
    #[serde(flatten)]
    pub fact: Fact,
    pub kept: bool,
    #[serde(rename = "where")]
    pub at: Option<Where>,
    /// Who gave the verdict: `None` the offline judge by meaning
    /// (`"judge": "meaning"`), else the model or command a person asked
    /// (`openai gpt-4o-mini`).
    #[serde(rename = "judge", serialize_with = "judge_name")]
    pub by: Option<String>,
    /// The sentence a model judge says conveys the fact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
}

fn judge_name<S: serde::Serializer>(by: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(by.as_deref().unwrap_or("meaning"))
}

impl Judged {
    /// Lost, and one a reader can't do without: an instruction, or an
    /// error nothing later fixed. Partly conveyed is not wholly lost.
    pub fn is_grave(&self) -> bool {
        !self.kept
            && self.at != Some(Where::Partly)
            && match self.fact.kind {
                FactKind::Instruction => true,
                FactKind::Error => self.fact.fixed != Some(true),
                _ => false,
            }
    }
}

/// Kept of total, per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Count {
    pub total: usize,
    pub kept: usize,
}

/// How the facts of a range fared, per kind (kinds with none left out).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Survival(pub BTreeMap<FactKind, Count>);

impl Survival {
    pub fn of(judged: &[Judged]) -> Survival {
        let mut s = Survival::default();
        for j in judged {
            let c = s.0.entry(j.fact.kind).or_default();
            c.total += 1;
            c.kept += usize::from(j.kept);
        }
        s
    }

    pub fn add(&mut self, other: &Survival) {
        for (k, c) in &other.0 {
            let mine = self.0.entry(*k).or_default();
            mine.total += c.total;
            mine.kept += c.kept;
        }
    }

    /// "3 of 5 files, 1 of 2 commands; not counted: 1 of 4 decisions"
    /// (most important kinds first; the kinds no figure counts last).
    pub fn describe(&self) -> String {
        if self.0.is_empty() {
            return "no facts to check in its range".into();
        }
        let list = |counted: bool| {
            self.0
                .iter()
                .filter(|(k, _)| k.counted() == counted)
                .map(|(k, c)| format!("{} of {} {}", c.kept, c.total, k.plural()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match (list(true), list(false)) {
            (counted, rest) if rest.is_empty() => counted,
            (counted, rest) if counted.is_empty() => format!("not counted: {rest}"),
            (counted, rest) => format!("{counted}; not counted: {rest}"),
        }
    }

    /// Kept of all, over the kinds a figure counts ([`FactKind::counted`]).
    pub fn total(&self) -> Count {
        let mut t = Count::default();
        for (_, c) in self.0.iter().filter(|(k, _)| k.counted()) {
            t.total += c.total;
            t.kept += c.kept;
        }
        t
    }
}

/// A compaction's facts in one mark: kept of all, and whether it lost an
/// instruction or an error nothing later fixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub kept: usize,
    pub total: usize,
    pub grave: bool,
}

impl Mark {
    pub fn of(judged: &[Judged]) -> Mark {
        let total = Survival::of(judged).total();
        Mark {
            kept: total.kept,
            total: total.total,
            grave: judged.iter().any(Judged::is_grave),
        }
    }
}

/// Every occurrence of a fact in `conv`, in stream order: found on first
/// use and kept with the conversation, for the summaries of any range and
/// the judging of any projection of it.
pub fn occurrences(conv: &Conversation) -> Arc<Vec<Fact>> {
    known(conv).facts.clone()
}

/// How telling each word is among the conversation's facts: weighed on
/// first use and kept with them.
pub fn weights(conv: &Conversation) -> Arc<meaning::Weights> {
    let k = known(conv);
    k.weights
        .get_or_init(|| Arc::new(meaning::Weights::of(&k.facts)))
        .clone()
}

/// What is found once per conversation.
struct Known {
    facts: Arc<Vec<Fact>>,
    weights: std::sync::OnceLock<Arc<meaning::Weights>>,
    /// Each summary read once: a simulation judges the same summaries
    /// under many policies and windows.
    gists: std::sync::Mutex<Gists>,
    /// The sentences those summaries say, read once.
    sentences: Arc<meaning::Sentences>,
}

/// The summaries read, and how many bytes of summary they hold.
#[derive(Default)]
struct Gists {
    /// By the summary's text, hashed fast: a summary is looked up whole.
    read: foldhash::HashMap<String, Arc<meaning::Gist>>,
    bytes: usize,
}

impl Known {
    fn of(conv: &Conversation) -> Known {
        Known {
            facts: Arc::new(extract::occurrences(conv, 0..conv.events.len())),
            weights: std::sync::OnceLock::new(),
            gists: std::sync::Mutex::new(Gists::default()),
            sentences: Arc::default(),
        }
    }
}

/// `summary` read for judging, once per conversation.
pub(super) fn gist(conv: &Conversation, summary: &str) -> Arc<meaning::Gist> {
    /// Past this many bytes of summary, the summaries read are let go
    /// (a read summary holds a few times its text): a long simulation or
    /// an inspector open for days keeps no more.
    const KEPT: usize = 32 << 20;
    let k = known(conv);
    let lock = || k.gists.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(g) = lock().read.get(summary) {
        return g.clone();
    }
    // Read outside the lock: another thread may read the same summary
    // meanwhile, and the two agree.
    let g = Arc::new(meaning::Gist::among(summary, k.sentences.clone()));
    let mut gists = lock();
    if gists.bytes + summary.len() > KEPT {
        *gists = Gists::default();
    }
    gists.bytes += summary.len();
    gists.read.insert(summary.to_string(), g.clone());
    g
}

fn known(conv: &Conversation) -> Arc<Known> {
    // Found outside the cell's lock: finding them runs pieces on the
    // thread pool, and a thread waiting for its pieces may take another
    // piece that asks for these very facts (see `parallel`). Two threads
    // that ask at once both find them, and the first to finish is kept.
    let memo = match conv.facts_memo.get() {
        Some(memo) => memo,
        None => {
            let k: Arc<dyn std::any::Any + Send + Sync> = Arc::new(Known::of(conv));
            conv.facts_memo.get_or_init(|| k)
        }
    };
    memo.clone()
        .downcast::<Known>()
        .unwrap_or_else(|_| Arc::new(Known::of(conv)))
}

/// The facts of `range` as a summary's checklist, for a summarizer's
/// instructions: "the summary must name: …".
pub fn checklist(conv: &Conversation, range: TurnRange) -> Vec<Fact> {
    let mut facts = extract::select(&occurrences(conv), range);
    facts.sort_by_key(|f| (f.kind, f.event));
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(kind: FactKind, kept: bool) -> Judged {
        Judged {
            fact: Fact::sample(kind, "x", "x"),
            kept,
            at: kept.then_some(Where::Summary),
            by: None,
            quote: None,
        }
    }

    #[test]
    fn only_the_precise_kinds_enter_the_figures() {
        let all = [
            judged(FactKind::File, true),
            judged(FactKind::File, false),
            judged(FactKind::Command, true),
            judged(FactKind::Decision, false),
            judged(FactKind::Decision, false),
            judged(FactKind::Url, true),
            judged(FactKind::Number, false),
        ];
        let s = Survival::of(&all);
        assert_eq!(s.total(), Count { total: 3, kept: 2 });
        let m = Mark::of(&all);
        assert_eq!((m.kept, m.total, m.grave), (2, 3, false));
        assert_eq!(
            s.describe(),
            "1 of 2 files, 1 of 1 commands; not counted: 0 of 2 decisions, 1 of 1 links, 0 of 1 figures"
        );
    }

    #[test]
    fn a_range_of_uncounted_facts_says_so() {
        let s = Survival::of(&[judged(FactKind::Decision, true)]);
        assert_eq!(s.total(), Count::default());
        assert_eq!(s.describe(), "not counted: 1 of 1 decisions");
    }

    #[test]
    fn a_fact_is_shown_whole_words_and_a_figure_by_itself() {
        let long = "word ".repeat(100) + "end";
        let f = Fact::sample(FactKind::Decision, &long, &long);
        let shown = f.shown();
        assert!(shown.chars().count() <= SHOWN_MAX, "{shown}");
        assert!(
            shown.ends_with("word…") || shown.ends_with("word …"),
            "{shown}"
        );
        let n = Fact::sample(
            FactKind::Number,
            "All 49 tests pass, including the new parenthesised case.",
            "49 tests",
        );
        assert_eq!(
            n.shown(),
            "49 tests — in “All 49 tests pass, including the new parenthesised case.”"
        );
        // A figure that is its whole text is said once.
        let bare = Fact::sample(FactKind::Number, "14 MB", "14 MB");
        assert_eq!(bare.shown(), "14 MB");
        // In a long sentence, the words around the figure.
        let deep = Fact::sample(
            FactKind::Number,
            "one two three four five six seven eight nine ten eleven took 2.5 s to run, \
             which is far too slow for a test that runs on every save of the file",
            "2.5 s",
        );
        assert_eq!(
            deep.shown(),
            "2.5 s — in “… five six seven eight nine ten eleven took 2.5 s to run, \
             which is far too slow for …”"
        );
    }
}
