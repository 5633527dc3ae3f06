//! The exec differential of commands against real bash (issue 39, point
//! 2): a command is built from a byte string (every byte picks one piece:
//! a payload, the evaluation point it goes through, a construct around
//! that), run by `bash -c` in a scratch directory where the programs it
//! may run are harmless stand-ins, and every stand-in bash actually ran is
//! compared with what `judge_command` predicted. A stand-in records its
//! name and arguments in a file and does nothing else; the judge must have
//! reported it, with the rule that command earns when judged on its own
//! (`rm -rf ~` as `rm-critical-path` or `rm-recursive-force`) and with the
//! same words. A run the judge predicted and bash did not make is no gap:
//! the judge judges every branch that may run.
//!
//! Nothing here can do harm: the scratch directory is the working
//! directory and `HOME`, `PATH` holds only the stand-ins and a few tools
//! that delete nothing (linked there one by one), the environment is
//! otherwise empty, and a command with a way out of that `PATH` (an
//! absolute program path, `command -p`, `env -i`, `hash`, a `PATH` of its
//! own) is never run ([`escapes`]). The payloads name only `~` (the
//! scratch home) and relative paths.
//!
//! Shared by the property test (`helper/tests/properties/command_bash.rs`)
//! and the fuzz target `command_bash`, by `#[path]`.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use voyage_helper::internals::scan::{Context, Decision, Judgement, judge_command};

/// What the stand-ins are asked to do: each is a command the judge blocks
/// when it stands alone.
const PAYLOADS: &[&str] = &["rm -rf ~", "rm -r -f ~/src", "rm -fr build", "reboot"];

/// The programs replaced by stand-ins.
const STAND_INS: &[&str] = &["rm", "reboot"];

/// The real programs on the stand-ins' `PATH`: none of them deletes or
/// runs anything but what it is given.
const TOOLS: &[&str] = &[
    "bash", "sh", "cat", "tee", "dd", "xargs", "env", "find", "timeout", "nice", "nohup",
];

