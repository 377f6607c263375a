//! Styles, with and without colour (`NO_COLOR`), from a palette of named
//! roles: the built-in `dark` and `light`, with the user's own colours over
//! them (`tui::user_config`).

use crate::core::model::compaction::Source;
use crate::core::model::event::{Kind, ResponseKind};
use ratatui::style::{Color, Modifier, Style};

/// Declares the palette's roles once: the struct, the names a user config
/// sets them by, and setting one by name.
macro_rules! palette {
    ($($role:ident),* $(,)?) => {
        /// A colour for each role the screen draws.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct Palette {
            $(pub $role: Color,)*
        }

        impl Palette {
            /// The role names, as a user config writes them.
            pub const ROLES: &'static [&'static str] = &[$(stringify!($role)),*];

            /// Sets role `name`; false when there is no such role.
            pub fn set(&mut self, name: &str, color: Color) -> bool {
                match name {
                    $(stringify!($role) => self.$role = color,)*
                    _ => return false,
                }
                true
            }
        }
    };
}

palette!(
    text,
    dim,
    title,
    accent,
    key,
    error,
    ok,
    selection,
    header,
    header_text,
    manual,
    auto,
    preview,
    user,
    assistant,
    reasoning,
    data,
    tool_call,
    tool_result,
    tool_error,
    inquiry,
    meta,
    compaction,
    summary,
    system_prompt,
    tools,
    below_soft,
    above_soft,
    above_hard,
    soft_line,
    hard_line,
);

impl Palette {
    /// For dark terminal backgrounds (the default).
    pub const DARK: Palette = Palette {
        text: Color::Reset,
        dim: Color::DarkGray,
        title: Color::White,
        accent: Color::Cyan,
        key: Color::Yellow,
        error: Color::Red,
        ok: Color::Green,
        selection: Color::Rgb(40, 44, 60),
        header: Color::Rgb(28, 30, 38),
        header_text: Color::Gray,
        manual: Color::Rgb(80, 160, 255),
        auto: Color::Rgb(230, 110, 200),
        preview: Color::Rgb(220, 200, 90),
        user: Color::Green,
        assistant: Color::White,
        reasoning: Color::DarkGray,
        data: Color::LightCyan,
        tool_call: Color::Yellow,
        tool_result: Color::Blue,
        tool_error: Color::Red,
        inquiry: Color::Cyan,
        meta: Color::Gray,
        compaction: Color::Magenta,
        summary: Color::LightMagenta,
        system_prompt: Color::Rgb(90, 130, 220),
        tools: Color::Rgb(170, 120, 220),
        below_soft: Color::Green,
        above_soft: Color::Yellow,
        above_hard: Color::Red,
        soft_line: Color::LightCyan,
        hard_line: Color::LightRed,
    };

    /// For light terminal backgrounds: dark text, pale selection.
    pub const LIGHT: Palette = Palette {
        text: Color::Reset,
        dim: Color::Rgb(120, 120, 120),
        title: Color::Black,
        accent: Color::Rgb(0, 110, 150),
        key: Color::Rgb(170, 90, 0),
        error: Color::Rgb(190, 20, 20),
        ok: Color::Rgb(20, 130, 40),
        selection: Color::Rgb(210, 220, 245),
        header: Color::Rgb(232, 234, 240),
        header_text: Color::Rgb(60, 60, 70),
        manual: Color::Rgb(30, 100, 220),
        auto: Color::Rgb(180, 40, 150),
        preview: Color::Rgb(160, 120, 0),
        user: Color::Rgb(20, 130, 40),
        assistant: Color::Black,
        reasoning: Color::Rgb(120, 120, 120),
        data: Color::Rgb(0, 120, 140),
        tool_call: Color::Rgb(160, 100, 0),
        tool_result: Color::Rgb(30, 80, 200),
        tool_error: Color::Rgb(190, 20, 20),
        inquiry: Color::Rgb(0, 120, 140),
        meta: Color::Rgb(110, 110, 110),
        compaction: Color::Rgb(150, 40, 160),
        summary: Color::Rgb(150, 40, 160),
        system_prompt: Color::Rgb(40, 80, 190),
        tools: Color::Rgb(120, 60, 180),
        below_soft: Color::Rgb(20, 130, 40),
        above_soft: Color::Rgb(180, 120, 0),
        above_hard: Color::Rgb(190, 20, 20),
        soft_line: Color::Rgb(0, 120, 140),
        hard_line: Color::Rgb(190, 20, 20),
    };

