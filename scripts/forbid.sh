#!/usr/bin/env bash
# Fails on markers that must not be committed (taken from just's bin/forbid):
# debugging leftovers and notes of unfinished work.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='dbg!|todo!|unimplemented!|\bTODO\b|\bFIXME\b|\bXXX\b'
if git grep -nE "$pattern" -- '*.rs' '*.sh' '*.md' ':!scripts/forbid.sh' ':!helper/tests/fixtures/**'; then
  echo "forbidden markers found (above)" >&2
  exit 1
fi
