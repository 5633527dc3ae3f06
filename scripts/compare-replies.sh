#!/usr/bin/env bash
# Runs the same scenarios through two builds of voyage-helper and shows
# where their replies differ: every call's stdout, stderr and exit code,
# and the files a run leaves (progress files, reports, stats), with the
# parts that differ from run to run (times, durations, run ids, the
# scratch directory) replaced by placeholders. Used to show that a change
# of structure changed no byte a user or a script sees.
#
#   scripts/compare-replies.sh OLD_HELPER NEW_HELPER
#
# Scenarios: every example plan and fixture plan through plan validate,
# dry-run, show, strategy, scan plan and trek start --validate/--dry-run;
# the example plan executed through trek (a clean run, a failing step that
# escalates, a write outside the step, an interrupted step resumed); the
# multi-session example (scripts/demo-waves.sh); every example workflow
# that needs no agent through workflow validate and workflow run --ci (the
# concurrent loop example through validate only).
# Exits 0 when the transcripts are identical, 1 (with a diff) when not.
# VOYAGE_COMPARE_KEEP=DIR copies both transcripts (old.txt, new.txt) there.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -eq 2 ]] || {
  echo "usage: scripts/compare-replies.sh OLD_HELPER NEW_HELPER" >&2
  exit 2
}
abs() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd)" "$(basename "$1")"); }
declare -A helpers=([old]=$(abs "$1") [new]=$(abs "$2"))
src=$(pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/voyage-compare.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Git's own dates fixed, so the commits (and their ids) are the same in
# both runs.
export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1

# One call: the command line, stdout, stderr and the exit code.
call() {
  local out err code=0
  printf '\n[%s]$ %s\n' "${PWD#"$root"}" "$*" >>"$log"
  out=$("$helper" "$@" 2>"$root/.err") || code=$?
  err=$(cat "$root/.err")
  printf '%s\n--- stderr\n%s\n--- exit %s\n' "$out" "$err" "$code" >>"$log"
}

# A file a run left, as it is.
show_file() {
  printf '\n=== %s\n' "${1#"$root"}" >>"$log"
  if [[ -f $1 ]]; then cat "$1" >>"$log"; else echo "(absent)" >>"$log"; fi
}

new_repo() {
  rm -rf "$root/repo" "$root/data"
  mkdir -p "$root/repo/plans"
  cp "$1" "$root/repo/plans/plan.md"
  cd "$root/repo"
  echo "# demo" >README.md
  git init -q -b main
  git config user.name "Voyage compare"
  git config user.email compare@voyage.invalid
  git add -A
  git commit -q -m init
}

implement() {
  # shellcheck disable=SC2016
  case $1 in
  1) printf '#!/usr/bin/env bash\necho "Hello, ${1:-world}!"\n' >greet.sh ;;
  2) mkdir -p tests && printf '#!/usr/bin/env bash\nset -e\ntest "$(bash greet.sh)" = "Hello, world!"\n' >tests/greet.sh ;;
  wrong) printf '#!/usr/bin/env bash\necho "Hi"\n' >greet.sh ;;
  esac
}

