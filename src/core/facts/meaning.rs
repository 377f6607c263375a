//! Whether a summary conveys a fact, judged by meaning as a careful reader
//! judges it: by the fact's telling content, in any order, inflection or
//! phrasing, near each other; never by one verbatim anchor.
//!
//! - a **file** by its path, or by a tail of it (`src/main.rs`, `fs.rs`)
//!   that only one of the range's files has, with a directory of the rest
//!   of its path named too (`grizzly`, `jp_config`): a folder alone, or a
//!   bare file name, is not the file;
//! - a **url** by itself, without its scheme, or (of GitHub) by its
//!   `owner/repo`; a look-up in a repository by that repository;
//! - a **number** by its figure and unit, as [`matching`] finds it;
//! - a **command**, an **error**, an **instruction** or a **decision** by
//!   its telling words: each word of the fact (an identifier's parts too:
//!   `PathIsNotADirectory` is *path*, *directory*; `cargo_check` is
//!   *cargo*, *check*) is stemmed and weighed by how rare it is among the
//!   conversation's facts (an identifier twice), and the fact is conveyed
//!   where [`CONVEYED`] of its weight stands within three sentences of the
//!   summary, *partly* where two fifths of that does. An error is judged by what
//!   failed and how, not by the place it names or the words every error
//!   shares (`error`, `failed`, `panicked`).
//!
//! The share was calibrated on hand-labelled summaries (a faithful one and
//! a terse one of each range, every fact labelled conveyed or not by a
//! reader); docs/headless.md ("What was lost") states the rules.

use super::matching::{self, Siblings};
use super::words::{path_pattern, place_pattern, sentences, terms, tokens};
use super::{Fact, FactKind};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

/// The share of a fact's weight a passage of a summary must hold to
/// convey it.
pub const CONVEYED: f32 = 0.24;

/// The share that conveys part of it: some of what it asks, chose or
/// ran is there, not enough to act on.
pub const PARTLY: f32 = CONVEYED * 0.4;

/// Consecutive sentences a fact's words may stand in: a summary says a
/// thing and its reason in two or three.
const NEAR: usize = 3;

/// How a summary carries a fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Conveyed,
    Partly,
    Missing,
}

/// How telling each word is in a conversation: rare among its facts is
/// telling, said in every other fact is not.
#[derive(Debug, Default)]
pub struct Weights {
    df: HashMap<String, u32>,
    docs: u32,
}

impl Weights {
    /// Each fact a document.
    pub fn of(facts: &[Fact]) -> Weights {
        let mut df: HashMap<String, u32> = HashMap::new();
        let mut seen: HashSet<(FactKind, &str)> = HashSet::new();
        let mut docs = 0;
        for f in facts {
            if !seen.insert((f.kind, f.key.as_str())) {
                continue;
            }
            docs += 1;
            let words: HashSet<String> = tokens(&f.text).into_iter().collect();
            for w in words {
                *df.entry(w).or_default() += 1;
            }
        }
        Weights { df, docs }
    }

    fn idf(&self, word: &str) -> f32 {
        let d = self.df.get(word).copied().unwrap_or(0).max(1) as f32;
        (1.0 + self.docs.max(1) as f32 / d).ln()
    }
}

/// A summary, read once for every fact judged against it: its lower case
/// at once (most facts a summary keeps, it names as written), its words
/// only when a fact needs them.
#[derive(Debug, Clone, Default)]
pub struct Gist {
    /// Lower case, for what is matched as written (figures).
    pub lower: String,
    /// Its text's hash: which summary it is, for verdicts kept across
    /// runs that send the same summary.
    pub id: u64,
    text: String,
    read: OnceLock<Read>,
    names: OnceLock<Names>,
    /// The sentences the other summaries of its conversation said.
    known: Arc<Sentences>,
}

