//! The compaction list: position, source, range, policies, time, saved.

use crate::core::fmt::signed_thousands;
use crate::core::ops::Mark;
use crate::tui::inspection::CompactionRow;
use crate::tui::state::{Focus, State};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The policies column: a longer label is cut with `…` so the saving
/// after it stays in its column (Enter shows the whole compaction).
const POLICIES_WIDTH: usize = 32;

fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

pub fn draw(frame: &mut Frame, area: Rect, state: &State) {
    let t = &state.theme;
    let Some(m) = &state.inspection else {
        return;
    };
    if area.height == 0 {
        return;
    }
    let focused = state.nav.focus == Focus::Compactions;
    let visible = area.height.saturating_sub(1) as usize;
    let first = state
        .nav
        .list_cursor
        .saturating_sub(visible.saturating_sub(1));
    let mut lines = vec![Line::from(vec![
        Span::styled(
            format!(" compactions ({}) ", m.compactions.len()),
            if focused { t.accent() } else { t.title() },
        ),
        Span::styled(
            match (m.as_of.is_some(), t.color) {
                // As of a request, no saving is shown: a saving is a figure
                // of the whole stream now, not of that moment.
                (true, _) => "as of a request: savings are the stream's now, Esc shows them · ",
                (false, true) => "Tab selects · d deletes · Enter shows it · the band colours: ",
                (false, false) => "Tab selects · d deletes · Enter shows it · the bands: ",
            },
            t.dim(),
        ),
        Span::styled(
            format!(
                "{} manual ",
                t.band_char(crate::core::model::compaction::Source::Manual, false, true)
            ),
            t.band(crate::core::model::compaction::Source::Manual, false),
        ),
        Span::styled(
            format!(
                "{} auto ",
                t.band_char(crate::core::model::compaction::Source::Auto, false, true)
            ),
            t.band(crate::core::model::compaction::Source::Auto, false),
        ),
        Span::styled(
            "┇ preview",
            t.band(crate::core::model::compaction::Source::Manual, true),
        ),
    ])];
    let marks = state
        .list_marks
        .as_ref()
        .filter(|(g, _)| *g == state.generation)
        .map(|(_, m)| m);
    let tails: Vec<String> = m
        .compactions
        .iter()
        .skip(first)
        .take(visible)
        .map(|r| tail(r, marks.and_then(|m| m.get(&r.position))))
        .collect();
    let widest = tails.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    let policies = policies_width(area.width as usize, widest);
    for ((k, r), tail) in m
        .compactions
        .iter()
        .enumerate()
        .skip(first)
        .take(visible)
        .zip(&tails)
    {
        let chip = match r.source {
            Some(s) => Span::styled(
                format!(" {} ", t.band_char(s, r.preview, true)),
                t.band(s, r.preview),
            ),
            None => Span::styled(" ! ", t.error()),
        };
        let text = match &r.invalid {
            Some(why) => format!(
                "#{:<3} INVALID, left out of the projection: {why}",
                r.position + 1
            ),
            None => row(r, tail, policies, area.width as usize),
        };
        let mut style = if r.preview {
            t.dim().add_modifier(Modifier::ITALIC)
        } else {
            t.plain()
        };
        if focused && k == state.nav.list_cursor {
            style = t.selected();
        }
        let mut line = Line::from(vec![chip, Span::styled(text, style)]);
        if focused && k == state.nav.list_cursor {
            line = line.style(t.selected());
        }
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// What the model still knows of a compaction's range (`!` when it lost
/// an instruction or an unfixed error), whether today's jp differs, and a
/// warning: what follows the saving.
fn tail(r: &CompactionRow, mark: Option<&Mark>) -> String {
    let mut tail = String::new();
    if let Some(mk) = mark {
        let grave = if mk.grave { "!" } else { "" };
        tail.push_str(&format!("  {grave}knows {}/{}", mk.kept, mk.total));
    }
    if r.jp_differs.is_some() {
        tail.push_str("  ≠jp");
    }
    if let Some(w) = r.warning {
        tail.push_str(&format!("  ⚠ {w}"));
    }
    tail
}

/// The policies column's width: a narrow list keeps every row's tail by
/// narrowing it (Enter shows the whole), one width for all rows so the
/// columns line up.
fn policies_width(width: usize, widest_tail: usize) -> usize {
    let time = if width >= 100 { TIME_WIDTH } else { 0 };
    width
        .saturating_sub(ROW_FIXED + time + widest_tail)
        .clamp(POLICIES_MIN, POLICIES_WIDTH)
}

/// A compaction's row: what it is, its saving, then its tail; the time
/// and the payback only where there is room.
fn row(r: &CompactionRow, tail: &str, policies: usize, width: usize) -> String {
    // "As of" shows no saving: it is a figure of the whole stream, not of
    // that moment.
    let saved = r.saved.map_or_else(|| "—".into(), signed_thousands);
    let mut s = format!(
        "#{:<3} {:<8} turns {:<9} {:<policies$} saved {:>8}",
        r.position + 1,
        if r.preview {
            "preview"
        } else {
            r.source.map_or("?", |s| s.as_str())
        },
        r.range.map(|x| x.human()).unwrap_or_default(),
        fit(&r.policies, policies),
        saved
    );
    if width >= 100 {
        s.push_str(&format!("   {}", r.time.clone().unwrap_or_default()));
    }
    s.push_str(tail);
    // Last, so a narrow list cuts it first.
    if width >= 140
        && let Some((p, _)) = &r.payback
    {
        s.push_str(&format!("   {}", pays(p)));
    }
    s
}

/// The time column: three spaces and `2026-11-12 14:05:18`.
const TIME_WIDTH: usize = 3 + 19;
/// The row's characters besides the policies column and what follows the
/// saving: the band chip, position, origin, range and saving.
const ROW_FIXED: usize = 3 + 5 + 9 + 6 + 10 + 7 + 8;
/// The narrowest the policies column gets: enough to tell them apart.
const POLICIES_MIN: usize = 12;

/// When a compaction pays for itself, in a few words.
fn pays(p: &crate::core::ops::Payback) -> String {
    match p.requests {
        None if p.free() => "free model".into(),
        None => "adds: never pays".into(),
        Some(1) => "pays at once".into(),
        Some(n) => format!("pays after {n} req"),
    }
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn a_long_policy_label_is_cut_to_its_column() {
        assert_eq!(fit("summary", 32), "summary");
        let long = "summary + reasoning + tools(strip-requests>1024B)";
        let cut = fit(long, 32);
        assert_eq!(cut.chars().count(), 32);
        assert!(cut.ends_with('…'));
    }
}
