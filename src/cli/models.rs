//! `models`: the windows jp-inspect knows and where each comes from, and
//! `--refresh` to ask the providers as jp does.

use super::args::ModelsArgs;
use super::output::{print_json, print_lines, say_err};
use crate::core::fmt::thousands;
use crate::core::ops::models::{self, Asked, Known, RefreshRequest};

pub fn run(args: ModelsArgs) -> anyhow::Result<()> {
    if !args.refresh {
        let known = models::known();
        return if args.json {
            print_json(&known_json(&known, &[]))
        } else {
            print_lines(known_lines(&known))
        };
    }
    let refreshed = models::refresh(&RefreshRequest {
        providers: args.provider.clone(),
        timeout: args.timeout,
    })?;
    let mut failed: Vec<String> = refreshed.failures().map(str::to_string).collect();
    if args.json {
        if refreshed.kept_in.is_none() && failed.is_empty() {
            failed.push("nothing was refreshed: no provider has a key here".to_string());
        }
        print_json(&known_json(&refreshed.known, &failed))?;
        return say_failed(&failed);
    }
    // The refresh is what was asked for: its lines, not the table again
    // (`models` alone lists it).
    let mut lines: Vec<String> = refreshed
        .asked
        .iter()
        .filter_map(|a| match a {
            Asked::Listed {
                provider,
                models,
                base_url,
            } => Some(format!("{provider}: {models} models from {base_url}")),
            Asked::Skipped { provider, why } => Some(format!("{provider}: skipped, {why}")),
            Asked::Failed(_) => None,
        })
        .collect();
    if let Some(path) = &refreshed.kept_in {
        lines.push(format!("kept in {}", path.display()));
    }
    print_lines(lines)?;
    say_failed(&failed)?;
    if refreshed.kept_in.is_none() {
        anyhow::bail!(
            "nothing was refreshed: no provider has a key here (jp's own variables, \
             ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, or the api_key_env jp is configured with)"
        );
    }
    Ok(())
}

/// What `models --json` prints: each provider's answer, the bundled
/// table, and what could not be asked.
#[derive(serde::Serialize)]
struct ModelsJson<'a, P: serde::Serialize, T: serde::Serialize> {
    providers: &'a P,
    table: &'a T,
    errors: &'a [String],
}

fn known_json<'a>(known: &'a Known, errors: &'a [String]) -> impl serde::Serialize + 'a {
    ModelsJson {
        providers: &known.asked.providers,
        table: &known.table,
        errors,
    }
}

fn known_lines(known: &Known) -> Vec<String> {
    let mut lines = Vec::new();
    for (name, l) in &known.asked.providers {
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
    for r in &known.table {
        lines.push(format!(
            "  {:<28} window {:>11}  output {:>9}  {}",
            r.pattern,
            thousands(r.window),
            r.output.map_or("-".into(), thousands),
            r.source.as_deref().unwrap_or_default()
        ));
    }
    lines
}

/// Each failure on stderr; an error when there was one.
fn say_failed(failed: &[String]) -> anyhow::Result<()> {
    for f in failed {
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