run_files() {
  show_file "$root/repo/.trekexecute-progress-plan.json"
  for f in "$root"/data/*; do [[ -f $f ]] && show_file "$f"; done
  printf '\n=== git log\n%s\n' "$(git log --format='%h %s' 2>&1)" >>"$log"
  printf '\n=== git status\n%s\n' "$(git status --short 2>&1)" >>"$log"
}

scenarios() {
  export CLAUDE_PLUGIN_DATA=$root/data VOYAGE_DATA_DIR=$root/data
  local plans=("$src"/examples/trek/*.md "$src"/examples/waves/plan.md
    "$src"/helper/tests/fixtures/plans/valid/*.md "$src"/helper/tests/fixtures/plans/invalid/*.md)
  for plan in "${plans[@]}"; do
    new_repo "$plan"
    printf '\n##### %s\n' "${plan#"$src"/}" >>"$log"
    call plan validate plans/plan.md
    call plan validate --json plans/plan.md
    call plan dry-run plans/plan.md
    call plan show --json plans/plan.md
    call plan strategy --json plans/plan.md
    call scan plan plans/plan.md
    call scan plan --json plans/plan.md
    call trek start --validate plans/plan.md
    call trek start --dry-run plans/plan.md
    call trek start plans/plan.md
    run_files
  done

  printf '\n##### what trek start refuses\n' >>"$log"
  new_repo "$src/examples/trek/plan.md"
  call trek start --profile nosuch plans/plan.md
  call trek start --gates=bogus plans/plan.md
  VOYAGE_PROFILE=balanced call trek start --fresh plans/plan.md
  call trek start --gates=closed --profile economy --fresh plans/plan.md
  for brief in "$src"/helper/tests/fixtures/briefs/*.md unreadable; do
    rm -rf "$root/repo/project"
    mkdir -p "$root/repo/project"
    cp plans/plan.md project/plan.md
    if [[ $brief == unreadable ]]; then mkdir project/brief.md; else cp "$brief" project/brief.md; fi
    call trek start --project project
    call trek start --project project --validate
  done

  printf '\n##### a clean run\n' >>"$log"
  new_repo "$src/examples/trek/plan.md"
  call trek start plans/plan.md
  for step in 1 2; do
    call trek step-begin "$step"
    implement "$step"
    call trek step-done "$step"
  done
  call trek finish
  call trek finish --gate confirm
  call report --progress .trekexecute-progress-plan.json --plan plans/plan.md --json
  run_files

  printf '\n##### a failing step, escalated\n' >>"$log"
  new_repo "$src/examples/trek/plan.md"
  call trek start plans/plan.md
  for _ in 1 2 3; do
    call trek step-begin 1
    implement wrong
    call trek step-done 1
  done
  call trek finish
  run_files

  printf '\n##### a write outside the step\n' >>"$log"
  new_repo "$src/examples/trek/plan.md"
  call trek start plans/plan.md
  call trek step-begin 1
  implement 1
  echo changed >>README.md
  call trek step-done 1
  call trek step-begin 1
  implement 1
  call trek step-done 1
  run_files

  printf '\n##### an interrupted step, resumed\n' >>"$log"
  new_repo "$src/examples/trek/plan.md"
  call trek start plans/plan.md
  call trek step-begin 1
  implement 1
  call trek start --resume plans/plan.md
  call trek step-begin 1
  call trek step-done 1
  call trek step-begin 2
  implement 2
  call trek step-done 2
  call trek finish
  call trek finish --gate decline
  run_files

  printf '\n##### the multi-session example\n' >>"$log"
  cd "$src"
  local waves
  waves=$(TMPDIR=$root scripts/demo-waves.sh "$helper" 2>&1) || true
  printf '%s\n' "$waves" >>"$log"

  printf '\n##### workflows\n' >>"$log"
  mkdir -p "$root/wf"
  for wf in hello loops failing cancelled nested; do
    cp "$src/examples/workflows/$wf.yaml" "$root/wf/"
  done
  cp "$src/examples/workflows/nested-child.yaml" "$root/wf/"
  cd "$root/wf"
  # loops.yaml runs a loop on two workers, whose lines interleave as
  # they please: it is validated only.
  call workflow validate loops.yaml
  for wf in hello failing cancelled nested; do
    call workflow validate "$wf.yaml"
    call workflow run --ci "$wf.yaml"
  done
}

# Times, durations, run ids, temporary names and the scratch path.
normalize() {
  sed -E \
    -e "s#$scratch/(old|new)#<ROOT>#g" \
    -e 's#voyage-waves\.[A-Za-z0-9]{6}#voyage-waves.<X>#g' \
    -e 's#[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9:]+)?#<TIME>#g' \
    -e 's#[0-9]{8}T[0-9]{6}Z(-[0-9a-f]{8})?#<TIME>#g' \
    -e 's#"(duration_ms|durationMs|elapsed_ms|ms|duration_s|seconds|started_ms|pid|peak_rss_kb)":[0-9.]+#"\1":<N>#g' \
    -e 's#[0-9]+(\.[0-9]+)? ?(ms|s)\b#<DUR>#g' \
    -e 's#/tmp/voyage-run-[^ /"]+#/tmp/voyage-run-<X>#g' \
    -e 's#-[0-9]+\.log\b#-<PID>.log#g' \
    "$1"
}

for side in old new; do
  root=$scratch/$side
  mkdir -p "$root"
  log=$scratch/$side.log
  : >"$log"
  helper=${helpers[$side]}
  (scenarios)
  normalize "$log" >"$scratch/$side.txt"
done

if [[ -n ${VOYAGE_COMPARE_KEEP:-} ]]; then
  cp "$scratch/old.txt" "$scratch/new.txt" "$VOYAGE_COMPARE_KEEP"/
fi
if diff -u "$scratch/old.txt" "$scratch/new.txt"; then
  echo "compare-replies: identical ($(wc -l <"$scratch/new.txt") lines of replies and files)"
else
  echo "compare-replies: the replies differ (above)" >&2
  exit 1
fi
