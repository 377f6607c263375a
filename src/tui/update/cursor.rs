//! A list's cursor under the movement keys, for every list view.

use crate::keymap::Action;

/// Where a movement key takes the cursor of a list of `len` entries with
/// `page` rows on screen; `None` for a key that is no movement.
pub(super) fn list_move(cursor: usize, len: usize, page: usize, cmd: Action) -> Option<usize> {
    let last = len.saturating_sub(1);
    Some(match cmd {
        Action::Down => (cursor + 1).min(last),
        Action::Up => cursor.saturating_sub(1),
        Action::PageDown => (cursor + page).min(last),
        Action::PageUp => cursor.saturating_sub(page),
        Action::Top => 0,
        Action::Bottom => last,
        _ => return None,
    })
}
