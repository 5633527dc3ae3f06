#!/bin/sh
# Pins a published release's archives in the plugin's tree: rewrites
# plugin/checksums.txt from the release's archives and their .sha256 files,
# so the launcher installs those archives, and no other, for this plugin
# version. Each archive gets two lines: its own sha256 (from its .sha256
# file, which the archive must match) and that of the voyage-helper binary
# in it, under vVERSION/voyage-helper-TARGET/voyage-helper, which the
# launcher checks the installed binary against at every session start.
#
#   gh release download v0.2.0 --pattern 'voyage-helper-*.tar.gz*' --dir /tmp/v0.2.0
#   scripts/pin-release.sh 0.2.0 /tmp/v0.2.0
#
# A third argument writes another file than plugin/checksums.txt (tests).
# VERSION must be the version in .claude-plugin/plugin.json and the
# launcher's version= line (tests/tests/plugin_manifest.rs checks those
# agree). Each .sha256 file holds `SUM *NAME` or `SUM  NAME`, as cargo-dist
# and scripts/package.sh write them. Every target in dist-workspace.toml
# must have both files.
set -eu

# The sha256 of the file $1 (sha256sum, or Perl's shasum on macOS).
sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sum=$(sha256sum <"$1")
  else
    sum=$(shasum -a 256 <"$1")
  fi
  printf '%s\n' "${sum%% *}"
}

[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: scripts/pin-release.sh VERSION DIR [OUT]" >&2; exit 2; }
version=$1 dir=$2
root=$(cd "$(dirname "$0")/.." && pwd -P)
out=${3:-$root/plugin/checksums.txt}

launcher_version=$(sed -n 's/^version=//p' "$root/plugin/bin/voyage-helper")
if [ "$launcher_version" != "$version" ]; then
  echo "pin-release.sh: the launcher is for version $launcher_version, not $version" >&2
  exit 1
fi

targets=$(sed -n 's/^targets = \[\(.*\)\]/\1/p' "$root/dist-workspace.toml" | sed 's/[",]/ /g')
[ -n "$targets" ] || { echo "pin-release.sh: no targets in dist-workspace.toml" >&2; exit 1; }
unpack=$(mktemp -d)
trap 'rm -rf "$unpack"' EXIT
lines=
for target in $targets; do
  name=voyage-helper-$target.tar.gz
  file=$dir/$name.sha256
  [ -f "$file" ] || { echo "pin-release.sh: no $file" >&2; exit 1; }
  read -r sum listed <"$file" || { echo "pin-release.sh: $file is empty" >&2; exit 1; }
  case $sum in
  *[!0-9a-f]*) echo "pin-release.sh: $file holds no sha256" >&2; exit 1 ;;
  esac
  if [ ${#sum} -ne 64 ] || [ "${listed#\*}" != "$name" ]; then
    echo "pin-release.sh: $file is not the sha256 of $name" >&2
    exit 1
  fi
  archive=$dir/$name
  [ -f "$archive" ] || { echo "pin-release.sh: no $archive (download the archives with their .sha256 files)" >&2; exit 1; }
  if [ "$(sha256 "$archive")" != "$sum" ]; then
    echo "pin-release.sh: $archive does not match $file" >&2
    exit 1
  fi
  member=voyage-helper-$target/voyage-helper
  if ! tar -xzf "$archive" -C "$unpack" "$member" 2>/dev/null || [ ! -f "$unpack/$member" ]; then
    echo "pin-release.sh: $archive holds no $member" >&2
    exit 1
  fi
  lines="$lines$sum  v$version/$name
$(sha256 "$unpack/$member")  v$version/$member
"
done

{
  sed -n '/^#/p' "$root/plugin/checksums.txt"
  printf '%s' "$lines"
} >"$out.new"
mv -f "$out.new" "$out"
echo "pinned $(printf '%s' "$lines" | grep -c 'tar.gz$') archives of v$version and their binaries in $out"
