//! The inspector's state. Drawing reads only this; every change goes
//! through `update`.

use super::as_of::AsOf;
use super::inspection::{Cell, Inspection};
use super::panels::{Input, Panel, Preview, Search};
use super::rows::Row;
use super::theme::Theme;
use super::undo::UndoHistory;
use crate::core::ops::AutoConfig;
use crate::core::ops::Budget;
use crate::core::ops::Projected;
use crate::core::ops::View;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Raw,
    Projected,
    Compactions,
}

use super::status_log::Level;

/// Where the person is: the focused pane, the cursor, the scroll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nav {
    pub focus: Focus,
    /// The selected virtual row of the panes.
    pub cursor: usize,
    /// The virtual row at the top of the panes.
    pub scroll: usize,
    /// The selected line of the compaction list.
    pub list_cursor: usize,
}

/// What the person chose for this session, over the conversation's own
/// configuration.
#[derive(Debug, Clone)]
pub struct Settings {
    pub window_override: Option<u64>,
    pub config: AutoConfig,
    /// A `--config` file applied over the conversation's auto table.
    pub config_file: Option<PathBuf>,
    /// What jp handed over, under `jp inspect`.
    pub jp: Option<crate::core::model::config::JpResolved>,
    pub mode_override: Option<crate::core::ops::Mode>,
    /// Whether the configuration was read (with the first load).
    pub configured: bool,
    pub follow: bool,
    /// A fixed clock (tests and screenshots); the system clock otherwise.
    pub clock: Option<crate::core::model::timestamp::Timestamp>,
    /// Project as jp-inspect does, or as today's jp does (`J`).
    pub view: View,
    /// Where `W` writes its report: the folder the inspector started in
    /// unless a test or screenshot says otherwise.
    pub report_dir: Option<PathBuf>,
    /// Run automatic compaction at every new turn while following (`A`).
    pub auto_run: bool,
    /// The turns automatic compaction last saw, and jp's lock.
    pub boundaries: crate::core::ops::boundary::Tracker,
    /// Whether a withheld summary's reason was said in this episode.
    pub withheld: crate::core::ops::boundary::Withheld,
    /// A new turn came while jp held its lock: automatic compaction runs
    /// once jp lets go (checked at every tick until then).
    pub auto_waiting: bool,
    /// The workspace the inspector was started in, and whether its writes
    /// are refused.
    pub reach: Reach,
}

impl Settings {
    /// Where the first load and every reading again take the
    /// configuration from besides the conversation.
    pub fn config_asked(&self) -> crate::tui::job::ConfigFile {
        crate::tui::job::ConfigFile {
            file: self.config_file.clone(),
            jp: self.jp.clone(),
        }
    }
}

/// The workspace the inspector was started in (the current directory's, or
/// `--workspace`): the one whose `.jp/config.toml` a hint is written into,
/// never one found from a conversation's folder. `refused` says why no
/// write is made, when its `.jp` links out of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    pub workspace: Option<PathBuf>,
    pub refused: Option<String>,
}

impl Reach {
    /// Started in the workspace at `root`, its conversations found
    /// through its `.jp`.
    pub fn of_workspace(root: &std::path::Path) -> Reach {
        let ws = crate::core::ops::Workspace::at(root);
        Reach {
            refused: crate::core::ops::reach::refusal(&ws),
            workspace: Some(root.to_path_buf()),
        }
    }
}

/// The status line: the last message and the job in progress.
#[derive(Debug, Clone, Default)]
pub struct Status {
    pub message: Option<(String, Level)>,
    /// Every message shown this session, for `M`.
    pub log: super::status_log::Log,
    /// The message was said with a preview open, about it: it shows over
    /// the preview's line until it fades.
    pub over_preview: bool,
    /// When the message was set: information fades after `INFO_SHOWN`.
    pub since: Option<Instant>,
    /// The message is a failed load's, to clear when a load succeeds.
    pub from_load: bool,
    /// The message is automatic compaction's verdict at a boundary: a
    /// reload that follows it (its own write, jp's next one) goes to the
    /// log rather than over it.
    pub from_auto: bool,
    pub busy: Option<(String, Instant)>,
    pub spinner: usize,
}

/// How long an informational message stays; an error stays until a key.
pub const INFO_SHOWN: std::time::Duration = std::time::Duration::from_secs(5);

