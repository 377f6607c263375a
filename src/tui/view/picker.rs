//! The conversation picker: one line per conversation, in the chosen
//! order; the columns filled by reading a conversation show `…` until it is
//! read. A narrow terminal drops number columns before the title shrinks.

use crate::core::fmt::thousands;
use crate::core::ops::catalog::{Details, Listing};
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
    let columns = columns_for(width, p.sort);
    let head: String = columns.iter().map(|c| c.pad(c.name())).collect();
    let mut lines = vec![
        super::fit::fit(header(p, state), width),
        super::fit::fit(filter(p, state, visible.len()), width),
        Line::from(Span::styled(
            format!("{:<width$}", format!("{head}  title")),
            t.header_row(),
        )),
    ];
    let rows = (area.height as usize).saturating_sub(lines.len() + 1);
    let first = p.cursor.saturating_sub(rows.saturating_sub(1));
    for (k, &i) in visible.iter().enumerate().skip(first).take(rows) {
        let l = &p.listings[i];
        let cells: String = columns.iter().map(|c| c.pad(&c.cell(l))).collect();
        let text = format!("{cells}  {}", title_of(l));
        let mut line = super::fit::fit(Line::raw(format!("{text:<width$}")), width);
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
    frame.render_widget(Paragraph::new(keys(p, state, width)), footer);
    if p.help {
        help(frame, area, state);
    }
}

/// The workspace, how many conversations, the order and the reading.
fn header(p: &Picker, state: &State) -> Line<'static> {
    let t = &state.theme;
    Line::from(vec![
        Span::styled(" jp-inspect", t.accent()),
        Span::styled(" │ ", t.dim()),
        Span::styled(p.workspace.display().to_string(), t.title()),
        Span::styled(
            format!(
                " │ {} conversations · by {} (Tab){}",
                p.listings.len(),
                p.sort.label(),
                if p.filled() < p.listings.len() {
                    format!(" · reading {}/{}", p.filled(), p.listings.len())
                } else {
                    String::new()
                }
            ),
            t.dim(),
        ),
    ])
}

/// The filter as typed, and how many it shows.
fn filter(p: &Picker, state: &State, shown: usize) -> Line<'static> {
    let t = &state.theme;
    Line::from(vec![
        Span::styled(
            if p.typing {
                " filter (every key types): "
            } else {
                " filter: "
            },
            t.dim(),
        ),
        Span::styled(format!("{}▏", p.filter), t.key()),
        Span::styled(format!("  {shown} of {} shown", p.listings.len()), t.dim()),
    ])
}

/// The keys that fit, whole, and a status message after them.
fn keys<'a>(p: &Picker, state: &'a State, width: usize) -> Line<'a> {
    let t = &state.theme;
    // Once a filter has text (or `/` was pressed) `q` and `?` type into
    // it: the bar says what quits and helps then.
    let typing = p.typing || !p.filter.is_empty();
    let keys: &[(&str, &str)] = if typing {
        &[
            ("type", "filter"),
            ("↑/↓", "move"),
            ("Enter", "open"),
            ("Tab", "sort"),
            ("Esc", "clear the filter"),
            ("Ctrl-C", "quit"),
        ]
    } else {
        &[
            ("type", "filter"),
            ("↑/↓", "move"),
            ("Enter", "open"),
            ("Tab", "sort"),
            ("q/Esc", "quit"),
            ("?", "help"),
            ("/", "type q or ?"),
        ]
    };
    let mut spans = Vec::new();
    let mut used = 0;
    for &(k, what) in keys {
        used += k.chars().count() + what.chars().count() + 3;
        if used > width {
            break;
        }
        spans.push(Span::styled(format!(" {k}"), t.key()));
        spans.push(Span::styled(format!(" {what} "), t.dim()));
    }
    if let Some((msg, _)) = &state.status.message {
        spans.push(Span::styled(format!("  {msg}"), t.error()));
    }
    Line::from(spans)
}

/// A column of the list, by how much it matters: a narrow terminal keeps
/// the first ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Context,
    Turns,
    Last,
    Compactions,
    Jp,
    Size,
    Id,
    Events,
}

/// The order they are shown in, left to right.
const SHOWN_ORDER: [Column; 8] = [
    Column::Id,
    Column::Turns,
    Column::Events,
    Column::Size,
    Column::Context,
    Column::Compactions,
    Column::Jp,
    Column::Last,
];

/// The order they are dropped in is the reverse of this.
const IMPORTANCE: [Column; 8] = [
    Column::Context,
    Column::Turns,
    Column::Last,
    Column::Compactions,
    Column::Jp,
    Column::Size,
    Column::Id,
    Column::Events,
];

