//! `report`: the session's review on one page, written to a file.

use super::Context;
use super::args::{ReportArgs, ReportFormat};
use super::output::{print_json, say_err};
use crate::core::ops;
use crate::report::{self, Format};
use std::path::PathBuf;

/// What `report --json` prints: the files written and what was redacted.
#[derive(serde::Serialize)]
struct ReportJson<'a, R: serde::Serialize> {
    conversation: serde_json::Value,
    format: &'static str,
    files: Vec<String>,
    redacted: &'a R,
    redacted_total: usize,
}

pub fn run(ctx: &Context, args: ReportArgs) -> anyhow::Result<()> {
    let (conv, config) = ctx.to_read(
        args.conv.as_deref(),
        args.config.as_deref(),
        args.window.window,
    )?;
    let request = ops::review::ReviewRequest {
        window: args.window.window,
        view: super::show::view(args.as_jp),
        simulate: args.simulate.then(|| args.windows.clone()),
        judge: args.judge,
    };
    // The price goes to stderr before anything is sent.
    let mut show_price = |q: &ops::judge::JudgeQuote| {
        say_err(&q.describe());
        true
    };
    let review = ops::review::review(
        &conv,
        &config,
        &request,
        &crate::user_file::prices()?,
        &mut show_price,
    )?;
    let to_stdout = args.output.as_deref() == Some(std::path::Path::new("-"));
    let format = match (args.format, &args.output) {
        (Some(ReportFormat::Html), _) => Format::Html,
        (Some(ReportFormat::Markdown), _) => Format::Markdown,
        (None, Some(p)) => Format::of_path(p),
        (None, None) => Format::Html,
    };
    let path = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(report::default_name(&conv, format)));
    let mut options = report::Options::safe();
    options.redact = !args.no_redact;
    if args.full_paths {
        options.home = None;
    }
    let rendered = report::render(&conv, &review, format, options, &report::stem_of(&path));
    let redacted: usize = rendered.redacted.values().sum();
    if to_stdout {
        std::io::Write::write_all(&mut std::io::stdout(), rendered.main.as_bytes())?;
        if !rendered.beside.is_empty() {
            say_err("the charts are not written with -o -: give a file to write them beside it");
        }
        return Ok(());
    }
    let written = report::write(&path, &rendered)?;
    if args.json {
        return print_json(&ReportJson {
            conversation: super::output::conversation_json(&conv),
            format: format.as_str(),
            files: written.iter().map(|p| p.display().to_string()).collect(),
            redacted: &rendered.redacted,
            redacted_total: redacted,
        });
    }
    for p in &written {
        say_err(&format!("wrote {}", p.display()));
    }
    if redacted > 0 {
        say_err(&format!(
            "{} redacted (--no-redact keeps them)",
            crate::core::fmt::count(redacted as u64, "likely secret")
        ));
    }
    Ok(())
}
