#!/usr/bin/env bash
# synbench's default suite in check mode passes, and a bad problem fails with
# a message.
set -euo pipefail
synbench="$1"
"$synbench" --mode=check
if "$synbench" --mode=check 'channel_sum:c4,nhwc' >"$TEST_TMPDIR/bad.txt" 2>&1; then
  echo "synbench accepted a problem without s<N>" >&2
  exit 1
fi
grep -q 'INVALID' "$TEST_TMPDIR/bad.txt"
if "$synbench" --mode=check 'nosuchop:c4' >/dev/null 2>&1; then
  echo "synbench accepted an unknown op" >&2
  exit 1
fi
echo "synbench_check_test: ok"
