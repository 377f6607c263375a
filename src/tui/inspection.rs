//! What the screen shows of a conversation, computed off the UI thread from
//! the core: the projection (with any previewed compactions), its estimate,
//! the compaction list, and the turn-aligned row layout of the two panes.

use crate::core::model::TurnRange;
use crate::core::model::compaction::{Compaction, Source};
use crate::core::ops;
use crate::core::ops::Estimate;
use crate::core::ops::View;
use crate::core::ops::stats_compactions::CompactionEntry;
use crate::core::ops::{Overlay, Projected, Projection, TurnOrigin};
use crate::core::{model::conversation::Conversation, model::timestamp};
use std::sync::Arc;

/// One line of the compaction list.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionRow {
    /// 0-based position among the compaction events (previews continue).
    pub position: usize,
    /// The stream event, for stored compactions.
    pub event: Option<usize>,
    pub source: Option<Source>,
    pub range: Option<TurnRange>,
    pub policies: String,
    pub time: Option<String>,
    /// Tokens the projection saves thanks to this compaction.
    /// Tokens it saves given the compactions before it (can be negative).
    pub saved: Option<i64>,
    pub preview: bool,
    pub invalid: Option<String>,
    /// Where today's jp does more with it than jp-inspect (an `over` bound
    /// it ignores), in words.
    pub jp_differs: Option<String>,
    /// What it does that its range doesn't say (backwards, endless).
    pub warning: Option<&'static str>,
    /// What it costs and buys with the prompt cache, and in words.
    pub payback: Option<(crate::core::ops::Payback, String)>,
}

/// The rows of the two panes, aligned by turn: block `b` (raw turn `b`) has
/// a header row, then as many rows as the longer of its two sides. Inside
/// a turn without a summary, each projected event faces the raw event it
/// came from, and a raw event the projection dropped faces a blank row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Raw event index where block `b` starts; `blocks + 1` entries.
    pub raw_start: Vec<usize>,
    /// Projected event index where block `b` starts; `blocks + 1` entries.
    pub proj_start: Vec<usize>,
    /// Virtual row where block `b` starts; `blocks + 1` entries.
    pub offsets: Vec<usize>,
    /// Blocks whose projected events all come from their own raw events,
    /// drawn event against event.
    pub aligned: Vec<bool>,
    /// For each raw event, its projected event (the projection's map).
    pub proj_of_raw: Vec<Option<usize>>,
    /// When the panes show one kind of event: the events each block shows.
    pub picks: Option<crate::tui::shown::Picks>,
}

/// What a pane shows on one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    Header,
    /// A raw event (raw pane) or projected event (projected pane) index.
    Event(usize),
    /// The projected side of a turn that a summary earlier in its run
    /// replaced.
    Covered,
    Blank,
}

