//! Each carrier of code the judge reads (an interpreter's shell-running
//! call, another shell, a program under another name, a named pipe) is
//! proven to run code for real: its harmless stand-in (`touch MARKER` in
//! place of the destructive command) runs on this machine and the marker
//! is checked on disk. The judge must block the destructive version of the same carrier.
//! A carrier whose program is not installed here skips with a `SKIPPED:`
//! line (`.config/nextest.toml` shows them); its destructive version is
//! still judged.

// A failed unwrap in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

// The helper's tests' skip module, shared so every crate skips alike.
#[path = "../../helper/tests/common/skip.rs"]
#[allow(dead_code, unreachable_pub)]
mod skip;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use voyage_judge::{Context, Decision, judge_command};

/// One carrier: a program and its arguments (or the text it reads on
/// stdin), built around the command it carries.
struct Carrier {
    program: &'static str,
    /// How the program is installed where it is missing.
    install: &'static str,
    /// The arguments carrying `command`, and the text on stdin if any.
    build: fn(command: &Command_) -> (Vec<String>, Option<String>),
}

/// What a carrier carries: a shell command line, or the same as words.
struct Command_ {
    line: String,
    words: Vec<String>,
}

fn stand_in(marker: &Path) -> Command_ {
    let path = marker.to_str().unwrap().to_owned();
    Command_ {
        line: format!("touch {path}"),
        words: vec!["touch".into(), path],
    }
}

fn destructive() -> Command_ {
    Command_ {
        line: "rm -rf ~".into(),
        words: vec!["rm".into(), "-rf".into(), "/".into()],
    }
}

/// `words` as one bash command line.
fn shell_line(program: &str, args: &[String], stdin: Option<&str>) -> String {
    let quote = |w: &str| format!("'{}'", w.replace('\'', r"'\''"));
    let mut line = program.to_owned();
    for arg in args {
        line.push(' ');
        line.push_str(&quote(arg));
    }
    match stdin {
        Some(text) => format!("printf '%s\\n' {} | {line}", quote(text)),
        None => line,
    }
}

