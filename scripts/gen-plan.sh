#!/usr/bin/env bash
# Writes a v1.7 trekplan with N steps (each with Files, Verify, On failure,
# Checkpoint and a six-key Manifest) to stdout, for benchmarks:
#
#   scripts/gen-plan.sh 10000 > /tmp/plan-10k.md
set -euo pipefail
steps=${1:?usage: gen-plan.sh STEPS}
awk -v n="$steps" 'BEGIN {
  print "---\nplan_version: 1.7\nprofile: balanced\n---\n# Plan: generated with " n " steps\n\n## Implementation Plan\n"
  for (i = 1; i <= n; i++) {
    printf "### Step %d: Change module %d\n", i, i
    printf "- **Files:** `src/mod%d.rs` (new), `tests/mod%d.rs`\n", i, i
    printf "- **Changes:** Add the function `f%d` and its test.\n", i
    printf "- **Verify:** `cargo test mod%d`\n", i
    printf "- **On failure:** retry - then escalate\n"
    printf "- **Checkpoint:** `git commit -m \"feat(mod%d): add f%d\"`\n", i, i
    printf "- **Manifest:**\n  ```yaml\n"
    printf "  expected_paths: [src/mod%d.rs, tests/mod%d.rs]\n  min_file_count: 2\n", i, i
    printf "  commit_message_pattern: \"^feat\\\\(mod%d\\\\): add f%d$\"\n", i, i
    printf "  bash_syntax_check: []\n  forbidden_paths: [Cargo.lock]\n"
    printf "  must_contain:\n    - {path: src/mod%d.rs, pattern: \"fn f%d\"}\n  ```\n\n", i, i
  }
  print "## Verification\n\n- `cargo test` - all green"
}'
