//! What the command line says where a new user stumbles: a misspelt
//! command names the one meant, `show` at a turn stands alone, a dry run
//! says what it would do, `stats` names the model an alias stands for,
//! `models --refresh` without a key fails and says so. Each through the
//! real binary.

use crate::common;

use common::run_in;

#[test]
fn a_misspelt_command_is_named_with_the_one_meant() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = run_in(tmp.path(), &["stat", "csvq"]);
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    assert!(err.contains("did you mean `stats`?"), "{err}");
    // A lone word that is neither a conversation nor a command says both.
    let out = run_in(tmp.path(), &["frobnicate"]);
    assert_eq!(out.status.code(), Some(1));
    let err = common::stderr(&out);
    assert!(
        err.contains("not a command") && err.contains("stats"),
        "{err}"
    );
    let out = run_in(tmp.path(), &["simulte"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("did you mean `simulate`?"));
}

#[test]
fn show_at_a_turn_stands_alone() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let alone = run_in(tmp.path(), &["show", "17944860430", "--at", "3", "--json"]);
    let with = run_in(
        tmp.path(),
        &["show", "17944860430", "--compacted", "--at", "3", "--json"],
    );
    assert!(alone.status.success(), "{}", common::stderr(&alone));
    assert_eq!(alone.stdout, with.stdout);
}

#[test]
fn a_dry_run_says_what_would_be_done_and_counts_read_as_words() {
    let tmp = tempfile::tempdir().unwrap();
    common::demo_copy(tmp.path());
    let out = run_in(
        tmp.path(),
        &["compact", "17944860430", "r+t:26..30", "--dry-run"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Would compact turns 26..30"), "{text}");
    assert!(!text.contains("Compacted "), "{text}");
    let out = run_in(tmp.path(), &["reset", "17944860430", "--auto", "--dry-run"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Would remove 1 automatic compaction."),
        "{text}"
    );
    assert!(!text.contains("(automatic compactions)"), "{text}");
}

#[test]
fn stats_names_the_model_an_alias_stands_for() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = common::demo_copy(tmp.path());
    let path = conv.join("base_config.json");
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    config["assistant"]["model"]["id"] = "google".into();
    std::fs::write(&path, config.to_string()).unwrap();
    let out = run_in(tmp.path(), &["stats", "17944860430"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("model: google (the alias of google/gemini-2.5-pro)"),
        "{text}"
    );
}

#[test]
fn models_refresh_without_a_key_fails_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let out = common::binary()
        .args(["models", "--refresh"])
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("GEMINI_API_KEY")
        .env("HOME", tmp.path())
        .env("XDG_CONFIG_HOME", tmp.path())
        .env("XDG_CACHE_HOME", tmp.path())
        .env("JP_GLOBAL_CONFIG_DIR", tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(common::stderr(&out).contains("nothing was refreshed"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("skipped"), "{text}");
    assert!(
        !text.contains("the bundled table"),
        "the table again: {text}"
    );
}