fn check(carriers: &[Carrier]) {
    for carrier in carriers {
        let (args, stdin) = (carrier.build)(&destructive());
        let line = shell_line(carrier.program, &args, stdin.as_deref());
        let judged = judge_command(&line, &Context::default());
        assert_eq!(
            judged.decision(),
            Decision::Block,
            "{line}: {:?}",
            judged.findings
        );
        let Some(program) = skip::find_on_path(carrier.program) else {
            skip::skip(&format!(
                "`{}` is not installed ({}); the destructive form was judged, the carrier not run",
                carrier.program, carrier.install
            ));
            continue;
        };
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("marker");
        let (args, stdin) = (carrier.build)(&stand_in(&marker));
        let harmless = shell_line(carrier.program, &args, stdin.as_deref());
        assert_ne!(
            judge_command(&harmless, &Context::default()).decision(),
            Decision::Block,
            "{harmless}"
        );
        let mut child = Command::new(&program)
            .args(&args)
            .current_dir(dir.path())
            .env("HOME", dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = &stdin {
            input.write_all(text.as_bytes()).unwrap();
            input.write_all(b"\n").unwrap();
        }
        drop(input);
        let out = child.wait_with_output().unwrap();
        assert!(
            marker.exists(),
            "{harmless} did not run its command: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// A list of string literals: `"a", "b"`.
fn literals(words: &[String]) -> String {
    words
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn interpreters_run_the_commands_they_are_given() {
    check(&[
        Carrier {
            program: "python3",
            install: "apt install python3",
            build: |c| {
                let code = format!(
                    "import subprocess as sp; sp.check_output(\"{}\", shell=True)",
                    c.line
                );
                (vec!["-c".into(), code], None)
            },
        },
        Carrier {
            program: "python3",
            install: "apt install python3",
            build: |c| {
                let code = format!(
                    "import os; os.execlp(\"{0}\", {1})",
                    c.words[0],
                    literals(&c.words)
                );
                (vec!["-c".into(), code], None)
            },
        },
        Carrier {
            program: "perl",
            install: "apt install perl",
            build: |c| (vec!["-e".into(), format!("qx{{{}}}", c.line)], None),
        },
        Carrier {
            program: "perl",
            install: "apt install perl",
            build: |c| {
                let code = format!("open(my $f, \"-|\", \"{}\"); my @l = <$f>", c.line);
                (vec!["-e".into(), code], None)
            },
        },
        Carrier {
            program: "perl",
            install: "apt install perl",
            build: |c| {
                (
                    vec!["-e".into(), format!("system({})", literals(&c.words))],
                    None,
                )
            },
        },
        Carrier {
            program: "node",
            install: "apt install nodejs",
            build: |c| {
                let code = format!(
                    "const {{execSync: run}} = require(\"child_process\"); run(\"{}\")",
                    c.line
                );
                (vec!["-e".into(), code], None)
            },
        },
        Carrier {
            program: "tclsh",
            install: "apt install tcl",
            build: |c| (Vec::new(), Some(format!("exec {}", c.words.join(" ")))),
        },
        Carrier {
            program: "ruby",
            install: "apt install ruby",
            build: |c| (vec!["-e".into(), format!("%x{{{}}}", c.line)], None),
        },
        Carrier {
            program: "ruby",
            install: "apt install ruby",
            build: |c| {
                (
                    vec!["-e".into(), format!("system({})", literals(&c.words))],
                    None,
                )
            },
        },
        Carrier {
            program: "php",
            install: "apt install php-cli",
            build: |c| {
                (
                    vec!["-r".into(), format!("popen(\"{}\", \"r\");", c.line)],
                    None,
                )
            },
        },
        Carrier {
            program: "lua",
            install: "apt install lua5.4 (the package names its binary lua5.4; lua-any or update-alternatives gives lua)",
            build: |c| {
                (
                    vec!["-e".into(), format!("os.execute(\"{}\")", c.line)],
                    None,
                )
            },
        },
    ]);
}

#[test]
fn other_shells_run_the_code_they_are_given() {
    check(&[
        Carrier {
            program: "fish",
            install: "apt install fish",
            build: |c| {
                (
                    vec!["-c".into(), format!("for f in (echo x); {}; end", c.line)],
                    None,
                )
            },
        },
        Carrier {
            program: "nu",
            install: "cargo install nu, or the nushell release binary",
            build: |c| (vec!["-c".into(), format!("^{}", c.line)], None),
        },
        Carrier {
            program: "xonsh",
            install: "pip install xonsh",
            build: |c| (vec!["-c".into(), c.line.clone()], None),
        },
        Carrier {
            program: "elvish",
            install: "apt install elvish",
            build: |c| (vec!["-c".into(), c.line.clone()], None),
        },
        Carrier {
            program: "busybox",
            install: "apt install busybox",
            build: |c| (args(&["sh", "-c", &c.line]), None),
        },
        Carrier {
            program: "busybox",
            install: "apt install busybox",
            build: |c| (c.words.clone(), None),
        },
        Carrier {
            program: "dash",
            install: "apt install dash",
            build: |c| (vec!["-c".into(), c.line.clone()], None),
        },
        Carrier {
            program: "tcsh",
            install: "apt install tcsh",
            build: |c| (vec!["-fc".into(), c.line.clone()], None),
        },
        Carrier {
            program: "pwsh",
            install: "the powershell package from Microsoft's apt repository, or the release tarball",
            build: |c| (vec!["-NoProfile".into(), "-c".into(), c.line.clone()], None),
        },
        Carrier {
            program: "pwsh",
            install: "the powershell package from Microsoft's apt repository, or the release tarball",
            build: |c| {
                (
                    vec![
                        "-NoProfile".into(),
                        "-EncodedCommand".into(),
                        encoded(&c.line),
                    ],
                    None,
                )
            },
        },
    ]);
}

#[test]
fn a_program_under_another_name_runs_as_itself() {
    // bash runs the copy; the stand-in copies touch where the attack copies rm.
    check(&[
        Carrier {
            program: "bash",
            install: "apt install bash",
            build: |c| {
                let (program, rest) = c.words.split_first().unwrap();
                let line = format!(
                    "cp \"$(command -v {program})\" ./x && ./x {}",
                    rest.join(" ")
                );
                (
                    vec!["-c".into(), line.replace("rm -rf /", "rm -rf ~")],
                    None,
                )
            },
        },
        Carrier {
            program: "bash",
            install: "apt install bash",
            build: |c| {
                let (program, rest) = c.words.split_first().unwrap();
                (
                    vec![
                        "-O".into(),
                        "expand_aliases".into(),
                        "-c".into(),
                        format!("alias x={program}\nx {}", rest.join(" ")),
                    ],
                    None,
                )
            },
        },
    ]);
}

/// PowerShell's `-EncodedCommand` text: base64 of UTF-16LE.
fn encoded(text: &str) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(TABLE[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A named pipe whose reader comes first in the text, and a file the
/// command wrote, read back by a shell: bash runs what is written into
/// them (the stand-in's marker is checked on disk), so the judge must
/// block the destructive text written the same way.
#[test]
fn text_written_into_a_pipe_or_file_runs_in_the_shell_reading_it() {
    for template in [
        "mkfifo p; sh < p & echo 'CMD' > p; wait",
        "mknod q p; bash q & printf '%s\\n' 'CMD' > q; wait",
        "echo 'CMD' > step.sh; bash < step.sh",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("marker");
        let line = template.replace("CMD", &stand_in(&marker).line);
        let status = Command::new("timeout")
            .args(["20", "bash", "-c", &line])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{line}: {status}");
        assert!(marker.exists(), "{line}: the stand-in did not run");
        let destructive = template.replace("CMD", &destructive().line);
        let judged = judge_command(&destructive, &Context::default());
        assert_eq!(
            judged.decision(),
            Decision::Block,
            "{destructive}: {:?}",
            judged.findings
        );
    }
}
