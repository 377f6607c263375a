//! The tools view (`T`): per tool its calls, tokens, errors, calls made
//! again, its share of the context now and over the session, and the hint
//! its shape suggests with what the staged policy's replay says it saves;
//! a tool's calls; the question before a hint is written.

use crate::core::fmt::{signed_thousands, thousands};
use crate::core::ops::tools::ToolsReport;
use crate::core::visible::visible_line;
use crate::tui::state::State;
use crate::tui::tools_view::{Column, ToolsView};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

pub fn draw(frame: &mut Frame, area: Rect, v: &ToolsView, state: &State) {
    let t = &state.theme;
    let title = match (&v.calls, &v.report) {
        (Some(c), _) => format!(
            " calls of {} · {} · Enter jumps to one · Esc back ",
            visible_line(&c.tool),
            c.calls.len()
        ),
        (None, Some(Ok(r))) => format!(
            " tools · {} by {} · Tab sorts · Enter lists the calls · a writes the hint ",
            r.tools.len(),
            v.sort.label()
        ),
        _ => " tools ".to_string(),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.accent())
        .title(Span::styled(
            super::fit::title(title, area.width),
            t.title(),
        ));
    let inner = block.inner(area);
    frame.render_widget(Clear, area);
    frame.render_widget(block, area);
    let report = match &v.report {
        None => {
            let waiting = "weighing the tools: replaying the staged policy with each hint …";
            frame.render_widget(Paragraph::new(Span::styled(waiting, t.dim())), inner);
            return;
        }
        Some(Err(e)) => {
            frame.render_widget(Paragraph::new(Span::styled(e.clone(), t.error())), inner);
            return;
        }
        Some(Ok(r)) => r,
    };
    if report.tools.is_empty() {
        let none = "no tool calls in this conversation";
        frame.render_widget(Paragraph::new(Span::styled(none, t.dim())), inner);
        return;
    }
    // The lower part says what the selected tool's hint is and does, in
    // as many rows as its words take, leaving the table a header and
    // three rows at least.
    let foot_text = Paragraph::new(foot_lines(v, report, state)).wrap(Wrap { trim: false });
    let needed = u16::try_from(foot_text.line_count(inner.width)).unwrap_or(u16::MAX);
    let foot_rows = needed.min(inner.height.saturating_sub(4));
    let list = Rect::new(inner.x, inner.y, inner.width, inner.height - foot_rows);
    let foot = Rect::new(inner.x, list.y + list.height, inner.width, foot_rows);
    match &v.calls {
        Some(c) => calls(frame, list, c, state),
        None => table(frame, list, v, state),
    }
    frame.render_widget(foot_text, foot);
}

/// The tools, a row each, sorted as the person chose, the cursor's row
/// scrolled into view.
fn table(frame: &mut Frame, list: Rect, v: &ToolsView, state: &State) {
    let t = &state.theme;
    let width = list.width as usize;
    let rows = v.rows();
    let height = (list.height as usize).saturating_sub(1).max(1);
    let first = v.cursor.saturating_sub(height.saturating_sub(1));
    // Below 110 columns the request, error and now columns go: the
    // response, the session's share and the hint say the most.
    let wide = width >= 110;
    let name_w = if wide {
        width.saturating_sub(80).clamp(12, 32)
    } else {
        width.saturating_sub(58).clamp(8, 24)
    };
    let mut lines = vec![Line::from(Span::styled(
        header(v, wide, name_w),
        t.header_row(),
    ))];
    for (k, r) in rows.iter().enumerate().skip(first).take(height) {
        let name: String = visible_line(&r.name).chars().take(name_w).collect();
        let hint = r.hint.as_deref().unwrap_or("-");
        let saves = r.saves.map_or("-".to_string(), signed_thousands);
        let text = if wide {
            format!(
                "{name:<name_w$}  {:>5}  {:>8}  {:>8}  {:>4}  {:>4}  {:>4.1}%  {:>4.1}%  {hint:<15} {saves:>9} ",
                thousands(r.calls as u64),
                thousands(r.request_tokens),
                thousands(r.response_tokens),
                r.errors,
                r.refetched,
                r.share_now * 100.0,
                r.share_session * 100.0,
            )
        } else {
            format!(
                "{name:<name_w$}  {:>5}  {:>8}  {:>3}  {:>4.1}%  {hint:<15} {saves:>8} ",
                thousands(r.calls as u64),
                thousands(r.response_tokens),
                r.refetched,
                r.share_session * 100.0,
            )
        };
        let mut line = Line::from(Span::raw(text));
        if k == v.cursor {
            line = line.style(t.selected());
        }
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), list);
}

