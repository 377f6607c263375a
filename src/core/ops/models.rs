//! `models` as use cases: the windows known (what the providers said when
//! last asked, then the bundled table), and a refresh that asks the
//! providers as jp does and keeps what they said.

use crate::core::compact::window::{self, TableRow};
use crate::core::error::Result;
use crate::core::providers::cache::{Listing, Models};
use crate::core::providers::{self, Endpoint, Provider, models};
use std::path::PathBuf;
use std::time::Duration;

/// Every window known, and where each comes from.
#[derive(Debug)]
pub struct Known {
    /// What each provider's models endpoint said when last asked.
    pub asked: Models,
    /// The bundled table, in matching order.
    pub table: Vec<TableRow>,
}

pub fn known() -> Known {
    Known {
        asked: Models::read(),
        table: window::table_rows(),
    }
}

/// Which providers to ask, and how long to wait for each.
#[derive(Debug, Clone)]
pub struct RefreshRequest {
    /// None named: every provider with a key here.
    pub providers: Vec<Provider>,
    pub timeout: Duration,
}

/// What one provider said.
#[derive(Debug)]
pub enum Asked {
    /// Its models were listed (how many, from where) and kept.
    Listed {
        provider: Provider,
        models: usize,
        base_url: String,
    },
    /// Not named and without a key here: not asked.
    Skipped { provider: Provider, why: String },
    /// Named without a key, or it could not be asked.
    Failed(String),
}

/// What a refresh did.
#[derive(Debug)]
pub struct Refreshed {
    pub asked: Vec<Asked>,
    /// Where what was listed is kept, when anything was.
    pub kept_in: Option<PathBuf>,
    /// The windows known after it.
    pub known: Known,
}

impl Refreshed {
    pub fn failures(&self) -> impl Iterator<Item = &str> {
        self.asked.iter().filter_map(|a| match a {
            Asked::Failed(why) => Some(why.as_str()),
            _ => None,
        })
    }
}

/// Asks the providers for their models' windows. What was listed is kept
/// even when another provider failed; a failed one keeps its earlier
/// answer.
pub fn refresh(request: &RefreshRequest) -> Result<Refreshed> {
    let user = providers::user_config()?;
    let named = !request.providers.is_empty();
    let which = if named {
        request.providers.clone()
    } else {
        Provider::ALL.to_vec()
    };
    let mut cache = Models::read();
    let mut asked = Vec::new();
    for provider in which {
        let mut ep = Endpoint::of(provider, &user);
        ep.timeout = request.timeout;
        let key = match ep.key() {
            Ok(k) => k,
            Err(e) if !named => {
                asked.push(Asked::Skipped {
                    provider,
                    why: e.message,
                });
                continue;
            }
            Err(e) => {
                asked.push(Asked::Failed(e.to_string()));
                continue;
            }
        };
        match models::list(&ep, &key) {
            Ok(list) => {
                asked.push(Asked::Listed {
                    provider,
                    models: list.len(),
                    base_url: ep.base_url.clone(),
                });
                cache.providers.insert(
                    provider.name().to_string(),
                    Listing {
                        fetched_at: crate::core::model::timestamp::rfc3339(&chrono::Utc::now()),
                        base_url: ep.base_url,
                        models: list,
                    },
                );
            }
            Err(e) => asked.push(Asked::Failed(e.to_string())),
        }
    }
    let listed = asked.iter().any(|a| matches!(a, Asked::Listed { .. }));
    let kept_in = if listed { Some(cache.write()?) } else { None };
    Ok(Refreshed {
        asked,
        kept_in,
        known: Known {
            asked: cache,
            table: window::table_rows(),
        },
    })
}
