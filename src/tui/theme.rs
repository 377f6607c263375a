//! Styles, with and without colour (`NO_COLOR`).

use crate::core::model::compaction::Source;
use crate::core::model::event::{Kind, ResponseKind};
use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set to something non-empty.
    pub fn from_env() -> Theme {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
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
            Style::default().fg(Color::DarkGray)
        } else {
            Style::default().add_modifier(Modifier::DIM)
        }
    }

    pub fn title(&self) -> Style {
        self.fg(Color::White).add_modifier(Modifier::BOLD)
    }

    pub fn accent(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub fn key(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    pub fn error(&self) -> Style {
        if self.color {
            Style::default().fg(Color::Red).add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        }
    }

    pub fn ok(&self) -> Style {
        self.fg(Color::Green)
    }

    pub fn selected(&self) -> Style {
        if self.color {
            Style::default()
                .bg(Color::Rgb(40, 44, 60))
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }

    pub fn header_row(&self) -> Style {
        if self.color {
            Style::default().fg(Color::Gray).bg(Color::Rgb(28, 30, 38))
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
            Source::Manual => Color::Rgb(80, 160, 255),
            Source::Auto => Color::Rgb(230, 110, 200),
        };
        if preview {
            Style::default().fg(Color::Rgb(220, 200, 90))
        } else {
            Style::default().fg(base)
        }
    }

    /// The character of a band: solid for stored compactions, dotted for a
    /// previewed one (so the difference survives without colour).
    pub fn band_char(&self, preview: bool, decided: bool) -> &'static str {
        match (preview, decided) {
            (true, true) => "┇",
            (true, false) => "┆",
            (false, true) => "┃",
            (false, false) => "│",
        }
    }

    pub fn kind(&self, kind: &Kind) -> Style {
        let c = match kind {
            Kind::ChatRequest => Color::Green,
            Kind::ChatResponse(ResponseKind::Message) => Color::White,
            Kind::ChatResponse(ResponseKind::Reasoning) => Color::DarkGray,
            Kind::ChatResponse(ResponseKind::Data) => Color::LightCyan,
            Kind::ToolCallRequest { .. } => Color::Yellow,
            Kind::ToolCallResponse {
                is_error: false, ..
            } => Color::Blue,
            Kind::ToolCallResponse { is_error: true, .. } => Color::Red,
            Kind::InquiryRequest | Kind::InquiryResponse => Color::Cyan,
            Kind::ConfigDelta => Color::Gray,
            Kind::Compaction(Ok(_)) => Color::Magenta,
            Kind::Compaction(Err(_)) => Color::Red,
            Kind::Unknown(_) => Color::Gray,
            Kind::TurnStart => Color::Gray,
        };
        self.fg(c)
    }

    pub fn stripped(&self) -> Style {
        self.dim().add_modifier(Modifier::ITALIC)
    }

    pub fn omitted(&self) -> Style {
        self.dim().add_modifier(Modifier::CROSSED_OUT)
    }

    pub fn summary(&self) -> Style {
        self.fg(Color::LightMagenta).add_modifier(Modifier::ITALIC)
    }

    /// The gauge's system-prompt segment.
    pub fn system_prompt(&self) -> Style {
        self.fg(Color::Rgb(90, 130, 220))
    }

    /// The gauge's tool-definitions segment.
    pub fn tools(&self) -> Style {
        self.fg(Color::Rgb(170, 120, 220))
    }

    /// Gauge fill by zone: below soft, between the thresholds, above hard.
    pub fn zone(&self, ratio: f64, soft: f64, hard: f64) -> Style {
        let c = if ratio > hard {
            Color::Red
        } else if ratio > soft {
            Color::Yellow
        } else {
            Color::Green
        };
        self.fg(c)
    }

    pub fn marker(&self, hard: bool) -> Style {
        if self.color {
            Style::default()
                .fg(if hard {
                    Color::LightRed
                } else {
                    Color::LightCyan
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
