#!/usr/bin/env bash
# The fuzzing campaign runner: builds every differential fuzzer with
# --config=fuzz, runs each for a fixed time starting from the committed seeds,
# the saved crash regressions and a persistent campaign corpus, merges what it
# found into that corpus and prints one table row per fuzzer.
#
#   ./bazelw run //fuzz:campaign -- --seconds_per_fuzzer=N [--fuzzers=a,b]
#       [--jobs=J] [--update_seeds] [--save_crashes] [--state_dir=DIR]
#
# Campaigns may run at the same time: each run fuzzes into its own scratch
# directory and logs to its own file; merges into a shared corpus (the
# persistent one, the repository's seeds) hold a lock on that directory.
#
# Exits non-zero if any fuzzer crashed (or timed out / ran out of memory),
# failed to build or ran no inputs. See fuzz/README.md.
set -uo pipefail

usage() {
  cat <<'EOF'
usage: ./bazelw run //fuzz:campaign -- [options]

  --seconds_per_fuzzer=N   fuzzing time per fuzzer (default 60)
  --fuzzers=a,b            only these fuzzers (names from fuzz/fuzzers.bzl; default all)
  --jobs=J                 J processes: J fuzzers at the same time, or, with one
                           fuzzer, libFuzzer's fork mode with J workers (default 1)
  --update_seeds           merge-minimize new inputs into fuzz/corpus/<name>/ in the repo
  --save_crashes           copy crash inputs into fuzz/regressions/<name>/ in the repo
  --timeout_per_input=S    libFuzzer -timeout: one input slower than S s is a finding (default 30)
  --rss_limit_mb=M         libFuzzer -rss_limit_mb (default 2048)
  --state_dir=DIR          per-fuzzer state (default ${XDG_CACHE_HOME:-$HOME/.cache}/synops/fuzz);
                           an empty directory measures a run from the committed seeds alone
  --fuzzer_list=FILE       "<name> <label>" lines (set by //fuzz:campaign from fuzzers.bzl)

Per-fuzzer state lives in <state_dir>/<name>/: corpus/ (persistent campaign
corpus), artifacts/ (crash inputs), logs/.
EOF
}

die() {
  echo "campaign: $*" >&2
  exit 2
}

seconds=60
only=""
jobs=1
update_seeds=0
save_crashes=0
timeout_per_input=30
rss_limit_mb=2048
fuzzer_list=""
state_root="${XDG_CACHE_HOME:-$HOME/.cache}/synops/fuzz"

for arg in "$@"; do
  case "$arg" in
    --seconds_per_fuzzer=*) seconds="${arg#*=}" ;;
    --fuzzers=*) only="${arg#*=}" ;;
    --jobs=*) jobs="${arg#*=}" ;;
    --update_seeds) update_seeds=1 ;;
    --save_crashes) save_crashes=1 ;;
    --timeout_per_input=*) timeout_per_input="${arg#*=}" ;;
    --rss_limit_mb=*) rss_limit_mb="${arg#*=}" ;;
    --fuzzer_list=*) fuzzer_list="${arg#*=}" ;;
    --state_dir=*) state_root="${arg#*=}" ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      usage >&2
      die "unknown argument: $arg"
      ;;
  esac
done

for v in seconds jobs timeout_per_input rss_limit_mb; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "--$v must be a positive integer, got '${!v}'"
done
[[ -n "$fuzzer_list" && -r "$fuzzer_list" ]] ||
  die "no fuzzer list; run it as: ./bazelw run //fuzz:campaign -- --seconds_per_fuzzer=N"
fuzzer_list="$(realpath "$fuzzer_list")"
ws="${BUILD_WORKSPACE_DIRECTORY:-}"
[[ -n "$ws" && -x "$ws/bazelw" ]] ||
  die "BUILD_WORKSPACE_DIRECTORY is not set; run it as: ./bazelw run //fuzz:campaign -- ..."
command -v flock >/dev/null || die "flock (util-linux) is needed"
mkdir -p "$state_root" || die "cannot create --state_dir $state_root"
state_root="$(realpath "$state_root")"

# --- Which fuzzers ----------------------------------------------------------
declare -A label_of=()
all_names=()
while read -r name label; do
  [[ -n "$name" ]] || continue
  label_of["$name"]="$label"
  all_names+=("$name")
done <"$fuzzer_list"

names=()
if [[ -n "$only" ]]; then
  declare -A seen=()
  IFS=',' read -r -a requested <<<"$only"
  for name in "${requested[@]}"; do
    [[ -n "${label_of[$name]:-}" ]] ||
      die "unknown fuzzer '$name' (fuzz/fuzzers.bzl has: ${all_names[*]})"
    [[ -n "${seen[$name]:-}" ]] || names+=("$name")
    seen["$name"]=1
  done
else
  names=("${all_names[@]}")