impl Layout {
    pub fn blocks(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    pub fn rows(&self) -> usize {
        self.offsets.last().copied().unwrap_or(0)
    }

    /// The block holding virtual row `row`.
    pub fn block_of(&self, row: usize) -> usize {
        self.offsets
            .partition_point(|&o| o <= row)
            .saturating_sub(1)
            .min(self.blocks().saturating_sub(1))
    }

    /// The raw events block `b` shows.
    pub fn raw_len(&self, b: usize) -> usize {
        match &self.picks {
            Some(p) => p.raw[b].len(),
            None => self.raw_start[b + 1] - self.raw_start[b],
        }
    }

    /// The projected events block `b` shows.
    pub fn proj_len(&self, b: usize) -> usize {
        match &self.picks {
            Some(p) => p.proj[b].len(),
            None => self.proj_start[b + 1] - self.proj_start[b],
        }
    }

    /// The `k`th raw event block `b` shows.
    fn raw_at(&self, b: usize, k: usize) -> usize {
        match &self.picks {
            Some(p) => p.raw[b][k],
            None => self.raw_start[b] + k,
        }
    }

    fn proj_at(&self, b: usize, k: usize) -> usize {
        match &self.picks {
            Some(p) => p.proj[b][k],
            None => self.proj_start[b] + k,
        }
    }

    /// The layout showing only the events `shown` keeps (every block's
    /// header stays: a turn with none of them is one row).
    pub fn showing(
        mut self,
        shown: crate::tui::shown::Shown,
        conv: &Conversation,
        p: &Projection,
    ) -> Layout {
        self.picks = (shown != crate::tui::shown::Shown::All).then(|| {
            crate::tui::shown::Picks::of(shown, conv, p, &self.raw_start, &self.proj_start)
        });
        // Showing one kind, a turn without any is its header alone.
        let least = usize::from(self.picks.is_none());
        let mut row = 0;
        for b in 0..self.blocks() {
            self.offsets[b] = row;
            row += 1 + self.raw_len(b).max(self.proj_len(b)).max(least);
        }
        let last = self.blocks();
        self.offsets[last] = row;
        self
    }

    /// The cells of virtual row `row`: (block, raw side, projected side).
    pub fn cells(&self, row: usize) -> (usize, Cell, Cell) {
        let b = self.block_of(row);
        let line = row - self.offsets[b];
        if line == 0 {
            return (b, Cell::Header, Cell::Header);
        }
        let k = line - 1;
        let raw = if k < self.raw_len(b) {
            Cell::Event(self.raw_at(b, k))
        } else {
            Cell::Blank
        };
        if self.aligned.get(b).copied().unwrap_or(false) {
            let proj = match raw {
                Cell::Event(i) => self
                    .proj_of_raw
                    .get(i)
                    .copied()
                    .flatten()
                    .map_or(Cell::Blank, Cell::Event),
                _ => Cell::Blank,
            };
            return (b, raw, proj);
        }
        let proj = if k < self.proj_len(b) {
            Cell::Event(self.proj_at(b, k))
        } else if k == 0 && self.proj_len(b) == 0 {
            Cell::Covered
        } else {
            Cell::Blank
        };
        (b, raw, proj)
    }

    /// The virtual row of raw event `index` in block `b` (the block's
    /// header when it is not shown).
    pub fn row_of_raw(&self, b: usize, index: usize) -> usize {
        let at = match &self.picks {
            Some(p) => p.raw[b].binary_search(&index).ok(),
            None => index.checked_sub(self.raw_start[b]),
        };
        at.map_or(self.offsets[b], |k| self.offsets[b] + 1 + k)
    }

    /// The virtual row of projected event `k` in block `b` (the block's
    /// header when it is not shown).
    pub fn row_of_projected(&self, b: usize, k: usize) -> usize {
        match &self.picks {
            Some(p) => p.proj[b]
                .binary_search(&k)
                .map_or(self.offsets[b], |at| self.offsets[b] + 1 + at),
            None => self.offsets[b] + 1 + k.saturating_sub(self.proj_start[b]),
        }
    }
}

/// Builds the layout of `conv` seen through `p`.
pub fn layout(conv: &Conversation, p: &Projection) -> Layout {
    let blocks = if conv.turn_count == 0 && !conv.events.is_empty() {
        1
    } else {
        conv.turn_count
    };
    let mut raw_start = Vec::with_capacity(blocks + 1);
    let mut proj_start = Vec::with_capacity(blocks + 1);
    let mut offsets = Vec::with_capacity(blocks + 1);
    let mut aligned = Vec::with_capacity(blocks);
    let mut row = 0;
    // Both streams are in turn order: one pass over each, each block
    // starting where the one before it ended.
    let (mut re, mut pe) = (0, 0);
    for b in 0..blocks {
        let (rs, ps) = (re, pe);
        while re < conv.events.len() && conv.events[re].turn <= b {
            re += 1;
        }
        while pe < p.events.len() && p.turn_of(&conv.events, &p.events[pe]) <= b {
            pe += 1;
        }
        raw_start.push(rs);
        proj_start.push(ps);
        offsets.push(row);
        // (A turn with nothing projected says where it went instead.)
        aligned.push(
            pe > ps
                && p.events[ps..pe]
                    .iter()
                    .all(|e| matches!(e, Projected::Raw { index, .. } if (rs..re).contains(index))),
        );
        row += 1 + (re - rs).max(pe - ps).max(1);
    }
    raw_start.push(conv.events.len());
    proj_start.push(p.events.len());
    offsets.push(row);
    Layout {
        raw_start,
        proj_start,
        offsets,
        aligned,
        proj_of_raw: p.position_of_raw.clone(),
        picks: None,
    }
}

/// Everything the screen shows of a conversation.
#[derive(Debug, Clone)]
pub struct Inspection {
    pub conv: Arc<Conversation>,
    pub projection: Projection,
    pub estimate: Estimate,
    /// When previewing: the estimate without the previewed compactions.
    pub before: Option<Estimate>,
    pub layout: Layout,
    pub compactions: Vec<CompactionRow>,
    /// Each raw and each projected event's tokens: cumulative shares, so
    /// a turn's events add up to the turn and the turns to the gauge.
    pub event_tokens: Vec<u64>,
    pub projected_tokens: Vec<u64>,
    /// Raw and projected tokens of each block.
    pub block_tokens: Vec<(u64, u64)>,
    /// The largest block's raw and projected tokens (for the turn bars).
    pub largest_block: (u64, u64),
    /// Estimate of the raw stream (nothing compacted).
    pub raw_tokens: u64,
    /// The configured model, and its window from the table (read once: the
    /// merged config can be large).
    pub model_id: Option<String>,
    /// Seen as the request before this raw event saw it (time travel).
    pub as_of: Option<usize>,
    /// The position of the compaction selected in the list, while the list
    /// has the focus (its bands stand out).
    pub selected_position: Option<usize>,
    /// The raw events that are tool calls of the last turn still waiting
    /// for their result (jp writing the turn as it runs).
    pub waiting: Vec<usize>,
}

impl Inspection {
    /// Builds the model of `conv` with `preview` compactions shown on top.
    pub fn build(conv: Arc<Conversation>, preview: &[Compaction], view: View) -> Inspection {
        Self::build_at(conv, preview, view, None)
    }

