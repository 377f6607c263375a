//! The headless command line: the same operations as the inspector, for
//! scripts and tests, each with `--json`.

mod arg_values;
mod args;
mod auto;
mod change_args;
mod compact;
pub mod complete;
mod count;
mod history;
mod knows;
mod list;
mod lost;
mod man;
mod models;
pub(crate) mod output;
mod policy;
mod report;
mod reprint;
mod request;
mod reset;
pub mod shell;
mod show;
mod show_json;
mod simulate;
mod stats;
pub mod suggest;
mod tools;
mod watch;
mod watch_scope;

pub use args::{Cli, Command, FOUND_FROM_HERE};
/// The `show --json` writers, for the benchmarks.
pub use show::{ProjectionShown, write_projected_json, write_raw_json};

use crate::core::model::conversation::Conversation;
use crate::core::ops::Workspace;
use crate::core::ops::reach::{Which, check};
use std::path::PathBuf;

/// A command used wrongly (exit code 2), as opposed to a failure.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Runs one headless command.
pub fn run(ctx: &Context, command: Command) -> anyhow::Result<()> {
    match command {
        Command::Show(a) => show::run(ctx, a),
        Command::List(a) => list::run(ctx, a),
        Command::Stats(a) => stats::run(ctx, a),
        Command::Lost(a) => lost::run(ctx, a),
        Command::Compact(a) => compact::run(ctx, a),
        Command::Reset(a) => reset::run(ctx, a),
        Command::Auto(a) => auto::run(ctx, a),
        Command::Simulate(a) => simulate::run(ctx, a),
        Command::Watch(a) => watch::run(ctx, a),
        Command::History(a) => history::run(ctx, a),
        Command::Models(a) => models::run(a),
        Command::Count(a) => count::run(ctx, a),
        Command::Request(a) => request::run(ctx, a),
        Command::Tools(a) => tools::run(ctx, a),
        Command::Report(a) => report::run(ctx, a),
        Command::Completions { shell } => {
            // The script asks jp-inspect at each Tab, so CONV completes to
            // the workspace's conversations.
            let script = shell::registration(shell)?;
            std::io::Write::write_all(&mut std::io::stdout(), &script)?;
            Ok(())
        }
        Command::Man { dir } => man::run(dir),
    }
}

/// What every command shares: where to look for conversations.
pub struct Context {
    /// `--workspace`: a root or its `.jp` folder.
    pub workspace: Option<PathBuf>,
    /// `--active`: a missing CONV is the most recently active conversation.
    pub active: bool,
    /// `--demo`: the copy of the demo conversation a missing CONV stands for.
    pub demo: Option<PathBuf>,
    /// `--allow-linked-storage`: write through a `.jp` that links out of
    /// its workspace.
    pub allow_linked: bool,
    /// What jp handed over, under `jp inspect`: read in place of its
    /// config files by every request that reads configuration.
    pub jp: Option<crate::core::model::config::JpResolved>,
}

impl Context {
    /// The workspace given with `--workspace` (an error if it isn't one),
    /// else the one found from the current directory, if any.
    pub fn workspace(&self) -> crate::core::error::Result<Option<Workspace>> {
        match &self.workspace {
            Some(given) => Workspace::given(given).map(Some),
            None => Ok(std::env::current_dir()
                .ok()
                .and_then(|d| Workspace::find(&d))),
        }
    }

    /// The workspace, for the commands that work on all of it.
    pub fn require_workspace(&self) -> crate::core::error::Result<Workspace> {
        self.workspace()?
            .ok_or(crate::core::error::Error::NoWorkspace { given: None })
    }

    /// The conversation named by CONV, else the demo's copy with `--demo`,
    /// else with `--active` the most recently active one.
    pub fn resolve(&self, query: Option<&str>) -> crate::core::error::Result<PathBuf> {
        self.which(query).dir(self.workspace()?.as_ref())
    }

    fn which<'a>(&'a self, query: Option<&'a str>) -> Which<'a> {
        match (query, &self.demo) {
            (Some(q), _) => Which::Typed(q),
            (None, Some(demo)) if !self.active => Which::Demo(demo),
            (None, _) => Which::Active,
        }
    }

    /// The conversations a command taking several is named: CONV... and,
    /// with `--active`, the most recently active one.
    pub fn named<'a>(&self, convs: &'a [String]) -> Vec<Option<&'a str>> {
        let mut named: Vec<Option<&str>> = convs.iter().map(|c| Some(c.as_str())).collect();
        if self.active {
            named.push(None);
        }
        named
    }

    /// The opening every command that writes shares: [`Context::resolve`],
    /// and unless it is a dry run, a conversation found through a `.jp`
    /// that links out of the workspace refused
    /// ([`crate::core::ops::reach`]) unless its path was typed or the
    /// person allowed it.
    pub fn to_write(
        &self,
        query: Option<&str>,
        dry_run: bool,
    ) -> crate::core::error::Result<PathBuf> {
        let dir = self.resolve(query)?;
        if !dry_run {
            self.check_reach(query)?;
        }
        Ok(dir)
    }

    /// Refuses writing where `query` (None: --active, --demo, every
    /// conversation) is found through a `.jp` linked out of the workspace.
    pub fn check_reach(&self, query: Option<&str>) -> crate::core::error::Result<()> {
        // Every conversation of the workspace (`watch` naming none) is
        // found as `--active` is: through the workspace.
        let named = self.which(query).named();
        check(self.workspace()?.as_ref(), named, self.allow_linked)
    }

    /// The opening every command that reads shares: the conversation
    /// `query` names with its configuration (`--config` over jp's
    /// files), its warnings and the configuration's notices said on the
    /// way, and a `--window` too small for what every request carries
    /// refused as a usage error.
    pub fn to_read(
        &self,
        query: Option<&str>,
        config_file: Option<&std::path::Path>,
        window: Option<u64>,
    ) -> anyhow::Result<(Conversation, crate::core::ops::AutoConfig)> {
        let (conv, config) =
            crate::core::ops::open(&self.resolve(query)?, config_file, self.jp.as_ref())?;
        output::print_warnings(&conv);
        let config = config?;
        output::print_notices(&config);
        if window.is_some()
            && let Some(why) = crate::core::ops::budget(&conv, &config, window).window_too_small()
        {
            return Err(UsageError(format!("--window: {why}")).into());
        }
        Ok((conv, config))
    }

    /// The conversation `query` names, read whole.
    pub fn load(&self, query: Option<&str>) -> crate::core::error::Result<Conversation> {
        crate::core::ops::read::whole(&self.resolve(query)?)
    }
}
