//! What a conversation's requests are measured against (compaction.md,
//! "Context and the usable window"): the context of a request is the
//! system prompt and the tool definitions it carries plus the projected
//! events; the usable window is the window less the output reserve. One
//! number, used by the gauge, `stats`, the trigger, `auto` and `simulate`.

use crate::core::compact::estimate::{self, Overhead};
use crate::core::compact::window::{self, Listed, Window};
use crate::core::model::config::ModelId;
use serde_json::Value;

/// Which estimate the thresholds are measured with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// System prompt + tools + events against the usable window.
    #[default]
    Context,
    /// D50's literal estimate: the projected events against the whole
    /// window.
    Events,
}

impl Measure {
    pub fn as_str(self) -> &'static str {
        match self {
            Measure::Context => "context",
            Measure::Events => "events",
        }
    }

    pub fn parse(s: &str) -> Option<Measure> {
        match s {
            "context" => Some(Measure::Context),
            "events" => Some(Measure::Events),
            _ => None,
        }
    }
}

/// The window and the per-request overhead of one conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    pub window: Option<Window>,
    /// What every request carries besides the events (counted only when
    /// measuring the context).
    pub overhead: Overhead,
    pub measure: Measure,
    /// The measured ratio (real tokens per estimated one) the thresholds
    /// are to account for (`estimate = "measured"`): the usable window is
    /// divided by it, so D50's estimate is compared as the measured tokens
    /// would be. `None`: D50's characters / 4 as it is.
    pub measured: Option<f64>,
    /// The model the requests go to (alias resolved), as configured: a
    /// prompt cache is the model's own.
    pub model: Option<String>,
}

impl Budget {
    /// The budget of a merged config, its window from the table alone
    /// (`ops::budget` is the one that adds what the providers said).
    pub fn of_config(config: &Value, window_override: Option<u64>, measure: Measure) -> Budget {
        Budget::of_config_with(config, window_override, measure, &|_| None)
    }

    /// [`Budget::of_config`] with the providers' answers (see
    /// [`window::for_config_with`]).
    pub fn of_config_with(
        config: &Value,
        window_override: Option<u64>,
        measure: Measure,
        listed: &dyn Fn(&ModelId) -> Option<Listed>,
    ) -> Budget {
        Budget {
            window: window::for_config_with(config, window_override, listed),
            overhead: Overhead::of_config(config),
            measure,
            measured: None,
            model: crate::core::model::config::model_id(config)
                .map(|m| window::resolve_alias(&m, config).to_string()),
        }
    }

    /// A bare window, nothing reserved and no overhead: D50's own numbers.
    pub fn bare(window: Option<u64>) -> Budget {
        Budget {
            window: window.map(|w| Window::of(w, window::WindowSource::Override)),
            overhead: Overhead::default(),
            measure: Measure::Context,
            measured: None,
            model: None,
        }
    }

    /// The same budget at another window size (the simulation's sizes),
    /// keeping the reserve.
    pub fn at(&self, tokens: u64) -> Budget {
        let mut b = self.clone();
        b.window = Some(match &self.window {
            Some(w) => {
                let (reserve, capped_from) =
                    window::cap(w.capped_from.unwrap_or(w.reserve), tokens);
                Window {
                    tokens,
                    source: window::WindowSource::Override,
                    reserve,
                    reserve_source: w.reserve_source.clone(),
                    capped_from,
                }
            }
            None => Window::of(tokens, window::WindowSource::Override),
        });
        b
    }

    /// Characters every request carries besides the events.
    pub fn overhead_chars(&self) -> u64 {
        match self.measure {
            Measure::Context => self.overhead.chars(),
            Measure::Events => 0,
        }
    }

    /// The context of a request whose projected events are `event_chars`
    /// long, in tokens.
    pub fn context_tokens(&self, event_chars: u64) -> u64 {
        estimate::tokens(event_chars + self.overhead_chars())
    }

    /// The tokens the thresholds are fractions of.
    pub fn usable(&self) -> Option<u64> {
        let w = self.window.as_ref()?;
        let usable = match self.measure {
            Measure::Context => w.usable(),
            Measure::Events => w.tokens,
        };
        Some(match self.measured.filter(|r| r.is_finite() && *r > 0.0) {
            Some(r) => ((usable as f64 / r).round() as u64).max(1),
            None => usable,
        })
    }

    /// Why the window can't measure a request, if it can't: it leaves no
    /// room once the system prompt, the tools and the output reserve every
    /// request carries are taken out.
    pub fn window_too_small(&self) -> Option<String> {
        let w = self.window.as_ref()?;
        // The reserve in force: a larger one is capped at half the window
        // (and said), so a smaller window can still be tried.
        let reserve = self.reserve();
        let fixed = estimate::tokens(self.overhead_chars()) + reserve;
        (w.tokens <= fixed).then(|| {
            format!(
                "a window of {} tokens leaves no room: every request carries {} tokens (system \
                 prompt and tools {}, output reserve {})",
                crate::core::fmt::thousands(w.tokens),
                crate::core::fmt::thousands(fixed),
                crate::core::fmt::thousands(estimate::tokens(self.overhead_chars())),
                crate::core::fmt::thousands(reserve)
            )
        })
    }

    /// The output reserve in force (0 when measuring events only).
    pub fn reserve(&self) -> u64 {
        match (self.measure, &self.window) {
            (Measure::Context, Some(w)) => w.reserve,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config() -> Value {
        json!({
            "assistant": {
                "model": {"id": "anthropic/claude-opus-4-5", "parameters": {"max_tokens": 8000}},
                "system_prompt": "x".repeat(4000),
            },
            "conversation": {"tools": {"t": {"enable": true, "summary": "y".repeat(396)}}}
        })
    }

    #[test]
    fn the_context_adds_system_prompt_and_tools_and_the_window_leaves_the_reserve() {
        let b = Budget::of_config(&config(), None, Measure::Context);
        assert_eq!(b.overhead.system_chars, 4000);
        // Its name, its summary and the empty object schema a tool without
        // parameters is sent with.
        let empty = r#"{"type":"object","properties":{}}"#.len() as u64;
        assert_eq!(b.overhead.tool_chars, 1 + 396 + empty);
        assert_eq!(b.context_tokens(4000), (4000 + 4000 + 397 + empty) / 4);
        assert_eq!(b.reserve(), 8000);
        assert_eq!(b.usable(), Some(200_000 - 8000));
    }

    #[test]
    fn measuring_events_is_d50s_literal_estimate() {
        let b = Budget::of_config(&config(), None, Measure::Events);
        assert_eq!(b.context_tokens(4000), 1000);
        assert_eq!(b.usable(), Some(200_000));
        assert_eq!(b.reserve(), 0);
    }

    #[test]
    fn at_another_size_keeps_the_reserve_but_never_more_than_half() {
        let b = Budget::of_config(&config(), None, Measure::Context).at(10_000);
        assert_eq!(b.usable(), Some(5_000));
        let b = Budget::of_config(&config(), None, Measure::Context).at(64_000);
        assert_eq!(b.usable(), Some(56_000));
    }
}
