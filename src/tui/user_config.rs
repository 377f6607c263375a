//! The user's own keys and colours: `$XDG_CONFIG_HOME/jp-inspect/config.toml`
//! (or the file `JP_INSPECT_CONFIG` names). Key bindings use the schema of
//! `assets/keys.toml`; the theme is `dark` or `light` with per-role colours
//! over it. Every mistake is an error naming the file and the line, before
//! the screen opens.
//!
//! ```toml
//! theme = "light"
//! [colors]
//! user = "#2a9d8f"
//! [[key]]
//! scope = "main"
//! keys = ["n"]
//! action = "down"
//! ```

use super::keys;
use super::theme::{Palette, Theme};
use crate::keymap::Action;
use crate::keymap::Binding;
use crate::keymap::Scope;
use ratatui::style::Color;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    theme: Option<Spanned<String>>,
    #[serde(default)]
    colors: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    key: Vec<UserBinding>,
    /// Prices, read by every shell (`user_file::prices`); checked here too,
    /// so the inspector says a mistake before its screen opens.
    #[serde(default)]
    price: Vec<toml::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UserBinding {
    scope: Scope,
    keys: Vec<Spanned<String>>,
    action: Action,
    help: Option<String>,
}

/// What the user's file changes; the defaults when there is none.
#[derive(Debug, Clone)]
pub struct UserConfig {
    /// The file read, if there was one.
    pub path: Option<PathBuf>,
    pub palette: Palette,
    /// The syntax-highlighting theme that goes with the palette.
    pub light: bool,
    pub bindings: Vec<Binding>,
}

impl Default for UserConfig {
    fn default() -> Self {
        UserConfig {
            path: None,
            palette: Palette::DARK,
            light: false,
            bindings: crate::keymap::bundled().to_vec(),
        }
    }
}

impl UserConfig {
    /// The theme: the palette, in colour unless `NO_COLOR` is set.
    pub fn theme(&self) -> Theme {
        Theme {
            color: !super::theme::no_color(),
            palette: self.palette,
        }
    }
}

/// Reads the user's file; none at the default place is no error, but a file
/// named by `JP_INSPECT_CONFIG` must exist.
pub fn load() -> anyhow::Result<UserConfig> {
    match crate::user_file::read()? {
        None => Ok(UserConfig::default()),
        Some((path, text)) => Ok(parse(&path, &text)?),
    }
}

/// A mistake in the user's file, at a line and column.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}:{column}: {message}", path.display())]
pub struct UserConfigError {
    pub path: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

fn at(path: &Path, text: &str, offset: usize, message: String) -> UserConfigError {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |i| before.len() - i - 1)
        + 1;
    UserConfigError {
        path: path.to_path_buf(),
        line,
        column,
        message,
    }
}

/// The configuration `text` (read from `path`) describes.
pub fn parse(path: &Path, text: &str) -> Result<UserConfig, UserConfigError> {
    let file: File = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        at(path, text, offset, e.message().to_string())
    })?;
    if !file.price.is_empty() {
        crate::core::ops::Prices::with_user_file(text).map_err(|e| at(path, text, 0, e))?;
    }
    let mut config = UserConfig {
        path: Some(path.to_path_buf()),
        ..UserConfig::default()
    };
    if let Some(name) = &file.theme {
        config.palette = Palette::builtin(name.get_ref()).ok_or_else(|| {
            at(
                path,
                text,
                name.span().start,
                format!(
                    "unknown theme `{}`; expected `dark` or `light`",
                    name.get_ref()
                ),
            )
        })?;
        config.light = name.get_ref() == "light";
    }
    for (role, value) in &file.colors {
        let color = Color::from_str(value.get_ref()).map_err(|_| {
            at(
                path,
                text,
                value.span().start,
                format!(
                    "`{}` is not a colour (a name like `lightblue`, `#rrggbb` or 0-255)",
                    value.get_ref()
                ),
            )
        })?;
        if !config.palette.set(role, color) {
            return Err(at(
                path,
                text,
                value.span().start,
                format!(
                    "unknown colour role `{role}`; the roles are {}",
                    Palette::ROLES.join(", ")
                ),
            ));
        }
    }
    for b in &file.key {
        for k in &b.keys {
            if keys::parse(k.get_ref()).is_none() {
                return Err(at(
                    path,
                    text,
                    k.span().start,
                    format!(
                        "unknown key `{}`; keys are a character or enter, esc, tab, backtab, \
                         up, down, left, right, pageup, pagedown, home, end, space, with \
                         ctrl-, alt- or shift- in front",
                        k.get_ref()
                    ),
                ));
            }
        }
        rebind(
            &mut config.bindings,
            b.scope,
            b.action,
            b.keys.iter().map(|k| k.get_ref().clone()).collect(),
            b.help.clone(),
        );
    }
    Ok(config)
}

