//! The tools view (`T`): which tools fill the context, sortable by any
//! column; `Enter` lists a tool's calls and jumps to one; `a` writes the
//! selected tool's suggested hint into a config file the person picks,
//! after they confirm.

use crate::core::ops::tools::{Call, ToolRow, ToolsReport};
use std::path::PathBuf;

/// A column to sort by, in the order the table shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Name,
    Calls,
    Request,
    Response,
    Errors,
    Again,
    Now,
    Session,
    Saves,
}

impl Column {
    pub const ALL: [Column; 9] = [
        Column::Name,
        Column::Calls,
        Column::Request,
        Column::Response,
        Column::Errors,
        Column::Again,
        Column::Now,
        Column::Session,
        Column::Saves,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Column::Name => "tool",
            Column::Calls => "calls",
            Column::Request => "request",
            Column::Response => "response",
            Column::Errors => "errors",
            Column::Again => "again",
            Column::Now => "now",
            Column::Session => "session",
            Column::Saves => "saves",
        }
    }

    /// The next (or previous) column, round.
    pub fn step(self, forward: bool) -> Column {
        let n = Self::ALL.len();
        let at = Self::ALL.iter().position(|&c| c == self).unwrap_or(0);
        Self::ALL[if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        }]
    }
}

/// A tool's calls, listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Calls {
    pub tool: String,
    pub calls: Vec<Call>,
    pub cursor: usize,
}

/// Writing the selected hint: the files it may go in, the chosen one.
#[derive(Debug, Clone, PartialEq)]
pub struct HintWrite {
    pub tool: String,
    pub hint: String,
    pub files: Vec<PathBuf>,
    pub chosen: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolsView {
    /// `None` while it is computed (the savings replay the policy).
    pub report: Option<Result<ToolsReport, String>>,
    pub cursor: usize,
    pub sort: Column,
    pub calls: Option<Calls>,
    pub write: Option<HintWrite>,
}

impl ToolsView {
    pub fn pending() -> ToolsView {
        ToolsView {
            report: None,
            cursor: 0,
            sort: Column::Response,
            calls: None,
            write: None,
        }
    }

    /// The rows in the chosen order: numbers largest first, names A–Z.
    pub fn rows(&self) -> Vec<&ToolRow> {
        let Some(Ok(r)) = &self.report else {
            return Vec::new();
        };
        let mut rows: Vec<&ToolRow> = r.tools.iter().collect();
        let key = |t: &ToolRow| -> f64 {
            match self.sort {
                Column::Name | Column::Response => t.response_tokens as f64,
                Column::Calls => t.calls as f64,
                Column::Request => t.request_tokens as f64,
                Column::Errors => t.errors as f64,
                Column::Again => t.refetched as f64,
                Column::Now => t.share_now,
                Column::Session => t.share_session,
                Column::Saves => t.saves.map_or(f64::MIN, |s| s as f64),
            }
        };
        if self.sort == Column::Name {
            rows.sort_by(|a, b| a.name.cmp(&b.name));
        } else {
            rows.sort_by(|a, b| key(b).total_cmp(&key(a)).then_with(|| a.name.cmp(&b.name)));
        }
        rows
    }

    pub fn selected(&self) -> Option<&ToolRow> {
        self.rows().get(self.cursor).copied()
    }
}
