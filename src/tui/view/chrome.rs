//! The header, the status line (inputs and previews) and the key footer.

use crate::core::fmt::human_tokens;
use crate::core::fmt::{change, thousands};
use crate::core::ops::Mode;
use crate::core::ops::View;
use crate::core::ops::WindowSource;
use crate::keymap::Action;
use crate::keymap::Scope;
use crate::tui::keys;
use crate::tui::panels::InputKind;
use crate::tui::panels::Panel;
use crate::tui::state::State;
use crate::tui::status_log::Level;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

pub fn header(frame: &mut Frame, area: Rect, state: &State) {
    let t = &state.theme;
    let Some(m) = &state.inspection else {
        let line = Line::from(vec![
            Span::styled(" jp-inspect", t.accent()),
            Span::styled(" │ loading…", t.dim()),
        ]);
        frame.render_widget(Paragraph::new(line), area);
        return;
    };
    // Segments in order of importance; the least important go first when
    // the terminal is narrow.
    let title = crate::core::visible::visible_line(m.conv.title.as_deref().unwrap_or("(untitled)"))
        .into_owned();
    let width = area.width as usize;
    let follow = follow_segment(state, m.conv.turn_count, width);
    let model = state.model_id().unwrap_or_else(|| "model unknown".into());
    let model = if width >= 110 {
        model
    } else {
        model.rsplit('/').next().unwrap_or_default().to_string()
    };
    let mut segments: Vec<(u8, Span)> = vec![
        (4, Span::styled("jp-inspect", t.accent())),
        (0, Span::styled(title, t.title())),
        (2, Span::raw(m.conv.display_id())),
        (1, Span::raw(model)),
        (0, window_segment(state)),
        // The mode decides what a preview or `A` does: kept at any width.
        (0, mode_segment(state)),
        (0, follow),
    ];
    if state.jp_lock {
        // Kept at any width: a write now would be refused.
        segments.insert(2, (0, Span::styled("jp holds the lock", t.error())));
    }
    as_of_segments(state, &mut segments);
    frame.render_widget(Paragraph::new(fitted(segments, width, t)), area);
}

/// The window and the output reserve, where they came from.
fn window_segment(state: &State) -> Span<'static> {
    let budget = state.budget();
    match budget
        .as_ref()
        .and_then(|b| b.window.as_ref().map(|w| (b, w)))
    {
        Some((b, w)) => Span::raw(format!(
            "window {}{}{}",
            human_tokens(w.tokens),
            match w.source {
                WindowSource::Override => " (set)",
                WindowSource::Provider { .. } => " (provider)",
                WindowSource::Table { .. } => "",
            },
            if b.reserve() > 0 {
                let capped = if w.capped_from.is_some() && b.reserve() == w.reserve {
                    " (half)"
                } else {
                    ""
                };
                format!(" − {} out{capped}", human_tokens(b.reserve()))
            } else {
                String::new()
            }
        )),
        None => Span::styled("window unknown", state.theme.error()),
    }
}

/// The policy a preview or `A` follows, and the view.
fn mode_segment(state: &State) -> Span<'static> {
    Span::raw(format!(
        "{}{}",
        match state.settings.config.mode {
            Mode::Single => "single (D50)",
            Mode::Staged => "staged",
        },
        match state.settings.view {
            View::Jp => " · as jp",
            View::Inspect => "",
        }
    ))
}

