//! The `voyage-helper` binary: everything lives in the library.

use std::process::ExitCode;

/// While the PreToolUse hook runs, an allocation that fails denies the
/// call instead of aborting (an abort would let it run unchecked).
#[global_allocator]
static ALLOCATOR: voyage_helper::Allocator = voyage_helper::Allocator;

// The static build (scripts/build-helper.sh) is linked against glibc's
// libc.a, where a weak reference pulls nothing in: std looks up
// `posix_spawn_file_actions_addchdir_np` that way, found it missing, and
// started every command given a working directory (all of `run`'s) with a
// full fork of the helper instead of posix_spawn. This reference links the
// function in, so std spawns as it does in the dynamic build. Only in the
// static build: a dynamic one must not require glibc 2.29 to load.
#[cfg(all(target_os = "linux", target_env = "gnu", target_feature = "crt-static"))]
#[used]
static SPAWN_CHDIR: unsafe extern "C" fn(
    *mut nix::libc::posix_spawn_file_actions_t,
    *const std::ffi::c_char,
) -> std::ffi::c_int = nix::libc::posix_spawn_file_actions_addchdir_np;

fn main() -> ExitCode {
    voyage_helper::run(std::env::args_os())
}
