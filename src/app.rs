//! The one dispatcher: parses the command line, then runs a headless
//! command or opens the inspector, and turns the outcome into an exit code.

use crate::cli::{self, Cli, Context, UsageError};
use crate::core::auto::{AutoConfig, Mode};
use crate::core::compact::rule::RuleError;
use crate::core::error::Error;
use clap::Parser;

/// Exit codes: 0 ok, 1 error, 2 usage.
pub const EXIT_OK: i32 = 0;
pub const EXIT_ERROR: i32 = 1;
pub const EXIT_USAGE: i32 = 2;

/// Runs the program and returns the process exit code.
pub fn main() -> i32 {
    let args = match Cli::try_parse() {
        Ok(args) => args,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
        }
    };
    match run(args) {
        Ok(()) => EXIT_OK,
        // `jp-inspect show --json | head`: the reader has what it wanted.
        Err(e) if is_broken_pipe(&e) => EXIT_OK,
        Err(e) => {
            eprintln!("jp-inspect: {e:#}");
            exit_code(&e)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(BrokenPipe))
    })
}

fn exit_code(e: &anyhow::Error) -> i32 {
    let usage = e.downcast_ref::<UsageError>().is_some()
        || e.downcast_ref::<RuleError>().is_some()
        || e.downcast_ref::<Error>().is_some_and(Error::is_usage);
    if usage { EXIT_USAGE } else { EXIT_ERROR }
}

fn run(args: Cli) -> anyhow::Result<()> {
    let ctx = Context {
        workspace: args.workspace.clone(),
        active: args.active,
    };
    if let Some(command) = args.command {
        return cli::run(&ctx, command);
    }
    // Held until the end so the temporary copy outlives its use.
    let demo = if args.demo {
        Some(crate::demo::materialize()?)
    } else {
        None
    };
    let dir = match (&demo, &args.conv) {
        (Some(demo), _) => demo.conversation_dir.clone(),
        (None, Some(conv)) => ctx.resolve(Some(conv))?,
        (None, None) if args.active => ctx.resolve(None)?,
        (None, None) => {
            return Err(UsageError(
                "give a conversation (id, path or title fragment), --active, --demo, or a command; see --help"
                    .into(),
            )
            .into());
        }
    };
    // A bad --config file is an error before the screen opens; the
    // conversation's own table is read with the conversation.
    if let Some(f) = &args.config {
        AutoConfig::default().apply_file(f)?;
    }
    crate::tui::run(crate::tui::Options {
        dir,
        config_file: args.config.clone(),
        mode: args.mode.as_deref().and_then(Mode::parse),
        window: args.window,
        follow: args.follow,
    })
}
