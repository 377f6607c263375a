//! The key bindings as the terminal sends them: a key's name parsed into
//! crossterm's terms, and the command a key press runs in a scope. The
//! table itself is `crate::keymap`, which the man page reads too.

use crate::keymap::Action;
use crate::keymap::{Binding, Scope, bindings, bundled};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::HashMap;
use std::sync::OnceLock;

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

/// A key as the table holds it: Control and Alt count, Shift doesn't
/// (terminals report `G` as `Char('G')` with or without it), and a
/// back-tab is one key whatever its modifiers say.
fn normal(code: KeyCode, mods: KeyModifiers) -> (KeyCode, KeyModifiers) {
    match code {
        KeyCode::BackTab => (code, KeyModifiers::NONE),
        _ => (code, mods & (KeyModifiers::CONTROL | KeyModifiers::ALT)),
    }
}

/// The bindings parsed once into a map from a scope and a key to its
/// command; the first binding of a key in a scope wins, as the file reads.
struct Table(HashMap<(Scope, KeyCode, KeyModifiers), Action>);

impl Table {
    fn of(bindings: &[Binding]) -> Table {
        let mut map = HashMap::new();
        for b in bindings {
            for (code, mods) in b.keys.iter().filter_map(|k| parse(k)) {
                let (code, mods) = normal(code, mods);
                map.entry((b.scope, code, mods)).or_insert(b.command);
            }
        }
        Table(map)
    }

    fn get(&self, scope: Scope, key: &KeyEvent) -> Option<Action> {
        let (code, mods) = normal(key.code, key.modifiers);
        self.0.get(&(scope, code, mods)).copied()
    }
}

/// The table of the bindings in force: the user's once installed, else
/// the bundled ones.
fn table() -> &'static Table {
    static BUNDLED: OnceLock<Table> = OnceLock::new();
    static INSTALLED: OnceLock<Table> = OnceLock::new();
    if crate::keymap::installed() {
        INSTALLED.get_or_init(|| Table::of(bindings()))
    } else {
        BUNDLED.get_or_init(|| Table::of(bundled()))
    }
}

/// The command bound to `key` in `scope` (global bindings apply
/// everywhere after the scope's own).
pub fn lookup(scope: Scope, key: &KeyEvent) -> Option<Action> {
    let t = table();
    t.get(scope, key).or_else(|| t.get(Scope::Global, key))
}

/// The command bound to `key` in `scope` alone: where keys are typed (the
/// summary editor), a global `q` is a letter.
pub fn lookup_in(scope: Scope, key: &KeyEvent) -> Option<Action> {
    table().get(scope, key)
}

/// A key's name as a sentence writes it: `ctrl-s` is Ctrl-S, `esc` Esc.
pub fn display(name: &str) -> String {
    name.split('-')
        .map(|part| match part {
            "ctrl" => "Ctrl".to_string(),
            "alt" => "Alt".to_string(),
            "shift" => "Shift".to_string(),
            p if p.chars().count() == 1 => p.to_uppercase(),
            p => {
                let mut c = p.chars();
                c.next()
                    .map(|f| f.to_uppercase().chain(c).collect())
                    .unwrap_or_default()
            }
        })
        .collect::<Vec<_>>()
        .join("-")
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
