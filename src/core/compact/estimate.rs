//! D50's size estimate: tokens ≈ characters / 4 of the *projected* view, so a
//! compaction makes the figure drop and the trigger go quiet.

use crate::core::compact::fate::Projected;
use crate::core::compact::projection::Projection;
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

/// Tokens of successive parts of one stream, rounded cumulatively: each
/// part gets what the running estimate gains with it, so the parts of any
/// whole (events of a turn, of a category, of the stream) add up to it,
/// and each part is within a token of its own estimate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Running {
    chars: u64,
}

impl Running {
    /// The share of the next part, of `n` characters.
    pub fn share(&mut self, n: u64) -> u64 {
        let before = tokens(self.chars);
        self.chars += n;
        tokens(self.chars) - before
    }
}

/// The cumulative shares ([`Running`]) of parts of `chars` characters, in
/// stream order.
pub fn shares(chars: impl IntoIterator<Item = u64>) -> Vec<u64> {
    let mut running = Running::default();
    chars.into_iter().map(|n| running.share(n)).collect()
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

/// Characters by category, and each category's tokens: the sum of its
/// events' cumulative shares ([`Running`]), so the events shown add up to
/// their category and the categories to the total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Breakdown {
    chars: [u64; 6],
    shares: [u64; 6],
    running: Running,
}

impl Breakdown {
    /// Counts `n` characters of the next event, in stream order.
    pub fn add(&mut self, c: Category, n: u64) {
        self.chars[c as usize] += n;
        self.shares[c as usize] += self.running.share(n);
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
        self.shares[c as usize]
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

    /// The characters the estimate counts for them: each part's own
    /// estimate, in whole tokens (a multiple of 4), so a context's system
    /// prompt, tools and events add up to it and the system prompt's figure
    /// never moves with the events.
    pub fn chars(&self) -> u64 {
        CHARS_PER_TOKEN * (tokens(self.system_chars) + tokens(self.tool_chars))
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
    /// The estimate of one item of `chars` characters (an event, a part
    /// of the system prompt), as the detail and the largest list say it.
    pub fn of_chars(chars: u64) -> u64 {
        tokens(chars)
    }

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

/// Each projected event's category and the characters it counts with in
/// the estimate, in stream order (an event no category counts: none).
fn projected_parts<'a>(
    events: &'a [Event],
    projection: &'a Projection,
) -> impl Iterator<Item = Option<(Category, u64)>> + 'a {
    projection.events.iter().map(move |p| {
        let category = match p {
            Projected::Summary { .. } => Category::Summaries,
            Projected::Raw { index, .. } => Category::of(&events[*index].kind)?,
        };
        Some((category, projection.chars(events, p)))
    })
}

fn raw_parts(events: &[Event]) -> impl Iterator<Item = Option<(Category, u64)>> + '_ {
    events
        .iter()
        .map(|e| Category::of(&e.kind).map(|c| (c, e.chars)))
}

/// Characters by category of a projected view.
pub fn of_projection(events: &[Event], projection: &Projection) -> Breakdown {
    let mut b = Breakdown::default();
    for (category, n) in projected_parts(events, projection).flatten() {
        b.add(category, n);
    }
    b
}

/// Characters by category of the raw stream (no compaction applied).
pub fn of_raw(events: &[Event]) -> Breakdown {
    let mut b = Breakdown::default();
    for (category, n) in raw_parts(events).flatten() {
        b.add(category, n);
    }
    b
}

/// Each raw event's tokens, shares that add up to [`of_raw`]'s total and
/// to each of its categories.
pub fn raw_shares(events: &[Event]) -> Vec<u64> {
    shares(raw_parts(events).map(|p| p.map_or(0, |(_, n)| n)))
}

/// Each projected event's tokens, shares that add up to
/// [`of_projection`]'s total and to each of its categories.
pub fn projected_shares(events: &[Event], projection: &Projection) -> Vec<u64> {
    shares(projected_parts(events, projection).map(|p| p.map_or(0, |(_, n)| n)))
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
        assert_eq!(shares([3, 3, 3]), vec![0, 1, 1]);
        let parts = shares([5, 7, 1, 1, 9, 2, 13]);
        assert_eq!(parts.iter().sum::<u64>(), tokens(38));
        assert!(
            parts
                .iter()
                .zip([5, 7, 1, 1, 9, 2, 13])
                .all(|(&t, c)| t.abs_diff(tokens(c)) <= 1)
        );
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
