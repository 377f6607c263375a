//! Moving between the session's requests in "as of" mode: one place
//! for the keys, the typed request number and the compaction marks.

use super::run;
use crate::tui::job::Job;
use crate::tui::msg::Effect;
use crate::tui::state::State;
use crate::tui::status_log::Level;

/// "As of" the request `target` picks (`None`: there is none, said).
pub(super) fn go_to_request(
    state: &mut State,
    target: impl Fn(&crate::tui::as_of::AsOf) -> Option<usize>,
    fx: &mut Vec<Effect>,
) {
    let Some(a) = &state.as_of else {
        return;
    };
    let Some(k) = target(a) else {
        state.set_status(
            "no compaction that way: the curve marks each one",
            Level::Info,
        );
        return;
    };
    let (Some(a), Some(m)) = (&mut state.as_of, &state.inspection) else {
        return;
    };
    a.current = k.min(a.points.len().saturating_sub(1));
    let Some(end) = a.point().map(|p| p.raw_index) else {
        return;
    };
    let job = Job::AsOf {
        conv: m.conv.clone(),
        end,
        view: state.settings.view,
    };
    run(state, fx, "projecting", job);
}
