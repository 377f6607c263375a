//! `stats` as data: the context's parts, the window and where it came from,
//! the thresholds, the estimate and every compaction with what it saves.
//! `stats --json` is this report serialised; the text and the inspector's
//! gauge and compaction list are drawn from it.

use super::stats_compactions::{
    CompactionEntry, compaction_entries, payback_at_time, with_ledger, with_payback,
};
use crate::core::auto::{AutoConfig, Estimate, Mode};
use crate::core::compact::budget::{Budget, Measure};
use crate::core::compact::estimate::{self, Breakdown, Category};
use crate::core::compact::jp_view::View;
use crate::core::compact::projection::{self};
use crate::core::compact::window::WindowSource;
use crate::core::model::conversation::Conversation;
use crate::core::model::{config, conversation::Format};
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;

/// What `stats` says of one conversation.
#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    pub conversation: ConversationRef,
    pub turn_count: usize,
    pub view: View,
    pub model: Option<String>,
    /// The model an alias (`google`) stands for, where it is one.
    pub model_resolved: Option<String>,
    pub window: Option<WindowReport>,
    pub context: ContextParts,
    pub raw: Tally,
    pub projected: Tally,
    /// The context's share of the system prompt, and its characters.
    pub system_prompt: SystemPrompt,
    /// The context against the usable window, if known.
    pub ratio: Option<f64>,
    pub thresholds: Thresholds,
    /// Tokens left before each threshold fires, when the window is known.
    pub headroom: Vec<Headroom>,
    /// Whether automatic compaction is enabled for this conversation.
    pub auto_enabled: bool,
    pub estimate: EstimateReport,
    pub compactions: Vec<CompactionEntry>,
    /// How the provider bills this conversation's requests.
    pub billing: String,
    /// The price entry that billed it (`{"match","date","source"}`), or
    /// why none did.
    pub price: crate::core::cost::prices::PriceRef,
    /// Settings not at their defaults, and where each came from.
    pub settings: BTreeMap<String, String>,
    pub notices: Vec<String>,
}

/// Which conversation, as every `--json` document names it.
#[derive(Debug, Clone, Serialize)]
pub struct ConversationRef {
    pub id: String,
    pub title: Option<String>,
    /// The copy read: of jp's two, the one jp reads.
    pub path: String,
    pub format: Format,
    /// jp's other copy, kept equal to the one read on every write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_copy: Option<String>,
}

impl ConversationRef {
    pub fn of(conv: &Conversation) -> ConversationRef {
        ConversationRef {
            id: conv.display_id(),
            title: conv.title.clone(),
            path: conv.dir.display().to_string(),
            format: conv.format,
            other_copy: conv.twin.as_ref().map(|t| t.display().to_string()),
        }
    }

    /// Which of jp's copies was read, in words, when there are two.
    pub fn copies_line(conv: &Conversation) -> Option<String> {
        let twin = conv.twin.as_ref()?;
        let which = crate::core::store::copies::Copies {
            read: conv.dir.clone(),
            read_root: crate::core::store::copies::root_of(&conv.dir).map(|(r, _)| r),
            other: Some(twin.clone()),
        };
        Some(format!(
            "copies: read {} ({}), the one jp reads; the other ({}) is written alike",
            which.describe_read(),
            conv.dir.display(),
            twin.display()
        ))
    }
}

/// The window, its reserve and where each figure came from.
#[derive(Debug, Clone, Serialize)]
pub struct WindowReport {
    pub tokens: u64,
    pub reserve: u64,
    /// Where the reserve came from, in words.
    pub reserve_source: String,
    pub usable: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reserve_capped_from: Option<u64>,
    #[serde(flatten)]
    pub source: WindowOrigin,
}

/// [`WindowSource`] as the report names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "source", rename_all = "lowercase")]
pub enum WindowOrigin {
    Override,
    Table {
        model: String,
    },
    Provider {
        model: String,
        provider: String,
        fetched_at: String,
    },
}

