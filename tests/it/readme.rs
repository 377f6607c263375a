//! README and the guide under `docs/` are what a user reads first: the key
//! table and command synopses must say what the program does, and every
//! link must lead somewhere.

use crate::common;

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The guide's pages, in name order.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    pages
}

/// README.md, then every page of the guide.
fn readme() -> String {
    let mut text = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    for page in pages() {
        text.push('\n');
        text.push_str(&std::fs::read_to_string(page).unwrap());
    }
    text
}

/// A newcomer's front page: short, and a map of the guide.
#[test]
fn the_front_page_is_short_and_leads_to_every_page_of_the_guide() {
    let front = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let lines = front.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; the rest belongs in docs/"
    );
    let pages = pages();
    assert!(pages.len() >= 3, "the guide has {} pages", pages.len());
    for page in pages {
        let name = page.file_name().unwrap().to_str().unwrap();
        assert!(
            front.contains(&format!("(docs/{name})")),
            "README.md does not link docs/{name}"
        );
    }
}

/// Every relative link and image of README and the guide names a file
/// that is there.
#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    let mut files = vec![Path::new(ROOT).join("README.md")];
    files.extend(pages());
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for piece in text.split("](").skip(1) {
            let target = piece.split([')', '#', ' ']).next().unwrap();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            if !file.parent().unwrap().join(target).exists() {
                broken.push(format!("{}: {target}", file.display()));
            }
        }
    }
    assert!(broken.is_empty(), "links to nothing: {broken:?}");
}

fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text.find(heading).expect(heading);
    let rest = &text[start + heading.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// Every printable key of the main screen (and the global ones) is in the
/// Keys table, so a binding added to `assets/keys.toml` cannot go unmentioned.
#[test]
fn the_keys_table_names_every_main_screen_key() {
    let keys: toml::Value =
        toml::from_str(include_str!("../../assets/keys.toml")).expect("assets/keys.toml");
    let text = readme();
    let table = section(&text, "## Keys");
    let mut missing = Vec::new();
    for binding in keys["key"].as_array().unwrap() {
        let scope = binding["scope"].as_str().unwrap();
        if scope != "main" && scope != "global" {
            continue;
        }
        let named: Vec<&str> = binding["keys"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|k| k.as_str())
            .filter(|k| k.chars().count() == 1)
            .collect();
        // A binding is documented when one of its single-character keys is.
        if !named.is_empty() && !named.iter().any(|k| table.contains(&format!("`{k}`"))) {
            missing.push(format!("{} ({:?})", binding["action"], named));
        }
    }
    assert!(missing.is_empty(), "README's Keys table misses {missing:?}");
}

/// Every flag a synopsis line of "Headless commands" shows is one the
/// command accepts.
#[test]
fn the_headless_synopses_use_real_flags() {
    let text = readme();
    let block = section(&text, "## Headless commands");
    let mut wrong = Vec::new();
    for line in block.lines().filter(|l| l.starts_with("jp-inspect ")) {
        let sub = line.split_whitespace().nth(1).unwrap();
        let args: Vec<&str> = if sub.starts_with("--") {
            vec!["--help"]
        } else {
            vec![sub, "--help"]
        };
        let out = common::binary().args(&args).output().unwrap();
        assert!(out.status.success(), "`jp-inspect {sub} --help` fails");
        let help = String::from_utf8_lossy(&out.stdout);
        let synopsis = line.split('#').next().unwrap();
        for flag in synopsis
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|w| w.starts_with("--") && w.len() > 2)
        {
            if !help.contains(flag) {
                wrong.push(format!("{sub} {flag}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "README shows flags the program lacks: {wrong:?}"
    );
}

/// The colour roles README lists are the ones a user config accepts.
#[test]
fn the_colour_roles_listed_are_the_palettes() {
    let text = readme();
    let at = text.find("The roles: `").expect("the roles list");
    let list = &text[at + "The roles: `".len()..];
    let listed: Vec<&str> = list[..list.find('`').unwrap()].split_whitespace().collect();
    assert_eq!(listed, jp_inspect::tui::theme::Palette::ROLES);
}

#[test]
fn every_example_the_readme_runs_is_there() {
    let text = readme();
    let named: Vec<&str> = text
        .split("--example ")
        .skip(1)
        .filter_map(|rest| {
            rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
        })
        .collect();
    assert!(!named.is_empty(), "the README names no example");
    for name in named {
        let path = Path::new(ROOT).join("examples").join(format!("{name}.rs"));
        assert!(
            path.is_file(),
            "README runs `--example {name}`: {} is missing",
            path.display()
        );
    }
}
