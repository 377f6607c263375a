//! `request`: the body jp sends at a point, as JSON.

use super::Context;
use super::args::RequestArgs;
use super::output::{conversation_json, print_json, print_warnings};
use crate::core::ops::count;
use crate::core::providers::Provider;
use crate::core::providers::request::Include;
use serde_json::json;

pub fn run(ctx: &Context, args: RequestArgs) -> anyhow::Result<()> {
    let dir = ctx.resolve(args.conv.as_deref())?;
    let conv = crate::core::store::load::load(&dir)?;
    print_warnings(&conv);
    let turn = super::count::at_turn(&conv, args.at)?;
    let point = count::point(&conv, turn);
    let own = point.model.as_ref().and_then(Provider::of_model);
    let provider = match (args.provider, own) {
        (Some(p), _) | (None, Some(p)) => p,
        (None, None) => {
            return Err(super::UsageError(format!(
                "{}'s model ({}) is not one of anthropic, openai or google: give --provider",
                conv.display_id(),
                point
                    .model
                    .as_ref()
                    .map_or("none".to_string(), ToString::to_string)
            ))
            .into());
        }
    };
    let model = point
        .model
        .as_ref()
        .map_or("unknown".to_string(), |m| m.name().to_string());
    let mut body = match provider {
        Provider::Anthropic => point.request.anthropic(&model, Include::ALL),
        Provider::Openai => point.request.openai(&model, Include::ALL),
        Provider::Google => point.request.google(&model, Include::ALL),
    };
    let mut notes = point.request.notes(provider);
    // Anthropic's Messages API requires the output bound jp asks for (its
    // count endpoint refuses it, so only the body printed here has it).
    if provider == Provider::Anthropic {
        let config = crate::core::auto::config_for(&conv, None)?;
        let reserve = crate::core::ops::budget(&conv, &config, None).reserve();
        if reserve > 0 {
            body["max_tokens"] = json!(reserve);
        } else {
            notes.push(
                "max_tokens is left out: neither the configuration nor the table of models \
                 says the model's output bound"
                    .into(),
            );
        }
    }
    if own.is_some_and(|p| p != provider) {
        notes.push(format!(
            "the conversation's model is {}'s: the body names it as {} would be sent it",
            own.map_or("", Provider::name),
            provider.name()
        ));
    }
    let at = match args.at {
        Some(t) => format!("the request of turn {t}"),
        None => "the next request".to_string(),
    };
    if args.json {
        return print_json(&json!({
            "conversation": conversation_json(&conv),
            "provider": provider.name(),
            "model": model,
            "at": args.at,
            "before_event": point.before_event,
            "body": body,
            "notes": notes,
        }));
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
