//! What the HTTP summarizers share: the endpoint named in their errors,
//! the API key read from a named variable, and one JSON POST through the
//! providers' HTTP call (timeout, the provider's error in its own words).

use super::SummarizeError;
use serde_json::Value;
use std::time::Duration;

/// A model endpoint, for error messages that say which one failed.
pub(super) struct Endpoint<'a> {
    pub summarizer: &'a str,
    pub url: String,
}

impl Endpoint<'_> {
    pub fn err(&self, message: impl Into<String>) -> SummarizeError {
        SummarizeError {
            summarizer: self.summarizer.into(),
            message: format!("{}: {}", self.url, message.into()),
        }
    }

    /// The key in `var`, or an error naming the variable.
    pub fn key(&self, var: &str) -> Result<String, SummarizeError> {
        std::env::var(var).map_err(|_| self.err(format!("the API key variable `{var}` is not set")))
    }

    /// POSTs `body` with `headers`; the parsed JSON answer of a 2xx.
    pub fn post(
        &self,
        headers: &[(&str, &str)],
        body: Value,
        timeout: Duration,
    ) -> Result<Value, SummarizeError> {
        crate::core::providers::http::call(&self.url, headers, Some(&body), timeout)
            .map_err(|m| self.err(m))
    }
}
