//! The settings a key toggles: the automatic mode (`m`), jp's view (`J`),
//! automatic compaction at boundaries (`A`) and following the file (`f`).

use super::run;
use crate::core::ops::Mode;
use crate::core::ops::View;
use crate::tui::job::Job;
use crate::tui::msg::{Effect, Msg};
use crate::tui::state::State;
use crate::tui::status_log::Level;

/// `m`: the automatic mode shown and previewed, single (D50) or staged.
pub(super) fn toggle_mode(state: &mut State) {
    state.settings.config.mode = match state.settings.config.mode {
        Mode::Single => Mode::Staged,
        Mode::Staged => Mode::Single,
    };
    let c = &state.settings.config;
    let what = match c.mode {
        Mode::Single => format!(
            "single (RFD D50: one trigger at {:.0}%)",
            c.trigger_ratio * 100.0
        ),
        Mode::Staged => format!(
            "staged (elide above {:.0}%, summarise above {:.0}%)",
            c.soft_ratio * 100.0,
            c.hard_ratio * 100.0
        ),
    };
    state.set_status(format!("automatic mode: {what}"), Level::Info);
}

/// `J`: project as today's jp does (over bounds ignored) or as jp-inspect does.
pub(super) fn toggle_jp_view(state: &mut State, fx: &mut Vec<Effect>) {
    state.settings.view = match state.settings.view {
        View::Inspect => View::Jp,
        View::Jp => View::Inspect,
    };
    let what = match state.settings.view {
        View::Jp => "projecting as today's jp does: over bounds ignored",
        View::Inspect => "projecting as jp-inspect does: over bounds honoured",
    };
    state.set_status(what, Level::Info);
    let preview = state
        .preview
        .as_ref()
        .map(|p| p.plan.compactions())
        .unwrap_or_default();
    run(
        state,
        fx,
        "reprojecting",
        Job::Load {
            dir: state.dir.clone(),
            preview,
            config: None,
            view: state.settings.view,
            since: None,
        },
    );
}

/// `A`: automatic compaction at every turn boundary jp completes, here only.
pub(super) fn toggle_auto(state: &mut State, fx: &mut Vec<Effect>) {
    state.settings.auto_run = !state.settings.auto_run;
    if state.replay.is_some() {
        fx.push(Effect::ReplayLockstep(state.settings.auto_run));
    }
    if state.settings.auto_run {
        if let Some(m) = &state.inspection {
            let id = m.conv.id.unwrap_or_default();
            state.settings.boundaries.follow(id, m.conv.turn_count);
        }
        // Following is said first, so the line ends on what `A` did.
        if !state.settings.follow {
            toggle_follow(state, fx);
        }
        // `A` overrides `enabled = false`: say so, or the user
        // believes the configuration is being followed.
        let overridden = if state.settings.config.enabled {
            ""
        } else {
            "; the configuration leaves it disabled, A enables it here only"
        };
        state.set_status(
            format!(
                "automatic compaction runs at every new turn jp completes (A stops it){overridden}"
            ),
            Level::Info,
        );
    } else {
        state.set_status("automatic compaction off", Level::Info);
    }
}

/// `f`: refresh when jp appends events.
pub(super) fn toggle_follow(state: &mut State, fx: &mut Vec<Effect>) {
    state.settings.follow = !state.settings.follow;
    fx.push(Effect::Watch(true));
    if state.settings.follow {
        state.set_status(
            "following: the view refreshes when jp appends events",
            Level::Info,
        );
        // Catch up with anything written while not following; a first
        // load still under way reads the newest file anyway, and a second
        // one meanwhile would hold the conversation twice.
        if state.inspection.is_some() {
            super::handle(state, Msg::FilesChanged, fx);
        }
    } else {
        state.set_status("follow off", Level::Info);
    }
}
