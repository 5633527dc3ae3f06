//! The table's readers for programs that write where one of their options
//! or operands says, each a few lines of its own: a session log
//! (`script`), keys (`ssh-keygen`), rsync's sources and logs, the outputs
//! compilers, tracers, converters and test runners are told to write, the
//! configuration `npm config set` and `pip config set` change, and the
//! files whose mode or owner changes (`chmod`).

use super::{
    Call, Found, Kind, SCRIPT, found, is_pattern, looks_like_dir, operands, under, unknown,
    value_arg,
};
use crate::arg::Arg;
use crate::paths::Write;

/// The files a call's options `names` name (see [`option_values`]), each
/// written as the call writes.
fn named_by(call: &Call<'_>, names: &[&str], attached: bool) -> Vec<Found> {
    option_values(call.args, names, attached)
        .into_iter()
        .map(|file| found(file, call.kind))
        .collect()
}

/// The values of the options `names` in `args` (`-o F`, `--out F`,
/// `-name=F`, and with `attached`, `-oF` for a one-letter name), read
/// without the program's whole option table: for programs whose other
/// options are many, and whose output is one option.
fn option_values(args: &[Arg], names: &[&str], attached: bool) -> Vec<Arg> {
    let mut out = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(text) = word.exact_text() else {
            continue;
        };
        if text == "--" {
            break;
        }
        for name in names {
            if text == *name {
                out.extend(words.next().cloned());
                break;
            }
            let joined = text
                .strip_prefix(name)
                .and_then(|rest| {
                    rest.strip_prefix('=')
                        .or((attached && name.len() == 2).then_some(rest))
                })
                .filter(|v| !v.is_empty());
            if let Some(value) = joined {
                out.push(Arg::derived(value));
                break;
            }
        }
    }
    out
}

/// `script [FILE]`: FILE, or `typescript` when neither FILE nor a log of
/// the output or input (`-O`, `-B`, `-I`) is named; and the logs of its
/// options (`-O`, `-I`, `-B`, `-T`, `-tFILE`, `--timing=FILE`). `-a`
/// appends.
pub(super) fn script(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    let kind = if p.has("a", &["append"]) {
        Kind::Append
    } else {
        Kind::Replace
    };
    let logs = [
        (Some('O'), Some("log-out")),
        (Some('I'), Some("log-in")),
        (Some('B'), Some("log-io")),
        (Some('T'), Some("log-timing")),
        (None, Some("timing")),
    ];
    let mut out: Vec<Found> = Vec::new();
    for (short, long) in logs {
        for value in p.values(short, long) {
            out.push(found(value_arg(call.args, value), kind));
        }
    }
    // `-t` keeps its file attached, in a cluster (`-qtFILE`).
    for a in call.args.iter().filter(|a| a.exact) {
        let Some(cluster) = a.text.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
            continue;
        };
        let before_value = cluster.find(|c| SCRIPT.short_with_value.contains(c));
        if let Some(at) = cluster
            .find('t')
            .filter(|at| before_value.is_none_or(|v| *at < v))
            && let Some(file) = cluster.get(at + 1..).filter(|f| !f.is_empty())
        {
            out.push(found(Arg::derived(file), kind));
        }
    }
    let logged = p.has("OBI", &["log-out", "log-io", "log-in"]);
    match p.operands.first() {
        Some(file) => out.push(found((*file).clone(), kind)),
        None if !logged => out.push(found(Arg::literal("typescript"), kind)),
        None => {}
    }
    out
}

