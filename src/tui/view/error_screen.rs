//! The screen of a conversation that can't be read (an empty or malformed
//! `events.json`): the error, where it is, and the only keys that make
//! sense. It must not look like a screen still loading.

use crate::keymap::Action;
use crate::keymap::Scope;
use crate::tui::keys::key_for;
use crate::tui::state::State;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

/// The conversation's folder from its workspace's `.jp` on (the whole path
/// outside a workspace): the part a person recognises.
fn short(dir: &std::path::Path) -> String {
    let text = dir.display().to_string();
    match text.find("/.jp/") {
        Some(i) => text[i + 1..].to_string(),
        None => text,
    }
}

pub fn draw(frame: &mut Frame, area: Rect, error: &str, state: &State) {
    let t = &state.theme;
    // The folder is on its own line: the error names the file within it.
    let full = state.dir.display().to_string();
    let error = error
        .strip_prefix(&full)
        .map(|rest| rest.trim_start_matches('/'))
        .unwrap_or(error);
    let key = |c: Action| key_for(Scope::Main, c).unwrap_or("?").to_string();
    let waiting = if state.settings.follow {
        Line::from(Span::styled(
            "following: this screen is replaced as soon as the file reads again",
            t.ok(),
        ))
    } else {
        Line::from(vec![
            Span::styled(key(Action::Follow), t.key()),
            Span::raw(" waits for the file to be fixed (it is read again at every change)"),
        ])
    };
    let lines = vec![
        Line::from(Span::styled(
            "This conversation can't be read; nothing was changed.",
            t.title(),
        )),
        Line::raw(""),
        Line::from(Span::styled(error.to_string(), t.error())),
        Line::raw(""),
        Line::from(vec![
            Span::styled("in ", t.dim()),
            Span::styled(short(&state.dir), t.dim()),
        ]),
        Line::raw(""),
        waiting,
        Line::from(vec![
            Span::styled(key(Action::Quit), t.key()),
            Span::raw(" quits"),
        ]),
    ];
    let block = Block::default().borders(Borders::ALL).title(Span::styled(
        " jp-inspect: unreadable conversation ",
        t.error(),
    ));
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block),
        area,
    );
}
