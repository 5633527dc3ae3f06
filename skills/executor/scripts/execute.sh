#!/bin/sh
# The executor skill's one call in `command:` mode: `voyage-helper run
# --reply` behind the plugin launcher. Input: the skill's `label: value`
# block on stdin (command:, cwd:, timeout:, expect:); output: the reply
# itself (VERDICT:, EXPECT:, SUMMARY:, FAILURES:, LOG:), the same lines
# run.sh's block handed to verdict.sh would give, in one tool call.
# A missing helper still answers in the reply's shape (exit 2).
# The plugin root is three levels above this file's real place: follow
# symlinks to the file first (the launcher resolves itself the same way).
self=$0
while [ -L "$self" ]; do
  link=$(readlink "$self") || break
  case $link in /*) self=$link ;; *) self=$(dirname "$self")/$link ;; esac
done
root=$(cd -P "$(dirname "$self")/../../.." && pwd) || exit 2
"$root/plugin/bin/voyage-helper" run --reply "$@"
status=$?
if [ "$status" -eq 127 ]; then
  echo "VERDICT: ERROR (exit -, -)"
  echo "SUMMARY: no usable voyage-helper (the launcher said why on stderr; install it with 'cargo install --path $root/helper', or install Rust so the plugin can build it)"
  exit 2
fi
exit "$status"
