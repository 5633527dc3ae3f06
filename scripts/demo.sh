#!/usr/bin/env bash
# The main job on a real command: run it through voyage-helper, then build the
# executor skill's reply from the log it wrote.
#
#   scripts/demo.sh                 runs `cargo --version`
#   scripts/demo.sh 'make test'     runs your command instead
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --locked -q -p voyage-helper
helper=target/release/voyage-helper
command=${1:-cargo --version}

printf '$ printf '\''command: %s\\n'\'' | voyage-helper run\n' "$command"
block=$(printf 'command: %s\n' "$command" | "$helper" run) || true
printf '%s\n\n' "$block"

echo "\$ voyage-helper verdict   # fed the block above"
printf '%s\nexpect: passes\n' "$block" | "$helper" verdict || true
