//! The key bindings, read from `assets/keys.toml` straight into typed
//! [`Action`]s (each with the help text `?` shows).

use super::msg::Action;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;
use std::sync::OnceLock;

const BINDINGS: &str = include_str!("../../assets/keys.toml");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Global,
    Main,
    Detail,
    Simulation,
    Confirm,
    Help,
    /// "As of" mode, before the main bindings.
    AsOf,
    /// The largest events (`L`).
    Largest,
    /// The tools view (`T`).
    Tools,
    /// A replay (`--replay`), before the main bindings.
    Replay,
}

/// Each scope with the title `?` and `man` list its bindings under, in
/// the order they list them.
pub const SECTIONS: [(Scope, &str); 10] = [
    (Scope::Main, "The panes"),
    (Scope::Global, "Everywhere"),
    (Scope::AsOf, "As of (t)"),
    (Scope::Replay, "A replay (--replay)"),
    (Scope::Detail, "The full text (Enter)"),
    (Scope::Largest, "Where the tokens are (L, O)"),
    (Scope::Tools, "The tools (T)"),
    (Scope::Simulation, "The simulation (s)"),
    (Scope::Confirm, "A question"),
    (Scope::Help, "The help (?)"),
];

#[derive(Debug, Clone, Deserialize)]
pub struct Binding {
    pub scope: Scope,
    pub keys: Vec<String>,
    #[serde(rename = "action")]
    pub command: Action,
    pub help: String,
}

#[derive(Debug, Deserialize)]
struct File {
    key: Vec<Binding>,
}

/// The bindings of `assets/keys.toml`, in its order.
pub fn bundled() -> &'static [Binding] {
    static B: OnceLock<Vec<Binding>> = OnceLock::new();
    B.get_or_init(|| {
        toml::from_str::<File>(BINDINGS)
            .expect("assets/keys.toml is valid")
            .key
    })
}

static EFFECTIVE: OnceLock<Vec<Binding>> = OnceLock::new();

/// Makes `bindings` (the user's over the bundled ones) the ones in force;
/// once, before the screen opens.
pub fn install(bindings: Vec<Binding>) {
    let _ = EFFECTIVE.set(bindings);
}

/// Every binding in force: the installed ones, else the bundled.
pub fn bindings() -> &'static [Binding] {
    EFFECTIVE.get().map_or_else(bundled, Vec::as_slice)
}

/// A key as the asset names it: `j`, `ctrl-d`, `pagedown`, `G`.
pub fn parse(name: &str) -> Option<(KeyCode, KeyModifiers)> {
    let mut mods = KeyModifiers::NONE;
    let mut rest = name;
    loop {
        if let Some(r) = rest.strip_prefix("ctrl-") {
            mods |= KeyModifiers::CONTROL;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("alt-") {
            mods |= KeyModifiers::ALT;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("shift-") {
            mods |= KeyModifiers::SHIFT;
            rest = r;
        } else {
            break;
        }
    }
    let code = match rest {
        "enter" => KeyCode::Enter,
        "esc" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "pageup" => KeyCode::PageUp,
        "pagedown" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "space" => KeyCode::Char(' '),
        s if s.chars().count() == 1 => KeyCode::Char(s.chars().next()?),
        _ => return None,
    };
    Some((code, mods))
}

fn matches(name: &str, key: &KeyEvent) -> bool {
    let Some((code, mods)) = parse(name) else {
        return false;
    };
    // Terminals report `G` as Char('G') with or without SHIFT; compare
    // characters without the shift bit.
    let relevant = KeyModifiers::CONTROL | KeyModifiers::ALT;
    match (code, key.code) {
        (KeyCode::Char(a), KeyCode::Char(b)) => {
            a == b && (key.modifiers & relevant) == (mods & relevant)
        }
        (KeyCode::BackTab, KeyCode::BackTab) => true,
        (a, b) => a == b && (key.modifiers & relevant) == (mods & relevant),
    }
}

/// The command bound to `key` in `scope` (global bindings apply
/// everywhere after the scope's own).
pub fn lookup(scope: Scope, key: &KeyEvent) -> Option<Action> {
    let all = bindings();
    all.iter()
        .filter(|b| b.scope == scope)
        .chain(all.iter().filter(|b| b.scope == Scope::Global))
        .find(|b| b.keys.iter().any(|k| matches(k, key)))
        .map(|b| b.command)
}

/// The first key bound to `command` in `scope`, for footers.
pub fn key_for(scope: Scope, command: Action) -> Option<&'static str> {
    bindings()
        .iter()
        .find(|b| (b.scope == scope || b.scope == Scope::Global) && b.command == command)
        .and_then(|b| b.keys.first())
        .map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_command_is_a_load_error() {
        let bad = "[[key]]\nscope = \"main\"\nkeys = [\"j\"]\naction = \"dwon\"\nhelp = \"x\"\n";
        let err = toml::from_str::<File>(bad).unwrap_err().to_string();
        assert!(err.contains("dwon"), "{err}");
    }

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn every_key_name_parses() {
        for b in bindings() {
            for k in &b.keys {
                assert!(parse(k).is_some(), "{k} of {:?}", b.command);
            }
        }
    }

    #[test]
    fn lookup_by_scope_then_global() {
        assert_eq!(
            lookup(Scope::Main, &key(KeyCode::Char('j'), KeyModifiers::NONE)),
            Some(Action::Down)
        );
        assert_eq!(
            lookup(Scope::Detail, &key(KeyCode::Char('q'), KeyModifiers::NONE)),
            Some(Action::Quit)
        );
        assert_eq!(
            lookup(Scope::Main, &key(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::ForceQuit)
        );
        assert_eq!(
            lookup(Scope::Main, &key(KeyCode::Char('R'), KeyModifiers::SHIFT)),
            Some(Action::ResetAuto)
        );
        assert_eq!(
            lookup(Scope::Main, &key(KeyCode::Char('d'), KeyModifiers::CONTROL)),
            Some(Action::PageDown)
        );
        assert_eq!(
            lookup(Scope::Main, &key(KeyCode::Char('d'), KeyModifiers::NONE)),
            Some(Action::Delete)
        );
    }
}
