//! What jp-inspect says of itself when jp asks (`jp -h` lists the
//! description, `jp inspect -h` shows the help).

use super::protocol::Describe;
use clap::CommandFactory;

/// The command jp routes to us: `jp inspect …`.
pub const COMMAND: &str = "inspect";

pub fn describe() -> Describe {
    let help = crate::cli::Cli::command()
        .name("jp inspect")
        .bin_name("jp inspect")
        .render_help()
        .to_string();
    Describe {
        name: COMMAND.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        description: "Inspect a conversation beside what the model is sent; preview, apply and \
                      reset compactions"
            .into(),
        command: vec![COMMAND.into()],
        help,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_is_written_for_jp_inspect_and_has_no_escapes() {
        let d = describe();
        assert_eq!(d.command, ["inspect"]);
        assert!(!d.description.contains('\n'));
        assert!(d.help.contains("Usage: jp inspect"), "{}", d.help);
        assert!(d.help.contains("stats"), "{}", d.help);
        assert!(!d.help.contains('\x1b'), "{}", d.help);
    }
}