/// A replay as the screen shows it; the writer runs in the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayState {
    pub pace: crate::tui::msg::ReplayPace,
    /// Turns the replay writes in all.
    pub total: usize,
    /// All are written (said once).
    pub done: bool,
}

pub struct State {
    pub dir: PathBuf,
    pub inspection: Option<Inspection>,
    /// What the loaded conversation's requests are measured against, as
    /// `ops::budget` builds it for the CLI too; rebuilt when the
    /// conversation, the window override or the configuration changes.
    pub budget: Option<Budget>,
    /// What `count` measured of the loaded conversation, read with the
    /// budget (drawing reads no files).
    pub measured: Option<crate::core::ops::Measured>,
    /// Bumped whenever the inspection is replaced; stale job results are
    /// dropped.
    pub generation: u64,
    /// Which events the panes show (`v`).
    pub shown: crate::tui::shown::Shown,
    /// The lost facts `F` goes through, of one compaction.
    pub lost_trail: Option<LostTrail>,
    /// The list's marks, for the inspection of that generation.
    /// What the model still knows of a compaction's range, for its detail:
    /// of the inspection of that generation, by position. Found off the UI
    /// thread; until it comes the detail says it is being judged.
    pub compaction_facts: Option<(u64, usize, crate::core::ops::knows::Detail)>,
    /// The generation the marks were last asked for while that job is
    /// out: one marks job at a time, however often the list is asked.
    pub list_marks_asked: Option<u64>,
    pub list_marks: Option<(
        u64,
        std::collections::HashMap<usize, crate::core::ops::Mark>,
    )>,
    pub theme: Theme,
    pub width: u16,
    pub height: u16,
    pub nav: Nav,
    pub preview: Option<Preview>,
    pub panel: Option<Panel>,
    pub input: Option<Input>,
    pub search: Option<Search>,
    /// "As of" mode (`t`): what one request of the session was sent.
    pub as_of: Option<AsOf>,
    pub settings: Settings,
    pub status: Status,
    pub quit: bool,
    pub history: UndoHistory,
    /// A replay being written (`--replay`): its pace and length.
    pub replay: Option<ReplayState>,
    /// What an outside write changed while not following: shown until `r`
    /// reloads.
    pub changed_on_disk: Option<crate::core::ops::changes::Changes>,
    /// jp holds the conversation's lock (a query is running): writes wait.
    pub jp_lock: bool,
    /// The workspace's conversations, when the inspector started without
    /// one; `q` in a conversation opened from it comes back here.
    pub picker: Option<super::picker::Picker>,
    /// The picker is on screen (no conversation open).
    pub in_picker: bool,
    /// Why the conversation can't be read (an empty or malformed file):
    /// shown as a screen of its own until a load succeeds.
    pub load_error: Option<String>,
    /// The rows on screen, prepared for drawing.
    pub rows: Vec<Row>,
    /// The header of the turn the top row is in, when that row is not the
    /// header itself: drawn over the top row so the turn stays named.
    pub sticky: Option<(super::rows::Side, super::rows::Side)>,
    /// One-line excerpts of events already shown.
    pub(super) excerpts: super::rows::Excerpts,
    /// The summary editor's text when it closed changed, with its turns:
    /// `E` on the same turns offers it again.
    pub last_summary_edit: Option<(crate::core::model::TurnRange, String)>,
}

impl State {
    pub fn new(
        dir: PathBuf,
        config: AutoConfig,
        window_override: Option<u64>,
        theme: Theme,
    ) -> State {
        State {
            dir,
            inspection: None,
            budget: None,
            measured: None,
            generation: 0,
            list_marks: None,
            list_marks_asked: None,
            compaction_facts: None,
            lost_trail: None,
            shown: Default::default(),
            theme,
            width: 80,
            height: 24,
            nav: Nav {
                focus: Focus::Raw,
                cursor: 0,
                scroll: 0,
                list_cursor: 0,
            },
            preview: None,
            panel: None,
            input: None,
            search: None,
            as_of: None,
            settings: Settings {
                window_override,
                config,
                config_file: None,
                jp: None,
                mode_override: None,
                configured: false,
                follow: false,
                clock: None,
                report_dir: None,
                view: View::Inspect,
                auto_run: false,
                boundaries: Default::default(),
                withheld: Default::default(),
                auto_waiting: false,
                reach: Reach::default(),
            },
            status: Status::default(),
            quit: false,
            history: UndoHistory::default(),
            changed_on_disk: None,
            jp_lock: false,
            replay: None,
            picker: None,
            in_picker: false,
            load_error: None,
            rows: Vec::new(),
            sticky: None,
            excerpts: HashMap::new(),
            last_summary_edit: None,
        }
    }

