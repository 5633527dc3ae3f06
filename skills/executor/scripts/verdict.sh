#!/bin/sh
# The executor skill's reply builder: `voyage-helper verdict` behind the
# plugin launcher. Input: flags, or `label: value` lines on stdin (log:,
# exit:, duration:, status:, reason:, expect:, or run's block as printed).
# A missing helper still answers in the reply's shape (exit 2).
# The plugin root is three levels up from this file, wherever it is called from.
root=$(cd -P "$(dirname "$0")/../../.." && pwd) || exit 2
"$root/plugin/bin/voyage-helper" verdict "$@"
status=$?
if [ "$status" -eq 127 ]; then
  echo "VERDICT: ERROR (exit -, -)"
  echo "SUMMARY: voyage-helper not found (install it with 'cargo install --path $root/helper', or install Rust so the plugin can build it)"
  exit 2
fi
exit "$status"