    /// A built-in palette by name.
    pub fn builtin(name: &str) -> Option<Palette> {
        match name {
            "dark" => Some(Palette::DARK),
            "light" => Some(Palette::LIGHT),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
    pub palette: Palette,
}

/// `NO_COLOR` set to something non-empty: no colour, whatever the theme.
pub fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

impl Theme {
    /// The dark palette, with colour or without.
    pub fn new(color: bool) -> Theme {
        Theme {
            color,
            palette: Palette::DARK,
        }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }

    pub fn plain(&self) -> Style {
        Style::default()
    }

    pub fn dim(&self) -> Style {
        if self.color {
            Style::default().fg(self.palette.dim)
        } else {
            Style::default().add_modifier(Modifier::DIM)
        }
    }

    pub fn title(&self) -> Style {
        self.fg(self.palette.title).add_modifier(Modifier::BOLD)
    }

    pub fn accent(&self) -> Style {
        self.fg(self.palette.accent).add_modifier(Modifier::BOLD)
    }

    pub fn key(&self) -> Style {
        self.fg(self.palette.key).add_modifier(Modifier::BOLD)
    }

    pub fn error(&self) -> Style {
        if self.color {
            Style::default()
                .fg(self.palette.error)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        }
    }

    pub fn ok(&self) -> Style {
        self.fg(self.palette.ok)
    }

    pub fn selected(&self) -> Style {
        if self.color {
            Style::default()
                .bg(self.palette.selection)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }

    pub fn header_row(&self) -> Style {
        if self.color {
            Style::default()
                .fg(self.palette.header_text)
                .bg(self.palette.header)
        } else {
            Style::default().add_modifier(Modifier::UNDERLINED)
        }
    }

    /// The band colour of a compaction: manual and automatic clearly apart,
    /// a previewed one dimmed.
    pub fn band(&self, source: Source, preview: bool) -> Style {
        if !self.color {
            return if preview {
                Style::default().add_modifier(Modifier::DIM)
            } else {
                Style::default().add_modifier(Modifier::BOLD)
            };
        }
        let base = match source {
            Source::Manual => self.palette.manual,
            Source::Auto => self.palette.auto,
        };
        if preview {
            Style::default().fg(self.palette.preview)
        } else {
            Style::default().fg(base)
        }
    }

    /// The character of a band: solid for stored compactions, dotted for a
    /// previewed one (so the difference survives without colour); without
    /// colour, an automatic one is doubled, since colour told it apart.
    pub fn band_char(
        &self,
        source: crate::core::model::compaction::Source,
        preview: bool,
        decided: bool,
    ) -> &'static str {
        let auto = !self.color && source == crate::core::model::compaction::Source::Auto;
        match (preview, decided, auto) {
            (true, true, _) => "┇",
            (true, false, _) => "┆",
            (false, true, false) => "┃",
            (false, false, false) => "│",
            (false, true, true) => "║",
            (false, false, true) => "╎",
        }
    }

    pub fn kind(&self, kind: &Kind) -> Style {
        let c = match kind {
            Kind::ChatRequest => self.palette.user,
            Kind::ChatResponse(ResponseKind::Message) => self.palette.assistant,
            Kind::ChatResponse(ResponseKind::Reasoning) => self.palette.reasoning,
            Kind::ChatResponse(ResponseKind::Data) => self.palette.data,
            Kind::ToolCallRequest { .. } => self.palette.tool_call,
            Kind::ToolCallResponse {
                is_error: false, ..
            } => self.palette.tool_result,
            Kind::ToolCallResponse { is_error: true, .. } => self.palette.tool_error,
            Kind::InquiryRequest | Kind::InquiryResponse => self.palette.inquiry,
            Kind::ConfigDelta => self.palette.meta,
            Kind::Compaction(Ok(_)) => self.palette.compaction,
            Kind::Compaction(Err(_)) => self.palette.error,
            Kind::Unknown(_) => self.palette.meta,
            Kind::TurnStart => self.palette.meta,
        };
        self.fg(c)
    }

    /// A search match inside a line.
    pub fn matched(&self) -> Style {
        if self.color {
            Style::default()
                .fg(Color::Black)
                .bg(self.palette.key)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        }
    }

    pub fn stripped(&self) -> Style {
        self.dim().add_modifier(Modifier::ITALIC)
    }

    pub fn omitted(&self) -> Style {
        self.dim().add_modifier(Modifier::CROSSED_OUT)
    }

    pub fn summary(&self) -> Style {
        self.fg(self.palette.summary).add_modifier(Modifier::ITALIC)
    }

    /// The gauge's system-prompt segment.
    pub fn system_prompt(&self) -> Style {
        self.fg(self.palette.system_prompt)
    }

    /// The gauge's tool-definitions segment.
    pub fn tools(&self) -> Style {
        self.fg(self.palette.tools)
    }

    /// Gauge fill by zone: below soft, between the thresholds, above hard.
    pub fn zone(&self, ratio: f64, soft: f64, hard: f64) -> Style {
        let c = if ratio > hard {
            self.palette.above_hard
        } else if ratio > soft {
            self.palette.above_soft
        } else {
            self.palette.below_soft
        };
        self.fg(c)
    }

    pub fn marker(&self, hard: bool) -> Style {
        if self.color {
            Style::default()
                .fg(if hard {
                    self.palette.hard_line
                } else {
                    self.palette.soft_line
                })
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::BOLD)
        }
    }

    pub fn policy(&self, i: usize) -> Style {
        let colors = [Color::Gray, Color::LightBlue, Color::LightMagenta];
        self.fg(colors[i % colors.len()])
    }
}