/// `ssh-keygen`: a new key (`-f FILE`: FILE and FILE.pub; without it, a
/// key in `~/.ssh/`), a key or known-hosts file rewritten in place (`-p`,
/// `-c`, `-H`, `-R host`: the latter with `FILE.old` beside it), a
/// certificate (`-s CA KEY.pub`: `KEY-cert.pub`), a signature (`-Y sign
/// FILE`: `FILE.sig`), a revocation list (`-k`). Fingerprints, public
/// keys and look-ups (`-l`, `-y`, `-B`, `-F`, `-L`, `-Q`, `-D`, `-e`,
/// `-i`, `-Y verify`) only read.
pub(super) fn ssh_keygen(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    let file = p
        .values(Some('f'), None)
        .last()
        .map(|f| value_arg(call.args, f));
    let with = |base: &Arg, suffix: &str| Arg {
        text: format!("{}{suffix}", base.text).into(),
        content: None,
        ..base.clone()
    };
    let in_ssh = |name: &str| Arg {
        glob: is_pattern(name),
        ..Arg::literal(&format!("~/.ssh/{name}"))
    };
    let modify = |target: Arg| found(target, Kind::Modify);
    if let Some(action) = p.values(Some('Y'), None).last() {
        return match *action {
            "sign" => p
                .operands
                .iter()
                .map(|f| found(with(f, ".sig"), Kind::Replace))
                .collect(),
            _ => Vec::new(),
        };
    }
    if p.has("lyBLQDeiK", &[]) || !p.values(Some('F'), None).is_empty() {
        // `-K` downloads a token's keys into the directory it stands in.
        return if p.has("K", &[]) {
            vec![found(
                Arg {
                    glob: true,
                    ..Arg::literal("id_*")
                },
                Kind::Replace,
            )]
        } else {
            Vec::new()
        };
    }
    if !p.values(Some('s'), None).is_empty() {
        return p
            .operands
            .iter()
            .map(|key| {
                let stem = key.text.strip_suffix(".pub").unwrap_or(&key.text);
                found(
                    with(
                        &Arg {
                            text: stem.into(),
                            ..(*key).clone()
                        },
                        "-cert.pub",
                    ),
                    Kind::Replace,
                )
            })
            .collect();
    }
    if !p.values(Some('R'), None).is_empty() || p.has("H", &[]) {
        let hosts = file.unwrap_or_else(|| in_ssh("known_hosts"));
        let mut out = vec![modify(hosts.clone())];
        if !p.values(Some('R'), None).is_empty() {
            out.push(found(with(&hosts, ".old"), Kind::Replace));
        }
        return out;
    }
    if p.has("pck", &[]) {
        let key = file.unwrap_or_else(|| in_ssh("id_*"));
        // A new comment goes into the public key too.
        let public = p.has("c", &[]).then(|| modify(with(&key, ".pub")));
        return std::iter::once(modify(key)).chain(public).collect();
    }
    // `-M generate|screen … OUT`: moduli written to OUT.
    if !p.values(Some('M'), None).is_empty() {
        return operands(call, 0);
    }
    // `-A`: every missing host key, under `-f PREFIX` if given.
    if p.has("A", &[]) {
        let keys = Arg {
            glob: true,
            ..Arg::literal("etc/ssh/ssh_host_*")
        };
        let root = file.unwrap_or_else(|| Arg::literal("/"));
        return vec![found(under(&root, &keys), Kind::Replace)];
    }
    let key = file.unwrap_or_else(|| in_ssh("id_*"));
    let public = with(&key, ".pub");
    vec![found(key, Kind::Replace), found(public, Kind::Replace)]
}

/// `rsync SRC… DEST`: the destination (nothing on another machine), the
/// sources with `--remove-source-files`, the backups `-b` makes (beside a
/// file destination, or under `--backup-dir`, read from the destination),
/// and the logs and batch files its options name.
pub(super) fn rsync(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    let local = |a: &Arg| !crate::checks::rsync::is_remote(&a.text);
    let mut out = Vec::new();
    let value = |long: &str| -> Vec<Arg> {
        p.values(None, Some(long))
            .into_iter()
            .map(|v| value_arg(call.args, v))
            .collect()
    };
    for log in value("log-file") {
        out.push(found(log, Kind::Append));
    }
    for batch in value("write-batch")
        .into_iter()
        .chain(value("only-write-batch"))
    {
        let script = Arg {
            text: format!("{}.sh", batch.text).into(),
            content: None,
            ..batch.clone()
        };
        out.push(found(batch, Kind::Replace));
        out.push(found(script, Kind::Replace));
    }
    let Some((dest, sources)) = p.operands.split_last() else {
        return out;
    };
    if sources.is_empty() {
        return out;
    }
    if p.has("", &["remove-source-files"]) {
        out.extend(
            sources
                .iter()
                .filter(|s| local(s))
                .map(|s| found((*s).clone(), Kind::Tree)),
        );
    }
    if !local(dest) || p.has_long("only-write-batch") {
        return out;
    }
    out.push(found((*dest).clone(), call.kind));
    if p.has("b", &["backup"]) {
        match value("backup-dir").last() {
            Some(dir) => out.push(found(under(dest, dir), Kind::Tree)),
            None if !looks_like_dir(dest) && !p.has("ra", &["recursive", "archive"]) => {
                let suffix = p
                    .values(None, Some("suffix"))
                    .last()
                    .copied()
                    .unwrap_or("~");
                out.push(found(
                    Arg {
                        text: format!("{}{suffix}", dest.text).into(),
                        content: None,
                        ..(*dest).clone()
                    },
                    Kind::Replace,
                ));
            }
            None => {}
        }
    }
    out
}

