#!/usr/bin/env bash
# Runs the built test suite one test at a time and, when it fails, prints every
# failed expectation again at the end: CI logs keep only their tail, and Swift
# Testing reports failures where they happen, among thousands of lines.
#
#   scripts/run-tests.sh [swift test options...]     (SWIFT=swift by default)
set -uo pipefail
log=$(mktemp /tmp/footstepd-tests.XXXXXX)
trap 'rm -f "$log"' EXIT
"${SWIFT:-swift}" test --skip-build --no-parallel "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
  echo
  echo "==== issues recorded (the first 150, repeated from above) ===="
  grep -E "^✘ Test .*recorded an issue|error: " <<< "$plain" | head -150
  echo "==== failed tests (last, so a log cut to its tail still names them) ===="
  grep -E "^✘ (Test|Suite) .*failed after" <<< "$plain" | grep -v "^✘ Test run with"
  grep -E "^✘ Test run with" <<< "$plain"
fi
exit "$status"
