//! The headless command line: the same operations as the inspector, for
//! scripts and tests, each with `--json`.

mod args;
mod auto;
mod compact;
mod list;
mod output;
mod reset;
mod show;
mod simulate;
mod stats;

pub use args::{Cli, Command};

use crate::core::error::Error;
use crate::core::store::workspace::Workspace;
use crate::core::{Conversation, store::load, store::resolve};
use clap::Parser;
use std::path::PathBuf;

/// Exit codes: 0 ok, 1 error, 2 usage.
pub const EXIT_OK: i32 = 0;
pub const EXIT_ERROR: i32 = 1;
pub const EXIT_USAGE: i32 = 2;

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
        }
    };
    match run(cli) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("jp-inspect: {e:#}");
            match e.downcast_ref::<Error>() {
                Some(Error::Usage(_)) => EXIT_USAGE,
                _ if e
                    .downcast_ref::<crate::core::compact::rule::RuleError>()
                    .is_some() =>
                {
                    EXIT_USAGE
                }
                _ => EXIT_ERROR,
            }
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let ctx = Context {
        workspace: cli.workspace.clone(),
    };
    match cli.command {
        Some(Command::Show(a)) => show::run(&ctx, a),
        Some(Command::List(a)) => list::run(&ctx, a),
        Some(Command::Stats(a)) => stats::run(&ctx, a),
        Some(Command::Compact(a)) => compact::run(&ctx, a),
        Some(Command::Reset(a)) => reset::run(&ctx, a),
        Some(Command::Auto(a)) => auto::run(&ctx, a),
        Some(Command::Simulate(a)) => simulate::run(&ctx, a),
        None => {
            // Held until the end so the temporary copy outlives its use.
            let demo = if cli.demo {
                Some(crate::demo::materialize()?)
            } else {
                None
            };
            let dir = if let Some(demo) = &demo {
                demo.conversation_dir.clone()
            } else {
                match &cli.conv {
                    Some(conv) => ctx.resolve(conv)?,
                    None => {
                        return Err(Error::Usage(
                            "give a conversation (id, path or title fragment), --demo, or a command; see --help"
                                .into(),
                        )
                        .into());
                    }
                }
            };
            // A bad --config file is an error before the screen opens; the
            // conversation's own table is read with the conversation.
            if let Some(f) = &cli.config {
                crate::core::auto::AutoConfig::default().apply_file(f)?;
            }
            crate::tui::run(crate::tui::Options {
                dir,
                config_file: cli.config.clone(),
                mode: cli.mode.as_deref().and_then(crate::core::auto::Mode::parse),
                window: cli.window,
                follow: cli.follow,
            })
        }
    }
}

/// What every command shares: where to look for conversations.
pub struct Context {
    pub workspace: Option<PathBuf>,
}

impl Context {
    pub fn workspace(&self) -> Option<Workspace> {
        match &self.workspace {
            Some(root) => Some(Workspace::at(root)),
            None => Workspace::find(&std::env::current_dir().ok()?),
        }
    }

    pub fn resolve(&self, query: &str) -> crate::core::Result<PathBuf> {
        resolve::resolve(query, self.workspace().as_ref())
    }

    pub fn load(&self, query: &str) -> crate::core::Result<Conversation> {
        load::load(&self.resolve(query)?)
    }
}
