#!/usr/bin/env bash
# The whole test suite, as CI runs it: format, lints, forbidden markers, tests.
#
#   scripts/test.sh            everything
#   scripts/test.sh --quick    tests only
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" != "--quick" ]]; then
  echo "== cargo fmt --check"
  cargo fmt --all --check
  echo "== forbidden markers"
  scripts/forbid.sh
  echo "== shellcheck"
  if command -v shellcheck >/dev/null 2>&1; then
    shellcheck -s sh plugin/bin/voyage-helper skills/executor/scripts/*.sh
    shellcheck scripts/*.sh .ci/run
  elif [[ -n "${CI:-}" ]]; then
    echo "shellcheck is required in CI (apt-get install shellcheck)" >&2
    exit 1
  else
    echo "shellcheck not installed; skipped (apt-get install shellcheck)"
  fi
  echo "== cargo clippy"
  cargo clippy --workspace --all-targets --locked -- -D warnings
fi
echo "== cargo test"
# Keep cargo's own output, and close with one aggregate line over every test
# binary (cargo prints one `test result:` per binary, the last often a doc-test
# run with nothing in it).
results=$(mktemp)
trap 'rm -f "$results"' EXIT
status=0
cargo test --workspace --locked 2>&1 | tee "$results" || status=$?
awk '/^test result: / { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed;/) p += $i; if ($(i+1) ~ /^failed;/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$results"
exit "$status"