/// The columns that fit `width` beside a title of at least 28 columns, or
/// 45 % of a wide terminal: the title is what a person picks by. The
/// column the list is sorted by is kept first: an order is read by it.
fn columns_for(width: usize, sort: crate::tui::picker::SortKey) -> Vec<Column> {
    use crate::tui::picker::SortKey;
    let sorted = match sort {
        SortKey::Activity => Some(Column::Last),
        SortKey::Size => Some(Column::Size),
        SortKey::Context => Some(Column::Context),
        SortKey::Compactions => Some(Column::Compactions),
        SortKey::Title => None,
    };
    let mut used = 2 + (width * 45 / 100).max(28);
    let mut kept = Vec::new();
    for c in sorted
        .into_iter()
        .chain(IMPORTANCE.into_iter().filter(|&c| Some(c) != sorted))
    {
        if used + c.width() < width {
            used += c.width() + 1;
            kept.push(c);
        }
    }
    SHOWN_ORDER
        .into_iter()
        .filter(|c| kept.contains(c))
        .collect()
}

impl Column {
    fn name(self) -> &'static str {
        match self {
            Column::Context => "ctx",
            Column::Turns => "turns",
            Column::Last => "last activity",
            Column::Compactions => "m/a",
            Column::Jp => "jp",
            Column::Size => "size",
            Column::Id => "id",
            Column::Events => "events",
        }
    }

    fn width(self) -> usize {
        match self {
            Column::Context => 4,
            Column::Turns => 5,
            Column::Last => 16,
            Column::Compactions => 5,
            Column::Jp => 2,
            Column::Size => 9,
            Column::Id => 16,
            Column::Events => 6,
        }
    }

    /// `text` in the column: words to the left, numbers to the right.
    fn pad(self, text: &str) -> String {
        let w = self.width();
        match self {
            Column::Id | Column::Last | Column::Jp => format!(" {text:<w$}"),
            _ => format!(" {text:>w$}"),
        }
    }

    fn cell(self, l: &Listing) -> String {
        let num = |f: &dyn Fn(&Details) -> String| match l.details.as_ref() {
            None => "…".to_string(),
            Some(Ok(d)) => f(d),
            Some(Err(_)) => "!".to_string(),
        };
        match self {
            Column::Context => num(&|d| {
                d.context_ratio
                    .map_or("-".into(), |r| format!("{:.0}%", r * 100.0))
            }),
            Column::Turns => num(&|d| thousands(d.turns as u64)),
            Column::Events => num(&|d| thousands(d.events as u64)),
            Column::Compactions => num(&|d| format!("{}/{}", d.manual, d.auto)),
            Column::Jp => if l.locked { "jp" } else { "" }.into(),
            Column::Size => crate::core::model::byte_size::column(l.size),
            Column::Id => l.id.clone(),
            Column::Last => {
                let when = l.when();
                when.get(..16).unwrap_or(&when).to_string()
            }
        }
    }
}

/// The title as shown, with what it is if unreadable or in user storage.
fn title_of(l: &Listing) -> String {
    let title = crate::core::visible::visible_line(l.title.as_deref().unwrap_or("(untitled)"));
    match (&l.location, l.details.as_ref()) {
        (_, Some(Err(e))) => format!(
            "{title}  [unreadable: {}]",
            crate::core::visible::visible_line(e)
        ),
        (crate::core::ops::Location::User, _) => format!("{title}  (user storage)"),
        _ => title.into_owned(),
    }
}

/// `?`: the picker's keys.
fn help(frame: &mut Frame, area: Rect, state: &State) {
    use ratatui::widgets::{Block, Borders, Clear};
    let t = &state.theme;
    let rows = [
        ("letters", "filter by title, id or folder (smart case)"),
        ("/", "type a filter that starts with q or ?"),
        ("↑/↓ PgUp/PgDn Home/End", "move"),
        ("Enter", "open the conversation (q in it comes back here)"),
        (
            "Tab / Shift-Tab",
            "order by activity, size, context %, compactions, title",
        ),
        ("Esc", "clear the filter; on an empty one, quit"),
        ("Ctrl-U", "clear the filter"),
        ("q / Ctrl-C", "quit"),
        ("?", "this help (any key closes it)"),
    ];
    let lines: Vec<Line> = rows
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!(" {k:<24}"), t.key()),
                Span::raw(*what),
            ])
        })
        .collect();
    let w = (area.width.saturating_sub(4)).min(76);
    let h = (lines.len() as u16 + 2).min(area.height);
    let r = Rect::new(
        area.x + (area.width.saturating_sub(w)) / 2,
        area.y + (area.height.saturating_sub(h)) / 2,
        w,
        h,
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.accent())
        .title(Span::styled(" picker keys ", t.title()));
    frame.render_widget(Clear, r);
    frame.render_widget(Paragraph::new(lines).block(block), r);
}
