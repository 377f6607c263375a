//! jp itself as the command summarizer, the recipe docs/automatic.md
//! gives, run against the real `jp` and its stub LLM: the command runs in
//! a fresh private folder (never the workspace jp-inspect was started in,
//! which may be someone else's), so it names the workspace jp should use
//! with `-w`; without it jp can't find one.

use crate::common;

use common::jp::Jp;
use serde_json::Value;
use std::fs;

/// The recipe's command, as docs/automatic.md writes it, for the
/// workspace `ws`: jp's events as JSON lines, the answer's text taken out
/// by `jq` (jp's text output opens with a header naming the model).
fn recipe(ws: &std::path::Path) -> String {
    format!(
        r#"jp --no-persist -F json -w '{}' query --new --no-edit --no-tool-use --hide-reasoning | jq -rj 'select(.type == "chat_response") | .message // empty'"#,
        ws.display()
    )
}

fn config(jp: &Jp, command: &str) -> std::path::PathBuf {
    let path = jp.root.join("summarizer.toml");
    fs::write(
        &path,
        format!(
            "[conversation.compaction.auto.summarizer]\nkind = \"command\"\ncommand = '''{command}'''\ntimeout_secs = 60\n"
        ),
    )
    .unwrap();
    path
}

fn conversations(jp: &Jp) -> usize {
    fs::read_dir(jp.ws.join(".jp/conversations"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("events.json").is_file())
        .count()
}

#[cfg_attr(
    shared_absent,
    ignore = "needs ../shared (jp's own conversations and programs)"
)]
#[test]
fn jp_summarises_a_range_when_told_its_workspace_and_writes_nothing_of_its_own() {
    let Some(jp) = Jp::new(
        "jp_summarises_a_range_when_told_its_workspace_and_writes_nothing_of_its_own",
        0,
        "",
    ) else {
        return;
    };
    // The recipe needs jq: without it this check can't run, and says so by
    // failing rather than passing.
    assert!(
        std::process::Command::new("jq")
            .arg("--version")
            .output()
            .is_ok(),
        "jq is not installed: the documented recipe needs it"
    );
    let id = jp.new_conversation("first: read the parser");
    jp.query(&id, "second: fix the precedence");
    jp.query(&id, "third: update the tests");
    let before = conversations(&jp);
    let asked_before = jp.chat_requests().len();

    // Without `-w`, jp run in the summarizer's private folder finds no
    // workspace: nothing is written, and jp's words say why.
    let bare = config(
        &jp,
        "jp --no-persist query --new --no-edit --no-tool-use --hide-reasoning",
    );
    let out = jp
        .jp_inspect(&[
            "compact",
            &id,
            "s:1..2",
            "--config",
            bare.to_str().unwrap(),
            "--summarizer",
            "command",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = common::stderr(&out);
    assert!(err.contains("workspace"), "{err}");

    // The recipe: jp answers with the stub's summary, which is written.
    let good = config(&jp, &recipe(&jp.ws));
    let out = jp
        .jp_inspect(&[
            "compact",
            &id,
            "s:1..2",
            "--config",
            good.to_str().unwrap(),
            "--summarizer",
            "command",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["compactions"][0];
    assert_eq!(
        c["summary"]["summary"].as_str().map(str::trim),
        Some("a short answer")
    );
    // jp sent the range to the model: the turns' words are in its request.
    let asked = jp.chat_requests();
    assert_eq!(asked.len(), asked_before + 1);
    let sent = asked.last().unwrap().to_string();
    assert!(sent.contains("first: read the parser") && sent.contains("second: fix the precedence"));
    // --no-persist: jp kept no conversation of the summary.
    assert_eq!(conversations(&jp), before);
}
