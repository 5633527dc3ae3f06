//! The command reference is generated from the clap definitions, so
//! `--help`, the man pages and the docs cannot say different things:
//! `docs/reference/commands.md` (one section per command, its long help)
//! and `man/*.1` (clap_mangen, one page per command). Both are checked in;
//! this test regenerates them and fails when a checked-in copy differs.
//! `VOYAGE_BLESS=1` rewrites them instead, as for `schemas/plan.schema.json`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::CommandFactory;

use crate::cli::Cli;

/// The width the reference is wrapped at: fixed, so the files do not depend
/// on the terminal the test runs in (clap's own cap is 100 too).
const WIDTH: usize = 100;

const BLESS: &str =
    "run `VOYAGE_BLESS=1 cargo test -p voyage-helper --lib reference_test` and commit the result";

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The whole tree, built: deferred subcommands (cli.rs) only get their
/// arguments when built.
fn command() -> clap::Command {
    let mut command = Cli::command().term_width(WIDTH).max_term_width(WIDTH);
    command.build();
    without_env_values(command)
}

/// `--help` shows an argument's environment variable with its current
/// value (`[env: VOYAGE_PROFILE=fast]`); the reference names the variable
/// only, so it does not depend on the environment the test runs in.
fn without_env_values(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| arg.hide_env_values(true))
        .mut_subcommands(without_env_values)
}

/// Every command of the tree with its full name, depth first, in the order
/// `--help` lists them; clap's own `help` subcommands are left out.
fn walk<'a>(command: &'a clap::Command, name: String, into: &mut Vec<(String, &'a clap::Command)>) {
    into.push((name.clone(), command));
    for sub in command.get_subcommands() {
        if sub.get_name() != "help" {
            walk(sub, format!("{name} {}", sub.get_name()), into);
        }
    }
}

/// `docs/reference/commands.md`: a list of the commands, then each command's
/// long help verbatim in a text block.
fn markdown() -> String {
    let root = command();
    let mut commands = Vec::new();
    walk(&root, "voyage-helper".to_owned(), &mut commands);
    let mut md = String::from(
        "# Command reference\n\n\
         <!-- Generated from the clap definitions by helper/src/reference_test.rs; \
         do not edit. -->\n\n\
         Every command's `--help`, as the binary prints it. The same text is in the \
         man pages of [`man/`](../../man/).\n\n",
    );
    for (name, command) in &commands {
        let depth = name.matches(' ').count();
        let about = command
            .get_about()
            .map(ToString::to_string)
            .unwrap_or_default();
        let _ = writeln!(
            md,
            "{}- [`{name}`](#{}): {about}",
            "  ".repeat(depth),
            anchor(name)
        );
    }
    for (name, command) in &commands {
        let mut command = (*command).clone().bin_name(name.as_str());
        let help = command.render_long_help().to_string();
        let _ = write!(md, "\n## {name}\n\n```text\n{}\n```\n", help.trim_end());
    }
    md
}

/// GitHub's anchor for a heading made of lowercase words and hyphens.
fn anchor(heading: &str) -> String {
    heading.replace(' ', "-")
}

/// `man/<name>.1` for every command, as clap_mangen names them.
fn man_pages() -> BTreeMap<String, Vec<u8>> {
    let root = command();
    let mut commands = Vec::new();
    walk(&root, "voyage-helper".to_owned(), &mut commands);
    let mut pages = BTreeMap::new();
    for (_, command) in commands {
        // A built subcommand carries its display name (`voyage-helper-plan-
        // validate`, the page's title and file name) and its bin name
        // (`voyage-helper plan validate`, its synopsis).
        let man = clap_mangen::Man::new(command.clone());
        let mut page = Vec::new();
        man.render(&mut page).unwrap();
        pages.insert(man.get_filename(), page);
    }
    pages
}

fn bless() -> bool {
    std::env::var_os("VOYAGE_BLESS").is_some()
}

#[test]
fn the_markdown_command_reference_is_generated_from_the_cli() {
    let path = repository().join("docs/reference/commands.md");
    let generated = markdown();
    if bless() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/reference/commands.md is stale: {BLESS}"
    );
}

#[test]
fn the_man_pages_are_generated_from_the_cli() {
    let dir = repository().join("man");
    let generated = man_pages();
    if bless() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, page) in &generated {
            std::fs::write(dir.join(name), page).unwrap();
        }
    }
    let mut on_disk = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).into_iter().flatten() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        on_disk.insert(name, std::fs::read(entry.path()).unwrap());
    }
    let stale: Vec<&String> = generated
        .keys()
        .chain(on_disk.keys())
        .filter(|name| generated.get(*name) != on_disk.get(*name))
        .collect();
    assert!(stale.is_empty(), "man/ is stale ({stale:?}): {BLESS}");
}

#[test]
fn every_command_has_a_section_and_a_page() {
    let root = command();
    let mut commands = Vec::new();
    walk(&root, "voyage-helper".to_owned(), &mut commands);
    let md = markdown();
    let pages = man_pages();
    for (name, _) in &commands {
        assert!(
            md.contains(&format!("\n## {name}\n")),
            "{name} has no section"
        );
        assert!(
            pages.contains_key(&format!("{}.1", name.replace(' ', "-"))),
            "{name} has no page"
        );
    }
    // The tree is not empty by accident: `plan validate` is two levels down.
    assert!(
        commands
            .iter()
            .any(|(name, _)| name == "voyage-helper plan validate")
    );
}
