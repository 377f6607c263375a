//! jp's own projection code (`../shared/tools/jp-oracle/`): `oracle` at jp's
//! main, `oracle-next` on the branch with size thresholds. A projection of
//! jp-inspect's is compared with what jp's code answers for the same file.

use jp_inspect::core::model::conversation::Conversation;
use jp_inspect::core::model::encoding;
use jp_inspect::core::ops::Projection;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `oracle` or `oracle-next`, when `../shared` has it.
pub fn binary(name: &str) -> Option<PathBuf> {
    let path = super::shared()?.join("tools/jp-oracle").join(name);
    path.is_file().then_some(path)
}

/// What jp's code projects of the conversation in `dir`: its JSON, or the
/// words it refuses the file with.
pub fn project(oracle: &Path, dir: &Path) -> Result<Value, String> {
    run(oracle, &["project"], dir)
}

/// The same, only the events a provider is sent.
pub fn provider_visible(oracle: &Path, dir: &Path) -> Result<Value, String> {
    run(oracle, &["project", "--provider-visible"], dir)
}

fn run(oracle: &Path, args: &[&str], dir: &Path) -> Result<Value, String> {
    let out = Command::new(oracle)
        .args(args)
        .arg(dir)
        .output()
        .map_err(|e| format!("{}: {e}", oracle.display()))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("oracle output: {e}"))
}

/// A config delta as jp prints it is its merged, normalized form (`enable =
/// false` becomes `{"state": false, ...}`): never sent to the model, it is
/// compared by its place alone.
fn settled(mut v: Value) -> Value {
    if v["type"] == "config_delta"
        && let Some(o) = v.as_object_mut()
    {
        o.remove("delta");
    }
    v
}

/// Turn count, turn origins and every projected event (storage encoding
/// removed on both sides, by jp's own rule) equal `expected`, the shape
/// `oracle project` prints.
pub fn compare(conv: &Conversation, p: &Projection, expected: &Value) -> Result<(), String> {
    if expected["turn_count"] != conv.turn_count {
        return Err(format!(
            "turn_count: expected {}, got {}",
            expected["turn_count"], conv.turn_count
        ));
    }
    let origins: Vec<Value> = p.turn_origins.iter().map(|o| o.to_json()).collect();
    if expected["turn_origins"] != Value::Array(origins.clone()) {
        return Err(format!(
            "turn_origins: expected {}, got {}",
            expected["turn_origins"],
            Value::Array(origins)
        ));
    }
    let want: Vec<Value> = expected["projected"]
        .as_array()
        .ok_or("expected.projected is not an array")?
        .iter()
        .cloned()
        .map(|mut v| {
            encoding::decode_event(&mut v);
            v
        })
        .collect();
    let got: Vec<Value> = p
        .events
        .iter()
        .map(|e| p.plain(conv, e))
        .map(settled)
        .collect();
    let want: Vec<Value> = want.into_iter().map(settled).collect();
    if want.len() != got.len() {
        let first = want
            .iter()
            .zip(&got)
            .position(|(w, g)| w != g)
            .unwrap_or(want.len().min(got.len()));
        return Err(format!(
            "projected: expected {} events, got {}; first difference at {first}:\n expected {}\n      got {}",
            want.len(),
            got.len(),
            want.get(first).map_or("-".into(), Value::to_string),
            got.get(first).map_or("-".into(), Value::to_string),
        ));
    }
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        if w != g {
            return Err(format!("projected[{i}]:\n expected {w}\n      got {g}"));
        }
    }
    Ok(())
}
