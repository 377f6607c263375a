//! `models`: the windows jp-inspect knows and where each comes from, and
//! `--refresh` to ask the providers as jp does.

use super::args::ModelsArgs;
use super::output::{print_json, print_lines, say_err};
use crate::core::compact::window;
use crate::core::fmt::thousands;
use crate::core::ops::{Endpoint, Provider};
use crate::core::ops::{Listing, Models};
use crate::core::providers;
use crate::core::providers::models;
use serde_json::json;

pub fn run(args: ModelsArgs) -> anyhow::Result<()> {
    let mut cache = Models::read();
    let mut failed = Vec::new();
    let mut lines = Vec::new();
    if args.refresh {
        let user = providers::user_config()?;
        let asked: Vec<Provider> = if args.provider.is_empty() {
            Provider::ALL.to_vec()
        } else {
            args.provider.clone()
        };
        for p in asked {
            let mut ep = Endpoint::of(p, &user);
            ep.timeout = args.timeout;
            let key = match ep.key() {
                Ok(k) => k,
                // Not asked by name: a provider without a key is skipped.
                Err(e) if args.provider.is_empty() => {
                    lines.push(format!("{p}: skipped, {}", e.message));
                    continue;
                }
                Err(e) => {
                    failed.push(e.to_string());
                    continue;
                }
            };
            match models::list(&ep, &key) {
                Ok(list) => {
                    lines.push(format!("{p}: {} models from {}", list.len(), ep.base_url));
                    cache.providers.insert(
                        p.name().to_string(),
                        Listing {
                            fetched_at: crate::core::model::timestamp::rfc3339(&chrono::Utc::now()),
                            base_url: ep.base_url.clone(),
                            models: list,
                        },
                    );
                }
                Err(e) => failed.push(e.to_string()),
            }
        }
        // What was fetched is kept even when another provider failed; a
        // failed provider keeps its earlier answer.
        let refreshed = lines.iter().any(|l| l.contains(" models from "));
        if refreshed {
            let path = cache.write()?;
            lines.push(format!("kept in {}", path.display()));
        }
        if !args.json {
            // The refresh is what was asked for: its lines, not the table
            // again (`models` alone lists it).
            print_lines(lines)?;
            for f in &failed {
                say_err(&format!("jp-inspect: {f}"));
            }
            if !failed.is_empty() {
                anyhow::bail!(
                    "{} could not be asked; nothing was kept of them",
                    crate::core::fmt::count(failed.len() as u64, "provider")
                );
            }
            if !refreshed {
                anyhow::bail!(
                    "nothing was refreshed: no provider has a key here (jp's own variables, \
                     ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, or the api_key_env jp is configured with)"
                );
            }
            return Ok(());
        }
        if !refreshed && failed.is_empty() {
            failed.push("nothing was refreshed: no provider has a key here".to_string());
        }
    }
    if args.json {
        print_json(&json!({
            "providers": cache.providers,
            "table": window::table_rows(),
            "errors": failed,
        }))?;
    } else {
        for (name, l) in &cache.providers {
            lines.push(format!(
                "{name} (as its models endpoint said, {}, {})",
                l.fetched_at, l.base_url
            ));
            for m in &l.models {
                lines.push(format!(
                    "  {:<40} window {:>11}  output {:>9}",
                    m.id,
                    m.window.map_or("-".into(), thousands),
                    m.output.map_or("-".into(), thousands)
                ));
            }
        }
        lines.push("the bundled table (assets/context_windows.toml), first match wins:".into());
        for r in window::table_rows() {
            lines.push(format!(
                "  {:<28} window {:>11}  output {:>9}  {}",
                r.pattern,
                thousands(r.window),
                r.output.map_or("-".into(), thousands),
                r.source.unwrap_or_default()
            ));
        }
        print_lines(lines)?;
    }
    for f in &failed {
        say_err(&format!("jp-inspect: {f}"));
    }
    if failed.is_empty() {
        Ok(())
    } else {
        anyhow::bail!(
            "{} could not be asked; nothing was kept of them",
            crate::core::fmt::count(failed.len() as u64, "provider")
        )
    }
}
