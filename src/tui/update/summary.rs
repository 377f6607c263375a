//! `E`: a summary written against its checklist. It opens on the
//! preview's summary, or on the summary of the compaction selected in the
//! list; Ctrl-S previews the text as an authored summary of the same range
//! (`a` writes it, under jp's lock, as every write), Esc drops the edit
//! (asking first when it changed the text, and offering it again at the
//! next `E` on the same turns), Ctrl-E hands it to `$EDITOR` and back.
//! Its keys are the key map's `summary` scope.

use super::input;
use crate::core::model::TurnRange;
use crate::keymap::Action;
use crate::keymap::Scope;
use crate::tui::job::PreviewRequest;
use crate::tui::keys;
use crate::tui::msg::Effect;
use crate::tui::panels::Panel;
use crate::tui::state::{Focus, State};
use crate::tui::status_log::Level;
use crate::tui::summary_editor::SummaryEditor;
use crossterm::event::KeyEvent;

/// The summary to start from and its range: the preview's first summary
/// that was made, else the selected compaction's.
fn source(state: &State) -> Result<(String, TurnRange), &'static str> {
    if let Some(p) = &state.preview {
        let made = p
            .plan
            .additions
            .iter()
            .zip(&p.knows)
            .find(|(a, k)| a.compaction.summary.is_some() && k.is_some());
        return match made {
            Some((a, _)) => Ok((a.compaction.summary.clone().unwrap_or_default(), a.range())),
            None if p.plan.withheld.is_some() => {
                Err("the preview's summary is not made yet: S makes it, then E edits it")
            }
            None => Err("the preview writes no summary: preview one (p s:2..9), then E"),
        };
    }
    let m = state.inspection.as_ref().ok_or("nothing loaded yet")?;
    let selected = (state.nav.focus == Focus::Compactions)
        .then(|| m.compactions.get(state.nav.list_cursor))
        .flatten()
        .ok_or(
            "E edits a summary: preview one (p s:2..9), or select a summary in the list (Tab)",
        )?;
    let overlay = m
        .projection
        .overlays
        .iter()
        .find(|o| o.position == selected.position)
        .ok_or("that compaction is not in force in this view")?;
    let text = overlay
        .compaction
        .summary
        .clone()
        .ok_or("that compaction strips, it has no summary: E edits a summary")?;
    Ok((text, overlay.compaction.range()))
}

/// `E`: the checklist of the summary's range is found off the UI thread;
/// the editor opens when it comes.
pub(super) fn open(state: &mut State, fx: &mut Vec<Effect>) {
    let (text, range) = match source(state) {
        Ok(s) => s,
        Err(why) => return state.set_status(why, Level::Info),
    };
    let Some(m) = &state.inspection else {
        return;
    };
    state.status.busy = Some((
        format!("reading the facts of turns {}", range.human()),
        std::time::Instant::now(),
    ));
    fx.push(Effect::job(crate::tui::job::Job::RangeFacts {
        conv: m.conv.clone(),
        projection: Box::new(m.projection.clone()),
        position: usize::MAX,
        range: Some(range),
        want: crate::tui::job::FactsWant::Checklist { text },
    }));
}

/// The checklist of `range` found: the editor opens on `text` against it.
pub(super) fn found(
    state: &mut State,
    text: String,
    range: TurnRange,
    facts: Vec<crate::core::ops::Fact>,
    sent: crate::core::ops::Sent,
) {
    // Something else opened meanwhile (a key answered while it was read).
    if state.panel.is_some() {
        return;
    }
    let mut editor = SummaryEditor::new(&text, range, facts, sent);
    // The edit left last of the same turns is offered again.
    if let Some((r, last)) = &state.last_summary_edit
        && *r == range
        && *last != text
    {
        editor.replace(last);
        editor.recheck();
        let restore = key_name(Action::RestoreSummary, "Ctrl-R");
        state.say_over_preview(format!(
            "your last edit of turns {}: {restore} starts again from the summary as it was",
            range.human()
        ));
    }
    state.panel = Some(Panel::Summary(Box::new(editor)));
}

/// The first key bound to `action` in the editor, for what it says.
fn key_name(action: Action, otherwise: &str) -> String {
    keys::key_for(Scope::Summary, action).map_or_else(|| otherwise.to_string(), keys::display)
}

/// Closes the editor, keeping a changed text to offer when `E` opens on
/// the same turns again.
fn close(state: &mut State) {
    if let Some(Panel::Summary(e)) = state.panel.take()
        && e.changed()
    {
        state.last_summary_edit = Some((e.range, e.text()));
    }
}

pub(super) fn key(state: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) {
    let Some(Panel::Summary(e)) = &mut state.panel else {
        return;
    };
    match keys::lookup_in(Scope::Summary, &k) {
        Some(Action::Cancel) if e.changed() && !e.dropping => {
            e.dropping = true;
            let keep = key_name(Action::KeepSummary, "Ctrl-S");
            state.say_over_preview(format!(
                "your edit is not kept yet: Esc again drops it (E offers it again), {keep} keeps it"
            ));
        }
        Some(Action::Cancel) => {
            close(state);
            state.set_status("the edit is dropped: nothing written", Level::Info);
        }
        Some(Action::RestoreSummary) => {
            let original = e.original.clone();
            e.replace(&original);
            state.say_over_preview("the summary as it was: your edit is undone");
        }
        Some(Action::FactsDown) => e.scroll_facts(3, e.facts.len()),
        Some(Action::FactsUp) => e.scroll_facts(-3, e.facts.len()),
        Some(Action::EditOutside) => {
            e.dropping = false;
            fx.push(Effect::EditOutside { text: e.text() });
        }
        Some(Action::KeepSummary) => keep(state, fx),
        _ => e.input(k),
    }
}

/// What the person saved in their editor (or why nothing came back).
pub(super) fn edited_outside(state: &mut State, back: Result<String, String>) {
    let Some(Panel::Summary(e)) = &mut state.panel else {
        return;
    };
    match back {
        Ok(text) if text == e.text() => {
            state.say_over_preview("back from the editor: the text is as it was")
        }
        Ok(text) => {
            e.replace(text.trim_end_matches('\n'));
            e.recheck();
            let (named, of) = e.named();
            state.say_over_preview(format!(
                "back from the editor: your text names {named} of {of} facts"
            ));
        }
        Err(why) => state.set_status(why, Level::Error),
    }
}

/// Ctrl-S: the text previewed as an authored summary of its range.
fn keep(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(Panel::Summary(e)) = &mut state.panel else {
        return;
    };
    let text = e.text();
    if text.trim().is_empty() {
        return state.set_status(
            "an empty summary would say nothing of its turns: write it, or Esc",
            Level::Error,
        );
    }
    e.recheck_if_stale();
    let range = e.range;
    let (named, of) = e.named();
    // An endless range stays endless (`s:3..`).
    let to = match range.to {
        usize::MAX => String::new(),
        to => (to + 1).to_string(),
    };
    let Ok(mut rule) = format!("s:{}..{to}", range.from + 1).parse::<crate::core::ops::Rule>()
    else {
        return;
    };
    rule.text = Some(text);
    close(state);
    input::plan_preview(
        state,
        PreviewRequest::Rule {
            spec: format!("s:{} (your text)", range.human()),
            rule: Box::new(rule),
        },
        fx,
    );
    state.set_status(
        format!(
            "your summary of turns {} names {named} of {of} facts: a writes it as \
             authored, Esc drops it",
            range.human()
        ),
        Level::Info,
    );
}
