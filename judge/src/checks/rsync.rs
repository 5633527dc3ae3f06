//! `rsync --delete` onto a root, home or system directory: it deletes
//! everything at the destination that the source lacks, so from an empty
//! directory (`rsync -a --delete empty/ /`) it is `rm -rf` of the
//! destination by another name. Any other rsync is a copy, held to the
//! protected paths like `cp` ([`super::writes`]).

use super::Hit;
use crate::arg::Arg;
use crate::cwd;
use crate::getopt::{self, Spec};
use crate::rule;
use crate::scanner::Context;

/// rsync's options that take a value, so that the value is no operand.
pub(super) const SPEC: Spec = Spec::new(
    "efTBM@",
    &[
        ("rsh", true),
        ("rsync-path", true),
        ("exclude", true),
        ("exclude-from", true),
        ("include", true),
        ("include-from", true),
        ("filter", true),
        ("files-from", true),
        ("backup-dir", true),
        ("suffix", true),
        ("chmod", true),
        ("chown", true),
        ("usermap", true),
        ("groupmap", true),
        ("temp-dir", true),
        ("compare-dest", true),
        ("copy-dest", true),
        ("link-dest", true),
        ("partial-dir", true),
        ("block-size", true),
        ("max-size", true),
        ("min-size", true),
        ("max-delete", true),
        ("timeout", true),
        ("contimeout", true),
        ("port", true),
        ("log-file", true),
        ("log-file-format", true),
        ("password-file", true),
        ("bwlimit", true),
        ("remote-option", true),
        ("out-format", true),
        ("info", true),
        ("debug", true),
        ("iconv", true),
        ("sockopts", true),
        ("modify-window", true),
        ("checksum-choice", true),
        ("compress-choice", true),
        ("compress-level", true),
        ("skip-compress", true),
        ("write-batch", true),
        ("only-write-batch", true),
        ("read-batch", true),
        ("protocol", true),
        ("checksum-seed", true),
        ("stop-after", true),
        ("stop-at", true),
        ("outbuf", true),
        ("address", true),
        ("delete", false),
        ("del", false),
        ("delete-before", false),
        ("delete-during", false),
        ("delete-delay", false),
        ("delete-after", false),
        ("delete-excluded", false),
        ("delete-missing-args", false),
        ("dry-run", false),
        ("list-only", false),
        ("remove-source-files", false),
        ("backup", false),
        ("recursive", false),
        ("archive", false),
    ],
);

/// A source or destination on another machine (`host:path`, `host::mod`,
/// `rsync://…`): nothing here is written there.
pub(super) fn is_remote(word: &str) -> bool {
    if word.starts_with("rsync://") {
        return true;
    }
    match word.split_once(':') {
        Some((host, _)) => !host.is_empty() && !host.contains('/'),
        None => false,
    }
}

pub(super) fn check(args: &[Arg], ctx: &Context, cwd: Option<&str>) -> Option<Hit> {
    let parsed = getopt::parse(args, &SPEC);
    let deletes = parsed.opts.iter().find_map(|(opt, _)| match opt {
        getopt::Opt::Long(name) if name == "del" || name.starts_with("delete") => {
            Some(format!("--{name}"))
        }
        _ => None,
    })?;
    if parsed.has("n", &["dry-run", "list-only"]) || parsed.operands.len() < 2 {
        return None;
    }
    let dest = parsed.operands.last()?;
    let path = local_path(cwd::known_path(dest)?);
    let wide = cwd::too_wide(path, cwd, ctx.home.as_deref())?;
    Some(Hit::new(
        &rule::RSYNC_DELETE_CRITICAL,
        format!("rsync {deletes} deletes what the source lacks from {wide}"),
    ))
}

/// The path part of a destination: `host:/` names `/` on `host`, `host:`
/// its home (judged alike, as the same harm done elsewhere); a daemon
/// module (`host::mod`, `rsync://`) is left alone, as `mod` is no path.
fn local_path(dest: &str) -> &str {
    if dest.contains("::") || dest.starts_with("rsync://") {
        return "";
    }
    match dest.split_once(':') {
        Some((host, path)) if !host.contains('/') => {
            if path.is_empty() {
                "~"
            } else {
                path
            }
        }
        _ => dest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(line: &str) -> Option<String> {
        let args: Vec<Arg> = line.split_whitespace().map(Arg::literal).collect();
        let ctx = Context {
            home: Some("/home/ann".into()),
        };
        check(&args, &ctx, None).map(|h| h.detail)
    }

    #[test]
    fn delete_onto_a_root_home_or_system_directory() {
        for line in [
            "-a --delete empty/ /",
            "-a --delete empty/ /home/ann",
            "-a --delete empty/ /home/ann/",
            "-a --delete-after empty/ ~",
            "-rl --del -e ssh empty/ /etc",
            "--delete -a empty/ host:/",
            "--delete -a empty/ user@host:",
            "-a --delete empty/ ../..",
            "-a --delete --exclude x empty/ /usr/",
        ] {
            assert!(hit(line).is_some(), "{line}");
        }
        for line in [
            "-a empty/ /",
            "-a --delete src/ build/",
            "-a --delete src/ /srv/app/www",
            "-an --delete empty/ /",
            "-a --delete --dry-run empty/ ~",
            "-a --delete --exclude / src/ dest/",
            "-a --delete src/ host::module",
            "-a --delete /",
        ] {
            assert_eq!(hit(line), None, "{line}");
        }
    }
}
