//! How a reply names this helper in a call the user runs in a terminal
//! (the main-merge gate's answer, `trek release`): after a plugin-only
//! install the helper lives in the plugin's data directory
//! (`$CLAUDE_PLUGIN_DATA/helper/voyage-helper-VERSION`, where the launcher
//! `plugin/bin/voyage-helper` installs it and execs it) and no
//! `voyage-helper` is on PATH, so a bare `voyage-helper …` would not run.
//! The call names the running binary by its full path, quoted, unless the
//! `voyage-helper` PATH finds is that very file.

use std::path::{Path, PathBuf};

/// The first `voyage-helper` on `path` (a PATH value) that is an
/// executable file.
fn on_path(path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| {
            if dir.as_os_str().is_empty() {
                Path::new(".").join("voyage-helper")
            } else {
                dir.join("voyage-helper")
            }
        })
        .find(|cand| is_executable(cand))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The program word for `exe` (the running binary) given PATH `path`:
/// `voyage-helper` when PATH finds that same file, else `exe` quoted.
fn program_for(exe: &Path, path: Option<&std::ffi::OsStr>) -> String {
    let same = path.and_then(on_path).is_some_and(|found| {
        match (found.canonicalize(), exe.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    });
    if same {
        "voyage-helper".to_owned()
    } else {
        crate::shell::quote(&exe.display().to_string())
    }
}

/// This helper as the first word of a call run in a terminal.
pub(crate) fn program() -> String {
    match std::env::current_exe() {
        Ok(exe) => program_for(&exe, std::env::var_os("PATH").as_deref()),
        // Nothing better is known: the name, as the docs write it.
        Err(_) => "voyage-helper".to_owned(),
    }
}

/// The call `voyage-helper WORDS…` as a terminal runs it: the program as
/// [`program`] names it, each word quoted for a POSIX shell.
pub(crate) fn call<S: AsRef<str>>(words: &[S]) -> String {
    format!("{} {}", program(), crate::shell::join(words))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_on_path_is_named_by_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("voyage-helper");
        std::fs::write(&exe, "").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths([dir.path()]).unwrap();
        assert_eq!(program_for(&exe, Some(&path)), "voyage-helper");
    }

    /// The launcher's install layout: the binary in the data directory
    /// under a versioned name, PATH without it.
    #[test]
    fn an_installed_binary_off_path_is_named_by_its_quoted_path() {
        let data = tempfile::tempdir().unwrap();
        let exe = data.path().join("my data/helper/voyage-helper-0.1.0");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        std::fs::write(&exe, "").unwrap();
        let path = std::env::join_paths(["/usr/bin", "/bin"]).unwrap();
        assert_eq!(
            program_for(&exe, Some(&path)),
            format!("'{}'", exe.display())
        );
        assert_eq!(program_for(&exe, None), format!("'{}'", exe.display()));
    }
}
