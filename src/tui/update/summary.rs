//! `E`: a summary written against its checklist. It opens on the
//! preview's summary, or on the summary of the compaction selected in the
//! list; Ctrl-S previews the text as an authored summary of the same range
//! (`a` writes it, under jp's lock, as every write), Esc drops the edit.

use super::input;
use crate::core::facts::Sent;
use crate::core::model::turns::TurnRange;
use crate::tui::job::PreviewRequest;
use crate::tui::msg::Effect;
use crate::tui::state::{Focus, Level, Panel, State};
use crate::tui::summary_editor::SummaryEditor;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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

pub(super) fn open(state: &mut State) {
    let (text, range) = match source(state) {
        Ok(s) => s,
        Err(why) => return state.set_status(why, Level::Info),
    };
    let Some(m) = &state.inspection else {
        return;
    };
    let facts = crate::core::facts::checklist(&m.conv, range);
    let sent = Sent::of(&m.conv, &m.projection, range);
    let editor = SummaryEditor::new(&text, range, facts, sent);
    state.panel = Some(Panel::Summary(Box::new(editor)));
}

pub(super) fn key(state: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) {
    let Some(Panel::Summary(e)) = &mut state.panel else {
        return;
    };
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    match k.code {
        KeyCode::Esc => {
            state.panel = None;
            state.set_status("the edit is dropped: nothing written", Level::Info);
        }
        KeyCode::Char('s') if ctrl => {
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
            let Ok(mut rule) = crate::core::compact::rule::parse(&format!(
                "s:{}..{}",
                range.from + 1,
                range.to + 1
            )) else {
                return;
            };
            rule.text = Some(text);
            state.panel = None;
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
        _ => e.input(k),
    }
}
