//! One-line previews of projected events: a changed event as the model
//! sees it, an injected summary's parts.

use crate::core::compact::fate::Alteration;
use crate::core::compact::fate::Projected;
use crate::core::compact::fate::SummaryPart;
use crate::core::compact::projection::{Projection, SUMMARY_REQUEST};
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use crate::core::visible::one_line;

impl Projection {
    /// The text of projected event `p` on one line.
    pub fn excerpt(&self, conv: &Conversation, p: &Projected, max: usize) -> String {
        let proj = self;
        match *p {
            Projected::Raw { index, change } => match (change, &conv.events[index].kind) {
                (Alteration::EmptyArguments, Kind::ToolCallRequest { name, .. }) => {
                    one_line(&format!("{name} {{}}"), max)
                }
                (Alteration::StatusLine, Kind::ToolCallResponse { .. }) => {
                    one_line(&proj.status_line(&conv.events, index), max)
                }
                _ => conv.excerpt(index, max),
            },
            Projected::Summary { overlay, part, .. } => match part {
                SummaryPart::TurnStart => String::new(),
                SummaryPart::Request => one_line(SUMMARY_REQUEST, max),
                SummaryPart::Response => one_line(
                    proj.overlays[overlay]
                        .compaction
                        .summary
                        .as_deref()
                        .unwrap_or_default(),
                    max,
                ),
            },
        }
    }
}
