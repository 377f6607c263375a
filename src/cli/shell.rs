//! Shell completion: the script a shell registers, and the answer it gets
//! at each Tab (the candidates themselves are `complete`'s, which the
//! arguments name, so this file and not that one reads the arguments).

use super::complete::VAR;

/// Answers the shell and exits, when it is the shell asking.
pub fn answer_the_shell() {
    clap_complete::CompleteEnv::with_factory(<super::args::Cli as clap::CommandFactory>::command)
        .var(VAR)
        .complete();
}

/// The registration script for `shell` (what `completions` prints).
pub fn registration(shell: clap_complete::Shell) -> std::io::Result<Vec<u8>> {
    let name = shell.to_string();
    let shells = clap_complete::env::Shells::builtins();
    let completer = shells
        .completer(&name)
        .ok_or_else(|| std::io::Error::other(format!("no completion for {name}")))?;
    let mut out = Vec::new();
    completer.write_registration(VAR, "jp-inspect", "jp-inspect", "jp-inspect", &mut out)?;
    Ok(out)
}