/// A word as a summary's sentences hold it: its hash. A sentence's words
/// are only ever looked up, and a simulation reads thousands of summaries:
/// sorted hashes cost a fraction of a set of strings to build and keep.
fn word_key(word: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x6a70).hash_one(word)
}

/// A summary's words, read on first need.
#[derive(Debug, Clone, Default)]
struct Read {
    /// The words of each sentence, as sorted [`word_key`]s; a passage is
    /// a run of [`NEAR`].
    sentences: Vec<Words>,
    /// Of each sentence, whether it says something went wrong.
    failing: Vec<bool>,
}

/// A sentence's words, as sorted [`word_key`]s.
type Words = Arc<[u64]>;

/// Sentences read, by their text, with whether each says
/// something went wrong: the summaries of one conversation say the same
/// lines again and again (a digest at every window lists the same facts),
/// and reading a sentence's words was most of what reading a summary
/// cost. Shared by the summaries of a conversation.
#[derive(Debug, Default)]
pub struct Sentences(Mutex<foldhash::HashMap<String, Option<(Words, bool)>>>);

/// Past this many sentences, those kept are let go.
const SENTENCES_KEPT: usize = 1 << 20;

impl Sentences {
    fn read(&self, sentence: &str) -> Option<(Words, bool)> {
        let lock = || self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(read) = lock().get(sentence) {
            return read.clone();
        }
        let words = tokens(sentence);
        let read = (!words.is_empty()).then(|| {
            let failing = tells_failure(&words);
            let mut keys: Vec<u64> = words.iter().map(|w| word_key(w)).collect();
            keys.sort_unstable();
            keys.dedup();
            (Words::from(keys), failing)
        });
        let mut kept = lock();
        if kept.len() >= SENTENCES_KEPT {
            kept.clear();
        }
        kept.insert(sentence.to_string(), read.clone());
        read
    }
}

/// The paths and names a summary says, read apart from its sentences:
/// only a file or a link not named as written asks for them.
#[derive(Debug, Clone, Default)]
struct Names {
    /// The paths and file names it names.
    paths: HashSet<String>,
    /// Its words as written, lower case: directory names.
    words: HashSet<String>,
}

impl Gist {
    pub fn of(text: &str) -> Gist {
        Gist::among(text, Arc::default())
    }

    /// [`Gist::of`] a summary of a conversation whose other summaries'
    /// sentences are `known`.
    pub fn among(text: &str, known: Arc<Sentences>) -> Gist {
        Gist {
            lower: text.to_lowercase(),
            id: word_key(text),
            text: text.to_string(),
            read: OnceLock::new(),
            names: OnceLock::new(),
            known,
        }
    }

    fn read(&self) -> &Read {
        self.read.get_or_init(|| Read::of(&self.text, &self.known))
    }

    fn names(&self) -> &Names {
        self.names.get_or_init(|| Names::of(&self.lower))
    }
}

/// A run of [`NEAR`] sentences, whose words are judged together.
struct Passage<'a> {
    sentences: &'a [Words],
    failing: &'a [bool],
}

impl Passage<'_> {
    /// Whether a sentence of it holds the word of `key` ([`word_key`]).
    fn contains(&self, key: u64) -> bool {
        self.sentences.iter().any(|s| s.binary_search(&key).is_ok())
    }

    fn tells_failure(&self) -> bool {
        self.failing.iter().any(|f| *f)
    }
}

impl Read {
    /// Each run of [`NEAR`] sentences, from each sentence on.
    fn passages(&self) -> impl Iterator<Item = Passage<'_>> {
        let n = self.sentences.len();
        (0..n).map(move |i| Passage {
            sentences: &self.sentences[i..(i + NEAR).min(n)],
            failing: &self.failing[i..(i + NEAR).min(n)],
        })
    }

    fn of(text: &str, known: &Sentences) -> Read {
        let (sentences, failing) = sentences(text).filter_map(|s| known.read(s)).unzip();
        Read { sentences, failing }
    }
}

