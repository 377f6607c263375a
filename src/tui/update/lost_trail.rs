//! `F`: from a compaction to the events of the facts it lost, one after
//! another, so a reviewer reads each where it stood.

use crate::tui::job::{FactsWant, Job};
use crate::tui::msg::Effect;
use crate::tui::panels::Panel;
use crate::tui::state::{Focus, LostTrail, State};
use crate::tui::status_log::Level;

/// The next lost fact's event: the first of the selected compaction's
/// when none is being followed (or the list moved to another), else the
/// one after the last shown, round to the first. A new trail's facts are
/// found off the UI thread; it is followed when they come.
pub(super) fn next(state: &mut State, fx: &mut Vec<Effect>) {
    let from_list = state.nav.focus == Focus::Compactions;
    let selected = state
        .inspection
        .as_ref()
        .filter(|_| from_list)
        .and_then(|m| m.compactions.get(state.nav.list_cursor))
        .map(|r| r.position);
    let following = state
        .lost_trail
        .as_ref()
        .filter(|t| t.generation == state.generation && selected.is_none_or(|p| p == t.position));
    match following {
        Some(t) => {
            let trail = LostTrail {
                at: (t.at + 1) % t.events.len(),
                ..t.clone()
            };
            show(state, trail);
        }
        None => match start(state) {
            Ok((position, job)) => {
                state.status.busy = Some((
                    format!("finding what compaction #{} lost", position + 1),
                    std::time::Instant::now(),
                ));
                fx.push(Effect::job(job));
            }
            Err(why) => state.set_status(why, Level::Info),
        },
    }
}

/// Shows the trail's current fact: its event, and what it was.
fn show(state: &mut State, trail: LostTrail) {
    let (turn, event, said) = trail.events[trail.at].clone();
    let status = format!(
        "lost fact {} of {} (compaction #{}): {said} · F for the next",
        trail.at + 1,
        trail.events.len(),
        trail.position + 1
    );
    if matches!(state.panel, Some(Panel::Detail(_))) {
        state.panel = None;
    }
    state.lost_trail = Some(trail);
    super::largest::jump_to(state, turn, 0, Some(event));
    state.set_status(status, Level::Info);
}

/// The job that finds the trail of the compaction selected in the list.
fn start(state: &State) -> Result<(usize, Job), String> {
    let m = state
        .inspection
        .as_ref()
        .ok_or_else(|| "nothing is open".to_string())?;
    let row = (state.nav.focus == Focus::Compactions)
        .then(|| m.compactions.get(state.nav.list_cursor))
        .flatten()
        .ok_or_else(|| {
            "F follows a compaction's lost facts: select one in the list (Tab)".to_string()
        })?;
    let range = row.range.filter(|_| row.invalid.is_none()).ok_or_else(|| {
        format!(
            "compaction #{} is left out of the projection",
            row.position + 1
        )
    })?;
    Ok((
        row.position,
        Job::RangeFacts {
            conv: m.conv.clone(),
            projection: Box::new(m.projection.clone()),
            position: row.position,
            range: Some(range),
            want: FactsWant::Trail,
        },
    ))
}

/// The trail of compaction `position` found: followed from its first fact.
pub(super) fn found(state: &mut State, position: usize, trail: crate::core::ops::knows::Trail) {
    let Some(m) = &state.inspection else {
        return;
    };
    let events: Vec<(usize, usize, String)> = trail
        .lost
        .iter()
        .filter_map(|j| {
            let e = m.conv.events.get(j.fact.event)?;
            let shown = j.fact.shown();
            let text = crate::core::visible::visible_line(&shown);
            let said = format!("turn {} · {} · {text}", j.fact.turn, j.fact.kind.as_str());
            Some((e.turn, j.fact.event, said))
        })
        .collect();
    if events.is_empty() {
        return state.set_status(
            format!(
                "compaction #{} lost nothing the model needs: {}",
                position + 1,
                trail.survival.describe()
            ),
            Level::Info,
        );
    }
    let trail = LostTrail {
        generation: state.generation,
        position,
        events,
        at: 0,
    };
    show(state, trail);
}
