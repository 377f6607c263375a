//! Automatic compaction: RFD D50's trigger and the staged policy
//! (auto.md), and the simulation that replays conversations under them.

pub mod config;
pub mod decision;
pub mod history;
mod layer;
mod layering;
mod rerun;
pub mod run;
mod sends;
pub mod simulate;
pub mod stream;
pub mod sweep;
pub mod trigger;

pub use config::{AutoConfig, Estimate, Mode};
pub use decision::{ActionKind, Decision, Note};
pub use stream::ConversationStream;
pub use trigger::Stream;

use crate::core::compact::budget::Budget;
use crate::core::compact::projection::Overlay;
use crate::core::model::config::{ConfigTree, JpResolved};
use crate::core::model::conversation::Conversation;
use crate::core::model::timestamp::Timestamp;
use crate::core::store::jp_config::{self, Trust};
use crate::core::summarize::{self, Summarizer};
use std::path::Path;

/// The compaction configuration for `conv`, lowest precedence first:
/// built-in defaults; jp's config files (user-global, the workspace's and
/// what it extends, the user-workspace one); the conversation's own merged
/// config; then `file` if given. Workspace and conversation configs may
/// only choose a summarizer the user's own config defined (`notices` says
/// what was ignored).
pub fn config_for(
    conv: &Conversation,
    file: Option<&Path>,
    jp: Option<&JpResolved>,
) -> crate::core::error::Result<AutoConfig> {
    config_from(conv, jp_config::files_for(&conv.dir, jp)?, file, jp)
}

/// [`config_for`] with jp's config files already read (`files_for` of the
/// conversation's folder).
pub fn config_from(
    conv: &Conversation,
    files: Vec<jp_config::ConfigFile>,
    file: Option<&Path>,
    jp: Option<&JpResolved>,
) -> crate::core::error::Result<AutoConfig> {
    let mut c = AutoConfig::default();
    for f in files {
        c.apply_jp_file(&f.doc, &f.path.display().to_string(), f.trust)?;
    }
    // jp layers a conversation's config over the files as a resolved
    // config whose lists all say `replace` (its `to_partial`), so its
    // rules replace the files' rather than adding to them.
    let mut merged = conv.merged_config().clone();
    if let Some(rules) = merged.pointer_mut("/conversation/compaction/rules")
        && rules.is_array()
    {
        *rules = serde_json::json!({"value": rules.take(), "strategy": "replace"});
    }
    let merged = &merged;
    let origin = format!(
        "{} (base config and config deltas of {})",
        conv.dir.display(),
        conv.display_id()
    );
    c.apply_source(merged, &origin, Trust::Shared)?;
    if let Some(f) = file {
        c.apply_file(f)?;
    }
    c.expand_tool_hints(merged);
    c.notices.extend(differences_from_jp(&conv.dir, jp));
    Ok(c)
}

/// Under `jp inspect`: where jp's resolved configuration and jp-inspect's
/// own reading of the config files for `dir` disagree (compaction
/// settings, model, tools, system prompt), one notice saying what and that
/// jp's is used; none when they agree or jp handed nothing over.
pub fn differences_from_jp(dir: &Path, jp: Option<&JpResolved>) -> Vec<String> {
    let Some(jp) = jp else {
        return Vec::new();
    };
    once_per_tree(&jp.said, dir, |dir| compare_with_jp(dir, jp))
}

/// What `compare` says of `dir`'s config tree, asked once per tree: the
/// files a conversation reads are its workspace's and silo's, and a large
/// tree would be parsed whole for each conversation.
fn once_per_tree(
    said: &std::sync::Mutex<std::collections::HashMap<ConfigTree, Vec<String>>>,
    dir: &Path,
    compare: impl FnOnce(&Path) -> Vec<String>,
) -> Vec<String> {
    let tree = jp_config::storage_of(dir);
    if let Some(known) = said.lock().ok().and_then(|m| m.get(&tree).cloned()) {
        return known;
    }
    let found = compare(dir);
    if let Ok(mut m) = said.lock() {
        m.insert(tree, found.clone());
    }
    found
}

