#!/usr/bin/env bash
# A multi-session plan end to end: examples/waves/plan.md (three sessions in
# two waves, one Verification for the whole) in a throwaway git repository,
# through the calls a user and their sessions make. The parent's
# `trek start` runs in the main checkout after each wave; each session runs
# in the worktree its order names (`trek start --session N`, step-begin,
# step-done, finish), with a scripted stand-in writing the step's files as
# the agent would. Then the master verification and the main-merge gate,
# answered by the operator. Prints each call and its reply. Nothing is
# written outside the temporary directory, which is removed at the end.
#
#   scripts/demo-waves.sh HELPER
set -euo pipefail
helper=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
plan_src=$(cd "$(dirname "$0")/.." && pwd)/examples/waves/plan.md

# shellcheck source=scripts/demo-repo.sh
. "$(dirname "$0")/demo-repo.sh"
demo_repo voyage-waves "$plan_src" ship.md "# greetings"

# One helper call in the current directory, shown as it is run.
trek() {
  printf '\n[%s]$ voyage-helper trek %s\n' "${PWD#"$work"/}" "$*"
  "$helper" trek "$@" || true
}

# The stand-in for the agent's edits of each step of the example plan.
implement() {
  # The files' own text: nothing in it is expanded here.
  # shellcheck disable=SC2016
  case $1 in
  1)
    mkdir -p lib
    printf 'greet() { echo "Hello, ${1:-world}!"; }\n' >lib/greet.sh
    ;;
  2)
    mkdir -p tests
    printf '#!/usr/bin/env bash\nset -e\ncd "$(dirname "$0")/.."\n. lib/greet.sh\ntest "$(greet Ada)" = "Hello, Ada!"\n' >tests/greet.sh
    ;;
  3)
    mkdir -p lib
    printf 'farewell() { echo "Goodbye, ${1:-world}!"; }\n' >lib/farewell.sh
    ;;
  4)
    mkdir -p bin tests
    printf '#!/usr/bin/env bash\nhere="$(dirname "$0")/.."\n. "$here/lib/greet.sh"\n. "$here/lib/farewell.sh"\ngreet "$1"\nfarewell "$1"\n' >bin/hello
    printf '#!/usr/bin/env bash\nset -e\ncd "$(dirname "$0")/.."\nbash tests/greet.sh\ntest "$(bash bin/hello Ada)" = "$(printf '\''Hello, Ada!\\nGoodbye, Ada!'\'')"\n' >tests/all.sh
    ;;
  esac
  echo "(the agent writes step $1's files)"
}

# Session N, opened by the user in its worktree with the order's starter.
session() {
  local n=$1
  shift
  (
    cd "$repo/.claude/trekplan-sessions/ship/worktrees/session-$n"
    trek start --session "$n" plans/ship.md
    for step in "$@"; do
      trek step-begin "$step"
      implement "$step"
      trek step-done "$step"
    done
    trek finish
  )
}

trek start plans/ship.md # wave 1 prepared
session 1 1 2
session 2 3
trek start plans/ship.md # wave 1 merged, wave 2 prepared
session 3 4
trek start plans/ship.md # wave 2 merged, the master verification, the gate
echo "(the operator answers the main-merge gate from a shell)"
printf '\n$ voyage-helper trek finish --gate confirm --plan %s\n' "$repo/plans/ship.md"
status=0
"$helper" trek finish --gate confirm --plan "$repo/plans/ship.md" || status=$?
printf '\n$ git log --oneline --graph\n'
git log --oneline --graph
printf '\n$ bash tests/all.sh && bin/hello Ada\n'
bash tests/all.sh && bash bin/hello Ada
# The demo fails when the run did not complete.
exit "$status"
