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
  echo "== cargo clippy"
  cargo clippy --workspace --all-targets --locked -- -D warnings
fi
echo "== cargo test"
cargo test --workspace --locked
