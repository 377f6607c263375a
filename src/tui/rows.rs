//! The rows on screen, prepared from the state for drawing: what each side
//! of a visible row shows, with its band and search mark.

use super::inspection::{Cell, Inspection};
use crate::core::model::compaction::Source;
use crate::core::model::event::Kind;
use crate::core::ops::Alteration;
use crate::core::ops::{Fate, Projected, SummaryPart};
use std::collections::HashMap;

/// Width of a one-line excerpt kept in the cache (wide terminals).
const EXCERPT_CHARS: usize = 240;

/// A compaction band in a pane's gutter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    pub source: Source,
    pub preview: bool,
    /// The compaction decided this row's event (not merely covers its turn).
    pub decided: bool,
    /// The compaction selected in the list: its band stands out.
    pub selected: bool,
}

/// What one side of a visible row shows, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub enum Side {
    Header {
        title: String,
        detail: String,
    },
    Event {
        kind: Kind,
        label: String,
        text: String,
        tokens: u64,
        fate: Fate,
        /// An injected summary event.
        summary: bool,
        band: Option<Band>,
        hit: bool,
        /// After the request shown "as of" (time travel): not sent yet.
        later: bool,
        /// A tool call jp is running: its result is not written yet.
        waiting: bool,
    },
    Covered {
        text: String,
        band: Option<Band>,
    },
    Blank {
        band: Option<Band>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub row: usize,
    pub block: usize,
    pub raw: Side,
    pub projected: Side,
}

/// The excerpts already decoded, by (projected side, event, width).
pub type Excerpts = HashMap<(bool, usize, u64), String>;

/// The rows `height` rows from `scroll` show, and the sticky header pair
/// when scrolled into a turn (previews come from `excerpts`, so scrolling
/// does not decode the same events again).
pub fn prepare(
    m: &Inspection,
    scroll: usize,
    height: usize,
    hits: &std::collections::HashSet<usize>,
    excerpts: &mut Excerpts,
) -> (Vec<Row>, Option<(Side, Side)>) {
    let end = (scroll + height).min(m.layout.rows());
    let mut rows = Vec::with_capacity(end.saturating_sub(scroll));
    for row in scroll..end {
        let (b, raw, proj) = m.layout.cells(row);
        let raw_side = side_raw(m, b, raw, hits, excerpts);
        let proj_side = side_projected(m, b, proj, hits, excerpts);
        rows.push(Row {
            row,
            block: b,
            raw: raw_side,
            projected: proj_side,
        });
    }
    let sticky = rows
        .first()
        .filter(|r| !matches!(r.raw, Side::Header { .. }))
        .map(|r| (header(m, r.block, false), header(m, r.block, true)));
    // Bound the cache: a long session of scrolling must not keep every
    // preview of a million-event conversation.
    if excerpts.len() > 20_000 {
        excerpts.clear();
    }
    (rows, sticky)
}

fn band_for(m: &Inspection, overlay: Option<usize>, decided: bool) -> Option<Band> {
    overlay.map(|i| {
        let o = m.overlay(i);
        Band {
            source: o.compaction.source,
            preview: o.preview,
            decided,
            selected: m.selected_position == Some(o.position),
        }
    })
}

fn turn_band(m: &Inspection, b: usize) -> Option<Band> {
    band_for(m, m.covering(b), false)
}

/// The band beside raw event `i` of block `b`: the compaction that decided
/// its fate, else the one covering its turn.
fn event_band(m: &Inspection, b: usize, i: usize) -> Option<Band> {
    match m.projection.fates.get(i).and_then(|f| f.by) {
        Some(by) => band_for(m, Some(by), true),
        None if m.conv.events[i].kind.is_conversation_event() => turn_band(m, b),
        None => None,
    }
}

fn header(m: &Inspection, b: usize, right: bool) -> Side {
    let (raw_t, proj_t) = m.block_tokens.get(b).copied().unwrap_or((0, 0));
    let first = m.layout.raw_start[b];
    let when = m
        .conv
        .events
        .get(first)
        .and_then(|e| e.timestamp)
        .map(|t| t.format("%H:%M").to_string())
        .unwrap_or_default();
    let cover = m.covering(b).map(|i| {
        let o = m.overlay(i);
        format!(
            " · #{} {}{}",
            o.position + 1,
            if o.preview {
                "preview"
            } else {
                o.compaction.source.as_str()
            },
            if right {
                String::new()
            } else {
                format!(" {}", o.compaction.policy_label())
            }
        )
    });
    let tokens = if right { proj_t } else { raw_t };
    let largest = if right {
        m.largest_block.1
    } else {
        m.largest_block.0
    };
    Side::Header {
        title: format!("turn {}", b + 1),
        detail: format!(
            "{when} · {} {} tok{}",
            size_bar(tokens, largest),
            crate::core::fmt::thousands(tokens),
            cover.unwrap_or_default()
        ),
    }
}

