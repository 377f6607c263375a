//! The inspector's state. Drawing reads only this; every change goes
//! through `update`.

use super::model::{Cell, Model};
use super::theme::Theme;
use crate::core::auto::AutoConfig;
use crate::core::auto::simulate::Run;
use crate::core::compact::projection::{Change, Fate, Projected, SummaryPart};
use crate::core::compact::reset::Reset;
use crate::core::model::compaction::{Compaction, Source};
use crate::core::model::event::Kind;
use crate::core::{compact::excerpt, compact::window};
use ratatui::text::Line;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;
use tui_textarea::TextArea;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Raw,
    Projected,
    Compactions,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Preview,
    Search,
    Window,
}

pub struct Input {
    pub kind: InputKind,
    pub area: TextArea<'static>,
    pub error: Option<String>,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("kind", &self.kind)
            .field("text", &self.area.lines())
            .field("error", &self.error)
            .finish()
    }
}

impl Input {
    pub fn text(&self) -> String {
        self.area.lines().join("")
    }
}

/// A shown preview: the compactions not written yet, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    pub spec: String,
    pub compactions: Vec<Compaction>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ConfirmKind {
    Reset(Reset),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Confirm {
    pub kind: ConfirmKind,
    pub question: String,
    /// Projected tokens after the change, once computed.
    pub after: Option<u64>,
}

#[derive(Debug, Clone)]
pub struct Detail {
    pub title: String,
    /// What the event is: type, time, ids, its fate.
    pub header: Vec<Line<'static>>,
    /// The decoded text, highlighted once the worker is done.
    pub lines: Vec<Line<'static>>,
    /// The event as stored (with its encoding).
    pub raw: Vec<Line<'static>>,
    pub show_raw: bool,
    pub scroll: usize,
}

#[derive(Debug, Clone)]
pub struct Simulation {
    pub windows: Vec<u64>,
    pub selected: usize,
    pub runs: Option<Result<Vec<Run>, String>>,
}

#[derive(Debug, Clone)]
pub enum Overlay {
    Detail(Detail),
    Help { scroll: usize },
    Confirm(Confirm),
    Simulation(Simulation),
}

#[derive(Debug, Clone, Default)]
pub struct Search {
    pub query: String,
    /// Raw event indices whose text matches.
    pub hits: Vec<usize>,
    pub current: Option<usize>,
    pub pending: bool,
}

/// A compaction band in a pane's gutter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    pub source: Source,
    pub preview: bool,
    /// The compaction decided this row's event (not merely covers its turn).
    pub decided: bool,
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

pub struct State {
    pub dir: PathBuf,
    pub model: Option<Model>,
    /// Bumped whenever the model is replaced; stale job results are dropped.
    pub generation: u64,
    pub theme: Theme,
    pub width: u16,
    pub height: u16,
    pub focus: Focus,
    /// The selected virtual row of the panes.
    pub cursor: usize,
    /// The virtual row at the top of the panes.
    pub scroll: usize,
    /// The selected line of the compaction list.
    pub list_cursor: usize,
    pub preview: Option<Preview>,
    pub overlay: Option<Overlay>,
    pub input: Option<Input>,
    pub search: Option<Search>,
    pub window_override: Option<u64>,
    pub config: AutoConfig,
    /// Where the configuration comes from besides the conversation; read
    /// with the first load.
    pub config_file: Option<PathBuf>,
    pub mode_override: Option<crate::core::auto::Mode>,
    pub configured: bool,
    pub follow: bool,
    /// A fixed clock (tests and screenshots); the system clock otherwise.
    pub clock: Option<crate::core::model::timestamp::Timestamp>,
    pub status: Option<(String, Level)>,
    pub busy: Option<(String, Instant)>,
    pub spinner: usize,
    pub quit: bool,
    /// The rows on screen, prepared for drawing.
    pub rows: Vec<Row>,
    previews: HashMap<(bool, usize, u64), String>,
}

/// Width of a one-line preview kept in the cache (wide terminals).
const PREVIEW_CHARS: usize = 240;

impl State {
    pub fn new(
        dir: PathBuf,
        config: AutoConfig,
        window_override: Option<u64>,
        theme: Theme,
    ) -> State {
        State {
            dir,
            model: None,
            generation: 0,
            theme,
            width: 80,
            height: 24,
            focus: Focus::Raw,
            cursor: 0,
            scroll: 0,
            list_cursor: 0,
            preview: None,
            overlay: None,
            input: None,
            search: None,
            window_override,
            config,
            config_file: None,
            mode_override: None,
            configured: false,
            follow: false,
            clock: None,
            status: None,
            busy: None,
            spinner: 0,
            quit: false,
            rows: Vec::new(),
            previews: HashMap::new(),
        }
    }

    /// The context window: the override, else the table's entry for the
    /// conversation's model.
    pub fn window(&self) -> Option<window::Window> {
        let model = self.model.as_ref()?;
        match self.window_override {
            Some(tokens) => Some(window::Window {
                tokens,
                source: window::WindowSource::Override,
            }),
            None => model.table_window.clone(),
        }
    }

    /// The model id as configured.
    pub fn model_id(&self) -> Option<String> {
        self.model.as_ref()?.model_id.clone()
    }

    /// Height of the panes' rows area, as laid out by the view.
    pub fn pane_height(&self) -> usize {
        super::view::layout::pane_rows(self.width, self.height, self.list_len()).max(1)
    }

    pub fn list_len(&self) -> usize {
        self.model.as_ref().map_or(0, |m| m.compactions.len())
    }

    /// Reads the conversation's own auto table (once, with the first
    /// model), under the command line's file and mode.
    fn configure(&mut self, model: &Model) {
        if self.configured {
            return;
        }
        self.configured = true;
        match crate::core::auto::config_for(&model.conv, self.config_file.as_deref()) {
            Ok(c) => self.config = c,
            Err(e) => self.set_status(format!("configuration: {e}"), Level::Error),
        }
        if let Some(m) = self.mode_override {
            self.config.mode = m;
        }
    }

    /// Replaces the model, keeping the cursor on the same raw turn.
    pub fn set_model(&mut self, model: Model) {
        self.configure(&model);
        let keep = self.model.as_ref().map(|m| {
            let (b, _, _) = m
                .layout
                .cells(self.cursor.min(m.layout.rows().saturating_sub(1)));
            let at_end = self.cursor + 1 >= m.layout.rows();
            (
                b,
                self.cursor - m.layout.offsets.get(b).copied().unwrap_or(0),
                at_end,
            )
        });
        self.generation += 1;
        self.previews.clear();
        let rows = model.layout.rows();
        self.cursor = match keep {
            // Following a live session: stay at the end as it grows.
            Some((_, _, true)) if self.follow => rows.saturating_sub(1),
            Some((b, line, _)) if b < model.layout.blocks() => {
                let start = model.layout.offsets[b];
                let len = model.layout.offsets[b + 1] - start;
                start + line.min(len.saturating_sub(1))
            }
            _ => 0,
        };
        self.model = Some(model);
        self.list_cursor = self.list_cursor.min(self.list_len().saturating_sub(1));
        self.ensure_visible();
    }

    pub fn ensure_visible(&mut self) {
        let h = self.pane_height();
        let rows = self.model.as_ref().map_or(0, |m| m.layout.rows());
        if rows == 0 {
            self.cursor = 0;
            self.scroll = 0;
            return;
        }
        self.cursor = self.cursor.min(rows - 1);
        if self.cursor < self.scroll {
            self.scroll = self.cursor;
        } else if self.cursor >= self.scroll + h {
            self.scroll = self.cursor + 1 - h;
        }
        self.scroll = self.scroll.min(rows.saturating_sub(h));
    }

    /// Whether `row` has something selectable on the focused side.
    pub fn selectable(&self, row: usize) -> bool {
        let Some(m) = &self.model else {
            return false;
        };
        let (_, raw, proj) = m.layout.cells(row);
        match self.focus {
            Focus::Projected => !matches!(proj, Cell::Blank),
            _ => !matches!(raw, Cell::Blank),
        }
    }

    /// The raw event under the cursor (or, in the projected pane, the raw
    /// event the projected one came from).
    pub fn selected_raw(&self) -> Option<usize> {
        let m = self.model.as_ref()?;
        let (_, raw, proj) = m.layout.cells(self.cursor);
        match self.focus {
            Focus::Projected => match proj {
                Cell::Event(k) => match m.projection.events.get(k)? {
                    Projected::Raw { index, .. } => Some(*index),
                    Projected::Summary { .. } => None,
                },
                _ => None,
            },
            _ => match raw {
                Cell::Event(i) => Some(i),
                _ => None,
            },
        }
    }

    /// Prepares the rows on screen (previews come from a cache, so
    /// scrolling does not decode the same events again).
    pub fn prepare_rows(&mut self) {
        let Some(m) = &self.model else {
            self.rows.clear();
            return;
        };
        let h = self.pane_height();
        let end = (self.scroll + h).min(m.layout.rows());
        let hits: std::collections::HashSet<usize> = self
            .search
            .as_ref()
            .map(|s| s.hits.iter().copied().collect())
            .unwrap_or_default();
        let mut rows = Vec::with_capacity(end.saturating_sub(self.scroll));
        for row in self.scroll..end {
            let (b, raw, proj) = m.layout.cells(row);
            let raw_side = side_raw(m, b, raw, &hits, &mut self.previews);
            let proj_side = side_projected(m, b, proj, &hits, &mut self.previews);
            rows.push(Row {
                row,
                block: b,
                raw: raw_side,
                projected: proj_side,
            });
        }
        // Bound the cache: a long session of scrolling must not keep every
        // preview of a million-event conversation.
        if self.previews.len() > 20_000 {
            self.previews.clear();
        }
        self.rows = rows;
    }

    pub fn now(&self) -> crate::core::model::timestamp::Timestamp {
        self.clock.unwrap_or_else(chrono::Utc::now)
    }

    pub fn set_status(&mut self, text: impl Into<String>, level: Level) {
        self.status = Some((text.into(), level));
    }
}

fn band_for(m: &Model, overlay: Option<usize>, decided: bool) -> Option<Band> {
    overlay.map(|i| {
        let o = m.overlay(i);
        Band {
            source: o.compaction.source,
            preview: o.preview,
            decided,
        }
    })
}

fn turn_band(m: &Model, b: usize) -> Option<Band> {
    band_for(m, m.covering(b), false)
}

/// The band beside raw event `i` of block `b`: the compaction that decided
/// its fate, else the one covering its turn.
fn event_band(m: &Model, b: usize, i: usize) -> Option<Band> {
    match m.projection.fates[i].by {
        Some(by) => band_for(m, Some(by), true),
        None if m.conv.events[i].kind.is_conversation_event() => turn_band(m, b),
        None => None,
    }
}

fn header(m: &Model, b: usize, right: bool) -> Side {
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
    Side::Header {
        title: format!("turn {}", b + 1),
        detail: format!(
            "{when} · {} tok{}",
            crate::fmt::thousands(tokens),
            cover.unwrap_or_default()
        ),
    }
}

fn side_raw(
    m: &Model,
    b: usize,
    cell: Cell,
    hits: &std::collections::HashSet<usize>,
    cache: &mut HashMap<(bool, usize, u64), String>,
) -> Side {
    match cell {
        Cell::Header => header(m, b, false),
        Cell::Event(i) => {
            let e = &m.conv.events[i];
            let fate = m.projection.fates[i];
            let band = event_band(m, b, i);
            let text = cache
                .entry((false, i, 0))
                .or_insert_with(|| excerpt::raw(&m.conv, i, PREVIEW_CHARS))
                .clone();
            Side::Event {
                label: e.kind.label().to_string(),
                kind: e.kind.clone(),
                text,
                tokens: crate::core::compact::estimate::tokens(e.chars),
                fate: fate.fate,
                summary: false,
                band,
                hit: hits.contains(&i),
            }
        }
        Cell::Covered | Cell::Blank => Side::Blank {
            band: turn_band(m, b),
        },
    }
}

fn side_projected(
    m: &Model,
    b: usize,
    cell: Cell,
    hits: &std::collections::HashSet<usize>,
    cache: &mut HashMap<(bool, usize, u64), String>,
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
                .or_insert_with(|| excerpt::projected(&m.conv, &m.projection, &p, PREVIEW_CHARS))
                .clone();
            let tokens =
                crate::core::compact::estimate::tokens(m.projection.chars(&m.conv.events, &p));
            match p {
                Projected::Raw { index, change } => {
                    let e = &m.conv.events[index];
                    let band = event_band(m, b, index);
                    Side::Event {
                        label: e.kind.label().to_string(),
                        kind: e.kind.clone(),
                        text,
                        tokens,
                        fate: if change == Change::None {
                            Fate::Kept
                        } else {
                            Fate::Stripped
                        },
                        summary: false,
                        band,
                        hit: hits.contains(&index),
                    }
                }
                Projected::Summary { overlay, part, .. } => {
                    let (label, kind) = match part {
                        SummaryPart::TurnStart => ("turn", Kind::TurnStart),
                        SummaryPart::Request => ("user", Kind::ChatRequest),
                        SummaryPart::Response => (
                            "summary",
                            Kind::ChatResponse(crate::core::model::event::ResponseKind::Message),
                        ),
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