    /// What the screen shows of `conv` as the request before raw event
    /// `end` saw it (time travel), or now.
    pub fn build_at(
        conv: Arc<Conversation>,
        preview: &[Compaction],
        view: View,
        end: Option<usize>,
    ) -> Inspection {
        let seen = ops::inspect::inspect(
            &conv,
            &ops::inspect::InspectRequest {
                preview,
                view,
                as_of: end,
                prices: crate::user_file::known_prices(),
            },
        );
        let layout = layout(&conv, &seen.projection);
        let mut compactions: Vec<CompactionRow> = seen
            .compactions
            .into_iter()
            .map(CompactionRow::from)
            .collect();
        if !seen.saves_known {
            for r in &mut compactions {
                r.saved = None;
            }
        }
        let block_tokens = block_tokens(&seen.raw_shares, &seen.projected_shares, &layout);
        Inspection {
            as_of: end,
            selected_position: None,
            waiting: seen.waiting,
            conv,
            projection: seen.projection,
            estimate: seen.estimate,
            before: seen.before,
            layout,
            compactions,
            largest_block: (
                block_tokens.iter().map(|b| b.0).max().unwrap_or(0),
                block_tokens.iter().map(|b| b.1).max().unwrap_or(0),
            ),
            block_tokens,
            event_tokens: seen.raw_shares,
            projected_tokens: seen.projected_shares,
            raw_tokens: seen.raw_tokens,
            model_id: seen.model,
        }
    }

    /// Whether raw event `i` is a tool call waiting for its result.
    pub fn is_waiting(&self, i: usize) -> bool {
        self.waiting.binary_search(&i).is_ok()
    }

    pub fn previewing(&self) -> bool {
        self.before.is_some()
    }

    /// The newest overlay covering raw turn `t`, if any (for bands).
    pub fn covering(&self, t: usize) -> Option<usize> {
        let p = self.projection.policies.get(t)?;
        [p.summary, p.reasoning, p.tools]
            .into_iter()
            .flatten()
            .max_by_key(|&i| (self.projection.overlays[i].compaction.timestamp, i))
    }

    pub fn overlay(&self, i: usize) -> &Overlay {
        &self.projection.overlays[i]
    }

    /// The summary run that covers block `b`, for its "covered" row.
    pub fn summary_run_of(&self, b: usize) -> Option<(usize, usize)> {
        self.projection.turn_origins.iter().find_map(|o| match *o {
            TurnOrigin::Summary { from, to, overlay } if from <= b && b <= to => {
                Some((from, overlay))
            }
            _ => None,
        })
    }
}

fn block_tokens(raw: &[u64], projected: &[u64], layout: &Layout) -> Vec<(u64, u64)> {
    (0..layout.blocks())
        .map(|b| {
            let sum = |shares: &[u64], from: usize, to: usize| -> u64 {
                shares
                    .get(from..to.min(shares.len()))
                    .map_or(0, |s| s.iter().sum())
            };
            (
                sum(raw, layout.raw_start[b], layout.raw_start[b + 1]),
                sum(projected, layout.proj_start[b], layout.proj_start[b + 1]),
            )
        })
        .collect()
}

impl From<CompactionEntry> for CompactionRow {
    fn from(e: CompactionEntry) -> CompactionRow {
        let preview = e.event.is_none();
        match e.facts {
            Ok(f) => CompactionRow {
                position: e.position,
                event: e.event,
                source: Some(f.source),
                range: Some(f.range),
                policies: f.policies,
                time: Some(timestamp::short(&f.timestamp)),
                saved: Some(f.saved),
                preview,
                invalid: None,
                jp_differs: f.jp_differs,
                warning: f.warning,
                payback: e.payback,
            },
            Err(why) => CompactionRow {
                position: e.position,
                event: e.event,
                source: None,
                range: None,
                policies: String::new(),
                time: None,
                saved: None,
                preview,
                invalid: Some(why),
                jp_differs: None,
                warning: None,
                payback: None,
            },
        }
    }
}
