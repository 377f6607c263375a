//! Unit tests of `config`.

use super::*;
use serde_json::json;
use std::time::Duration;

#[test]
fn defaults_are_d50_and_the_ticket() {
    let c = AutoConfig::default();
    assert!(!c.enabled);
    assert_eq!(c.trigger_ratio, 0.75);
    assert_eq!(c.min_turns, 5);
    assert_eq!((c.rule.keep_first, c.rule.keep_last), (1, 3));
    assert_eq!(
        (c.soft_ratio, c.hard_ratio, c.recent_ratio),
        (0.6, 0.85, 0.3)
    );
    assert_eq!(c.recent_min_turns, 2);
    assert_eq!(c.elide.tool_calls.unwrap().over(), Some(1024));
}

#[test]
fn layers_override_in_order() {
    let mut c = AutoConfig::default();
    c.apply_document(
        &json!({"conversation": {"compaction": {"auto": {"enabled": true, "mode": "single", "trigger_ratio": 0.5}}}}),
        "base_config.json",
    )
    .unwrap();
    c.apply(
        &json!({"trigger_ratio": 0.9, "rule": {"keep_last": 5, "tool_calls": "omit"}}),
        "x.toml",
    )
    .unwrap();
    assert!(c.enabled);
    assert_eq!(c.mode, Mode::Single);
    assert_eq!(c.trigger_ratio, 0.9);
    assert_eq!(c.rule.keep_last, 5);
    assert_eq!(c.rule.tool_calls, Some(ToolCalls::Omit { over: None }));
}

#[test]
fn errors_name_the_key_and_the_file() {
    let mut c = AutoConfig::default();
    let e = c
        .apply(&json!({"trigger_ratio": 2}), "auto.toml")
        .unwrap_err();
    assert_eq!(e.key, "conversation.compaction.auto.trigger_ratio");
    assert!(e.to_string().starts_with("auto.toml: "), "{e}");
    let e = c
        .apply(&json!({"rule": {"keep_lats": 2}}), "auto.toml")
        .unwrap_err();
    assert_eq!(e.key, "conversation.compaction.auto.rule.keep_lats");
    assert!(e.message.contains("unknown key"));
    let e = c.apply(&json!({"mode": "tiered"}), "f").unwrap_err();
    assert!(e.message.contains("unknown mode"));
    let e = c
        .apply(&json!({"soft_ratio": 0.9, "hard_ratio": 0.8}), "f")
        .unwrap_err();
    assert!(e.message.contains("must not be above"));
}

#[test]
fn tool_calls_table_with_over() {
    let mut c = AutoConfig::default();
    c.apply(&json!({"elide": {"tool_calls": {"policy": "strip", "request": false, "response": true, "over": 2048}}}), "f")
        .unwrap();
    assert_eq!(
        c.elide.tool_calls,
        Some(ToolCalls::Strip {
            request: false,
            response: true,
            over: Some(2048)
        })
    );
}

#[test]
fn reads_a_toml_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("auto.toml");
    std::fs::write(
        &path,
        "[conversation.compaction.auto]\nmode = \"single\"\n[conversation.compaction.auto.rule]\nkeep_last = 4\n\
         [conversation.compaction.auto.summarizer]\nkind = \"command\"\ncommand = \"cat\"\ntimeout_secs = 5\n",
    )
    .unwrap();
    let mut c = AutoConfig::default();
    c.apply_file(&path).unwrap();
    assert_eq!(c.mode, Mode::Single);
    assert_eq!(c.rule.keep_last, 4);
    assert_eq!(
        c.summarizer,
        SummarizerConfig::Command {
            command: "cat".into(),
            timeout: Duration::from_secs(5)
        }
    );
    std::fs::write(
        &path,
        "[conversation.compaction.auto]\nmin_turns = \"five\"\n",
    )
    .unwrap();
    let e = c.apply_file(&path).unwrap_err().to_string();
    assert!(e.contains("auto.toml"), "{e}");
    assert!(e.contains("min_turns"), "{e}");
}

#[test]
fn anthropic_needs_no_settings_and_later_layers_refine_it() {
    let mut c = AutoConfig::default();
    c.apply(&json!({"summarizer": {"kind": "anthropic"}}), "user.toml")
        .unwrap();
    assert_eq!(c.summarizer, SummarizerConfig::anthropic_defaults());
    // A later layer changes one setting and keeps the others.
    c.apply(
        &json!({"summarizer": {"model": "claude-opus-4-1", "max_tokens": 500}}),
        "x.toml",
    )
    .unwrap();
    let SummarizerConfig::Anthropic {
        model,
        max_tokens,
        api_key_env,
        base_url,
        ..
    } = &c.summarizer
    else {
        panic!("{:?}", c.summarizer)
    };
    assert_eq!((model.as_str(), *max_tokens), ("claude-opus-4-1", 500));
    assert_eq!(api_key_env, "ANTHROPIC_API_KEY");
    assert_eq!(base_url, "https://api.anthropic.com");
}
