#!/bin/sh
# Pins a published release's archives in the plugin's tree: rewrites
# plugin/checksums.txt from the release's .sha256 files, so the launcher
# installs those archives, and no other, for this plugin version.
#
#   gh release download v0.2.0 --pattern '*.tar.gz.sha256' --dir /tmp/v0.2.0
#   scripts/pin-release.sh 0.2.0 /tmp/v0.2.0
#
# A third argument writes another file than plugin/checksums.txt (tests).
# VERSION must be the version in .claude-plugin/plugin.json and the
# launcher's version= line (tests/tests/plugin_manifest.rs checks those
# agree). Each file holds `SUM *NAME` or `SUM  NAME`, as cargo-dist and
# scripts/package.sh write them. Every target in dist-workspace.toml must
# have one.
set -eu

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
  lines="$lines$sum  v$version/$name
"
done

{
  sed -n '/^#/p' "$root/plugin/checksums.txt"
  printf '%s' "$lines"
} >"$out.new"
mv -f "$out.new" "$out"
echo "pinned $(printf '%s' "$lines" | wc -l | tr -d ' ') archives of v$version in $out"