/// Time travel: the request shown and its bill, outranking everything but
/// the title; following is off meanwhile, so its segment goes.
fn as_of_segments(state: &State, segments: &mut Vec<(u8, Span<'static>)>) {
    let Some(a) = &state.as_of else { return };
    let Some(p) = a.point() else { return };
    segments.insert(
        1,
        (
            0,
            Span::styled(
                format!(
                    "as of request {}/{}, turn {}, {}",
                    a.current + 1,
                    a.points.len(),
                    p.turn + 1,
                    p.timestamp
                        .map(|ts| ts.format("%H:%M").to_string())
                        .unwrap_or_default()
                ),
                state.theme.key(),
            ),
        ),
    );
    if let (Some(b), Some(cost)) = (a.bill(), &a.cost) {
        let broke = match b.broke {
            Some(crate::core::ops::Break::Changed) => " · cache broken",
            Some(crate::core::ops::Break::Expired) => " · cache expired",
            None => "",
        };
        // The cost stays at any width; what the cache did, where there is
        // room for it.
        segments.insert(
            2,
            (0, Span::raw(format!("{}{broke}", cost.unit.format(b.cost)))),
        );
        segments.insert(
            3,
            (
                3,
                Span::raw(format!(
                    "cached {} · wrote {}",
                    human_tokens(b.read),
                    human_tokens(b.written + b.uncached),
                )),
            ),
        );
    }
    segments.retain(|(_, s)| s.content != "follow off" && s.content != "○ follow");
}

/// The segments of the highest importance that fit `width`, separated.
fn fitted(segments: Vec<(u8, Span<'static>)>, width: usize, t: &Theme) -> Line<'static> {
    let fits = |keep: u8| -> bool {
        let kept: Vec<usize> = segments
            .iter()
            .filter(|(p, _)| *p <= keep)
            .map(|(_, s)| s.content.chars().count())
            .collect();
        // " " before the first, " │ " between the others.
        kept.iter().sum::<usize>() + 1 + 3 * kept.len().saturating_sub(1) <= width
    };
    let keep = (0..=4).rev().find(|&k| fits(k)).unwrap_or(0);
    let mut spans = Vec::new();
    for (_, s) in segments.into_iter().filter(|(p, _)| *p <= keep) {
        spans.push(Span::styled(
            if spans.is_empty() { " " } else { " │ " },
            t.dim(),
        ));
        spans.push(s);
    }
    Line::from(spans)
}

pub fn status(frame: &mut Frame, area: Rect, state: &State) {
    let t = &state.theme;
    if let Some(input) = &state.input {
        return prompt(frame, area, state, input);
    }
    let mut spans = Vec::new();
    // Whether the line is the status message (else a preview's).
    let mut message = true;
    let error = state
        .status
        .message
        .as_ref()
        .filter(|(_, level)| *level == Level::Error);
    if let (Some((text, _)), Some(_)) = (error, &state.preview) {
        // A failed write must not hide behind the preview it tried to
        // write: the error first, and the preview stays open to retry.
        spans.push(Span::styled(format!(" {text}"), t.error()));
        spans.push(Span::styled(
            "  the preview is still open: a tries again · Esc drops it",
            t.dim(),
        ));
    } else if let (Some((text, Level::Info)), Some(_), true) = (
        &state.status.message,
        &state.preview,
        state.status.over_preview,
    ) {
        // Said about the open preview (S on one made already): read first,
        // the preview's line comes back when it fades.
        spans.push(Span::styled(format!(" {text}"), t.plain()));
        spans.push(Span::styled(
            "  · preview open: a apply · Esc drop",
            t.dim(),
        ));
    } else if let (Some(p), Some(m)) = (&state.preview, &state.inspection)
        && let Some(before) = &m.before
    {
        message = false;
        preview_line(state, p, m, before, &mut spans);
    } else if let Some((text, level)) = &state.status.message {
        let style = match level {
            Level::Error => t.error(),
            Level::Info => t.plain(),
        };
        spans.push(Span::styled(format!(" {text}"), style));
    }
    if let Some((label, _)) = &state.status.busy {
        let frame_char = SPINNER[state.status.spinner % SPINNER.len()];
        let text = format!(" {frame_char} {label}… ");
        let w = text.chars().count() as u16;
        let left = Rect::new(area.x, area.y, area.width.saturating_sub(w), 1);
        frame.render_widget(Paragraph::new(Line::from(spans)), left);
        let right = Rect::new(
            area.x + area.width.saturating_sub(w),
            area.y,
            w.min(area.width),
            1,
        );
        frame.render_widget(Paragraph::new(Span::styled(text, t.accent())), right);
        return;
    }
    // Where the cursor is, on the right, when the message leaves room.
    if let Some(at) = position(state) {
        let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
        let w = at.chars().count() + 1;
        if used + w + 2 <= area.width as usize {
            let right = Rect::new(area.x + area.width - w as u16, area.y, w as u16, 1);
            frame.render_widget(Paragraph::new(Span::styled(at, t.dim())), right);
        }
    }
    let line = Line::from(spans);
    let width = area.width as usize;
    // A message cut at the edge says where to read the rest.
    let line = if line.width() > width && message && state.status.message.is_some() {
        const MORE: &str = " M: all of it";
        let mut cut = super::fit::fit(line, width.saturating_sub(MORE.len()));
        cut.spans.push(Span::styled(MORE, t.key()));
        super::fit::fit(cut, width)
    } else {
        super::fit::fit(line, width)
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// A prompt and its field: the long prompt only when it leaves room for
/// a real field (what the person types matters more than the hint); the
/// input's error goes to the footer line, never beside the field.
fn prompt(frame: &mut Frame, area: Rect, state: &State, input: &crate::tui::panels::Input) {
    let t = &state.theme;
    let (prompt, short) = match input.kind {
        InputKind::Preview => (" rule (s:..-3, r+t:2.., t=sreq:2..6, auto) › ", " rule › "),
        InputKind::Search => (" search › ", " search › "),
        InputKind::Window => (
            " window (200k, 1m, empty = from the model) › ",
            " window › ",
        ),
        InputKind::Request => (" go to request number › ", " request › "),
    };
    let full = prompt.chars().count() as u16;
    let prompt = if area.width >= full + 24 {
        prompt
    } else {
        short
    };
    let plen = (prompt.chars().count() as u16).min(area.width);
    frame.render_widget(Paragraph::new(Span::styled(prompt, t.key())), area);
    let field = Rect::new(area.x + plen, area.y, area.width - plen, 1);
    frame.render_widget(&input.area, field);
}

/// The open preview's line: the rule and the turns it resolved to, the
/// context before and after, what it keeps, and what to press.
fn preview_line(
    state: &State,
    p: &crate::tui::panels::Preview,
    m: &crate::tui::inspection::Inspection,
    before: &crate::core::ops::Estimate,
    spans: &mut Vec<Span<'static>>,
) {
    let t = &state.theme;
    let (b, a) = (state.context_of(before), state.context_of(&m.estimate));
    spans.push(Span::styled(" PREVIEW ", t.key()));
    // The turns the rule resolved to now (they move as the stream grows).
    let ranges: Vec<String> = p.plan.additions.iter().map(|a| a.range().human()).collect();
    spans.push(Span::raw(format!(
        "{} (turns {}): {} → {} tok ({})",
        p.request.spec(),
        ranges.join(", "),
        thousands(b),
        thousands(a),
        change(b, a)
    )));
    if let Some((survival, grave)) = p.survival() {
        spans.push(Span::styled(
            format!(" · keeps {}", survival.describe()),
            if grave { t.error() } else { t.plain() },
        ));
    }
    let note = p
        .plan
        .notes
        .iter()
        .find(|n| n.is_action())
        .or(p.plan.notes.last());
    if let Some(w) = &p.plan.withheld {
        // What pressing S sends, and where, comes before anything else.
        spans.push(Span::styled(
            format!(
                " · S makes the summary: sends {} to {} · Esc drop",
                crate::core::fmt::count(w.input_chars, "character"),
                w.destination
            ),
            t.accent(),
        ));
    } else {
        if let Some(raises) = p.plan.additions.iter().find_map(|a| a.raises()) {
            spans.push(Span::styled(format!(" · {raises}"), t.error()));
        } else if let Some(note) = note {
            spans.push(Span::styled(format!(" · {note}"), t.dim()));
        }
        spans.push(Span::styled("  a apply · Esc drop", t.dim()));
    }
}

/// `turn 6/32 · event 49 of 286`, 1-based like the turns.
pub fn position(state: &State) -> Option<String> {
    let m = state.inspection.as_ref()?;
    let b = m.layout.block_of(state.nav.cursor);
    let turns = m.layout.blocks();
    let event = match state.selected_raw() {
        // 1-based like the turns beside it (`show --json` numbers from 0).
        Some(i) => format!(" · event {} of {}", i + 1, m.conv.events.len()),
        None => String::new(),
    };
    Some(format!("turn {}/{turns}{event}", b + 1))
}

pub fn footer(frame: &mut Frame, area: Rect, state: &State) {
    let t = &state.theme;
    if let Some(e) = state.input.as_ref().and_then(|i| i.error.as_ref()) {
        let line = Line::from(vec![
            Span::styled(format!(" {e}"), t.error()),
            Span::styled("  Enter retry · Esc cancel", t.dim()),
        ]);
        frame.render_widget(Paragraph::new(line), area);
        return;
    }
    let items = match (&state.input, &state.panel) {
        (Some(_), _) => vec![("Enter", "run"), ("Esc", "cancel")],
        (None, Some(panel)) => panel_keys(panel),
        (None, None) => main_keys(state),
    };
    footer_items(frame, area, state, items);
}

/// The keys of an open panel.
fn panel_keys(panel: &Panel) -> Vec<(&'static str, &'static str)> {
    match panel {
        Panel::Confirm(c) if matches!(c.kind, crate::tui::panels::ConfirmKind::Judge { .. }) => {
            vec![("y", "yes, ask it"), ("n", "no")]
        }
        Panel::Confirm(_) => vec![("y", "yes, write"), ("n", "no")],
        Panel::Summary(e) if e.dropping => {
            vec![("Esc", "again: drop your edit"), ("Ctrl-S", "keep it")]
        }
        Panel::Summary(_) => vec![
            ("Ctrl-S", "keep it"),
            ("Esc", "drop the edit"),
            ("Ctrl-E", "$EDITOR"),
            ("Ctrl-R", "as it was"),
            ("Ctrl-↓/↑", "facts"),
        ],
        // A compaction's detail offers what only it has: its lost facts,
        // and a judge of one's own.
        Panel::Detail(d) if d.title.starts_with("compaction #") => vec![
            ("j/k", "scroll"),
            ("F", "lost facts"),
            ("J", "judge"),
            ("r", "stored/readable"),
            ("w", "wrap"),
            ("/", "search"),
            ("Esc", "close"),
        ],
        Panel::Detail(_) => vec![
            ("j/k", "scroll"),
            ("PgDn/PgUp", "page"),
            ("r", "stored/readable"),
            ("w", "wrap"),
            ("/", "search"),
            ("Esc", "close"),
        ],
        Panel::Simulation(_) => {
            vec![("←/→", "window"), ("Esc", "close"), ("q", "close")]
        }
        Panel::Help { .. } | Panel::Messages { .. } => {
            vec![("j/k", "scroll"), ("any key", "close")]
        }
        Panel::Tools(v) => match (&v.write, &v.calls) {
            (Some(_), _) => vec![("y", "write"), ("n", "don't"), ("Tab", "another file")],
            (None, Some(_)) => vec![("j/k", "move"), ("Enter", "jump to it"), ("Esc", "back")],
            (None, None) => vec![
                ("j/k", "move"),
                ("Tab", "sort"),
                ("Enter", "calls"),
                ("a", "write hint"),
                ("Esc", "close"),
            ],
        },
        Panel::Largest(l) => {
            let enter = match l.entries.get(l.cursor).map(|e| &e.origin) {
                Some(crate::core::ops::largest::Origin::Overhead(_)) => "open it",
                _ => "jump to it",
            };
            vec![("j/k", "move"), ("Enter", enter), ("Esc", "close")]
        }
    }
}

/// The main screen's keys: on a load error, in time travel, or the
/// essentials first (footer_items drops from the end).
fn main_keys(state: &State) -> Vec<(&'static str, &'static str)> {
    if state.inspection.is_none() && state.load_error.is_some() {
        return vec![
            (key(Scope::Main, Action::Quit), "quit"),
            (key(Scope::Main, Action::Follow), "wait for a fix"),
            (key(Scope::Main, Action::Help), "help"),
        ];
    }
    if state.as_of.is_some() {
        return vec![
            ("[/]", "previous/next request"),
            (key(Scope::AsOf, Action::AsOf), "back to now"),
            (key(Scope::Main, Action::OpenDetail), "detail"),
            (key(Scope::Main, Action::Quit), "quit"),
        ];
    }
    let mut v = vec![
        (key(Scope::Main, Action::Quit), "quit"),
        (key(Scope::Main, Action::Help), "help"),
        (key(Scope::Main, Action::Preview), "preview"),
    ];
    if state.preview.is_some() {
        v.push((key(Scope::Main, Action::Apply), "apply"));
        v.push(("Esc", "drop"));
    }
    v.extend([
        (key(Scope::Main, Action::Simulation), "simulate"),
        (key(Scope::Main, Action::Search), "search"),
    ]);
    // Only an undo that can still be made is offered.
    let conv = state.inspection.as_ref().map(|m| m.conv.as_ref());
    if matches!(state.history.next(false, conv), Some((_, None))) {
        v.push((key(Scope::Main, Action::Undo), "undo"));
    }
    // And after an undo, the redo that can still be made.
    if matches!(state.history.next(true, conv), Some((_, None))) {
        v.push((key(Scope::Main, Action::Redo), "redo"));
    }
    v.extend([
        (key(Scope::Main, Action::ResetAuto), "reset auto"),
        (key(Scope::Main, Action::ResetAll), "reset all"),
        (key(Scope::Main, Action::Delete), "delete"),
        (key(Scope::Main, Action::SetWindow), "window"),
        (key(Scope::Main, Action::ToggleMode), "mode"),
        (key(Scope::Main, Action::Follow), "follow"),
        ("Tab", "pane"),
        ("Enter", "detail"),
    ]);
    v
}

/// The items that fit, whole: a narrow terminal drops them from the end
/// rather than cutting one in half (`?` lists them all).
fn footer_items(frame: &mut Frame, area: Rect, state: &State, items: Vec<(&str, &str)>) {
    let t = &state.theme;
    let width = |(k, what): &(&str, &str)| k.chars().count() + what.chars().count() + 3;
    let mut used = 0;
    let fitting = items.into_iter().take_while(|item| {
        used += width(item);
        used <= area.width as usize
    });
    let mut spans = Vec::new();
    for (k, what) in fitting {
        spans.push(Span::styled(format!(" {k}"), t.key()));
        spans.push(Span::styled(format!(" {what} "), t.dim()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn key(scope: Scope, command: Action) -> &'static str {
    keys::key_for(scope, command).unwrap_or("?")
}

/// Whether the view follows the file, a replay's progress, or that the
/// file changed on disk unseen.
fn follow_segment(state: &State, turns: usize, width: usize) -> Span<'static> {
    let t = &state.theme;
    match (state.settings.follow, width >= 100) {
        _ if let Some(r) = &state.replay => {
            let (total, pace) = (r.total, r.pace);
            let text = match (r.done, pace.paused) {
                (true, _) => format!("replay done {turns}/{total}"),
                (false, true) => format!("⏸ replay {turns}/{total} paused"),
                (false, false) => format!(
                    "▶ replay {turns}/{total} · {} · auto",
                    humantime::format_duration(pace.every)
                ),
            };
            Span::styled(text, t.ok())
        }
        (false, _) if state.changed_on_disk.is_some() => {
            Span::styled("changed on disk · r reloads", t.error())
        }
        (true, _) if state.settings.auto_run => Span::styled("● following · auto", t.ok()),
        (true, _) => Span::styled("● following", t.ok()),
        (false, true) => Span::styled("follow off", t.dim()),
        (false, false) => Span::styled("○ follow", t.dim()),
    }
}
