#!/usr/bin/env bash
# Sourced by scripts/demo-trek.sh and scripts/demo-waves.sh: a throwaway
# git repository holding one plan, with git's own configuration and the
# helper's data dir kept inside it.
#
#   demo_repo PREFIX PLAN_SRC PLAN_NAME README_LINE
#
# Sets `work` (the temporary directory, removed on exit) and `repo` (its
# repository, the current directory afterwards).
demo_repo() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  repo=$work/repo
  mkdir -p "$repo/plans"
  cp "$2" "$repo/plans/$3"
  printf '%s\n' "$4" >"$repo/README.md"
  cd "$repo" || exit 2
  export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 CLAUDE_PLUGIN_DATA=$work/data
  git init -q -b main
  git config user.name "Voyage demo"
  git config user.email demo@voyage.invalid
  git add -A
  git commit -q -m "init"
}