fi
((${#names[@]})) || die "no fuzzers selected"

# --- Build -------------------------------------------------------------------
cd "$ws" || die "cannot cd to $ws"
bazelw=("$ws/bazelw")
labels=()
for name in "${names[@]}"; do labels+=("${label_of[$name]}"); done

echo "campaign: building ${labels[*]} with --config=fuzz" >&2
declare -A build_ok=()
if "${bazelw[@]}" build --config=fuzz --keep_going -- "${labels[@]}"; then
  for name in "${names[@]}"; do build_ok["$name"]=1; done
else
  # Find out which ones failed (the ones that built are cached: this is quick).
  for name in "${names[@]}"; do
    if "${bazelw[@]}" build --config=fuzz -- "${label_of[$name]}" >/dev/null 2>&1; then
      build_ok["$name"]=1
    else
      build_ok["$name"]=0
      echo "campaign: $name (${label_of[$name]}) does not build with --config=fuzz" >&2
    fi
  done
fi
bin_dir="$("${bazelw[@]}" info --config=fuzz bazel-bin 2>/dev/null)" ||
  die "'bazelw info --config=fuzz bazel-bin' failed"

# //pkg/sub:target -> <bazel-bin>/pkg/sub/target; //pkg/sub -> <bazel-bin>/pkg/sub/sub
binary_of() {
  local label="${1#//}" pkg target
  if [[ "$label" == *:* ]]; then
    pkg="${label%%:*}"
    target="${label#*:}"
  else
    pkg="$label"
    target="${label##*/}"
  fi
  echo "$bin_dir/$pkg/$target"
}

# --- Run one fuzzer ------------------------------------------------------------
results="$(mktemp -d)"
trap 'rm -rf "$results"' EXIT

# Fields of a result file, tab-separated:
# status seconds execs execs_per_s cov ft corpus_files seeds_added log crash_files...
# `workers` > 1: libFuzzer's fork mode with that many worker processes.
run_one() {
  local name="$1" bin="$2" workers="$3"
  local state="$state_root/$name"
  local run new log
  mkdir -p "$state/corpus" "$state/artifacts" "$state/logs"
  # This run's own scratch directory (the working directory, new inputs) and
  # log: other campaigns may be running.
  run="$(mktemp -d "$state/run.XXXXXX")"
  new="$run/new-inputs"
  mkdir "$new"
  log="$state/logs/$(date +%Y%m%d-%H%M%S)-$$.log"

  # New inputs go to the first directory; the others are only read.
  local dirs=("$new" "$state/corpus")
  local d
  for d in "$ws/fuzz/corpus/$name" "$ws/fuzz/regressions/$name"; do
    [[ -d "$d" ]] && dirs+=("$d")
  done
  local flags=(-timeout="$timeout_per_input" -rss_limit_mb="$rss_limit_mb"
    -artifact_prefix="$state/artifacts/")

  local mode=(-print_final_stats=1) how=""
  if ((workers > 1)); then
    mode=(-fork="$workers")
    how=" in fork mode, $workers workers"
  fi
  echo "campaign: $name: fuzzing for ${seconds}s$how (log: $log)" >&2
  local start end rc
  start=$(date +%s)
  (cd "$run" && timeout -k 10 $((seconds + timeout_per_input + 120)) \
    "$bin" -max_total_time="$seconds" "${mode[@]}" "${flags[@]}" "${dirs[@]}") \
    >"$log" 2>&1
  rc=$?
  end=$(date +%s)

  # Crash, timeout, OOM and leak inputs this run wrote (not slow-unit-*).
  local crashes=()
  mapfile -t crashes < <(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" |
    grep -E '/(crash|timeout|oom|leak)-[^/]*$' || true)

  local execs eps status_line cov ft
  if ((workers > 1)); then
    # Fork mode's parent: "#<execs>: cov: C ft: F corp: N exec/s E ..." (no colon).
    status_line=$(grep -E '^#[0-9]+: cov: ' "$log" | tail -n 1)
    execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' <<<"$status_line")
    eps=$(sed -n 's/.* exec\/s:\{0,1\} \([0-9]*\).*/\1/p' <<<"$status_line")
  else
    execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    eps=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    status_line=$(grep -E '^#[0-9]+[[:space:]].*cov: ' "$log" | tail -n 1)
  fi
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status_line")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status_line")

  local status=ok
  if ((${#crashes[@]})); then
    status=$(basename "${crashes[0]}")
    status="${status%%-*}"
    status="${status^^}" # CRASH, TIMEOUT, OOM or LEAK
  elif ((rc != 0)); then
    status="ERROR(rc=$rc)"
  elif [[ -z "$execs" || "$execs" == 0 ]]; then
    status=NO_INPUTS
  fi

  # Keep what added coverage in the persistent corpus; optionally in the seeds.
  # A merge writes into a directory other campaigns read and merge into: it
  # holds that directory's lock (flock on the directory itself).
  if [[ -n "$(find "$new" -maxdepth 1 -type f -print -quit)" ]]; then
    (cd "$run" && flock "$state/corpus" "$bin" -merge=1 "${flags[@]}" "$state/corpus" "$new") \
      >>"$log" 2>&1 ||
      echo "campaign: $name: merge into $state/corpus failed (see $log)" >&2
  fi
  local seeds_added=-
  if ((update_seeds)) && [[ "$status" != ERROR* ]]; then
    local seeds="$ws/fuzz/corpus/$name"
    mkdir -p "$seeds"
    if (cd "$run" && flock "$seeds" "$bin" -merge=1 "${flags[@]}" "$seeds" "$state/corpus") \
      >>"$log" 2>&1; then
      # What this merge added, from libFuzzer's own count (a file count taken
      # outside the lock would include another campaign's merge).
      seeds_added=$(sed -n 's/^MERGE-OUTER: \([0-9]*\) new files.*/\1/p' "$log" | tail -n 1)
      seeds_added=${seeds_added:-0}
    else
      seeds_added=failed
      echo "campaign: $name: merge into $seeds failed (see $log)" >&2
    fi
  fi
  rm -rf "$run"
  local corpus_files
  corpus_files=$(find "$state/corpus" -type f | wc -l)

  # Keep the last 20 logs.
  # shellcheck disable=SC2012 # our own timestamped names
  ls -1t "$state/logs" | tail -n +21 | while read -r old; do rm -f "$state/logs/$old"; done

  printf '%s\t' "$status" $((end - start)) "${execs:--}" "${eps:--}" "${cov:--}" "${ft:--}" \
    "$corpus_files" "$seeds_added" "$log" >"$results/$name"
  printf '%s\t' "${crashes[@]}" >>"$results/$name"
}

# One fuzzer and --jobs=J: one fork-mode run with J workers; otherwise J
# fuzzers at a time, one process each.
workers=1
if ((${#names[@]} == 1 && jobs > 1)); then
  workers=$jobs
  jobs=1
fi
running=0
for name in "${names[@]}"; do
  ((${build_ok[$name]})) || continue
  bin="$(binary_of "${label_of[$name]}")"
  if [[ ! -x "$bin" ]]; then
    echo "campaign: $name: built, but $bin is not there" >&2
    build_ok["$name"]=0
    continue
  fi
  run_one "$name" "$bin" "$workers" &
  running=$((running + 1))
  if ((running >= jobs)); then
    wait -n
    running=$((running - 1))
  fi
done
wait

# --- Report ----------------------------------------------------------------------
failed=0
row() { printf '%-14s %-12s %7s %11s %9s %7s %8s %8s %7s\n' "$@"; }
echo
row fuzzer status seconds execs execs/s cov ft corpus crashes
details=()
for name in "${names[@]}"; do
  if ((!${build_ok[$name]})); then
    row "$name" BUILD_FAILED - - - - - - -
    failed=1
    continue
  fi
  IFS=$'\t' read -r -a f <"$results/$name"
  status="${f[0]}"
  crashes=("${f[@]:9}")
  row "$name" "$status" "${f[1]}" "${f[2]}" "${f[3]}" "${f[4]}" "${f[5]}" "${f[6]}" \
    "${#crashes[@]}"
  [[ "${f[7]}" != - ]] && details+=("$name: fuzz/corpus/$name/: ${f[7]} new seed inputs")
  [[ "$status" == ok ]] && continue
  failed=1
  details+=("$name: $status, log: ${f[8]}")
  # The first error line is the cause (a mismatch, a sanitizer report, ...).
  summary=$(grep -m1 -E 'synops fuzz mismatch: |runtime error: |==[0-9]+== ?ERROR: |^SUMMARY: |^selftest: ' \
    "${f[8]}" || true)
  [[ -n "$summary" ]] || summary=$(tail -n 1 "${f[8]}")
  [[ -n "$summary" ]] && details+=("  $summary")
  repro=$(grep -m1 '^reproduce: ' "${f[8]}" || true)
  [[ -n "$repro" ]] && details+=("  $repro")
  bin="$(binary_of "${label_of[$name]}")"
  for c in "${crashes[@]}"; do
    details+=("  crash input: $c" "  replay:      $bin $c")
    if ((save_crashes)); then
      mkdir -p "$ws/fuzz/regressions/$name"
      cp "$c" "$ws/fuzz/regressions/$name/" &&
        details+=("  saved:       fuzz/regressions/$name/$(basename "$c")")
    else
      details+=("  save it:     mkdir -p fuzz/regressions/$name && cp $c fuzz/regressions/$name/" \
        "               (or re-run the campaign with --save_crashes)")
    fi
  done
done
if ((${#details[@]})); then
  echo
  printf '%s\n' "${details[@]}"
fi
exit "$failed"
