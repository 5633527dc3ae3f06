#!/usr/bin/env bash
# The main job on an example: build the helper and execute a plan with it,
# the way /trekexecute does (scripts/demo-trek.sh: a throwaway repository, a
# scripted stand-in for the agent's edits, the final report).
#
#   scripts/demo.sh                                   executes examples/trek/plan.md
#   scripts/demo.sh --workflow [--ci] [FILE]          runs a YAML workflow instead
#                                                     (default examples/workflows/hello.yaml;
#                                                     --ci: the NDJSON event stream)
#   scripts/demo.sh --executor ['make test']          the executor's path instead: a
#                                                     command through `run`, then `verdict`
#   scripts/demo.sh --waves                           a multi-session plan instead
#                                                     (examples/waves/plan.md, scripts/demo-waves.sh)
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

if [[ "${1:-}" == --waves ]]; then
  exec scripts/demo-waves.sh "$helper"
fi

if [[ "${1:-}" != --workflow ]]; then
  exec scripts/demo-trek.sh "$helper" "$@"
fi
shift

ci=()
if [[ "${1:-}" == --ci ]]; then
  ci=(--ci)
  shift
fi
workflow=${1:-examples/workflows/hello.yaml}
echo "\$ voyage-helper workflow run ${ci[*]} $workflow"
"$helper" workflow run "${ci[@]}" "$workflow"
