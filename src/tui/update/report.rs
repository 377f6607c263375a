//! `W`: the open conversation's report, written off the UI thread to the
//! folder jp-inspect started in, as `jp-inspect report` writes it.

use super::run;
use crate::tui::job::Job;
use crate::tui::msg::Effect;
use crate::tui::state::State;
use crate::tui::status_log::Level;
use std::path::PathBuf;

pub(super) fn write(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(m) = &state.inspection else {
        return;
    };
    let conv = m.conv.clone();
    let name = crate::report::default_name(&conv, crate::report::Format::Html);
    let path = match &state.settings.report_dir {
        Some(dir) => dir.join(name),
        None => PathBuf::from(name),
    };
    let job = Job::Report {
        conv,
        config: state.settings.config.clone(),
        window: state.settings.window_override,
        view: state.settings.view,
        path,
    };
    run(state, fx, "writing the report", job);
}

pub(super) fn written(state: &mut State, done: Result<(PathBuf, usize), String>) {
    state.status.busy = None;
    match done {
        Ok((path, redacted)) => {
            let secrets = match redacted {
                0 => String::new(),
                n => format!(
                    "; {} redacted",
                    crate::core::fmt::count(n as u64, "likely secret")
                ),
            };
            state.set_status(
                format!(
                    "wrote the report to {}{secrets} (jp-inspect report writes Markdown too)",
                    path.display()
                ),
                Level::Info,
            );
        }
        Err(why) => state.set_status(format!("the report was not written: {why}"), Level::Error),
    }
}
