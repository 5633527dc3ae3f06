#!/bin/sh
# Packs the release helper for this machine the way the release does
# (cargo-dist, dist-workspace.toml): DIR/voyage-helper-TARGET.tar.gz holding
# voyage-helper-TARGET/ with the binary, README.md, LICENSE and CHANGELOG.md,
# and beside it the archive's .sha256 (`SUM *NAME`). TARGET is the release's
# name for this machine, as the plugin's launcher asks for it. It is what
# .ci/run checks and what the tests serve to the launcher.
#
#   scripts/package.sh                  build the release's profile (scripts/build-helper.sh
#                                       --profile dist), pack into target/distrib
#   scripts/package.sh --out DIR        pack into DIR
#   scripts/package.sh --binary FILE    pack FILE instead of building (tests)
#
# Prints the archive's path. On Linux the release builds a static musl
# binary; here scripts/build-helper.sh builds a static glibc one when the
# toolchain can (and says so below otherwise): both run on any distribution.
#
# POSIX sh, like the launcher.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd -P)
out=$root/target/distrib binary=
while [ $# -gt 0 ]; do
  case $1 in
  --out) out=${2:?--out needs a directory}; shift 2 ;;
  --binary) binary=${2:?--binary needs a file}; shift 2 ;;
  *) echo "package.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

# The launcher is the one place that maps this machine to a release name.
target=$(VOYAGE_LAUNCHER_TASK=platform sh "$root/plugin/bin/voyage-helper")
name=voyage-helper-$target

if [ -z "$binary" ]; then
  sh "$root/scripts/build-helper.sh" --profile dist -q --target-dir "$root/target" >&2
  binary=$root/target/dist/voyage-helper
  if [ "$(uname -s)" = Linux ] && command -v file >/dev/null 2>&1 &&
    ! file -L "$binary" | grep -q 'statically linked'; then
    echo "package.sh: $binary is dynamically linked (no static libc here); the release's is static" >&2
  fi
fi
if [ ! -f "$binary" ] || [ ! -x "$binary" ]; then
  echo "package.sh: $binary is not an executable file" >&2
  exit 1
fi

mkdir -p "$out"
stage=$out/.stage.$$
trap 'rm -rf "$stage"' EXIT
rm -rf "$stage"
mkdir -p "$stage/$name"
cp "$binary" "$stage/$name/voyage-helper"
chmod 755 "$stage/$name/voyage-helper"
cp "$root/README.md" "$root/LICENSE" "$root/CHANGELOG.md" "$stage/$name/"
# Written under a temporary name: a reader never sees half an archive.
(cd "$stage" && tar -czf "$name.tar.gz" "$name")
if command -v sha256sum >/dev/null 2>&1; then
  sum=$(sha256sum <"$stage/$name.tar.gz")
else
  sum=$(shasum -a 256 <"$stage/$name.tar.gz")
fi
mv -f "$stage/$name.tar.gz" "$out/$name.tar.gz"
printf '%s *%s\n' "${sum%% *}" "$name.tar.gz" >"$out/$name.tar.gz.sha256"
printf '%s\n' "$out/$name.tar.gz"
