//! A compaction's range judged off the UI thread (`Job::RangeFacts`):
//! what comes back lands where it was asked, in the detail, `F`'s trail or
//! `E`'s editor.

use crate::tui::msg::Effect;
use crate::tui::state::State;

/// A compaction's range judged off the UI thread: its detail, `F`'s trail
/// or `E`'s checklist, each where it was asked.
pub(super) fn found(
    state: &mut State,
    position: usize,
    range: Option<crate::core::model::TurnRange>,
    got: crate::tui::job::FactsGot,
    fx: &mut Vec<Effect>,
) {
    use crate::tui::job::FactsGot;
    state.status.busy = None;
    match got {
        FactsGot::Detail(d) => {
            state.compaction_facts = Some((state.generation, position, d));
            detail_found(state, fx);
        }
        FactsGot::Trail(t) => super::lost_trail::found(state, position, t),
        FactsGot::Checklist { text, facts, sent } => {
            if let Some(range) = range {
                super::summary::found(state, text, range, facts, sent);
            }
        }
    }
}

/// A compaction's facts found: its open detail shows them, where it was.
pub(super) fn detail_found(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(crate::tui::panels::Panel::Detail(d)) = &state.panel else {
        return;
    };
    let (title, scroll) = (d.title.clone(), d.scroll);
    let Some(text) = crate::tui::detail_text::of_selection(state).filter(|t| t.title == title)
    else {
        return;
    };
    super::commands::show_detail(state, text, fx);
    if let Some(crate::tui::panels::Panel::Detail(d)) = &mut state.panel {
        d.scroll = scroll;
    }
}
