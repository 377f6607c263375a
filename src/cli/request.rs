//! `request`: the body jp sends at a point, as JSON.

use super::Context;
use super::args::RequestArgs;
use super::output::{conversation_json, print_json, print_warnings};
use crate::core::ops::request::{self, Body, BodyError, BodyRequest};

/// What `request --json` prints: the body the provider would be sent.
#[derive(serde::Serialize)]
struct RequestJson<'a> {
    conversation: serde_json::Value,
    provider: &'static str,
    model: &'a str,
    at: Option<usize>,
    before_event: Option<usize>,
    body: &'a serde_json::Value,
    notes: &'a [String],
}

pub fn run(ctx: &Context, args: RequestArgs) -> anyhow::Result<()> {
    let conv = ctx.load(args.conv.as_deref())?;
    print_warnings(&conv);
    let asked = BodyRequest {
        turn: super::count::at_turn(&conv, args.at)?,
        provider: args.provider,
        jp: ctx.jp.clone(),
    };
    let Body {
        provider,
        model,
        before_event,
        body,
        notes,
    } = match request::body(&conv, asked) {
        Ok(b) => b,
        Err(e @ BodyError::NoProvider { .. }) => {
            return Err(
                super::UsageError(format!("{}'s {e}: give --provider", conv.display_id())).into(),
            );
        }
        Err(BodyError::Config(e)) => return Err(e.into()),
    };
    let at = match args.at {
        Some(t) => format!("the request of turn {t}"),
        None => "the next request".to_string(),
    };
    if args.json {
        return print_json(&RequestJson {
            conversation: conversation_json(&conv),
            provider: provider.name(),
            model: &model,
            at: args.at,
            before_event,
            body: &body,
            notes: &notes,
        });
    }
    super::output::say_err(&format!(
        "{}: {at}, as jp's {} code builds it for {model}",
        conv.display_id(),
        provider.name()
    ));
    for n in &notes {
        super::output::say_err(&format!("note: {n}"));
    }
    println!("{}", serde_json::to_string_pretty(&body)?);
    Ok(())
}