impl WindowReport {
    fn of(b: &Budget) -> Option<WindowReport> {
        let w = b.window.as_ref()?;
        let reserve_source = match (b.reserve(), w.capped_from) {
            (0, _) => "none".to_string(),
            (_, Some(asked)) => format!(
                "{}, capped at half the window from {}",
                w.reserve_source.as_str(),
                crate::core::fmt::thousands(asked)
            ),
            _ => w.reserve_source.as_str().to_string(),
        };
        Some(WindowReport {
            tokens: w.tokens,
            reserve: b.reserve(),
            reserve_source,
            usable: b.usable(),
            reserve_capped_from: w.capped_from,
            source: match &w.source {
                WindowSource::Override => WindowOrigin::Override,
                WindowSource::Table { model } => WindowOrigin::Table {
                    model: model.clone(),
                },
                WindowSource::Provider {
                    model,
                    provider,
                    fetched_at,
                } => WindowOrigin::Provider {
                    model: model.clone(),
                    provider: provider.clone(),
                    fetched_at: fetched_at.clone(),
                },
            },
        })
    }
}

/// What one request carries, in tokens: the parts add up to `tokens`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextParts {
    pub measure: Measure,
    pub tokens: u64,
    pub system_prompt: u64,
    pub tools: u64,
    pub events: u64,
    pub tools_enabled: usize,
    pub tools_unknown: Vec<String>,
}

impl ContextParts {
    /// The parts of a request sending `events` under `budget`.
    pub fn of(budget: &Budget, events: &Breakdown) -> ContextParts {
        let (system, tools) = if budget.measure == Measure::Context {
            (budget.overhead.system_chars, budget.overhead.tool_chars)
        } else {
            (0, 0)
        };
        // Each part by its own estimate (`Overhead::chars`), so the parts
        // add up to the context and the system prompt's never moves.
        let tokens = budget.context_tokens(events.total_chars());
        ContextParts {
            measure: budget.measure,
            tokens,
            system_prompt: estimate::tokens(system),
            tools: estimate::tokens(tools),
            events: events.total_tokens(),
            tools_enabled: budget.overhead.tools_enabled,
            tools_unknown: budget.overhead.unknown_tools.clone(),
        }
    }
}

/// Tokens and characters of a set of events, by category.
#[derive(Debug, Clone, PartialEq)]
pub struct Tally(pub Breakdown);

impl Serialize for Tally {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct ByCategory<'a>(&'a Breakdown);
        impl Serialize for ByCategory<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(Category::ALL.len()))?;
                for c in Category::ALL {
                    m.serialize_entry(c.as_str(), &self.0.tokens(c))?;
                }
                m.end()
            }
        }
        let mut st = s.serialize_struct("Tally", 3)?;
        st.serialize_field("tokens", &self.0.total_tokens())?;
        st.serialize_field("chars", &self.0.total_chars())?;
        st.serialize_field("by_category", &ByCategory(&self.0))?;
        st.end()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemPrompt {
    pub tokens: u64,
    pub chars: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Thresholds {
    pub mode: Mode,
    pub trigger: ThresholdAt,
    pub soft: ThresholdAt,
    pub hard: ThresholdAt,
}

/// A threshold as a ratio of the usable window, and in tokens when the
/// window is known.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ThresholdAt {
    pub ratio: f64,
    pub tokens: Option<u64>,
}

impl Thresholds {
    pub fn of(config: &AutoConfig, usable: Option<u64>) -> Thresholds {
        let at = |ratio: f64| ThresholdAt {
            ratio,
            tokens: usable.map(|w| (w as f64 * ratio).round() as u64),
        };
        Thresholds {
            mode: config.mode,
            trigger: at(config.trigger_ratio),
            soft: at(config.soft_ratio),
            hard: at(config.hard_ratio),
        }
    }

    /// The markers a gauge draws: soft and hard when staged, else D50's
    /// trigger (the last one is where summaries start).
    pub fn markers(&self) -> Vec<(&'static str, f64)> {
        match self.mode {
            Mode::Staged => vec![("soft", self.soft.ratio), ("hard", self.hard.ratio)],
            Mode::Single => vec![("trigger", self.trigger.ratio)],
        }
    }

    /// How far `context` is from each threshold the mode fires at, in a
    /// window of `usable` tokens: what is left before the next compaction.
    pub fn headroom(&self, context: u64, usable: u64) -> Vec<Headroom> {
        self.markers()
            .into_iter()
            .map(|(name, ratio)| Headroom {
                name,
                ratio,
                left: (usable as f64 * ratio).round() as i64 - context as i64,
            })
            .collect()
    }
}

/// A threshold and how many tokens the context has left before it fires
/// (negative: passed by that many, so the next turn boundary compacts).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Headroom {
    pub name: &'static str,
    pub ratio: f64,
    pub left: i64,
}