/// The evaluation points: `@@` is the payload as code (`rm -rf ~`), `@U`
/// it in capitals, `@F` with its first letter a capital, `@C` with commas
/// for spaces, `@N` its program and `@A` its arguments.
const POINTS: &[&str] = &[
    // The command itself, wrappers and spellings.
    "@@",
    "\\@@",
    "command @@",
    "env @@",
    "nice @@",
    "timeout 5 @@",
    "nohup @@ >/dev/null 2>&1",
    "find . -maxdepth 0 -exec @@ \\;",
    // Substitutions.
    "$(echo @@)",
    "`echo @@`",
    "x=$(@@)",
    "echo \"$(@@)\"",
    ": `@@`",
    "cat <(@@)",
    ": >(@@)",
    "cat <<EOF\n$(@@)\nEOF",
    // Code handed to a shell.
    "bash -c '@@'",
    "sh -c '@@'",
    "eval '@@'",
    "eval \"@@\"",
    "echo '@@' | sh",
    "echo '@@' | bash -s",
    "sh <<< '@@'",
    "sh <<'EOF'\n@@\nEOF",
    "bash < <(echo '@@')",
    "bash <(echo '@@')",
    "source <(echo '@@')",
    ". /dev/stdin <<< '@@'",
    "{ echo '@@'; } | sh",
    "{ true; echo '@@'; } | sh",
    "printf '%s\\n' '@@' | sh",
    // Structure.
    "f() { @@; }; f",
    "function f { @@; }; f",
    "if true; then @@; fi",
    "for i in 1; do @@; done",
    "case x in x) @@;; esac",
    "while true; do @@; break; done",
    "( @@ )",
    "{ @@; }",
    "! @@",
    "time @@",
    "@@ & wait",
    "true && @@",
    "false || @@",
    "@@ | cat",
    // Code the shell runs later.
    "trap '@@' EXIT",
    "trap -- '@@' EXIT",
    "shopt -s expand_aliases\nalias x='@@'\nx",
    "env 'BASH_FUNC_f%%=() { @@; }' bash -c f",
    "mapfile -C '@@ #' -c 1 a <<< x",
    "PROMPT_COMMAND='@@' bash -i < /dev/null",
    "BASH_ENV=/dev/stdin bash -c : <<< '@@'",
    "BASH_ENV='$(@@)' bash -c :",
    "bash --rcfile <(echo '@@') -i < /dev/null",
    // Values the command sets.
    "x='@@'; $x",
    "a=(@@); \"${a[@]}\"",
    "IFS=,; c=@C; $c",
    "read -r c <<< '@@'; $c",
    "mapfile -t a <<< '@@'; $a",
    "printf -v c '%s' '@@'; $c",
    "set -- @@; \"$@\"",
    "declare -n r=c; c='@@'; $r",
    "x=@N; $x @A",
    "${u:-@N} @A",
    "x='$(@@)'; echo \"${x@P}\"",
    // Case operators on known values.
    "x='@U'; ${x,,}",
    "x='@U'; ${x~~}",
    "x='@U'; ${x@L}",
    "x='@F'; ${x~}",
    // Arithmetic, and text it evaluates again.
    "echo $(( '$(@@)' ))",
    "echo $[ '$(@@)' ]",
    "(( '$(@@)' ))",
    "echo $(( $(@@) ))",
    "x='a[$(@@)]'; echo $(( x ))",
    "y='a[$(@@)]'; echo $(( $y ))",
    "let 'a[$(@@)]=1'",
    "declare -i n; n='a[$(@@)]'",
    "[[ 'a[$(@@)]' -eq 1 ]]",
    "for (( i='$(@@)'; 0; )); do :; done",
    "x='a[$(@@)]'; b[x]=1",
    "x='a[$(@@)]'; b=([x]=1)",
    "echo ${a[$(@@)]}",
    "a[$(@@)]=1",
    // Subscripts of names builtins take.
    "printf -v 'a[$(@@)]' x",
    "a=(); unset 'a[$(@@)]'",
    "test -v 'a[$(@@)]'",
    "[ -v 'a[$(@@)]' ]",
    "[[ -v 'a[$(@@)]' ]]",
    "read 'a[$(@@)]' <<< x",
    "declare 'a[$(@@)]=1'",
    "f() { local 'a[$(@@)]=1'; }; f",
    "typeset -A 'a[$(@@)]=1'",
    "x='a[$(@@)]'; echo ${!x}",
    "x='a[$(@@)]'; echo \"${!x:-}\"",
    "declare -n r='a[$(@@)]'; echo $r",
    // Substring offsets and lengths.
    "s=abc; echo ${s:$(@@)}",
    "x='a[$(@@)]'; s=abc; echo ${s:x}",
    "x='a[$(@@)]'; s=abc; echo ${s:0:x}",
    // Text reaching a shell by other roads.
    "echo '@@' | tee >(sh) >/dev/null",
    "echo '@@' | dd of=>(sh) 2>/dev/null",
    "{ echo '@@'; } > >(sh)",
    "exec > >(sh); echo '@@'",
    "xargs -a <(echo \"'@@'\") sh -c",
    "xargs -a <(echo @A) @N",
    "echo @A | xargs @N",
    "echo '@@' | xargs -I{} sh -c '{}'",
    // Code through another descriptor.
    "bash /dev/fd/3 3<<< '@@'",
    "source /dev/fd/3 3<<< '@@'",
    "BASH_ENV=/dev/fd/3 bash -c : 3<<< '@@'",
    "exec 3<<< '@@'; sh <&3",
    "exec 3< <(echo '@@'); source /dev/fd/3",
    "exec 3> >(sh); echo '@@' >&3",
    "exec 4> >(bash); echo '@@' > /dev/fd/4",
];

/// What is put around the evaluation point (`%%`): nothing, or a
/// construct that takes any code as it is (no quotes to match).
const AROUND: &[&str] = &[
    "%%",
    "f() {\n%%\n}; f",
    "if true; then\n%%\nfi",
    "( %%\n)",
    "x=$(\n%%\n)",
    "bash <<'VOYAGE'\n%%\nVOYAGE",
    "eval \"$(cat <<'VOYAGE'\n%%\nVOYAGE\n)\"",
    "true && {\n%%\n}",
    "for i in 1; do\n%%\ndone",
];

