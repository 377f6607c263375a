//! The one dispatcher: parses the command line, then runs a headless
//! command or opens the inspector, and turns the outcome into an exit code.

use crate::cli::{self, Cli, Context, UsageError};
use crate::core::error::Error;
use crate::core::error::RuleError;
use crate::core::model::config::JpResolved;
use crate::core::ops::AutoConfig;
use clap::Parser;

/// Exit codes: 0 ok, 1 error, 2 usage.
pub const EXIT_OK: i32 = 0;
pub const EXIT_ERROR: i32 = 1;
pub const EXIT_USAGE: i32 = 2;

/// Runs the program and returns the process exit code.
pub fn main() -> i32 {
    crate::platform::init();
    // jp's plugin host asking (`jp -h`, `jp inspect …`) is answered before
    // anything looks at the terminal.
    if let Some(code) = crate::plugin::serve_if_asked() {
        return code;
    }
    // Run by that host's bridge: jp's workspace and configuration, which
    // each request that reads configuration is given.
    let _ = crate::plugin::host::adopt();
    // The shell asking for completions is answered before anything else.
    cli::shell::answer_the_shell();
    let args = match Cli::try_parse() {
        Ok(args) => args,
        Err(e) => {
            if e.use_stderr() {
                let argv: Vec<String> = std::env::args().collect();
                if let Some(hint) = cli::suggest::misspelt_command(&argv) {
                    cli::output::say_err(&format!("jp-inspect: {hint}"));
                    return EXIT_USAGE;
                }
            }
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
        }
    };
    match run(args) {
        Ok(()) => EXIT_OK,
        // `jp-inspect show --json | head`: the reader has what it wanted.
        Err(e) if is_broken_pipe(&e) => EXIT_OK,
        Err(e) => {
            cli::output::say_err(&format!("jp-inspect: {e:#}"));
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
    if args.command.is_some() {
        inspector_options_only(&args)?;
    }
    // Held until the end so the temporary copy outlives its use.
    let demo = if args.demo {
        Some(crate::demo::materialize()?)
    } else {
        None
    };
    if let (Some(d), Some(_)) = (&demo, &args.command) {
        cli::output::say_err(&format!(
            "jp-inspect: --demo: working on a temporary copy in {}; it is removed, with any \
             change, when jp-inspect ends",
            d.workspace.path().display()
        ));
    }
    let ctx = context(&args, demo.as_ref());
    if let Some(command) = args.command {
        return cli::run(&ctx, command);
    }
    let (mut dir, picker) = opened(&ctx, &args)?;
    // A bad --config file is an error before the screen opens; the
    // conversation's own table is read with the conversation.
    if let Some(f) = &args.config {
        AutoConfig::default().apply_file(f)?;
    }
    let mut notice = demo.as_ref().map(|d| {
        format!(
            "demo copy: {} (removed at exit)",
            d.workspace.path().display()
        )
    });
    // A replay plays the conversation into a copy of its own; the original
    // is only read.
    let mut replay = None;
    let mut replay_state = None;
    let replay_home = if args.replay {
        if picker.is_some() {
            anyhow::bail!("--replay needs a conversation: name one (or --demo)");
        }
        let (home, r) = replay_copy(&dir)?;
        notice = Some(format!(
            "replay copy: {} (removed at exit)",
            home.path().display()
        ));
        replay_state = Some(crate::tui::state::ReplayState {
            pace: crate::tui::msg::ReplayPace {
                paused: false,
                every: args.pace,
            },
            total: r.total(),
            done: false,
        });
        dir = r.dir.clone();
        replay = Some(r);
        Some(home)
    } else {
        None
    };
    let replay_dir = replay.as_ref().map(|r| r.dir.clone());
    let reach = reach(&ctx, &args, replay.is_some());
    let result = crate::tui::run(
        crate::tui::Options {
            dir,
            picker,
            config_file: args.config.clone(),
            jp: ctx.jp.clone(),
            mode: args.mode,
            window: args.window,
            follow: args.follow,
            notice,
            replay: replay_state,
            reach,
        },
        replay,
    );
    // Said once the screen is the shell's again, before the copy goes: a
    // replay is a demonstration, and what it wrote is its outcome.
    if let Some(dir) = replay_dir {
        say_what_the_replay_wrote(&dir);
    }
    drop(replay_home);
    result
}

/// A workspace's conversations listed for the picker: its root and the
/// quick listing.
type Picker = (std::path::PathBuf, Vec<crate::core::ops::catalog::Listing>);

/// The conversation the inspector opens: the one named, the demo's, the
/// active one, or none yet and the workspace's listed for the picker.
fn opened(ctx: &Context, args: &Cli) -> anyhow::Result<(std::path::PathBuf, Option<Picker>)> {
    Ok(match (&args.conv, args.demo || args.active) {
        (Some(conv), _) => (
            ctx.resolve(Some(conv)).map_err(|e| {
                // A bare word that finds nothing was most likely a command.
                let said = format!("{}; {e}", cli::suggest::not_a_command(conv));
                match (cli::suggest::is_word(conv), &e) {
                    // A near miss of a command is a usage error (2); any
                    // other word is a conversation not found (1), said
                    // with both.
                    (true, Error::NotFound { .. })
                        if cli::suggest::command_like(conv).is_some() =>
                    {
                        anyhow::Error::new(UsageError(said))
                    }
                    (true, Error::NotFound { .. }) => anyhow::anyhow!(said),
                    _ => e.into(),
                }
            })?,
            None,
        ),
        (None, true) => (ctx.resolve(None)?, None),
        // Nothing named: pick one of the workspace's conversations.
        (None, false) => {
            let Some(ws) = ctx.workspace()? else {
                anyhow::bail!(
                    "{}; or name a conversation (id, path or title fragment), or try --demo",
                    crate::core::error::no_workspace(None)
                );
            };
            let listed = crate::core::ops::catalog::quick(&ws);
            (std::path::PathBuf::new(), Some((ws.root.clone(), listed)))
        }
    })
}

/// The replay's private copy of the conversation in `dir`.
fn replay_copy(
    dir: &std::path::Path,
) -> anyhow::Result<(tempfile::TempDir, crate::core::ops::replay::Replay)> {
    let source = crate::core::ops::read::whole(dir)?;
    // The conversation's text: for no other user to read.
    let home = tempfile::Builder::new()
        .prefix("jp-inspect-replay-")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .tempdir()?;
    let r = crate::core::ops::replay::prepare(&source, home.path())?;
    Ok((home, r))
}

/// Where the inspector may write, and why not when it may not.
fn reach(ctx: &Context, args: &Cli, replaying: bool) -> crate::tui::state::Reach {
    crate::tui::state::Reach {
        workspace: ctx.workspace().ok().flatten().map(|w| w.root),
        // A replay writes only its own copy.
        refused: if replaying {
            None
        } else {
            // The verdict first, the path last, as the status line shows it.
            ctx.check_reach(args.conv.as_deref()).err().map(|e| {
                ctx.workspace()
                    .ok()
                    .flatten()
                    .and_then(|w| crate::core::ops::reach::refusal(&w))
                    .unwrap_or_else(|| e.to_string())
            })
        },
    }
}

fn say_what_the_replay_wrote(dir: &std::path::Path) {
    if let Ok(lines) = crate::core::ops::replay::written_compactions(dir) {
        cli::output::say_err(&format!(
            "replay: automatic compaction wrote {}",
            crate::core::fmt::count(lines.len() as u64, "compaction")
        ));
        for l in lines {
            cli::output::say_err(&format!("  {l}"));
        }
    }
}

/// Where the commands look: the demo's copy, the workspace given or the
/// one jp found (under `jp inspect`).
fn context(args: &Cli, demo: Option<&crate::demo::Demo>) -> Context {
    Context {
        workspace: match demo {
            Some(d) => Some(d.workspace.path().to_path_buf()),
            // Under `jp inspect`, the workspace jp found.
            // `--workspace` alone: the one found from the current directory.
            None => args
                .workspace
                .clone()
                .filter(|w| w.as_os_str() != cli::FOUND_FROM_HERE)
                .or_else(|| {
                    crate::plugin::host::init()
                        .and_then(|i| i.workspace.as_ref())
                        .map(|w| w.root.clone())
                }),
        },
        active: args.active,
        demo: demo.map(|d| d.conversation_dir.clone()),
        allow_linked: args.allow_linked_storage,
        jp: jp_resolved(),
    }
}

/// The configuration jp handed over, when run as `jp inspect`.
fn jp_resolved() -> Option<JpResolved> {
    crate::plugin::host::init().map(|i| JpResolved::new(i.config.clone()))
}

/// The options before a command that only the inspector reads: given with a
/// command they would be silently ignored, so they are a usage error.
fn inspector_options_only(args: &Cli) -> Result<(), UsageError> {
    let given: Vec<&str> = [
        (args.conv.is_some(), "CONV"),
        (args.window.is_some(), "--window"),
        (args.mode.is_some(), "--mode"),
        (args.config.is_some(), "--config"),
        (args.follow, "--follow"),
        (args.replay, "--replay"),
    ]
    .into_iter()
    .filter_map(|(set, name)| set.then_some(name))
    .collect();
    if given.is_empty() {
        return Ok(());
    }
    Err(UsageError(format!(
        "{} before the command name belong to the inspector; give a command's own options \
         after its name (e.g. `jp-inspect stats CONV --window 200k`)",
        given.join(", ")
    )))
}