/// The table's header, the sorted column marked.
fn header(v: &ToolsView, wide: bool, name_w: usize) -> String {
    let mark = |c: Column| if c == v.sort { "▼" } else { " " };
    if wide {
        format!(
            "{:<name_w$}{} {:>5}{} {:>8}{} {:>8}{} {:>4}{} {:>4}{} {:>5}{} {:>5}{}  {:<15} {:>9}{}",
            "tool",
            mark(Column::Name),
            "calls",
            mark(Column::Calls),
            "request",
            mark(Column::Request),
            "response",
            mark(Column::Response),
            "err",
            mark(Column::Errors),
            "agn",
            mark(Column::Again),
            "now",
            mark(Column::Now),
            "sess",
            mark(Column::Session),
            "hint",
            "saves",
            mark(Column::Saves),
        )
    } else {
        format!(
            "{:<name_w$}{} {:>5}{} {:>8}{} {:>3}{} {:>5}{} {:<15} {:>8}{}",
            "tool",
            mark(Column::Name),
            "calls",
            mark(Column::Calls),
            "response",
            mark(Column::Response),
            "agn",
            mark(Column::Again),
            "sess",
            mark(Column::Session),
            "hint",
            "saves",
            mark(Column::Saves),
        )
    }
}

/// A tool's calls, a line each: its turn and its arguments.
fn calls(frame: &mut Frame, list: Rect, c: &crate::tui::tools_view::Calls, state: &State) {
    let t = &state.theme;
    let width = list.width as usize;
    let rows = (list.height as usize).saturating_sub(1).max(1);
    let first = c.cursor.saturating_sub(rows.saturating_sub(1));
    let mut lines = vec![Line::from(Span::styled(
        format!("{:>5} {:>6}  arguments", "#", "turn"),
        t.header_row(),
    ))];
    for (k, call) in c.calls.iter().enumerate().skip(first).take(rows) {
        let head = format!("{:>5} {:>6}  ", k + 1, call.turn + 1);
        let room = width.saturating_sub(head.chars().count());
        let text: String = visible_line(&call.text).chars().take(room).collect();
        let mut line = Line::from(vec![Span::raw(head), Span::styled(text, t.dim())]);
        if k == c.cursor {
            line = line.style(t.selected());
        }
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), list);
}

/// What the selected tool's hint is and does, or the question before it
/// is written.
fn foot_lines<'a>(v: &ToolsView, report: &ToolsReport, state: &'a State) -> Vec<Line<'a>> {
    let t = &state.theme;
    let mut lines: Vec<Line> = Vec::new();
    if let Some(w) = &v.write {
        let file = w
            .files
            .get(w.chosen)
            .map(|f| visible_line(&f.display().to_string()).into_owned())
            .unwrap_or_default();
        lines.push(Line::from(vec![
            Span::styled(
                format!("Write `{}` for {} into ", w.hint, visible_line(&w.tool)),
                t.key(),
            ),
            Span::styled(file, t.title()),
            Span::styled("?  y yes · n no · Tab another file", t.key()),
        ]));
        let block = crate::core::ops::hint::block(&w.tool, &w.hint);
        lines.extend(
            block
                .lines()
                .map(|l| Line::from(Span::styled(format!("  {}", visible_line(l)), t.dim()))),
        );
    } else if let Some(r) = v.selected().filter(|_| v.calls.is_none()) {
        match (&r.hint, &r.why) {
            (Some(h), Some(why)) => {
                let at = report.replayed_at().join("; ");
                let effect = r.effect();
                lines.push(Line::from(vec![
                    Span::styled(format!("{}: {h}", visible_line(&r.name)), t.key()),
                    Span::styled(format!(" — {why}"), t.dim()),
                ]));
                lines.push(Line::from(Span::styled(
                    format!("the staged policy replayed with it {at}: {effect}"),
                    t.dim(),
                )));
                lines.push(Line::from(Span::styled(
                    format!(
                        "a writes [{}] compaction = \"{h}\" (today's jp refuses it under \
                         [conversation.tools.{}])",
                        visible_line(&crate::core::ops::hint::table(&r.name)),
                        visible_line(&r.name)
                    ),
                    t.dim(),
                )));
            }
            _ => lines.push(Line::from(Span::styled(
                format!(
                    "{}: no hint suggested; its shape is none of the clear cases",
                    visible_line(&r.name)
                ),
                t.dim(),
            ))),
        }
    }
    lines
}
