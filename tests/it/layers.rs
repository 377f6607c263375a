//! The core reads top to bottom: each folder imports only from the folders
//! below it (README, "Architecture"), and no files of one folder import
//! each other in a circle. Read off the source, so a new `use` that points
//! back up fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The core's layers, lowest first; a folder may use its own layer and the
/// ones before it.
const LAYERS: [&[&str]; 9] = [
    &["error", "fmt", "visible", "parallel", "redact", "cut"],
    &["model", "search"],
    &["store"],
    &["compact"],
    &["facts"],
    &["providers", "cost"],
    &["summarize"],
    &["auto"],
    &["ops"],
];

fn rank(name: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&name))
}

/// The product's sources under `dir`: `src/core/tests`, the core's tests
/// against real parts, is test code like `tests/`, not a layer.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() && p.file_name().is_some_and(|n| n == "tests") {
            continue;
        }
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without its comments (`//` to the end of a line is
/// enough here: no path in a string literal spans `crate::core::`).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a file names after `prefix` (`crate::core::` or `super::`),
/// with `{a, b::c}` groups expanded, as segment lists.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let head: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let segs: Vec<String> = head
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        if (head.is_empty() || head.ends_with("::")) && rest[head.len()..].starts_with('{') {
            let group = &rest[head.len() + 1..];
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                let item = item.trim().split(' ').next().unwrap_or("");
                let mut p = segs.clone();
                p.extend(
                    item.split("::")
                        .filter(|s| !s.is_empty() && *s != "self" && !s.starts_with('{'))
                        .map(String::from),
                );
                out.push(p);
            }
        } else {
            out.push(segs);
        }
    }
    out
}

struct Core {
    root: PathBuf,
    files: Vec<PathBuf>,
    /// How the code names this tree from the crate root (`crate::core::`).
    prefix: String,
}

impl Core {
    fn read() -> Core {
        Core::of("core")
    }

    /// The tree `src/<name>` (the core, or a shell).
    fn of(name: &str) -> Core {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(name);
        let mut files = Vec::new();
        sources(&root, &mut files);
        files.sort();
        Core {
            root,
            files,
            prefix: format!("crate::{name}::"),
        }
    }

    /// `model`, `compact`…, or `error` for `error.rs` at the top.
    fn folder(&self, file: &Path) -> String {
        let rel = file.strip_prefix(&self.root).unwrap();
        let first = rel.components().next().unwrap().as_os_str();
        first.to_string_lossy().trim_end_matches(".rs").to_string()
    }

    /// The module path of a file under `src/core` (`["compact", "plan"]`).
    fn module(&self, file: &Path) -> Vec<String> {
        let rel = file.strip_prefix(&self.root).unwrap().with_extension("");
        let mut m: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if m.last().is_some_and(|l| l == "mod") {
            m.pop();
        }
        m
    }

    /// The file of the longest module prefix of `path`, if it is one.
    fn file_of(&self, path: &[String]) -> Option<&PathBuf> {
        (1..=path.len())
            .rev()
            .find_map(|k| self.files.iter().find(|f| self.module(f) == path[..k]))
    }

    /// Every file `file` imports from the core, by module path.
    fn imports(&self, file: &Path) -> BTreeSet<PathBuf> {
        let text = code(&fs::read_to_string(file).unwrap());
        let me = self.module(file);
        let is_mod = file.file_name().is_some_and(|n| n == "mod.rs");
        let mut out = BTreeSet::new();
        for p in paths_after(&text, &self.prefix) {
            if let Some(f) = self.file_of(&p) {
                out.insert(f.clone());
            }
        }
        for p in paths_after(&text, "super::") {
            let mut base = me.clone();
            if !is_mod || !base.is_empty() {
                base.pop();
            }
            base.extend(p);
            if let Some(f) = self.file_of(&base) {
                out.insert(f.clone());
            }
        }
        out.remove(file);
        out
    }
}

