#!/usr/bin/env bash
# The main job on an example: build the helper and run a YAML workflow with
# it (a live view of each step, and a log file under
# examples/workflows/.claude/voyage.local/logs/, which git ignores).
#
#   scripts/demo.sh                                   runs examples/workflows/hello.yaml
#   scripts/demo.sh examples/workflows/loops.yaml     runs another workflow
#   scripts/demo.sh --ci examples/workflows/nested.yaml   the NDJSON event stream instead
#   scripts/demo.sh --executor ['make test']          the executor's path instead: a
#                                                     command through `run`, then `verdict`
set -euo pipefail
cd "$(dirname "$0")/.."

# Cargo's progress shows on stderr: the first build takes a minute or two.
echo "\$ scripts/build-helper.sh" >&2
scripts/build-helper.sh
helper=${CARGO_TARGET_DIR:-target}/release/voyage-helper

if [[ "${1:-}" == --executor ]]; then
  command=${2:-cargo --version}
  printf '$ printf '\''command: %s\\n'\'' | voyage-helper run\n' "$command"
  block=$(printf 'command: %s\n' "$command" | "$helper" run) || true
  printf '%s\n\n' "$block"
  echo "\$ voyage-helper verdict   # fed the block above"
  printf '%s\nexpect: passes\n' "$block" | "$helper" verdict || true
  exit 0
fi

ci=()
if [[ "${1:-}" == --ci ]]; then
  ci=(--ci)
  shift
fi
workflow=${1:-examples/workflows/hello.yaml}
echo "\$ voyage-helper workflow run ${ci[*]} $workflow"
"$helper" workflow run "${ci[@]}" "$workflow"
