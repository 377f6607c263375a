//! A word that is almost a command (`stat` for `stats`). clap cannot say
//! so itself: a bare first word is the inspector's CONV before it is a
//! misspelt command, so `stat bear` fails on `bear` and `frobnicate` as
//! a conversation nobody has.

use clap::CommandFactory;

/// The commands, as typed.
pub fn commands() -> Vec<String> {
    super::Cli::command()
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_string())
        .collect()
}

/// The command `word` most likely meant, if one is close: a prefix of
/// it, or within two edits (one for short words).
pub fn command_like(word: &str) -> Option<String> {
    let word = word.to_ascii_lowercase();
    let all = commands();
    if all.contains(&word) {
        return None;
    }
    let names: Vec<&str> = all.iter().map(String::as_str).collect();
    crate::core::fmt::nearest(&word, &names).map(str::to_string)
}

/// Whether `word` could be nothing but a command's name: letters and
/// dashes, no path, no number.
pub fn is_word(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
}

/// The sentence for a word that named neither a conversation nor a
/// command.
pub fn not_a_command(word: &str) -> String {
    match command_like(word) {
        Some(c) => {
            format!("`{word}` is not a command; did you mean `{c}`? (jp-inspect {c} --help)")
        }
        None => format!(
            "`{word}` is no conversation's id or title, and not a command either (commands: {})",
            commands().join(", ")
        ),
    }
}

/// For a command line clap refused: the sentence naming the command its
/// first bare word most likely meant, if it is close to one.
pub fn misspelt_command(argv: &[String]) -> Option<String> {
    let first = argv.iter().skip(1).find(|a| !a.starts_with('-'))?;
    command_like(first)
        .map(|c| format!("`{first}` is not a command; did you mean `{c}`? (jp-inspect {c} --help)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_find_their_command() {
        assert_eq!(command_like("stat").as_deref(), Some("stats"));
        assert_eq!(command_like("simulte").as_deref(), Some("simulate"));
        assert_eq!(command_like("hist").as_deref(), Some("history"));
        assert_eq!(command_like("shwo").as_deref(), Some("show"));
        assert_eq!(command_like("stats"), None);
        assert_eq!(command_like("frobnicate"), None);
        assert_eq!(command_like("bear"), None);
    }
}