/// A turn's size against the largest turn's, in eighths of a 4-cell bar.
pub fn size_bar(tokens: u64, largest: u64) -> String {
    const CELLS: u64 = 4;
    const EIGHTHS: [char; 9] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'];
    let filled = if largest == 0 {
        0
    } else {
        (tokens * CELLS * 8).div_ceil(largest).min(CELLS * 8)
    };
    (0..CELLS)
        .map(|c| EIGHTHS[filled.saturating_sub(c * 8).min(8) as usize])
        .collect()
}

fn side_raw(
    m: &Inspection,
    b: usize,
    cell: Cell,
    hits: &std::collections::HashSet<usize>,
    cache: &mut Excerpts,
) -> Side {
    match cell {
        Cell::Header => header(m, b, false),
        Cell::Event(i) => {
            let e = &m.conv.events[i];
            // Seen "as of" a request, the events after it have no fate yet.
            let later = i >= m.projection.fates.len();
            let fate = m.projection.fates.get(i).copied().unwrap_or_default();
            let band = event_band(m, b, i);
            let text = cache
                .entry((false, i, 0))
                .or_insert_with(|| m.conv.excerpt(i, EXCERPT_CHARS))
                .clone();
            Side::Event {
                label: e.kind.label().to_string(),
                kind: e.kind.clone(),
                text,
                tokens: m.event_tokens.get(i).copied().unwrap_or_default(),
                fate: fate.fate,
                summary: false,
                band,
                hit: hits.contains(&i),
                later,
                waiting: m.is_waiting(i),
            }
        }
        Cell::Covered | Cell::Blank => Side::Blank {
            band: turn_band(m, b),
        },
    }
}

fn side_projected(
    m: &Inspection,
    b: usize,
    cell: Cell,
    hits: &std::collections::HashSet<usize>,
    cache: &mut Excerpts,
) -> Side {
    match cell {
        Cell::Header => header(m, b, true),
        Cell::Event(k) => {
            let p = m.projection.events[k];
            let p_id = match p {
                Projected::Raw { index, change } => (index as u64) << 2 | change as u64,
                Projected::Summary { overlay, part, .. } => {
                    (overlay as u64) << 2 | part as u64 | 1 << 63
                }
            };
            let text = cache
                .entry((true, k, p_id))
                .or_insert_with(|| m.projection.excerpt(&m.conv, &p, EXCERPT_CHARS))
                .clone();
            let tokens = m.projected_tokens.get(k).copied().unwrap_or_default();
            match p {
                Projected::Raw { index, change } => {
                    let e = &m.conv.events[index];
                    let band = event_band(m, b, index);
                    Side::Event {
                        label: e.kind.label().to_string(),
                        kind: e.kind.clone(),
                        text,
                        tokens,
                        fate: if change == Alteration::None {
                            Fate::Kept
                        } else {
                            Fate::Stripped
                        },
                        summary: false,
                        band,
                        hit: hits.contains(&index),
                        later: false,
                        waiting: m.is_waiting(index),
                    }
                }
                Projected::Summary { overlay, part, .. } => {
                    let label = part.label();
                    let kind = match part {
                        SummaryPart::TurnStart => Kind::TurnStart,
                        SummaryPart::Request => Kind::ChatRequest,
                        SummaryPart::Response => {
                            Kind::ChatResponse(crate::core::model::event::ResponseKind::Message)
                        }
                    };
                    Side::Event {
                        label: label.to_string(),
                        kind,
                        text,
                        tokens,
                        fate: Fate::Kept,
                        summary: true,
                        band: band_for(m, Some(overlay), true),
                        hit: false,
                        later: false,
                        waiting: false,
                    }
                }
            }
        }
        Cell::Covered => {
            let text = match m.summary_run_of(b) {
                Some((from, overlay)) => format!(
                    "in the summary of turn {} (#{})",
                    from + 1,
                    m.overlay(overlay).position + 1
                ),
                None => "nothing sent".to_string(),
            };
            Side::Covered {
                text,
                band: turn_band(m, b),
            }
        }
        Cell::Blank => Side::Blank {
            band: turn_band(m, b),
        },
    }
}