#[test]
fn no_folder_of_the_core_imports_from_a_layer_above_it() {
    let core = Core::read();
    let mut wrong = Vec::new();
    for f in &core.files {
        let Some(mine) = rank(&core.folder(f)) else {
            continue;
        };
        for used in core.imports(f) {
            let theirs = core.folder(&used);
            if rank(&theirs).is_some_and(|r| r > mine) {
                wrong.push(format!(
                    "{} uses {}",
                    f.strip_prefix(&core.root).unwrap().display(),
                    used.strip_prefix(&core.root).unwrap().display()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "arrows back up:\n{}", wrong.join("\n"));
    // Every folder is placed: a new one must be given its layer.
    for f in &core.files {
        let folder = core.folder(f);
        assert!(
            folder == "mod" || rank(&folder).is_some(),
            "src/core/{folder} has no layer in tests/it/layers.rs"
        );
    }
}

#[test]
fn no_files_of_one_folder_import_each_other_in_a_circle() {
    for tree in ["core", "cli", "tui"] {
        no_circle_in(&Core::of(tree));
    }
}

fn no_circle_in(core: &Core) {
    let mut graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for f in &core.files {
        let dir = f.parent().unwrap();
        let same: BTreeSet<PathBuf> = core
            .imports(f)
            .into_iter()
            .filter(|u| u.parent() == Some(dir))
            .collect();
        graph.insert(f.clone(), same);
    }
    // Depth-first; a node met again while still open closes a circle.
    fn visit(
        n: &PathBuf,
        g: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        open: &mut Vec<PathBuf>,
        done: &mut BTreeSet<PathBuf>,
    ) -> Option<Vec<PathBuf>> {
        if let Some(i) = open.iter().position(|o| o == n) {
            return Some(open[i..].to_vec());
        }
        if done.contains(n) {
            return None;
        }
        open.push(n.clone());
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, g, open, done) {
                return Some(c);
            }
        }
        open.pop();
        done.insert(n.clone());
        None
    }
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        if let Some(circle) = visit(n, &graph, &mut Vec::new(), &mut done) {
            let names: Vec<String> = circle
                .iter()
                .map(|p| p.strip_prefix(&core.root).unwrap().display().to_string())
                .collect();
            panic!("a circle: {}", names.join(" -> "));
        }
    }
}

/// The check itself can fail: an upward path is found where one is written.
#[test]
fn the_reader_finds_grouped_and_relative_paths() {
    let paths = paths_after(
        "use crate::core::{auto::AutoConfig, model::{self}};\nlet x = crate::core::ops::budget(c);",
        "crate::core::",
    );
    assert!(paths.contains(&vec!["auto".to_string(), "AutoConfig".to_string()]));
    assert!(paths.contains(&vec!["ops".to_string(), "budget".to_string()]));
    assert!(
        paths
            .iter()
            .any(|p| p.first().is_some_and(|s| s == "model"))
    );
    assert_eq!(rank("ops"), Some(8));
    assert!(rank("compact") < rank("summarize"));
}

/// No Linux-only call outside a `cfg(target_os = "linux")` item: the
/// plugin is installed with `cargo install` on macOS too. A call counts as
/// guarded when the attribute stands above it in the function that holds
/// it, or on that function.
#[test]
fn linux_only_calls_are_behind_cfg_linux() {
    const LINUX_ONLY: [&str; 7] = [
        "prctl", "PR_SET_", "/proc/", "O_PATH", "inotify", "epoll", "MADV_",
    ];
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches", "examples"] {
        sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join(dir), &mut files);
    }
    let mut unguarded = Vec::new();
    for f in files {
        if f.ends_with("tests/it/layers.rs") {
            continue;
        }
        let text = fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (k, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            // A string that only names a path (a test of hostile paths)
            // is no call.
            if !LINUX_ONLY.iter().any(|m| code.contains(m))
                || code.contains("[\"/proc/self/environ\"")
            {
                continue;
            }
            let linux = |l: &&str| l.contains("cfg(target_os = \"linux\")");
            let is_fn = |l: &str| {
                let t = l.trim_start();
                ["fn ", "pub fn ", "pub(crate) fn ", "pub(super) fn "]
                    .iter()
                    .any(|p| t.starts_with(p))
            };
            let start = (0..k).rev().find(|&i| is_fn(lines[i])).unwrap_or(0);
            let guarded = lines[start.saturating_sub(4)..k].iter().any(linux);
            if !guarded {
                unguarded.push(format!("{}:{}: {}", f.display(), k + 1, line.trim()));
            }
        }
    }
    assert!(
        unguarded.is_empty(),
        "Linux-only, unguarded:\n{}",
        unguarded.join("\n")
    );
}

/// The shells: the CLI never imports the inspector (the man page reads the
/// key map from `crate::keymap`), and only `ops::boundary` asks whether jp
/// is mid-query, for both.
#[test]
fn the_cli_never_imports_the_inspector_and_boundaries_are_watched_in_one_place() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut cli = Vec::new();
    sources(&root.join("cli"), &mut cli);
    for f in &cli {
        let text = code(&fs::read_to_string(f).unwrap());
        assert!(
            !text.contains("crate::tui") && !text.contains("tui::"),
            "{} imports the inspector",
            f.display()
        );
    }
    let mut shells = Vec::new();
    for dir in ["cli", "tui", "plugin"] {
        sources(&root.join(dir), &mut shells);
    }
    shells.push(root.join("app.rs"));
    for f in &shells {
        let text = code(&fs::read_to_string(f).unwrap());
        assert!(
            !text.contains("jp_holds"),
            "{} watches turn boundaries itself: ask ops::boundary",
            f.display()
        );
    }
}