impl Names {
    fn of(lower: &str) -> Names {
        let paths = path_pattern()
            .find_iter(lower)
            .map(|m| {
                m.as_str()
                    .trim_end_matches(['.', ',', ';', ':', ')', '`', '\'', '"'])
                    .trim_start_matches(['`', '\'', '"', '('])
                    .to_string()
            })
            .collect();
        let words = lower
            .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-')))
            .flat_map(|w| {
                let w = w.trim_matches('.');
                [w.to_string(), w.trim_start_matches('.').to_string()]
            })
            .filter(|w| !w.is_empty())
            .collect();
        Names { paths, words }
    }
}

/// How `gist` carries `fact`; `siblings` are the range's other facts.
pub fn verdict(fact: &Fact, gist: &Gist, weights: &Weights, siblings: &Siblings) -> Verdict {
    let yes = |b: bool| {
        if b {
            Verdict::Conveyed
        } else {
            Verdict::Missing
        }
    };
    match fact.kind {
        FactKind::File => yes(matching::names(fact, &gist.lower, siblings)
            || file_named(&fact.key.to_lowercase(), siblings, gist)),
        FactKind::Url => yes(matching::names(fact, &gist.lower, siblings) || url_named(fact, gist)),
        FactKind::Number => {
            yes(matching::names(fact, &gist.lower, siblings) || figure_near_its_unit(fact, gist))
        }
        FactKind::Command | FactKind::Error | FactKind::Instruction | FactKind::Decision => {
            if matching::names(fact, &gist.lower, siblings) {
                return Verdict::Conveyed;
            }
            let share = coverage(fact, gist, weights);
            if share >= CONVEYED {
                Verdict::Conveyed
            } else if share >= PARTLY {
                Verdict::Partly
            } else {
                Verdict::Missing
            }
        }
    }
}

/// A figure with its unit in other words: `49 passed` by "all 49 tests
/// pass", `18 existing tests` by "the 18 tests that existed": the figure
/// as written and half of its unit's words (one at least) near it.
fn figure_near_its_unit(fact: &Fact, gist: &Gist) -> bool {
    let cues = tokens(&fact.key);
    let (figures, words): (Vec<&String>, Vec<&String>) = cues
        .iter()
        .partition(|c| c.bytes().all(|b| b.is_ascii_digit()));
    if figures.is_empty() || words.is_empty() {
        return false;
    }
    let need = words.len().div_ceil(2);
    let figures: Vec<u64> = figures.iter().map(|f| word_key(f)).collect();
    let words: Vec<u64> = words.iter().map(|w| word_key(w)).collect();
    gist.read().passages().any(|win| {
        figures.iter().all(|&f| win.contains(f))
            && words.iter().filter(|&&w| win.contains(w)).count() >= need
    })
}

/// The largest share of `fact`'s weight one passage of `gist` holds.
fn coverage(fact: &Fact, gist: &Gist, weights: &Weights) -> f32 {
    let mut cues: Vec<(String, bool)> = terms(&cue_text(fact));
    // A tool's name is said in words ("cargo check"), not as jp spells it.
    if fact.kind == FactKind::Command {
        cues.retain(|(c, _)| !c.contains('_'));
    }
    let mut seen = HashSet::new();
    cues.retain(|(c, _)| seen.insert(c.clone()));
    if fact.kind == FactKind::Error {
        cues.retain(|(c, _)| !ERROR_WORDS.contains(&c.as_str()));
    }
    // What a sentence asks or chooses is in its words; the code quoted in
    // it is the example, told by half.
    let prose = matches!(fact.kind, FactKind::Instruction | FactKind::Decision);
    let weighed: Vec<(u64, f32)> = cues
        .iter()
        .map(|(c, code)| {
            let mut w = weights.idf(c) * if identifier(c) { 2.0 } else { 1.0 };
            if prose && *code {
                w /= 2.0;
            }
            (word_key(c), w)
        })
        .collect();
    let total: f32 = weighed.iter().map(|(_, w)| w).sum();
    if total <= 0.0 {
        return 0.0;
    }
    // An error is what failed and how: words near its subject that say
    // nothing went wrong ("we chose a precedence table") do not tell it.
    let error = fact.kind == FactKind::Error;
    gist.read()
        .passages()
        .filter(|win| !error || win.tells_failure())
        .map(|win| {
            weighed
                .iter()
                .filter(|(c, _)| win.contains(*c))
                .map(|(_, w)| w)
                .sum::<f32>()
        })
        .fold(0.0, f32::max)
        / total
}