    /// What the requests are measured against: the window (the override,
    /// else what the provider said, else the table's entry for the
    /// conversation's model) with its output reserve, and the system prompt
    /// and tools of every request.
    pub fn budget(&self) -> Option<Budget> {
        self.budget.clone()
    }

    /// Rebuilds [`State::budget`] from the loaded conversation, the window
    /// override and the configuration.
    pub fn rebudget(&mut self) {
        self.budget = self.inspection.as_ref().map(|m| {
            crate::core::ops::budget(
                &m.conv,
                &self.settings.config,
                self.settings.window_override,
            )
        });
    }

    /// The context of a request that sends the events of `e`, as the
    /// budget measures it (events only when no conversation is loaded).
    pub fn context_of(&self, e: &crate::core::ops::Estimate) -> u64 {
        match self.budget() {
            Some(b) => b.context_tokens(e.breakdown.total_chars()),
            None => e.tokens(),
        }
    }

    /// Lines of the context curve ("as of" mode only).
    pub fn curve_height(&self) -> u16 {
        if self.as_of.is_some() {
            super::layout::curve_height(self.height)
        } else {
            0
        }
    }

    /// The context window (before the output reserve).
    pub fn window(&self) -> Option<crate::core::ops::Window> {
        self.budget()?.window
    }

    /// The model id as configured.
    pub fn model_id(&self) -> Option<String> {
        self.inspection.as_ref()?.model_id.clone()
    }

    /// Height of the panes' rows area, as laid out by the view.
    pub fn pane_height(&self) -> usize {
        super::layout::pane_rows(
            self.width,
            self.height,
            self.list_len(),
            self.curve_height(),
        )
        .max(1)
    }

    pub fn list_len(&self) -> usize {
        self.inspection.as_ref().map_or(0, |m| m.compactions.len())
    }

    /// Takes the configuration the first load read (the conversation's own
    /// auto table under the command line's file), then the mode flag.
    pub fn configure(&mut self, config: Result<AutoConfig, crate::core::error::Error>) {
        if self.settings.configured {
            return;
        }
        self.settings.configured = true;
        match config {
            Ok(c) => {
                if let Some(n) = c.notices.first() {
                    self.set_status(format!("configuration: {n}"), Level::Error);
                }
                self.settings.config = c;
            }
            Err(e) => self.set_status(format!("configuration: {e}"), Level::Error),
        }
        if let Some(m) = self.settings.mode_override {
            self.settings.config.mode = m;
        }
        self.rebudget();
    }

    /// Replaces the inspection, keeping the cursor on the same raw turn.
    pub fn set_inspection(&mut self, mut model: Inspection) {
        if self.shown != crate::tui::shown::Shown::All {
            model.layout = std::mem::take(&mut model.layout).showing(
                self.shown,
                &model.conv,
                &model.projection,
            );
        }
        let keep = self.inspection.as_ref().map(|m| {
            let (b, _, _) = m
                .layout
                .cells(self.nav.cursor.min(m.layout.rows().saturating_sub(1)));
            // On the last turn, or not moved since it opened: following
            // keeps to the newest turn, as `tail -f` does.
            let at_end = b + 1 >= m.layout.blocks() || self.nav.cursor == 0;
            (
                b,
                self.nav.cursor - m.layout.offsets.get(b).copied().unwrap_or(0),
                at_end,
            )
        });
        self.generation += 1;
        self.excerpts.clear();
        let rows = model.layout.rows();
        self.nav.cursor = match keep {
            // Following a live session: stay at the end as it grows.
            Some((_, _, true)) if self.settings.follow => rows.saturating_sub(1),
            Some((b, line, _)) if b < model.layout.blocks() => {
                let start = model.layout.offsets[b];
                let len = model.layout.offsets[b + 1] - start;
                start + line.min(len.saturating_sub(1))
            }
            _ => 0,
        };
        self.inspection = Some(model);
        self.rebudget();
        self.load_error = None;
        self.nav.list_cursor = self.nav.list_cursor.min(self.list_len().saturating_sub(1));
        // The list emptied under it (`X`, the last `d`): back to a pane.
        if self.nav.focus == Focus::Compactions && self.list_len() == 0 {
            self.nav.focus = Focus::Raw;
        }
        // The selected compaction keeps standing out across a reload.
        if self.nav.focus == Focus::Compactions {
            let cursor = self.nav.list_cursor;
            if let Some(m) = &mut self.inspection {
                m.selected_position = m.compactions.get(cursor).map(|r| r.position);
            }
        }
        self.ensure_visible();
    }

