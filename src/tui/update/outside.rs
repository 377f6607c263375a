//! Leaving the inspector's text for the outside: the clipboard (`y`), the
//! pager (`o`) and the editor (`e`).

use crate::tui::detail_text;
use crate::tui::msg::Effect;
use crate::tui::panels::Panel;
use crate::tui::state::State;
use crate::tui::status_log::Level;

/// The text `y`, `o` and `e` take: the open detail view's (as shown,
/// readable or stored), else the selected event's.
pub(super) fn outside_text(state: &State) -> Option<(String, crate::tui::panels::Outside)> {
    if let Some(Panel::Detail(d)) = &state.panel {
        return Some((d.title.clone(), d.text.clone()));
    }
    let text = detail_text::of_selection(state)?;
    Some((text.title.clone(), text.outside()))
}

/// `y`: the text to the clipboard, by the terminal (OSC 52).
pub(super) fn copy(state: &mut State, fx: &mut Vec<Effect>) {
    let Some((title, text)) = outside_text(state) else {
        state.set_status("nothing selected to copy", Level::Info);
        return;
    };
    let stored = matches!(&state.panel, Some(Panel::Detail(d)) if d.show_raw);
    let body = if stored { text.stored } else { text.readable };
    state.set_status(
        format!(
            "copied {} of {title}{} (the terminal puts it on the clipboard: OSC 52)",
            crate::core::fmt::count(body.chars().count() as u64, "character"),
            if stored { " as stored" } else { "" }
        ),
        Level::Info,
    );
    fx.push(Effect::Copy(body));
}

/// `Y`: the preview in force as the command line that makes it, to the
/// clipboard (OSC 52): jp-inspect's, and jp's own in a comment under it
/// where jp can say the same.
pub(super) fn copy_command(state: &mut State, fx: &mut Vec<Effect>) {
    use crate::core::ops::command_line;
    use crate::tui::job::PreviewRequest;
    let (Some(p), Some(m)) = (&state.preview, &state.inspection) else {
        state.set_status(
            "no preview to copy: p previews a rule (or auto) first, then Y copies its command",
            Level::Info,
        );
        return;
    };
    let id = m.conv.display_id();
    let lines = match &p.request {
        PreviewRequest::Rule { spec, rule } => command_line::of_rule(&id, spec, rule),
        PreviewRequest::Auto => command_line::of_auto(&id),
    };
    let jp = if lines.jps.is_some() {
        " · jp's own command is in a comment under it"
    } else {
        ""
    };
    state.say_over_preview(format!("copied: {}{jp} (OSC 52)", lines.ours));
    fx.push(Effect::Copy(lines.clipboard()));
}

/// `o` / `e`: the text in the pager or, as a read-only copy, the editor.
pub(super) fn open_outside(state: &mut State, with: crate::tui::msg::Opener, fx: &mut Vec<Effect>) {
    let Some((title, text)) = outside_text(state) else {
        state.set_status("nothing selected to open", Level::Info);
        return;
    };
    let stored = matches!(&state.panel, Some(Panel::Detail(d)) if d.show_raw);
    let (body, extension) = if stored {
        (text.stored, "json")
    } else {
        (text.readable, text.extension)
    };
    fx.push(Effect::Open {
        with,
        title,
        text: body,
        extension,
    });
}
