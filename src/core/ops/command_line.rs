//! The command lines that make what a preview in the inspector asked for:
//! jp-inspect's own, and jp's where jp can say the same, so what was tried
//! on screen can be scripted.

use crate::core::compact::rule::Rule;
use crate::core::model::compaction::ToolCalls;

/// jp-inspect's command line, and jp's own where it expresses the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLines {
    pub ours: String,
    pub jps: Option<String>,
}

impl CommandLines {
    /// What goes to the clipboard: ours, then jp's as a comment a shell
    /// skips, so pasting runs one command.
    pub fn clipboard(&self) -> String {
        match &self.jps {
            Some(jp) => format!("{}\n# or with jp itself: {jp}", self.ours),
            None => self.ours.clone(),
        }
    }
}

/// `words` as one shell command line, each quoted where it must be.
fn shell(words: &[&str]) -> String {
    // A word with a NUL can't be passed to a program: said in place.
    shlex::try_join(words.iter().copied()).unwrap_or_else(|_| words.join(" "))
}

/// The rule `spec` (parsed as `rule`) on conversation `id`.
pub fn of_rule(id: &str, spec: &str, rule: &Rule) -> CommandLines {
    let mut ours = vec!["jp-inspect", "compact", id, spec];
    if let Some(text) = &rule.text {
        ours.extend(["--summary", text.as_str()]);
    }
    // jp's DSL has no size bound and no authored text.
    let bounded = rule.reasoning_over.is_some()
        || matches!(
            rule.tools,
            Some(ToolCalls::Strip { over: Some(_), .. } | ToolCalls::Omit { over: Some(_) })
        );
    let jps = (!bounded && rule.text.is_none()).then(|| {
        let flag = format!("--compact={spec}");
        shell(&["jp", "conversation", "compact", id, &flag])
    });
    CommandLines {
        ours: shell(&ours),
        jps,
    }
}

/// What automatic compaction would append now, on conversation `id`: jp
/// has no automatic compaction to ask for.
pub fn of_auto(id: &str) -> CommandLines {
    CommandLines {
        ours: shell(&["jp-inspect", "auto", id]),
        jps: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_is_quoted_and_jp_gets_it_where_it_can() {
        let rule: Rule = "s:2..5".parse().unwrap();
        let c = of_rule("jp-c1", "s:2..5", &rule);
        assert_eq!(c.ours, "jp-inspect compact jp-c1 s:2..5");
        assert_eq!(
            c.jps.as_deref(),
            Some("jp conversation compact jp-c1 '--compact=s:2..5'")
        );
        let bounded: Rule = "t,over=1KB:..-3".parse().unwrap();
        let c = of_rule("jp-c1", "t,over=1KB:..-3", &bounded);
        assert_eq!(c.jps, None);
        let mut authored: Rule = "s:2..5".parse().unwrap();
        authored.text = Some("It's fixed; see `parse_or`.".into());
        let c = of_rule("jp-c1", "s:2..5", &authored);
        // A shell reads back the words as given, quotes and backticks too.
        assert_eq!(
            shlex::split(&c.ours).unwrap(),
            [
                "jp-inspect",
                "compact",
                "jp-c1",
                "s:2..5",
                "--summary",
                "It's fixed; see `parse_or`."
            ]
        );
        assert_eq!(c.jps, None);
        assert_eq!(of_auto("jp-c1").clipboard(), "jp-inspect auto jp-c1");
    }
}