/// A compiler's or linker's `-o FILE` (`rustc --out-dir DIR`, a tree).
/// What it writes without `-o` (`a.out`, `x.o`) is a build's own output.
pub(super) fn compiler_output(call: &Call<'_>) -> Vec<Found> {
    let mut out: Vec<Found> = named_by(call, &["-o"], true);
    if call.name == "rustc" {
        out.extend(
            option_values(call.args, &["--out-dir"], false)
                .into_iter()
                .map(|d| found(d, Kind::Tree)),
        );
    }
    out
}

/// `tcpdump -w FILE`, `tshark -w FILE`.
pub(super) fn capture_file(call: &Call<'_>) -> Vec<Found> {
    named_by(call, &["-w"], true)
}

/// `convert IN… OUT`, `magick IN… OUT`, `ffmpeg -i IN … OUT`: the last
/// word, the output (not an option, nor `-i`'s input).
/// ImageMagick's `FORMAT:FILE` names FILE (`png:out.png`; `info:` alone
/// prints).
pub(super) fn last_word(call: &Call<'_>) -> Vec<Found> {
    let [.., before, last] = call.args else {
        return Vec::new();
    };
    if (last.exact && last.text.starts_with('-')) || before.is("-i") {
        return Vec::new();
    }
    let formatted = last
        .exact_text()
        .and_then(|t| t.split_once(':'))
        .filter(|(format, _)| {
            !format.is_empty() && format.chars().all(|c| c.is_ascii_alphanumeric())
        });
    match formatted {
        Some((_, "" | "-")) => Vec::new(),
        Some((_, file)) => vec![found(Arg::derived(file), call.kind)],
        None => vec![found(last.clone(), call.kind)],
    }
}

/// `dos2unix FILE…` converts in place; `-n IN OUT` writes OUT; `-i`
/// only reports.
pub(super) fn dos2unix(call: &Call<'_>) -> Vec<Found> {
    let flag = |a: &Arg, short: &str, long: &str| a.is(short) || a.is(long);
    if call.args.iter().any(|a| flag(a, "-i", "--info")) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut new_file = false;
    let mut pending: Vec<&Arg> = Vec::new();
    for a in call.args {
        if flag(a, "-n", "--newfile") {
            new_file = true;
        } else if flag(a, "-o", "--oldfile") {
            new_file = false;
        } else if a.exact && a.text.starts_with('-') {
            continue;
        } else if new_file {
            pending.push(a);
            if let [_, output] = pending.as_slice() {
                out.push(found((*output).clone(), Kind::Replace));
                pending.clear();
            }
        } else {
            out.push(found(a.clone(), call.kind));
        }
    }
    out
}

/// `ctags`: `-f FILE` or `-o FILE`, else `tags` where it stands
/// (`etags`: `TAGS`); `-x` prints instead.
pub(super) fn tags_file(call: &Call<'_>) -> Vec<Found> {
    let only_prints =
        |a: &Arg| a.is("-x") || a.is("--version") || a.is("--help") || a.text.starts_with("--list");
    if call.args.iter().any(only_prints) {
        return Vec::new();
    }
    let named = option_values(call.args, &["-f", "-o", "--output"], true);
    if named.is_empty() {
        let default = if call.name == "etags" { "TAGS" } else { "tags" };
        return vec![found(Arg::literal(default), call.kind)];
    }
    named.into_iter().map(|f| found(f, call.kind)).collect()
}