/// The command a payload and an evaluation point make.
pub(crate) fn command_at(payload: &str, point: &str, around: &str) -> String {
    let (name, args) = payload.split_once(' ').unwrap_or((payload, ""));
    let mut first = payload.to_owned();
    if let Some(head) = first.get_mut(..1) {
        head.make_ascii_uppercase();
    }
    let inner = point
        .replace("@@", payload)
        .replace("@U", &payload.to_uppercase())
        .replace("@F", &first)
        .replace("@C", &payload.replace(' ', ","))
        .replace("@N", name)
        .replace("@A", args);
    around.replace("%%", &inner)
}

/// Every payload at every evaluation point, with nothing around it (the
/// property test's; the fuzz target draws its own).
#[allow(dead_code)]
pub(crate) fn every_command() -> impl Iterator<Item = String> {
    POINTS.iter().flat_map(|point| {
        PAYLOADS
            .iter()
            .map(move |payload| command_at(payload, point, "%%"))
    })
}

/// The command a byte string stands for: a payload, an evaluation point,
/// a construct around it, and sometimes a second evaluation point inside
/// the first (whose payload is then the first's code).
pub(crate) fn command_from(bytes: &[u8]) -> String {
    let mut picks = bytes.iter().copied();
    let mut next = |len: usize| usize::from(picks.next().unwrap_or(0)) % len.max(1);
    let payload = PAYLOADS
        .get(next(PAYLOADS.len()))
        .copied()
        .unwrap_or("reboot");
    let point = POINTS.get(next(POINTS.len())).copied().unwrap_or("@@");
    let around = AROUND.get(next(AROUND.len())).copied().unwrap_or("%%");
    let inner = command_at(payload, point, around);
    // One more level: the whole command as the code of a construct (its
    // here-documents ended by a word of their own).
    match next(4) {
        0 => {
            let outer = AROUND.get(next(AROUND.len())).copied().unwrap_or("%%");
            outer.replace("VOYAGE", "OUTER").replace("%%", &inner)
        }
        _ => inner,
    }
}

/// Whether `command` could reach a program outside the stand-ins' `PATH`
/// (an absolute path, a default path, a `PATH` of its own, a name bound to
/// a path): such a command is never run. None of the generator's pieces
/// has any of these; this keeps it so.
pub(crate) fn escapes(command: &str) -> bool {
    const WAYS_OUT: &[&str] = &[
        "/bin",
        "/usr",
        "/sbin",
        "/opt",
        "/proc",
        "/lib",
        "PATH",
        "command -p",
        "command -v",
        "env -",
        "exec -",
        "hash",
        "enable",
        "type ",
        "which",
        "$BASH",
        "${BASH",
        "/dev/tcp",
        "/dev/udp",
        "sudo",
        "..",
    ];
    WAYS_OUT.iter().any(|way| command.contains(way))
}

/// One stand-in run: its name and its arguments, the home directory
/// written `~`.
pub(crate) type Run = Vec<String>;

