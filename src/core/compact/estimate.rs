//! D50's size estimate: tokens ≈ characters / 4 of the *projected* view, so a
//! compaction makes the figure drop and the trigger go quiet.

use crate::core::compact::projection::{Projected, Projection};
use crate::core::model::config::{self, SystemPrompt};
use crate::core::model::conversation::Conversation;
use crate::core::model::event::{Event, Kind, ResponseKind};

/// Characters per token of the estimate.
pub const CHARS_PER_TOKEN: u64 = 4;

pub fn tokens(chars: u64) -> u64 {
    chars / CHARS_PER_TOKEN
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    User,
    Assistant,
    Reasoning,
    ToolRequests,
    ToolResponses,
    Summaries,
}

impl Category {
    pub const ALL: [Category; 6] = [
        Category::User,
        Category::Assistant,
        Category::Reasoning,
        Category::ToolRequests,
        Category::ToolResponses,
        Category::Summaries,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::User => "user",
            Category::Assistant => "assistant",
            Category::Reasoning => "reasoning",
            Category::ToolRequests => "tool_requests",
            Category::ToolResponses => "tool_responses",
            Category::Summaries => "summaries",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Category::User => "user",
            Category::Assistant => "assistant",
            Category::Reasoning => "reasoning",
            Category::ToolRequests => "tool calls",
            Category::ToolResponses => "tool results",
            Category::Summaries => "summaries",
        }
    }

    /// The category a raw event's characters count in.
    pub fn of(kind: &Kind) -> Option<Category> {
        match kind {
            Kind::ChatRequest => Some(Category::User),
            Kind::ChatResponse(ResponseKind::Reasoning) => Some(Category::Reasoning),
            Kind::ChatResponse(_) => Some(Category::Assistant),
            Kind::ToolCallRequest { .. } => Some(Category::ToolRequests),
            Kind::ToolCallResponse { .. } => Some(Category::ToolResponses),
            _ => None,
        }
    }
}

/// Characters by category.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Breakdown {
    chars: [u64; 6],
}

impl Breakdown {
    pub fn add(&mut self, c: Category, n: u64) {
        self.chars[c as usize] += n;
    }

    pub fn chars(&self, c: Category) -> u64 {
        self.chars[c as usize]
    }

    pub fn total_chars(&self) -> u64 {
        self.chars.iter().sum()
    }

    /// The estimate in tokens: total characters / 4.
    pub fn total_tokens(&self) -> u64 {
        tokens(self.total_chars())
    }

    pub fn tokens(&self, c: Category) -> u64 {
        tokens(self.chars(c))
    }
}

/// The estimate of a projected view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Estimate {
    pub breakdown: Breakdown,
    /// The system prompt, sent with every request: a fixed overhead.
    pub system_chars: u64,
}

impl Estimate {
    /// Tokens of the projected events alone (what compaction acts on).
    pub fn tokens(&self) -> u64 {
        self.breakdown.total_tokens()
    }

    pub fn system_tokens(&self) -> u64 {
        tokens(self.system_chars)
    }

    /// What one request costs: the events plus the system prompt.
    pub fn context_tokens(&self) -> u64 {
        tokens(self.breakdown.total_chars() + self.system_chars)
    }
}

/// Characters by category of a projected view.
pub fn of_projection(events: &[Event], projection: &Projection) -> Breakdown {
    let mut b = Breakdown::default();
    for p in &projection.events {
        let category = match p {
            Projected::Summary { .. } => Category::Summaries,
            Projected::Raw { index, .. } => match Category::of(&events[*index].kind) {
                Some(c) => c,
                None => continue,
            },
        };
        b.add(category, projection.chars(events, p));
    }
    b
}

/// Characters by category of the raw stream (no compaction applied).
pub fn of_raw(events: &[Event]) -> Breakdown {
    let mut b = Breakdown::default();
    for e in events {
        if let Some(c) = Category::of(&e.kind) {
            b.add(c, e.chars);
        }
    }
    b
}

/// The system prompt of the conversation's base config.
pub fn system_prompt(conv: &Conversation) -> SystemPrompt {
    config::system_prompt(&conv.base_config)
}

/// The estimate of `projection` of `conv`.
pub fn estimate(conv: &Conversation, projection: &Projection) -> Estimate {
    Estimate {
        breakdown: of_projection(&conv.events, projection),
        system_chars: system_prompt(conv).chars(),
    }
}
