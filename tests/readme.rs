//! README is what a user reads first: its key table and command synopses must
//! say what the program does.

mod common;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
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
        toml::from_str(include_str!("../assets/keys.toml")).expect("assets/keys.toml");
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
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(format!("{name}.rs"));
        assert!(
            path.is_file(),
            "README runs `--example {name}`: {} is missing",
            path.display()
        );
    }
}