/// Runs `command` under bash among the stand-ins; the stand-ins that ran.
/// `Ok(None)` when bash did not end in time (what ran still counts, but a
/// run cut short is no evidence either way).
pub(crate) fn run_in_bash(command: &str) -> Result<Option<Vec<Run>>, String> {
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = scratch.path();
    let (bin, home, work) = (root.join("bin"), root.join("home"), root.join("work"));
    for dir in [&bin, &home, &work, &home.join("src"), &work.join("build")] {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    let mark = root.join("ran");
    std::fs::write(&mark, "").map_err(|e| e.to_string())?;
    for name in STAND_INS {
        stand_in(&bin.join(name), &mark)?;
    }
    let mut bash = None;
    for tool in TOOLS {
        let Some(real) = find_program(tool) else {
            return Err(format!(
                "{tool} is not installed, which the differential needs"
            ));
        };
        if *tool == "bash" {
            bash = Some(real.clone());
        }
        std::os::unix::fs::symlink(&real, bin.join(tool)).map_err(|e| e.to_string())?;
    }
    let bash = bash.ok_or("bash is not installed")?;
    let mut child = Command::new(bash);
    child
        .arg("--norc")
        .arg("--noprofile")
        .arg("-c")
        .arg(command)
        .current_dir(&work)
        .env_clear()
        .env("PATH", &bin)
        .env("HOME", &home)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut child, 0);
    let mut child = child.spawn().map_err(|e| format!("cannot run bash: {e}"))?;
    // Every process the command starts holds bash's stdout and stderr
    // (a process substitution, a background job): the pipes close when
    // the last of them has ended.
    let (done, ended) = mpsc::channel();
    for pipe in [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut pipe = pipe;
            let _ = std::io::copy(&mut pipe, &mut std::io::sink());
            let _ = done.send(());
        });
    }
    let deadline = Duration::from_secs(20);
    let finished = ended.recv_timeout(deadline).is_ok() && ended.recv_timeout(deadline).is_ok();
    if !finished {
        let _ = Command::new("kill")
            .arg("-KILL")
            .arg("--")
            .arg(format!("-{}", child.id()))
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
    let recorded = std::fs::read_to_string(&mark).map_err(|e| e.to_string())?;
    let home_text = home.to_string_lossy().into_owned();
    let runs = recorded
        .lines()
        .map(|line| {
            line.split('\t')
                .map(|word| {
                    if word == home_text {
                        "~".to_owned()
                    } else if let Some(rest) = word.strip_prefix(&format!("{home_text}/")) {
                        format!("~/{rest}")
                    } else {
                        word.to_owned()
                    }
                })
                .collect()
        })
        .collect();
    Ok(finished.then_some(runs))
}

/// Writes a stand-in at `path`: a script that appends its name and
/// arguments, tab-separated, to `mark`, and does nothing else.
fn stand_in(path: &Path, mark: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mark = mark.to_string_lossy().replace('\'', "'\\''");
    let script = format!(
        "#!/bin/sh\n# A stand-in for the differential test: it records that it ran.\n\
         {{ printf '%s' \"${{0##*/}}\"; for a; do printf '\\t%s' \"$a\"; done; printf '\\n'; }} >> '{mark}'\n"
    );
    std::fs::write(path, script).map_err(|e| e.to_string())?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| e.to_string())
}

/// The installed program `name`, from the usual directories.
fn find_program(name: &str) -> Option<std::path::PathBuf> {
    ["/usr/local/bin", "/usr/bin", "/bin"]
        .iter()
        .map(|dir| Path::new(dir).join(name))
        .find(|path| path.is_file())
}

/// The rules that block `run` judged on its own.
fn blocking_rules(run: &[String], ctx: &Context) -> Vec<&'static str> {
    let judged = judge_command(&run.join(" "), ctx);
    if judged.decision() != Decision::Block {
        return Vec::new();
    }
    judged.deciding().iter().map(|f| f.rule.id).collect()
}

/// Whether `judgement` reported `run` with one of `rules`.
fn predicted(judgement: &Judgement, run: &[String], rules: &[&str]) -> bool {
    let words = run.join(" ");
    judgement
        .findings
        .iter()
        .any(|f| rules.contains(&f.rule.id) && f.command == words)
}

/// The check itself: `Err` naming each stand-in bash ran that the judge
/// did not predict. A command the judge refuses as unscannable runs
/// nothing (the hook denies it) and passes; so does one that could leave
/// the stand-ins' `PATH`, which is never run.
pub(crate) fn check(command: &str) -> Result<(), String> {
    if escapes(command) {
        return Ok(());
    }
    let ctx = Context::default();
    let judgement = judge_command(command, &ctx);
    if judgement
        .findings
        .iter()
        .any(|f| f.rule.id == "unscannable")
    {
        return Ok(());
    }
    let Some(runs) = run_in_bash(command)? else {
        return Ok(());
    };
    let missed: Vec<String> = runs
        .iter()
        .filter(|run| {
            let rules = blocking_rules(run, &ctx);
            !rules.is_empty() && !predicted(&judgement, run, &rules)
        })
        .map(|run| run.join(" "))
        .collect();
    if missed.is_empty() {
        return Ok(());
    }
    let found: Vec<String> = judgement
        .findings
        .iter()
        .map(|f| format!("{} `{}`", f.rule.id, f.command))
        .collect();
    Err(format!(
        "`{command}`: bash ran {missed:?}, which the judge did not predict (it found {found:?})"
    ))
}
