//! `man`: the manual pages, jp-inspect(1) and one per command, from the same
//! definitions `--help` prints; the top page also lists the inspector's
//! keys (from `assets/keys.toml`, as `?` shows them) and the other pages.

use super::args::Cli;
use roff::{Roff, bold, roman};
use std::io::Write;
use std::path::PathBuf;

pub fn run(dir: Option<PathBuf>) -> anyhow::Result<()> {
    let pages = pages()?;
    match dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir)?;
            for (name, roff) in pages {
                std::fs::write(dir.join(format!("{name}.1")), roff)?;
            }
        }
        None => {
            let mut out = std::io::stdout().lock();
            for (_, roff) in pages {
                out.write_all(&roff)?;
            }
        }
    }
    Ok(())
}

/// Each page's name and roff text.
fn pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    // Built first, so each command's page has the global options.
    cmd.build();
    let subs: Vec<clap::Command> = cmd
        .get_subcommands()
        .filter(|s| s.get_name() != "help")
        .cloned()
        .collect();
    let names: Vec<String> = subs
        .iter()
        .map(|s| format!("jp-inspect-{}", s.get_name()))
        .collect();
    let mut pages = vec![("jp-inspect".to_string(), top_page(cmd, &names)?)];
    for (sub, name) in subs.into_iter().zip(names) {
        // clap names a command with a `&'static str`; this runs once.
        let title: &'static str = Box::leak(name.clone().into_boxed_str());
        let mut roff = Vec::new();
        clap_mangen::Man::new(sub.name(title)).render(&mut roff)?;
        pages.push((name, roff));
    }
    Ok(pages)
}

/// jp-inspect(1): clap's sections with KEYS and SEE ALSO added.
fn top_page(cmd: clap::Command, others: &[String]) -> std::io::Result<Vec<u8>> {
    let man = clap_mangen::Man::new(cmd);
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    man.render_subcommands_section(&mut out)?;
    keys_section().to_writer(&mut out)?;
    man.render_extra_section(&mut out)?;
    let mut see_also = Roff::new();
    see_also.control("SH", ["SEE ALSO"]);
    let refs: Vec<String> = others.iter().map(|n| format!("{n}(1)")).collect();
    see_also.text([roman(format!("{}, jp(1)", refs.join(", ")))]);
    see_also.to_writer(&mut out)?;
    man.render_version_section(&mut out)?;
    Ok(out)
}

/// KEYS: every binding of the inspector, by where it applies.
fn keys_section() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["KEYS"]);
    roff.text([roman(
        "The inspector's bindings (assets/keys.toml; ? shows them, \
         $XDG_CONFIG_HOME/jp-inspect/config.toml changes them).",
    )]);
    for (scope, title) in crate::keymap::SECTIONS {
        roff.control("SS", [title]);
        for b in crate::keymap::bundled().iter().filter(|b| b.scope == scope) {
            roff.control("TP", []);
            roff.text([bold(b.keys.join(", "))]);
            roff.text([roman(b.help.clone())]);
        }
    }
    roff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_page_lists_every_key_and_every_other_page() {
        let pages = pages().unwrap();
        let top = String::from_utf8(pages[0].1.clone()).unwrap();
        assert!(top.contains(".SH KEYS"), "{top}");
        for b in crate::keymap::bundled() {
            // As roff escapes it (dashes, apostrophes).
            let help = b.help.replace('-', "\\-").replace('\'', "\\*(Aq");
            assert!(top.contains(&help), "KEYS misses {:?}", b.help);
        }
        for (name, _) in &pages[1..] {
            assert!(
                top.contains(&format!("{}(1)", name.replace('-', "\\-"))),
                "SEE ALSO misses {name}"
            );
        }
        assert!(pages.iter().any(|(n, _)| n == "jp-inspect-show"));
    }
}
