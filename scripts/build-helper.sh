#!/bin/sh
# Builds the release helper at <target dir>/<profile>/voyage-helper. The one
# place that knows how: the plugin's launcher, scripts/demo.sh,
# scripts/bench.sh and scripts/package.sh all build through it.
#
#   scripts/build-helper.sh                       into ./target (or $CARGO_TARGET_DIR)
#   scripts/build-helper.sh --target-dir DIR -q   further arguments go to cargo
#   scripts/build-helper.sh --profile dist        what the release archives ship
#                                                 (thin LTO; Cargo.toml says why
#                                                 `release` has none), into target/dist
#
# On Linux, when the C toolchain has glibc's static library, the binary is
# linked statically and not position-independent. The helper is started anew
# for every hook call and every progress update; such a binary needs neither
# the dynamic loader nor to relocate itself at start (19,000 relocations, and
# the pages they touch), which takes `voyage-helper --version` from 1.9 ms to
# 1.1 ms (benches/README.md, figure 7). The price is that the binary always
# loads at the same address (no ASLR for its own code), as Go binaries do. The
# flags reach the binary alone through `cargo rustc`: given to the whole build
# (RUSTFLAGS) they would reach the proc-macro crates too, which must stay
# dynamic libraries. Without libc.a (say, Fedora without glibc-static) and on
# other systems, the usual dynamically linked build.
#
# POSIX sh: the launcher runs it on machines that may have no bash.
set -eu

# `--release` for the default profile, so that the call is the one cargo
# users know.
profile=--release
if [ "${1:-}" = --profile ]; then
  case ${2:-} in
  release) ;;
  dist) profile=--profile=dist ;;
  *) echo "build-helper.sh: --profile takes release or dist, not '${2:-}'" >&2; exit 2 ;;
  esac
  shift 2
fi

manifest=${0%/*}/../Cargo.toml
case $0 in */*) ;; *) manifest=../Cargo.toml ;; esac

static=
if [ "$(uname -s 2>/dev/null)" = Linux ] && command -v cc >/dev/null 2>&1; then
  # Prints the library's path when the toolchain has it, its bare name if not.
  libc=$(cc -print-file-name=libc.a 2>/dev/null) || libc=
  case $libc in /*) [ -f "$libc" ] && static=1 ;; esac
fi

if [ -n "$static" ]; then
  if cargo rustc "$profile" --locked -p voyage-helper --bin voyage-helper \
    --manifest-path "$manifest" "$@" -- \
    -C target-feature=+crt-static -C relocation-model=static; then
    exit 0
  fi
  # libc.a alone does not make a static link work (a toolchain without
  # libgcc_eh, say): a helper that starts slower beats none.
  echo "build-helper.sh: the static build failed; building a dynamically linked helper" >&2
fi
exec cargo build "$profile" --locked -p voyage-helper --manifest-path "$manifest" "$@"
