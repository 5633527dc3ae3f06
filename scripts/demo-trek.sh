#!/usr/bin/env bash
# The main job on an example: execute examples/trek/plan.md end to end in a
# throwaway git repository, through exactly the calls /trekexecute makes
# (trek start, step-begin, step-done, finish, finish --gate confirm). A small
# scripted stand-in plays the agent: between step-begin and step-done it
# writes the step's files, as Claude Code would with Write. Prints each call
# and its reply, then the final report. Nothing is written outside the
# temporary directory (its stats go there too), which is removed at the end.
#
#   scripts/demo-trek.sh HELPER [PLAN]
set -euo pipefail
helper=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
plan_src=$(cd "$(dirname "${2:-examples/trek/plan.md}")" && pwd)/$(basename "${2:-examples/trek/plan.md}")

# shellcheck source=scripts/demo-repo.sh
. "$(dirname "$0")/demo-repo.sh"
demo_repo voyage-demo "$plan_src" plan.md "# greeting"

# One helper call, shown as the agent would run it; its reply is printed.
trek() {
  printf '\n$ voyage-helper trek %s\n' "$*"
  "$helper" trek "$@" || true
}

# The stand-in for the agent's edits of each step of the example plan.
implement() {
  # The files' own text: nothing in it is expanded here.
  # shellcheck disable=SC2016
  case $1 in
  1)
    printf '#!/usr/bin/env bash\necho "Hello, ${1:-world}!"\n' >greet.sh
    echo "(the agent writes greet.sh)"
    ;;
  2)
    mkdir -p tests
    printf '#!/usr/bin/env bash\nset -e\ntest "$(bash greet.sh)" = "Hello, world!"\n' >tests/greet.sh
    echo "(the agent writes tests/greet.sh)"
    ;;
  esac
}

trek start plans/plan.md
for step in 1 2; do
  trek step-begin "$step"
  implement "$step"
  trek step-done "$step"
done
trek finish
echo "(the agent asks the main-merge question; the user confirms)"
printf '\n$ voyage-helper trek finish --gate confirm\n'
status=0
"$helper" trek finish --gate confirm || status=$?
printf '\n$ git log --oneline\n'
git log --oneline
# The demo fails when the run did not complete.
exit "$status"
