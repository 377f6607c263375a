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
            super::commands::facts_found(state, fx);
        }
        FactsGot::Trail(t) => super::lost_trail::found(state, position, t),
        FactsGot::Checklist { text, facts, sent } => {
            if let Some(range) = range {
                super::summary::found(state, text, range, facts, sent);
            }
        }
    }
}