/// Binds `keys` to `command` in `scope` in place of its bundled keys; the
/// keys stop meaning anything else in that scope.
fn rebind(
    bindings: &mut Vec<Binding>,
    scope: Scope,
    command: Action,
    keys: Vec<String>,
    help: Option<String>,
) {
    for b in bindings.iter_mut().filter(|b| b.scope == scope) {
        b.keys.retain(|k| !keys.contains(k));
    }
    match bindings
        .iter_mut()
        .find(|b| b.scope == scope && b.command == command)
    {
        Some(b) => {
            b.keys = keys;
            if let Some(h) = help {
                b.help = h;
            }
        }
        None => bindings.push(Binding {
            scope,
            keys,
            command,
            help: help.unwrap_or_else(|| format!("{command:?}")),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<UserConfig, UserConfigError> {
        parse(Path::new("/home/u/.config/jp-inspect/config.toml"), text)
    }

    #[test]
    fn a_binding_replaces_the_bundled_keys_of_its_action() {
        let c = parsed("[[key]]\nscope = \"main\"\nkeys = [\"n\", \"d\"]\naction = \"down\"\n")
            .unwrap();
        let down = c
            .bindings
            .iter()
            .find(|b| b.scope == Scope::Main && b.command == Action::Down)
            .unwrap();
        assert_eq!(down.keys, ["n", "d"]);
        // `d` no longer deletes in the main panes.
        let delete = c
            .bindings
            .iter()
            .find(|b| b.scope == Scope::Main && b.command == Action::Delete)
            .unwrap();
        assert!(!delete.keys.contains(&"d".to_string()));
    }

    #[test]
    fn themes_and_roles() {
        let c = parsed("theme = \"light\"\n[colors]\nuser = \"#102030\"\nerror = \"lightred\"\n")
            .unwrap();
        assert!(c.light);
        assert_eq!(c.palette.user, Color::Rgb(0x10, 0x20, 0x30));
        assert_eq!(c.palette.error, Color::LightRed);
        assert_eq!(c.palette.assistant, Palette::LIGHT.assistant);
    }

    #[test]
    fn mistakes_name_the_file_and_the_line() {
        let cases = [
            ("theme = \"solarized\"\n", 1, "unknown theme `solarized`"),
            (
                "\n[colors]\nusr = \"red\"\n",
                3,
                "unknown colour role `usr`",
            ),
            (
                "[colors]\nuser = \"reddish\"\n",
                2,
                "`reddish` is not a colour",
            ),
            (
                "[[key]]\nscope = \"main\"\nkeys = [\"j\", \"ctrl-\"]\naction = \"down\"\n",
                3,
                "unknown key `ctrl-`",
            ),
            (
                "[[key]]\nscope = \"main\"\nkeys = [\"j\"]\naction = \"dwon\"\n",
                4,
                "dwon",
            ),
            (
                "[[key]]\nscope = \"everywhere\"\nkeys = [\"j\"]\naction = \"down\"\n",
                2,
                "everywhere",
            ),
            ("colour = 1\n", 1, "colour"),
        ];
        for (text, line, want) in cases {
            let e = parsed(text).unwrap_err();
            let shown = e.to_string();
            assert_eq!(e.line, line, "{text}: {shown}");
            assert!(shown.contains(want), "{text}: {shown}");
            assert!(
                shown.starts_with(&format!("/home/u/.config/jp-inspect/config.toml:{line}:")),
                "{shown}"
            );
        }
    }
}