impl Headroom {
    /// `hard in 68 tok`, `soft passed by 45,932 tok`.
    pub fn describe(&self) -> String {
        if self.left > 0 {
            format!(
                "{} in {} tok",
                self.name,
                crate::core::fmt::thousands(self.left as u64)
            )
        } else {
            format!(
                "{} passed by {} tok",
                self.name,
                crate::core::fmt::thousands(self.left.unsigned_abs())
            )
        }
    }

    /// `hard in 68`, `soft passed`: for a gauge's label.
    pub fn short(&self) -> String {
        if self.left > 0 {
            format!("in {}", crate::core::fmt::human_tokens(self.left as u64))
        } else {
            "passed".into()
        }
    }
}

/// The next compaction as `stats` says it: what is left before each
/// threshold, and whether automatic compaction would act at all.
pub fn next_compaction(headroom: &[Headroom], enabled: bool) -> String {
    let each: Vec<String> = headroom.iter().map(Headroom::describe).collect();
    let off = match (enabled, headroom.iter().any(|h| h.left <= 0)) {
        (false, _) => " (automatic compaction is off: `auto` applies it by hand)",
        (true, true) => ": the next turn boundary compacts",
        (true, false) => "",
    };
    format!("next compaction: {}{off}", each.join(", "))
}

/// How the estimate is made, and what `count` measured of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EstimateReport {
    pub method: &'static str,
    /// What the trigger accounts with (`estimate` in the config).
    pub trigger: Estimate,
    /// The ratio the thresholds account for, if any.
    pub applied: Option<f64>,
    pub measured: Option<MeasuredReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasuredReport {
    pub ratio: f64,
    pub measured: u64,
    pub estimated: u64,
    pub provider: String,
    pub model: String,
    pub at: String,
}

impl EstimateReport {
    fn of(conv: &Conversation, config: &AutoConfig) -> EstimateReport {
        EstimateReport {
            method: "characters / 4",
            trigger: config.estimate,
            applied: super::measured_scale(conv, config),
            measured: super::count::measured(conv).map(|m| MeasuredReport {
                ratio: m.ratio(),
                measured: m.measured,
                estimated: m.estimated,
                provider: m.provider.clone(),
                model: m.model.clone(),
                at: m.at.clone(),
            }),
        }
    }
}

/// The `stats` report of `conv` under `config`, with the window
/// `window_override` if given, projected in `view`; with `ledger`, what
/// each compaction hid too (it decodes every hidden tool call: asked for
/// by `stats --json` and `lost`, not by the text report).
pub fn stats(
    conv: &Conversation,
    config: &AutoConfig,
    window_override: Option<u64>,
    view: View,
    ledger: bool,
    prices: &crate::core::cost::Prices,
) -> Stats {
    let budget = super::budget(conv, config, window_override);
    let billing = crate::core::cost::Billing::of_config(conv.merged_config(), prices);
    let pace = super::cost::pace(conv);
    let p = projection::of_view(conv, view);
    let raw = estimate::of_raw(&conv.events);
    let projected = estimate::of_projection(&conv.events, &p);
    let context = ContextParts::of(&budget, &projected);
    let usable = budget.usable();
    let headroom = usable.map_or_else(Vec::new, |w| {
        Thresholds::of(config, usable).headroom(context.tokens, w)
    });
    Stats {
        conversation: ConversationRef::of(conv),
        turn_count: conv.turn_count,
        view,
        model: config::model_id(conv.merged_config()).map(|m| m.to_string()),
        model_resolved: budget.model.clone().filter(|m| {
            config::model_id(conv.merged_config()).is_some_and(|id| id.to_string() != *m)
        }),
        window: WindowReport::of(&budget),
        system_prompt: SystemPrompt {
            tokens: context.system_prompt,
            chars: budget.overhead.system_chars,
        },
        ratio: usable.map(|w| context.tokens as f64 / w as f64),
        context,
        raw: Tally(raw),
        projected: Tally(projected),
        thresholds: Thresholds::of(config, usable),
        headroom,
        auto_enabled: config.enabled,
        estimate: EstimateReport::of(conv, config),
        compactions: {
            let entries = with_payback(
                compaction_entries(conv, &p, budget.overhead_chars()),
                &billing,
                pace,
                &payback_at_time(conv, config, window_override),
            );
            if ledger {
                with_ledger(entries, conv, &p)
            } else {
                entries
            }
        },
        billing: billing.describe(),
        price: billing.price.clone(),
        settings: config.origins.clone(),
        notices: config.notices.clone(),
    }
}