fn compare_with_jp(dir: &Path, jp: &JpResolved) -> Vec<String> {
    use crate::core::store::host::TreeFacts;
    let settings =
        |files: crate::core::error::Result<Vec<jp_config::ConfigFile>>| -> crate::core::error::Result<AutoConfig> {
            let mut c = AutoConfig::default();
            for f in files? {
                c.apply_jp_file(&f.doc, &f.path.display().to_string(), f.trust)?;
            }
            Ok(c)
        };
    let cache = crate::core::store::parse_cache::ParseCache::open();
    let ours = settings(jp_config::own_files_for(dir, &cache));
    let theirs = settings(jp_config::files_for_with(dir, &cache, Some(jp)));
    let mut said = match (ours, theirs) {
        (Ok(ours), Ok(theirs)) => ours.differences(&theirs),
        (Err(e), Ok(_)) => vec![format!("jp-inspect could not read the files itself: {e}")],
        _ => Vec::new(),
    };
    if let Ok(files) = jp_config::whole_files_for(dir) {
        let mut merged = serde_json::Value::Object(Default::default());
        for f in &files {
            crate::core::model::config::merge(&mut merged, &f.doc);
        }
        crate::core::model::config::resolve(&mut merged);
        said.extend(TreeFacts::of(&merged).differences(&TreeFacts::of(&jp.config)));
    }
    if said.is_empty() {
        return said;
    }
    vec![format!(
        "jp's resolved configuration and jp-inspect's reading of the config files differ \
         ({}); jp's reading is used in place of the files",
        said.join("; ")
    )]
}

/// Evaluates the trigger on `conv` seen with `overlays` and writes the
/// summaries it asks for: what `auto` and the inspector's `auto` preview do.
pub fn evaluate_now(
    conv: &Conversation,
    overlays: Vec<Overlay>,
    budget: &Budget,
    config: &AutoConfig,
    summarizer: &dyn Summarizer,
    now: Timestamp,
) -> Result<Decision, crate::core::error::SummarizeError> {
    let stream = ConversationStream::new(conv, overlays, budget.overhead_chars());
    let decision = trigger::evaluate(&stream, budget.usable(), config, now);
    let texts = write_summaries(conv, &decision, config, summarizer)?
        .into_iter()
        .map(|s| s.text)
        .collect();
    Ok(trigger::settle(
        &stream,
        decision,
        texts,
        summarizer.name(),
        config,
    ))
}

/// The summaries `decision` asks for, in order, each from the raw events of
/// its action's range.
pub fn write_summaries(
    conv: &Conversation,
    decision: &Decision,
    config: &AutoConfig,
    summarizer: &dyn Summarizer,
) -> Result<Vec<summarize::Summary>, crate::core::error::SummarizeError> {
    decision
        .actions
        .iter()
        .filter(|a| a.needs_summary())
        .map(|a| {
            summarizer.summarize(&summarize::Request {
                conversation: conv,
                range: a.range(),
                instructions: config.instructions(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::once_per_tree;
    use std::cell::Cell;

    /// jp's configuration is compared once per config tree, whatever the
    /// number of conversations read from it.
    #[test]
    fn jps_configuration_is_compared_once_per_tree() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = |ws: &str, c: &str| {
            let d = tmp.path().join(ws).join(".jp/conversations").join(c);
            std::fs::create_dir_all(&d).unwrap();
            d
        };
        let asked = Cell::new(0);
        let said = std::sync::Mutex::default();
        let compare = |_: &std::path::Path| {
            asked.set(asked.get() + 1);
            vec![format!("said {}", asked.get())]
        };
        for c in ["17000000001", "17000000002", "17000000003"] {
            assert_eq!(once_per_tree(&said, &dir("a", c), compare), ["said 1"]);
        }
        assert_eq!(
            once_per_tree(&said, &dir("b", "17000000001"), compare),
            ["said 2"]
        );
        assert_eq!(asked.get(), 2);
    }
}