/// Small files, one concern each: no file over 550 lines before its tests;
/// and no function of the shells (`src/cli`, `src/tui`, `src/plugin`,
/// `src/app.rs`) over 100 lines, where a handler of its own, named for what
/// it does, reads better than one more arm.
#[test]
fn files_and_shell_functions_stay_small() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut too_long = Vec::new();
    for f in &files {
        let text = fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let before_tests = lines
            .iter()
            .position(|l| *l == "#[cfg(test)]")
            .unwrap_or(lines.len());
        if before_tests > 550 {
            too_long.push(format!("{}: {before_tests} lines", f.display()));
        }
        let shell = ["cli", "tui", "plugin"]
            .iter()
            .any(|d| f.starts_with(root.join(d)))
            || f.ends_with("app.rs");
        if !shell {
            continue;
        }
        // A function ends at the first line that closes it at its indent.
        for (k, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            let is_fn = ["fn ", "pub fn ", "pub(crate) fn ", "pub(super) fn "]
                .iter()
                .any(|p| t.starts_with(p));
            if !is_fn || line.trim_end().ends_with(';') {
                continue;
            }
            let indent = &line[..line.len() - t.len()];
            let close = format!("{indent}}}");
            if let Some(end) = lines[k + 1..].iter().position(|l| *l == close)
                && end + 2 > 100
            {
                too_long.push(format!("{}:{}: {} lines", f.display(), k + 1, end + 2));
            }
        }
    }
    assert!(too_long.is_empty(), "too long:\n{}", too_long.join("\n"));
}

/// A plan reaches the disk one way: `ops::write` is the only caller of the
/// store's write outside the store itself (tests that play another writer
/// aside), so the withheld-summary refusal and the guard can't be skipped.
#[test]
fn only_ops_write_writes_a_conversation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut writers = Vec::new();
    for f in &files {
        if f.starts_with(root.join("core/store")) || f.ends_with("core/ops/write.rs") {
            continue;
        }
        let text = fs::read_to_string(f).unwrap();
        let before_tests = text.split("#[cfg(test)]").next().unwrap_or("");
        let code = code(before_tests);
        for call in ["save::apply(", "apply_guarded(", "save::apply_guarded("] {
            if code.contains(call) {
                writers.push(format!("{} calls {call}", f.display()));
            }
        }
    }
    assert!(
        writers.is_empty(),
        "write through ops::write:\n{}",
        writers.join("\n")
    );
}

/// The inspector calls into the plugin (to hand the terminal to jp's job
/// on Ctrl-Z), so the plugin never calls back into the inspector: what
/// both need of the terminal lives below them (`terminal_reset`).
#[test]
fn the_plugin_never_imports_the_inspector() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut plugin = Vec::new();
    sources(&root.join("plugin"), &mut plugin);
    for f in &plugin {
        let text = code(&fs::read_to_string(f).unwrap());
        assert!(
            !text.contains("crate::tui") && !text.contains("tui::"),
            "{} imports the inspector",
            f.display()
        );
    }
}

/// One name for one thing: a file re-exports nothing; only a folder's
/// `mod.rs` (its façade) or the crate root offers a name from elsewhere.
#[test]
fn only_a_folders_facade_re_exports() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| !f.ends_with("mod.rs") && !f.ends_with("lib.rs"))
        .flat_map(|f| {
            let text = fs::read_to_string(f).unwrap();
            text.lines()
                .enumerate()
                .filter(|(_, l)| {
                    let l = l.trim_start();
                    l.starts_with("pub use ") || l.starts_with("pub(crate) use ")
                })
                .map(|(n, l)| format!("{}:{}: {}", f.display(), n + 1, l.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "re-exported outside a mod.rs:\n{}",
        offenders.join("\n")
    );
}

/// The wall the compiler keeps holds only while the core's layers stay
/// private: of its modules only `ops` and the data layers are public (and
/// the fuzz targets' door, behind a feature no build of the product
/// turns on). A new layer made `pub mod` reopens it; this says so.
#[test]
fn only_ops_and_the_data_layers_are_public() {
    let text =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/core/mod.rs")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let public: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter_map(|(k, l)| {
            let name = l.strip_prefix("pub mod ")?;
            let name = name.trim_end_matches([';', '{', ' ']);
            let gated = k > 0 && lines[k - 1].contains("feature = \"fuzzing\"");
            (!gated).then_some(name)
        })
        .collect();
    assert_eq!(public, ["error", "fmt", "model", "ops", "visible"]);
    let offers: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("pub use") || l.starts_with("pub(crate)"))
        .collect();
    assert!(
        offers.is_empty(),
        "the core's root offers nothing but its public layers: {offers:?}"
    );
}
