//! Errors of the core, each naming the file and, for JSON, the place in it.
//! The bottom layer: it imports nothing of the core.

use std::fmt;
use std::path::PathBuf;

/// A position in a text file, 1-based as editors show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub line: usize,
    pub column: usize,
}

impl Place {
    /// The line and column of byte `offset` in `text`.
    pub fn of_offset(text: &str, offset: usize) -> Place {
        let offset = offset.min(text.len());
        let before = &text.as_bytes()[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        Place { line, column }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The OS error is part of the message, not a separate cause, so that
    /// a chain printer (`{:#}`) says it once.
    #[error("{}: {cause}", path.display())]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },

    #[error("{}:{place}: {message}", path.display())]
    Syntax {
        path: PathBuf,
        place: Place,
        message: String,
    },

    #[error("{}:{place}: event {index}: {message}", path.display())]
    Event {
        path: PathBuf,
        index: usize,
        place: Place,
        message: String,
    },

    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },

    #[error(
        "no conversation matches `{query}`{}",
        list_candidates(candidates, searched)
    )]
    NotFound {
        query: String,
        searched: Vec<PathBuf>,
        candidates: Vec<String>,
    },

    /// No `.jp/` where one was looked for; said one way by every command.
    #[error("{}", no_workspace(given.as_deref()))]
    NoWorkspace { given: Option<PathBuf> },

    #[error("`{query}` matches {} conversations; be more specific:{}", candidates.len(), bullets(candidates))]
    Ambiguous {
        query: String,
        candidates: Vec<String>,
    },

    /// The verdict first, what to do next, the lock's path last: a line cut
    /// at the screen's edge still says what happened.
    #[error(
        "jp holds the lock on this conversation{}: nothing was written; try again when jp's \
         query ends, or run `jp-inspect watch`, which writes at each turn's end (lock: {})",
        holder(*pid),
        lock_path.display()
    )]
    Locked {
        lock_path: PathBuf,
        pid: Option<u32>,
    },

    /// A write planned against a version of the file that is gone.
    #[error(
        "changed since the plan was made ({why}): nothing was written; plan it again ({})",
        path.display()
    )]
    Changed { path: PathBuf, why: String },

    /// A compaction asked for by its 1-based position that isn't there.
    #[error("there is no compaction #{position}; this conversation has {count} (numbered from 1)")]
    NoSuchCompaction { position: usize, count: usize },

    #[error(transparent)]
    Rule(#[from] RuleError),

    #[error(transparent)]
    Config(#[from] ConfigError),

    #[error(transparent)]
    Summarize(#[from] SummarizeError),

    #[error(transparent)]
    Overlap(#[from] SummaryOverlap),
}

impl From<PlanError> for Error {
    fn from(e: PlanError) -> Error {
        match e {
            PlanError::Summarize(e) => Error::Summarize(e),
            PlanError::Overlap(e) => Error::Overlap(e),
        }
    }
}

// The layers' own errors are defined here, below every folder that returns
// them, so that `Error` can carry them without this file importing upward.

/// What was wrong, and where: `at` is the 0-based character position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("in rule `{spec}` at column {}: {message}", at + 1)]
pub struct RuleError {
    pub spec: String,
    pub at: usize,
    pub message: String,
}

/// A bad key or value, naming where it came from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: `{key}`: {message}")]
pub struct ConfigError {
    pub origin: String,
    pub key: String,
    pub message: String,
}

/// A summary whose range would have to grow over a summary a person
/// wrote, or whose own authored text would have to stand in for turns it
/// was not written for. Summaries are never nested or split, so the range
/// would have to become `required`; with authored text on either side that
/// is the user's call, not an automatic repair (jp refuses it the same
/// way). Turn ranges are 0-based; they are said 1-based.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct SummaryOverlap {
    /// The turns asked for, 0-based inclusive.
    pub requested: (usize, usize),
    /// The turns a summary there would have to cover.
    pub required: (usize, usize),
    /// The summary being written is the authored one.
    pub new_is_authored: bool,
}

impl SummaryOverlap {
    fn describe(&self) -> String {
        let human = |(from, to): (usize, usize)| format!("{}..{}", from + 1, to.saturating_add(1));
        let (asked, needs) = (human(self.requested), human(self.required));
        let why = if self.new_is_authored {
            format!(
                "your text for turns {asked} would have to stand in for turns {needs} as well: \
                 a summary cannot be nested inside or split across another one"
            )
        } else {
            format!(
                "summarising turns {asked} would have to grow to turns {needs}, replacing a \
                 summary written by hand with a generated one"
            )
        };
        format!(
            "summary overlap: {why}. The range that fits is {needs} (`s:{needs}`); or remove \
             the summary it touches first (`reset --index N`)"
        )
    }
}

/// Why a plan of manual compactions could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Summarize(#[from] SummarizeError),
    #[error(transparent)]
    Overlap(#[from] SummaryOverlap),
}

/// Why a summary could not be made; nothing is written then.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("summarizer `{summarizer}`: {message}")]
pub struct SummarizeError {
    pub summarizer: String,
    pub message: String,
}

fn holder(pid: Option<u32>) -> String {
    match pid {
        Some(pid) => format!(" (pid {pid})"),
        None => String::new(),
    }
}

/// "no jp workspace here" in one wording, for a workspace found by walking
/// up from the current directory (`None`) or given with `--workspace`.
pub fn no_workspace(given: Option<&std::path::Path>) -> String {
    match given {
        None => {
            "no jp workspace here: no .jp/ in this directory or above; use --workspace DIR".into()
        }
        Some(dir) if !dir.exists() => format!(
            "no jp workspace at {}: no such directory (--workspace takes the folder holding .jp/, or .jp/ itself)",
            dir.display()
        ),
        Some(dir) => format!(
            "no jp workspace at {}: it holds no .jp/ (--workspace takes the folder holding .jp/, or .jp/ itself)",
            dir.display()
        ),
    }
}

fn bullets(items: &[String]) -> String {
    items.iter().map(|c| format!("\n  {c}")).collect()
}

fn list_candidates(candidates: &[String], searched: &[PathBuf]) -> String {
    let mut out = String::new();
    // Only a lookup without a workspace searches nowhere.
    if searched.is_empty() {
        out.push_str(&format!("\n({})", no_workspace(None)));
        return out;
    }
    out.push_str("; searched:");
    for s in searched {
        out.push_str(&format!("\n  {}", s.display()));
    }
    if candidates.is_empty() {
        out.push_str("\n(no conversations found there)");
    } else {
        out.push_str("\nconversations there:");
        out.push_str(&bullets(candidates));
    }
    out
}

impl Error {
    /// Whether the person asked for something that can't be (a bad rule, a
    /// compaction that isn't there), as opposed to a failure: shells map it
    /// to a usage error.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Error::NoSuchCompaction { .. } | Error::Rule(_) | Error::NoWorkspace { .. }
        )
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            cause: source,
        }
    }

    pub fn invalid(path: impl Into<PathBuf>, message: impl Into<String>) -> Error {
        Error::Invalid {
            path: path.into(),
            message: message.into(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Something wrong that does not stop the conversation from opening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub path: PathBuf,
    pub place: Option<Place>,
    pub event: Option<usize>,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(place) = self.place {
            write!(f, ":{place}")?;
        }
        if let Some(event) = self.event {
            write!(f, ": event {event}")?;
        }
        write!(f, ": {}", self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_counts_lines_and_chars() {
        let text = "[\n  {\"é\": 1}\n]";
        assert_eq!(Place::of_offset(text, 0), Place { line: 1, column: 1 });
        assert_eq!(Place::of_offset(text, 4), Place { line: 2, column: 3 });
        // After the two-byte 'é' the column advances by one character.
        let after = text.find(':').unwrap();
        assert_eq!(Place::of_offset(text, after).column, 7);
    }

    #[test]
    fn an_os_error_is_said_once_even_through_a_chain_printer() {
        let e = Error::io(
            "/x/events.json",
            std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        );
        let shown = format!("{:#}", anyhow::Error::from(e));
        assert_eq!(shown.matches("permission denied").count(), 1, "{shown}");
        assert!(shown.starts_with("/x/events.json: "), "{shown}");
    }
}
