//! The conversation picker: one line per conversation, most recently
//! active first; the columns filled by reading a conversation show `…`
//! until it is read.

use crate::core::compact::window::human_bytes;
use crate::core::fmt::thousands;
use crate::tui::picker::Picker;
use crate::tui::state::State;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn draw(frame: &mut Frame, area: Rect, p: &Picker, state: &State) {
    let t = &state.theme;
    let width = area.width as usize;
    let visible = p.visible();
    let header = Line::from(vec![
        Span::styled(" jp-inspect", t.accent()),
        Span::styled(" │ ", t.dim()),
        Span::styled(p.workspace.display().to_string(), t.title()),
        Span::styled(
            format!(
                " │ {} conversations{}",
                p.listings.len(),
                if p.filled() < p.listings.len() {
                    format!(" · reading {}/{}", p.filled(), p.listings.len())
                } else {
                    String::new()
                }
            ),
            t.dim(),
        ),
    ]);
    let filter = Line::from(vec![
        Span::styled(" filter: ", t.dim()),
        Span::styled(format!("{}▏", p.filter), t.key()),
        Span::styled(
            format!("  {} of {} shown", visible.len(), p.listings.len()),
            t.dim(),
        ),
    ]);
    // Narrow terminals drop the less important columns, never the title.
    let wide = width >= 110;
    let columns = if wide {
        format!(
            " {:<16} {:>5} {:>6} {:>9} {:>4} {:>5} {:<3} {:<19}  title",
            "id", "turns", "events", "size", "ctx", "m/a", "jp", "last activity"
        )
    } else {
        format!(
            " {:>5} {:>4} {:>5} {:<3} {:<11}  title",
            "turns", "ctx", "m/a", "jp", "last"
        )
    };
    let mut lines = vec![
        header,
        filter,
        Line::from(Span::styled(format!("{columns:<width$}"), t.header_row())),
    ];
    let rows = (area.height as usize).saturating_sub(lines.len() + 1);
    let first = p.cursor.saturating_sub(rows.saturating_sub(1));
    for (k, &i) in visible.iter().enumerate().skip(first).take(rows) {
        let l = &p.listings[i];
        let d = l.details.as_ref();
        let num = |f: &dyn Fn(&crate::core::ops::catalog::Details) -> String| match d {
            None => "…".to_string(),
            Some(Ok(d)) => f(d),
            Some(Err(_)) => "!".to_string(),
        };
        let turns = num(&|d| thousands(d.turns as u64));
        let events = num(&|d| thousands(d.events as u64));
        let ctx = num(&|d| {
            d.context_ratio
                .map_or("-".into(), |r| format!("{:.0}%", r * 100.0))
        });
        let comp = num(&|d| format!("{}/{}", d.manual, d.auto));
        let locked = if l.locked { "jp" } else { "" };
        let title = crate::core::visible::visible_line(l.title.as_deref().unwrap_or("(untitled)"));
        let title = match (&l.location, d) {
            (_, Some(Err(e))) => format!(
                "{title}  [unreadable: {}]",
                crate::core::visible::visible_line(e)
            ),
            (crate::core::store::workspace::Location::User, _) => {
                format!("{title}  (user storage)")
            }
            _ => title.into_owned(),
        };
        let text = if wide {
            format!(
                " {:<16} {:>5} {:>6} {:>9} {:>4} {:>5} {:<3} {:<19}  {title}",
                l.id,
                turns,
                events,
                human_bytes(l.size),
                ctx,
                comp,
                locked,
                l.when()
            )
        } else {
            let when = l.when();
            let short = when.get(5..16).unwrap_or(&when).to_string();
            format!(" {turns:>5} {ctx:>4} {comp:>5} {locked:<3} {short:<11}  {title}")
        };
        let text: String = text.chars().take(width).collect();
        let mut line = Line::from(Span::raw(format!("{text:<width$}")));
        if k == p.cursor {
            line = line.style(t.selected());
        } else if l.locked {
            line = line.style(t.ok());
        }
        lines.push(line);
    }
    if visible.is_empty() {
        lines.push(Line::from(Span::styled(
            "  nothing matches the filter (Esc clears it)",
            t.dim(),
        )));
    }
    frame.render_widget(Paragraph::new(lines), area);
    let footer = Rect::new(
        area.x,
        area.y + area.height.saturating_sub(1),
        area.width,
        1,
    );
    let keys = [
        ("type", "filter"),
        ("↑/↓", "move"),
        ("Enter", "open"),
        ("Esc", "clear"),
        ("q", "quit"),
    ];
    let mut spans = Vec::new();
    let mut used = 0;
    for (k, what) in keys {
        used += k.len() + what.len() + 3;
        if used > width {
            break;
        }
        spans.push(Span::styled(format!(" {k}"), t.key()));
        spans.push(Span::styled(format!(" {what} "), t.dim()));
    }
    if let Some((msg, _)) = &state.status.message {
        spans.push(Span::styled(format!("  {msg}"), t.error()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), footer);
}