/// `npm config set|delete|edit` (and `npm set`): the user's `~/.npmrc`,
/// `--userconfig F`, or with `--location=project` the project's `.npmrc`
/// (`--global`: npm's own, somewhere the text does not say).
pub(super) fn npm_config(call: &Call<'_>) -> Vec<Found> {
    let ops: Vec<&str> = call
        .args
        .iter()
        .filter(|a| !a.text.starts_with('-'))
        .map(|a| a.text.as_str())
        .collect();
    let writes = matches!(
        ops.as_slice(),
        ["config" | "c", "set" | "delete" | "rm" | "edit" | "fix", ..] | ["set", ..]
    );
    if !writes {
        return Vec::new();
    }
    let has = |w: &str| call.args.iter().any(|a| a.is(w));
    if let Some(file) = option_values(call.args, &["--userconfig"], false).pop() {
        return vec![found(file, call.kind)];
    }
    let location = option_values(call.args, &["--location", "-L"], false).pop();
    match location.as_ref().map(|l| l.text.as_str()) {
        Some("project") => vec![found(Arg::literal(".npmrc"), call.kind)],
        Some("global") => vec![unknown(call.name, "its global configuration", call.kind)],
        _ if has("-g") || has("--global") => {
            vec![unknown(call.name, "its global configuration", call.kind)]
        }
        _ => vec![found(Arg::literal("~/.npmrc"), call.kind)],
    }
}

/// `pip config set|unset|edit`: the user's `~/.config/pip/pip.conf`, or
/// with `--global` the system's, with `--site` the environment's.
pub(super) fn pip_config(call: &Call<'_>) -> Vec<Found> {
    let ops: Vec<&str> = call
        .args
        .iter()
        .filter(|a| !a.text.starts_with('-'))
        .map(|a| a.text.as_str())
        .collect();
    if !matches!(ops.as_slice(), ["config", "set" | "unset" | "edit", ..]) {
        return Vec::new();
    }
    let has = |w: &str| call.args.iter().any(|a| a.is(w));
    if has("--global") {
        vec![found(Arg::literal("/etc/xdg/pip/pip.conf"), call.kind)]
    } else if has("--site") {
        vec![unknown(call.name, "the environment's pip.conf", call.kind)]
    } else {
        vec![found(Arg::literal("~/.config/pip/pip.conf"), call.kind)]
    }
}

