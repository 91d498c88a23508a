#!/usr/bin/env bash
# Runs a benchmark binary once per benchmark (tiny min time) so that a
# benchmark that crashes or reports an error fails `bazel test`.
set -euo pipefail
bench="$1"
shift
out=$("$bench" --benchmark_min_time=0 "$@" 2>&1) || {
  echo "$out"
  exit 1
}
echo "$out"
# Rows skipped because the CPU lacks an ISA say "CPU lacks"; any other error fails.
if echo "$out" | grep -E 'ERROR OCCURRED' | grep -v 'CPU lacks' >/dev/null; then
  echo "bench_smoke: a benchmark reported an error" >&2
  exit 1
fi
