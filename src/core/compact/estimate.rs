//! D50's size estimate: tokens ≈ characters / 4 of the *projected* view, so a
//! compaction makes the figure drop and the trigger go quiet.

use crate::core::compact::projection::{Projected, Projection};
use crate::core::model::conversation::Conversation;
use crate::core::model::event::{Event, Kind, ResponseKind};
use crate::core::model::overhead;

/// Characters per token of the estimate.
pub const CHARS_PER_TOKEN: u64 = 4;

pub fn tokens(chars: u64) -> u64 {
    chars / CHARS_PER_TOKEN
}

/// `total` tokens shared out over parts of `chars` characters, so the parts
/// add up to it: each gets its own estimate, and what rounding left over
/// goes to the parts with the largest remainders. (Estimating each part
/// alone would lose up to a token per part against the whole.)
pub fn apportion(chars: &[u64], total: u64) -> Vec<u64> {
    let mut shares: Vec<u64> = chars.iter().map(|&c| tokens(c)).collect();
    let given: u64 = shares.iter().sum();
    let mut left = total.saturating_sub(given);
    let mut order: Vec<usize> = (0..chars.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse((chars[i] % CHARS_PER_TOKEN, chars[i])));
    for &i in order.iter().cycle().take(order.len() * 4) {
        if left == 0 {
            break;
        }
        shares[i] += 1;
        left -= 1;
    }
    shares
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

    /// A category's share of `total_tokens`: the categories add up to it.
    pub fn tokens(&self, c: Category) -> u64 {
        apportion(&self.chars, self.total_tokens())[c as usize]
    }
}

/// What every request carries besides the events: the system prompt as jp
/// renders it and the definitions of the enabled tools (compaction.md,
/// "Context and the usable window").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overhead {
    pub system_chars: u64,
    pub tool_chars: u64,
    pub tools_enabled: usize,
    /// Enabled tools whose schema only their MCP server knows (counted by
    /// name and description only).
    pub unknown_tools: Vec<String>,
}

impl Overhead {
    /// The overhead of a merged config.
    pub fn of_config(config: &serde_json::Value) -> Overhead {
        let tools = overhead::tools(config);
        Overhead {
            system_chars: overhead::system_prompt(config).chars(),
            tool_chars: tools.chars,
            tools_enabled: tools.enabled,
            unknown_tools: tools.unknown,
        }
    }

    pub fn chars(&self) -> u64 {
        self.system_chars + self.tool_chars
    }
}

/// The estimate of a projected view, and of the requests that send it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Estimate {
    pub breakdown: Breakdown,
    /// Sent with every request: a fixed overhead (none when the config asks
    /// for D50's literal events-only estimate).
    pub overhead: Overhead,
}

impl Estimate {
    /// Tokens of the projected events alone (what compaction acts on).
    pub fn tokens(&self) -> u64 {
        self.breakdown.total_tokens()
    }

    pub fn system_tokens(&self) -> u64 {
        tokens(self.overhead.system_chars)
    }

    pub fn tool_tokens(&self) -> u64 {
        tokens(self.overhead.tool_chars)
    }

    /// What one request carries: the system prompt, the tools and the
    /// events, by D50's estimate (characters / 4 of all of it).
    pub fn context_tokens(&self) -> u64 {
        tokens(self.breakdown.total_chars() + self.overhead.chars())
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

/// The estimate of `projection` of `conv`, with `overhead` on every
/// request.
pub fn estimate(conv: &Conversation, projection: &Projection, overhead: &Overhead) -> Estimate {
    Estimate {
        breakdown: of_projection(&conv.events, projection),
        overhead: overhead.clone(),
    }
}

#[cfg(test)]
mod apportion_tests {
    use super::*;

    #[test]
    fn parts_add_up_to_the_whole() {
        // Each 3 chars alone is 0 tokens; together 9 chars are 2.
        assert_eq!(apportion(&[3, 3, 3], 2), vec![1, 1, 0]);
        assert_eq!(apportion(&[8, 5], tokens(13)), vec![2, 1]);
        let mut b = Breakdown::default();
        for (c, n) in Category::ALL.iter().zip([7, 7, 7, 7, 7, 3]) {
            b.add(*c, n);
        }
        let sum: u64 = Category::ALL.iter().map(|c| b.tokens(*c)).sum();
        assert_eq!(sum, b.total_tokens());
        assert_eq!(b.total_tokens(), 9);
    }
}