/// Whether words say something went wrong: a failure, a panic, an error
/// code (`E0277`), a test gone red, a fix.
fn tells_failure(words: &[String]) -> bool {
    // What was fixed or corrected was wrong first.
    const WRONG: [&str; 26] = [
        "fail", "error", "panic", "broke", "wrong", "mismatch", "crash", "overflow", "refus",
        "reject", "invalid", "cannot", "doesn", "isn", "denied", "miss", "unresolv", "exceed",
        "segfault", "timeout", "red", "bug", "fix", "correct", "regress", "flaki",
    ];
    words.iter().any(|w| {
        WRONG.iter().any(|p| w.starts_with(p))
            || (w.len() > 1 && w.starts_with('e') && w[1..].bytes().all(|b| b.is_ascii_digit()))
    })
}

/// What of a fact is weighed: an error's message without its place or the
/// compiler's notes after it; anything else as it is known.
fn cue_text(fact: &Fact) -> String {
    if fact.kind != FactKind::Error {
        return fact.key.clone();
    }
    let mut text = fact.key.as_str();
    for marker in [
        " --> ",
        " = help",
        " = note",
        "note: run with",
        "What follows is",
        "what follows is",
    ] {
        if let Some(at) = text.find(marker) {
            text = &text[..at];
        }
    }
    let text = place_pattern().replace_all(text, " ");
    // Its telling sentences: not the tool's own framing ("An error
    // occurred while running the 'x' tool.").
    let telling: Vec<&str> = text
        .split_inclusive(". ")
        .filter(|s| {
            !s.to_ascii_lowercase()
                .contains("error occurred while running")
        })
        .take(2)
        .collect();
    telling
        .concat()
        .split_whitespace()
        .filter(|w| !noise(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What an error says that tells nothing of what failed: an absolute
/// path (a temporary folder), an id or a hash.
fn noise(word: &str) -> bool {
    let w = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '/');
    let digits = w.bytes().filter(u8::is_ascii_digit).count();
    let letters = w.bytes().filter(u8::is_ascii_alphabetic).count();
    w.starts_with('/')
        || (digits >= 5 && letters == 0)
        || (w.len() >= 10 && digits >= 2 && letters >= 2 && !w.contains(['_', ':', '.']))
}

/// The words every error shares, stemmed: what failed and how is in the
/// others.
const ERROR_WORDS: [&str; 28] = [
    "0",
    "ignor",
    "measur",
    "filter",
    "finish",
    "error",
    "warn",
    "fail",
    "failur",
    "cargo",
    "command",
    "thread",
    "panic",
    "panick",
    "assert",
    "assertion",
    "note",
    "help",
    "ran",
    "run",
    "test",
    "which",
    "valu",
    "result",
    "occur",
    "tool",
    "while",
    "follow",
];

/// A word that names a thing in code or a figure: `a_b`, `a::b`, `a.rs`,
/// `e0277`.
fn identifier(word: &str) -> bool {
    word.contains(['_', ':', '.', '/']) || word.chars().any(|c| c.is_ascii_digit())
}

/// The directories too common to tell one file from another.
const GENERIC_DIRS: [&str; 14] = [
    "src", "lib", "crates", "crate", "tests", "test", "docs", "doc", "bin", "pkg", "app", ".",
    "..", "~",
];

/// A tail of `path` the summary names, that only one file of the range
/// has, with a directory of the rest of the path named in the summary.
fn file_named(path: &str, siblings: &Siblings, gist: &Gist) -> bool {
    let path = path.trim_start_matches("./");
    let parts: Vec<&str> = path.split('/').collect();
    (0..parts.len()).any(|k| {
        let tail = parts[k..].join("/");
        if !gist.names().paths.contains(&tail) {
            return false;
        }
        if k == 0 {
            return true;
        }
        let ending = format!("/{tail}");
        let fits: HashSet<&str> = siblings
            .paths()
            .filter(|p| *p == tail || p.ends_with(&ending))
            .collect();
        fits.len() <= 1
            && parts[..k]
                .iter()
                .filter(|d| !GENERIC_DIRS.contains(d))
                .any(|d| {
                    gist.names().words.contains(*d)
                        || gist.names().words.contains(d.trim_start_matches('.'))
                })
    })
}

/// A link by its address without the scheme, a GitHub one by its
/// `owner/repo`, a look-up in a repository by the repository.
fn url_named(fact: &Fact, gist: &Gist) -> bool {
    let text = fact.text.to_lowercase();
    if let Some(at) = text.find("repository=") {
        let repo = text[at + "repository=".len()..]
            .split_whitespace()
            .next()
            .unwrap_or("");
        return !repo.is_empty() && gist.lower.contains(repo);
    }
    let key = fact.key.to_lowercase();
    let bare = key
        .split_once("://")
        .map_or(key.as_str(), |(_, rest)| rest)
        .trim_end_matches('/');
    if !bare.is_empty() && gist.lower.contains(bare) {
        return true;
    }
    bare.strip_prefix("github.com/").is_some_and(|rest| {
        let mut it = rest.split(['/', '#', '?']);
        match (it.next(), it.next()) {
            (Some(owner), Some(repo)) if !owner.is_empty() && !repo.is_empty() => {
                gist.lower.contains(&format!("{owner}/{repo}"))
            }
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(kind: FactKind, key: &str) -> Fact {
        Fact::sample(kind, key, key)
    }

    fn judge(f: &Fact, others: &[Fact], summary: &str) -> Verdict {
        let mut all = others.to_vec();
        all.push(f.clone());
        verdict(
            f,
            &Gist::of(summary),
            &Weights::of(&all),
            &Siblings::of(&all),
        )
    }

    #[test]
    fn summaries_that_share_their_sentences_are_judged_as_if_read_alone() {
        let facts = [
            fact(
                FactKind::Decision,
                "The fix belongs in the loader, not the guard.",
            ),
            fact(
                FactKind::Error,
                "cargo_test: test parser::tests::precedence failed",
            ),
            fact(FactKind::Command, "cargo_test grizzly"),
            fact(FactKind::Number, "49 passed"),
        ];
        let summaries = [
            "The fix belongs in the loader. All 49 tests pass.\n- turn 2: cargo test -p grizzly failed",
            "All 49 tests pass.\nThe guard stays; the loader was left alone.",
            "The precedence test in the parser failed. The fix belongs in the loader.",
            "",
        ];
        let weights = Weights::of(&facts);
        let siblings = Siblings::of(&facts);
        let known = Arc::new(Sentences::default());
        for _ in 0..2 {
            for summary in summaries {
                let shared = Gist::among(summary, known.clone());
                for f in &facts {
                    assert_eq!(
                        verdict(f, &shared, &weights, &siblings),
                        verdict(f, &Gist::of(summary), &weights, &siblings),
                        "{f:?} in {summary:?}"
                    );
                }
            }
        }
        assert!(
            !known.0.lock().unwrap().is_empty(),
            "the sentences were shared"
        );
    }

    #[test]
    fn a_command_by_its_tool_and_target_in_any_phrasing() {
        let others = [
            fact(FactKind::Command, "cargo_test grizzly"),
            fact(
                FactKind::Decision,
                "The parser splits the query into words.",
            ),
        ];
        let f = fact(FactKind::Command, "cargo_check grizzly");
        let faithful =
            "`cargo check -p grizzly` failed: `usize` doesn't implement `rusqlite::ToSql` (E0277).";
        assert_eq!(judge(&f, &others, faithful), Verdict::Conveyed);
        assert_eq!(
            judge(&f, &others, "The parser now splits words."),
            Verdict::Missing
        );
    }

    #[test]
    fn an_error_by_what_failed_not_by_its_place() {
        let f = fact(
            FactKind::Error,
            "thread 'fts::tests::trigram_rejects_short_queries' (2528299) panicked at src/fts.rs:229:9: assertion failed: result.is_err()",
        );
        let others = [fact(
            FactKind::Decision,
            "Tags are filtered after the query.",
        )];
        let said = "One test, trigram_rejects_short_queries, failed: short queries return nothing rather than an error.";
        assert_eq!(judge(&f, &others, said), Verdict::Conveyed);
        assert_eq!(
            judge(&f, &others, "Tags are filtered after the query."),
            Verdict::Missing
        );
    }

    #[test]
    fn a_decision_in_other_words_is_conveyed_and_a_dropped_one_is_not() {
        let others = [
            fact(
                FactKind::Decision,
                "The guard stays for callers that don't create.",
            ),
            fact(FactKind::Instruction, "Write the failing test first."),
        ];
        let f = fact(
            FactKind::Decision,
            "`Utf8Path::is_dir()` returns `false` for a path that doesn't exist, so the guard fires and returns `PathIsNotADirectory`.",
        );
        let paraphrase = "Because is_dir() is false for a missing path, the early guard returns PathIsNotADirectory before anything is created.";
        assert_eq!(judge(&f, &others, paraphrase), Verdict::Conveyed);
        assert_eq!(
            judge(
                &f,
                &others,
                "The user wants the failing test written first."
            ),
            Verdict::Missing
        );
    }

    #[test]
    fn a_file_by_a_tail_only_it_has_with_its_crate_named() {
        let f = fact(FactKind::File, "crates/contrib/grizzly/src/main.rs");
        let other = fact(FactKind::File, "crates/jp_cli/src/lib.rs");
        let said = "In the grizzly crate I read `src/main.rs` (the CLI).";
        assert_eq!(
            judge(&f, std::slice::from_ref(&other), said),
            Verdict::Conveyed
        );
        // A name only it has among the range's files is the file; a folder
        // alone is not.
        assert_eq!(
            judge(&f, std::slice::from_ref(&other), "I read main.rs."),
            Verdict::Conveyed
        );
        assert_eq!(
            judge(
                &f,
                std::slice::from_ref(&other),
                "I read the grizzly crate."
            ),
            Verdict::Missing
        );
        // Two files of the range end the same: the tail tells neither.
        let twin = fact(FactKind::File, "crates/jp_cli/src/main.rs");
        assert_eq!(
            judge(&f, &[twin], "In grizzly and jp_cli I read src/main.rs."),
            Verdict::Missing
        );
    }

    #[test]
    fn a_repository_by_owner_and_name() {
        let mut f = fact(FactKind::Url, "https://github.com/jakeswenson/bear-mcp");
        assert_eq!(
            judge(&f, &[], "jakeswenson/bear-mcp is a Rust server."),
            Verdict::Conveyed
        );
        assert_eq!(
            judge(&f, &[], "bear-mcp is a Rust server."),
            Verdict::Missing
        );
        f.text = "github_read_file repository=irevoire/mieli path=Cargo.toml".into();
        f.key = "irevoire/mieli/Cargo.toml".into();
        assert_eq!(
            judge(&f, &[], "I looked at irevoire/mieli."),
            Verdict::Conveyed
        );
    }
}
