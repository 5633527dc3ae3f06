#!/bin/sh
# The executor skill's runner: `voyage-helper run` behind the plugin launcher.
#
# Input is the `label: value` block on stdin (command:, cwd:, timeout:,
# expect-exit:); output is run's block on stdout. This shim exists so the
# skill can allow exactly one script, and so that a missing helper still
# answers in the block's shape (exit 2) instead of a shell error.
#
# Not `exec`: the launcher exits 127, before reading stdin, only when it can
# find or build no helper; `run` itself never exits 127.
# The plugin root is three levels above this file's real place: follow
# symlinks to the file first (the launcher resolves itself the same way).
self=$0
while [ -L "$self" ]; do
  link=$(readlink "$self") || break
  case $link in /*) self=$link ;; *) self=$(dirname "$self")/$link ;; esac
done
root=$(cd -P "$(dirname "$self")/../../.." && pwd) || exit 2
"$root/plugin/bin/voyage-helper" run "$@"
status=$?
if [ "$status" -eq 127 ]; then
  echo "RESULT: DEVIATION"
  echo "STATUS: error"
  echo "REASON: no usable voyage-helper (the launcher said why on stderr; install it with 'cargo install --path $root/helper', or install Rust so the plugin can build it)"
  exit 2
fi
exit "$status"