/// `go build -o OUT`, `go test -o OUT -coverprofile F -cpuprofile F …`
/// (`-outputdir DIR` places the profiles, a tree).
pub(super) fn go_outputs(call: &Call<'_>) -> Vec<Found> {
    let Some(sub) = call.args.first().and_then(|a| a.exact_text()) else {
        return Vec::new();
    };
    if !matches!(sub, "build" | "test" | "install" | "vet") {
        return Vec::new();
    }
    let args = call.args.get(1..).unwrap_or_default();
    let flag = |name: &str| [format!("-{name}"), format!("--{name}")];
    let mut names: Vec<String> = Vec::new();
    for name in [
        "o",
        "coverprofile",
        "cpuprofile",
        "memprofile",
        "blockprofile",
        "mutexprofile",
        "trace",
    ] {
        names.extend(flag(name));
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut out: Vec<Found> = option_values(args, &names, false)
        .into_iter()
        .map(|f| found(f, call.kind))
        .collect();
    out.extend(
        option_values(args, &["-outputdir", "--outputdir"], false)
            .into_iter()
            .map(|d| found(d, Kind::Tree)),
    );
    out
}

/// pytest's reports (`--junitxml=F`, `--cov-report=xml:F`, `--html=F`,
/// `--report-log=F`) and `--basetemp=DIR`, which it empties first (a
/// tree).
pub(super) fn pytest_outputs(call: &Call<'_>) -> Vec<Found> {
    let mut out: Vec<Found> = option_values(
        call.args,
        &[
            "--junitxml",
            "--junit-xml",
            "--html",
            "--report-log",
            "--resultlog",
        ],
        false,
    )
    .into_iter()
    .map(|f| found(f, call.kind))
    .collect();
    for report in option_values(call.args, &["--cov-report"], false) {
        if let Some((kind, path)) = report.text.split_once(':')
            && !path.is_empty()
        {
            let kind = if kind == "html" {
                Kind::Tree
            } else {
                call.kind
            };
            out.push(found(
                Arg {
                    text: path.into(),
                    content: None,
                    ..report.clone()
                },
                kind,
            ));
        }
    }
    out.extend(
        option_values(call.args, &["--basetemp"], false)
            .into_iter()
            .map(|d| found(d, Kind::Tree)),
    );
    out
}

/// `esbuild --outfile=F` (`--outdir=DIR`, a tree).
pub(super) fn esbuild(call: &Call<'_>) -> Vec<Found> {
    let mut out: Vec<Found> = named_by(call, &["--outfile"], false);
    out.extend(
        option_values(call.args, &["--outdir"], false)
            .into_iter()
            .map(|d| found(d, Kind::Tree)),
    );
    out
}

/// `strip FILE…` and `objcopy IN [OUT]` rewrite in place, or write
/// `-o FILE` (strip) and OUT.
pub(super) fn binutils(call: &Call<'_>) -> Vec<Found> {
    let named = option_values(call.args, &["-o"], true);
    if !named.is_empty() {
        return named.into_iter().map(|f| found(f, Kind::Replace)).collect();
    }
    let ops: Vec<&Arg> = call
        .args
        .iter()
        .filter(|a| !(a.exact && a.text.starts_with('-')))
        .collect();
    match (call.name, ops.as_slice()) {
        ("objcopy", [_, out, ..]) => vec![found((*out).clone(), Kind::Replace)],
        _ => ops
            .into_iter()
            .map(|f| found(f.clone(), call.kind))
            .collect(),
    }
}

/// `javac -d DIR`, `tsc --outDir DIR` (trees), `tsc --outFile F`.
pub(super) fn emitted(call: &Call<'_>) -> Vec<Found> {
    let dirs: &[&str] = if call.name == "javac" {
        &["-d", "-s", "-h"]
    } else {
        &["--outDir", "--declarationDir"]
    };
    let mut out: Vec<Found> = option_values(call.args, dirs, false)
        .into_iter()
        .map(|d| found(d, Kind::Tree))
        .collect();
    out.extend(
        option_values(
            call.args,
            &["--outFile", "--out", "--tsBuildInfoFile"],
            false,
        )
        .into_iter()
        .map(|f| found(f, call.kind)),
    );
    out
}

/// `xmllint --output F`, `tidy -o F`, `tidy -m FILE…` (in place).
pub(super) fn markup(call: &Call<'_>) -> Vec<Found> {
    if call.name == "xmllint" {
        return named_by(call, &["--output", "-o"], false);
    }
    let mut out: Vec<Found> = named_by(call, &["-o", "-output", "--output-file"], false);
    if call
        .args
        .iter()
        .any(|a| a.is("-m") || a.is("-modify") || a.is("--write-back"))
    {
        out.extend(
            call.args
                .iter()
                .filter(|a| !(a.exact && a.text.starts_with('-')))
                .map(|f| found(f.clone(), Kind::Modify)),
        );
    }
    out
}

/// `pip install --target DIR`, `pip download -d DIR`, `pip wheel -w DIR`.
pub(super) fn pip_into(call: &Call<'_>) -> Vec<Found> {
    let sub = call.args.iter().find(|a| !a.text.starts_with('-'));
    let names: &[&str] = match sub.and_then(|a| a.exact_text()) {
        Some("install") => &["--target", "-t", "--prefix", "--root"],
        Some("download") => &["-d", "--dest"],
        Some("wheel") => &["-w", "--wheel-dir"],
        _ => return Vec::new(),
    };
    option_values(call.args, names, true)
        .into_iter()
        .map(|d| found(d, call.kind))
        .collect()
}

/// Any cargo command's `--target-dir DIR`: its builds go there.
pub(super) fn cargo_target_dir(call: &Call<'_>) -> Vec<Found> {
    named_by(call, &["--target-dir"], false)
}

/// `rename EXPR FILE…` (perl's) and `rename FROM TO FILE…`
/// (util-linux's): each file moved away, to a name made at run time.
pub(super) fn renames(call: &Call<'_>) -> Vec<Found> {
    let ops: Vec<&Arg> = call
        .args
        .iter()
        .filter(|a| !(a.exact && a.text.starts_with('-')))
        .collect();
    let perl = ops.first().is_some_and(|e| {
        e.text.starts_with("s/") || e.text.starts_with("y/") || e.text.starts_with("tr/")
    });
    let skip = if perl || ops.len() < 3 { 1 } else { 2 };
    let files: Vec<Found> = ops
        .into_iter()
        .skip(skip)
        .map(|f| found(f.clone(), call.kind))
        .collect();
    if files.is_empty() {
        return files;
    }
    let mut out = files;
    out.push(unknown(call.name, "the new names", call.kind));
    out
}

/// `chmod MODE FILE…`, `chown OWNER FILE…`, `chgrp GROUP FILE…`, `chattr
/// +i FILE…`, `setfacl -m ACL FILE…`: the files, their mode, owner or
/// attributes changed (with `-R`, everything under them).
pub(super) fn attributes(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    let recursive = p.has("R", &["recursive"]);
    // `chmod -w f`: a mode that reads as an option.
    let dashed_mode = call.name == "chmod"
        && call.args.iter().any(|a| {
            a.exact
                && a.text
                    .strip_prefix('-')
                    .is_some_and(|m| !m.is_empty() && m.chars().all(|c| "rwxXst".contains(c)))
        });
    let spec_given = !p.values(None, Some("reference")).is_empty()
        || dashed_mode
        || matches!(call.name, "setfacl" | "chattr");
    let files = call.p.operands.iter().filter(|a| {
        // chattr's modes are words of their own (`+i`, `-a`, `=e`).
        !(call.name == "chattr" && a.exact && a.text.starts_with(['+', '-', '=']))
    });
    files
        .skip(usize::from(!spec_given))
        .filter(|a| !(a.exact && a.text.is_empty()))
        .map(|a| Found {
            write: Write::Attributes { tree: recursive },
            ..found((*a).clone(), call.kind)
        })
        .collect()
}

/// A dependency added or removed (what [`crate::checks::deps`] warns of:
/// `npm install x`, `cargo add x`, `go get x`, `poetry add x`, …): the
/// manifest and lock file it rewrites, where it stands or in the
/// directory its option names (`npm --prefix web`, `cargo
/// --manifest-path x/Cargo.toml`). `pip install` changes an environment,
/// not the project's files.
pub(super) fn dependency_manifests(call: &Call<'_>) -> Vec<Found> {
    if crate::checks::deps::check(call.name, call.args).is_none() {
        return Vec::new();
    }
    let (dir_options, files): (&[&str], &[&str]) = match call.name {
        "npm" | "cnpm" => (&["--prefix", "-C"], &["package.json", "package-lock.json"]),
        "pnpm" => (&["--dir", "-C"], &["package.json", "pnpm-lock.yaml"]),
        "yarn" => (&["--cwd"], &["package.json", "yarn.lock"]),
        "bun" => (&["--cwd"], &["package.json", "bun.lock"]),
        "cargo" => (&[], &["Cargo.toml", "Cargo.lock"]),
        "go" => (&["-C"], &["go.mod", "go.sum"]),
        "poetry" => (&["--directory", "-C"], &["pyproject.toml", "poetry.lock"]),
        "uv" if !call.args.iter().any(|a| a.is("pip")) => (
            &["--directory", "--project"],
            &["pyproject.toml", "uv.lock"],
        ),
        "bundle" => (&["--gemfile"], &["Gemfile", "Gemfile.lock"]),
        "composer" => (
            &["--working-dir", "-d"],
            &["composer.json", "composer.lock"],
        ),
        _ => return Vec::new(),
    };
    // `cargo --manifest-path x/Cargo.toml`, `bundle --gemfile x/Gemfile`:
    // the manifest itself, its lock beside it.
    if let Some(manifest) = option_values(call.args, &["--manifest-path"], false)
        .into_iter()
        .chain(if call.name == "bundle" {
            option_values(call.args, dir_options, false)
        } else {
            Vec::new()
        })
        .last()
    {
        let lock = Arg {
            text: format!("{}.lock", manifest.text.trim_end_matches(".toml")).into(),
            content: None,
            ..manifest.clone()
        };
        return vec![found(manifest, call.kind), found(lock, call.kind)];
    }
    let dir = if call.name == "bundle" {
        None
    } else {
        option_values(call.args, dir_options, false).pop()
    };
    files
        .iter()
        .map(|file| {
            let file = Arg::literal(file);
            found(
                dir.as_ref()
                    .map_or_else(|| file.clone(), |d| under(d, &file)),
                call.kind,
            )
        })
        .collect()
}