    /// Prepares the rows on screen for drawing.
    pub fn prepare_rows(&mut self) {
        let Some(m) = &self.inspection else {
            self.rows.clear();
            self.sticky = None;
            return;
        };
        let hits: std::collections::HashSet<usize> = self
            .search
            .as_ref()
            .map(|s| s.hits.iter().copied().collect())
            .unwrap_or_default();
        let (rows, sticky) = super::rows::prepare(
            m,
            self.nav.scroll,
            self.pane_height(),
            &hits,
            &mut self.excerpts,
        );
        self.rows = rows;
        self.sticky = sticky;
    }

    pub fn ensure_visible(&mut self) {
        let h = self.pane_height();
        let rows = self.inspection.as_ref().map_or(0, |m| m.layout.rows());
        if rows == 0 {
            self.nav.cursor = 0;
            self.nav.scroll = 0;
            return;
        }
        self.nav.cursor = self.nav.cursor.min(rows - 1);
        if self.nav.cursor < self.nav.scroll {
            self.nav.scroll = self.nav.cursor;
        } else if self.nav.cursor >= self.nav.scroll + h {
            self.nav.scroll = self.nav.cursor + 1 - h;
        }
        self.nav.scroll = self.nav.scroll.min(rows.saturating_sub(h));
    }

    /// Whether `row` has something selectable on the focused side.
    pub fn selectable(&self, row: usize) -> bool {
        let Some(m) = &self.inspection else {
            return false;
        };
        let (_, raw, proj) = m.layout.cells(row);
        match self.nav.focus {
            Focus::Projected => !matches!(proj, Cell::Blank),
            _ => !matches!(raw, Cell::Blank),
        }
    }

    /// The raw event under the cursor (or, in the projected pane, the raw
    /// event the projected one came from).
    pub fn selected_raw(&self) -> Option<usize> {
        let m = self.inspection.as_ref()?;
        let (_, raw, proj) = m.layout.cells(self.nav.cursor);
        match self.nav.focus {
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

    pub fn now(&self) -> crate::core::model::timestamp::Timestamp {
        self.settings.clock.unwrap_or_else(chrono::Utc::now)
    }

    pub fn set_status(&mut self, text: impl Into<String>, level: Level) {
        let text = text.into();
        let at = self.now();
        self.status.log.push(at, &text, level);
        self.status.over_preview = false;
        self.status.message = Some((text, level));
        self.status.since = Some(Instant::now());
        self.status.from_load = false;
        self.status.from_auto = false;
    }

    /// Information about the open preview, shown over its line until it
    /// fades (the preview's line hides any other).
    pub fn say_over_preview(&mut self, text: impl Into<String>) {
        self.set_status(text, Level::Info);
        self.status.over_preview = self.preview.is_some();
    }

    /// Clears an informational message shown longer than `INFO_SHOWN`.
    pub fn expire_status(&mut self, now: Instant) {
        if self.status_expired(now) {
            self.status.message = None;
        }
    }

    /// Whether work waits for the keys to stop (the summary editor's
    /// checklist, put off while typing).
    pub fn wants_idle(&self) -> bool {
        matches!(&self.panel, Some(Panel::Summary(e)) if e.is_stale())
    }

    /// Whether an informational message has been shown long enough: the
    /// runtime ticks once to clear it, even with nothing else going on.
    pub fn status_expired(&self, now: Instant) -> bool {
        matches!(
            (&self.status.message, self.status.since),
            (Some((_, Level::Info)), Some(since)) if now.duration_since(since) >= INFO_SHOWN
        )
    }
}

/// The events of the facts one compaction lost, and which `F` showed last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostTrail {
    /// The inspection it was taken of: a reload or a write starts again.
    pub generation: u64,
    /// The compaction's 0-based position.
    pub position: usize,
    /// Each lost fact: its block (0-based turn), its raw event, and what
    /// the status line says of it.
    pub events: Vec<(usize, usize, String)>,
    pub at: usize,
}
