#!/usr/bin/env bash
# qemu_aarch64.sh: the --run_under wrapper of --config=aarch64 (tests and
# `bazel run`).
#
#   qemu_aarch64.sh PROGRAM [ARGS...]
#
# Runs PROGRAM once per CPU in ${SYNOPS_QEMU_CPUS:-cortex-a72 max} as
#   qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu CPU PROGRAM ARGS...
# printing a header line (on stderr) before each run, and fails if any run
# fails. cortex-a72 is NEON without BF16; max adds FEAT_BF16 (HWCAP2_BF16).
# The environment (gtest sharding variables, TEST_TMPDIR, XML_OUTPUT_FILE, ...)
# is passed through to the program, plus SYNOPS_UNDER_QEMU=1, which tests use to
# shrink exhaustive sweeps to strided samples.
#
# Scripts (sh_test, e.g. the benchmark smoke tests): a PROGRAM that is not an
# aarch64 executable runs on the host. The host cannot exec aarch64 binaries
# itself (no binfmt_misc), so every ARG that is an aarch64 executable (such as
# $(location :some_bench)) is replaced by a wrapper script of the same name that
# runs it under qemu with the current CPU. If neither PROGRAM nor any ARG is an
# aarch64 executable, PROGRAM simply runs once.
#
# Narrow the CPU list with SYNOPS_QEMU_CPUS, e.g.
#   SYNOPS_QEMU_CPUS=max ./bazelw test --config=aarch64 //core:core_test
#   ./bazelw test --config=aarch64 --test_env=SYNOPS_QEMU_CPUS=cortex-a72 //...
set -uo pipefail

readonly SYSROOT=/usr/aarch64-linux-gnu
readonly QEMU=qemu-aarch64
readonly ME=qemu_aarch64

die() {
  echo "$ME: $*" >&2
  exit 2
}

# True if $1 is a readable 64-bit little-endian ELF file for EM_AARCH64 (183).
is_aarch64_elf() {
  [[ -f "$1" && -r "$1" ]] || return 1
  local hdr
  hdr=$(od -An -v -tx1 -N20 -- "$1" 2>/dev/null | tr -d ' \n') || return 1
  [[ ${hdr:0:8} == 7f454c46 && ${hdr:8:4} == 0201 && ${hdr:36:4} == b700 ]]
}

(($# > 0)) || die "usage: $ME PROGRAM [ARGS...]"
program=$1
shift
if [[ "$program" != */* && ! -e "$program" ]]; then
  found=$(command -v -- "$program") || die "$program: not found"
  program=$found
fi

read -r -a cpus <<<"${SYNOPS_QEMU_CPUS:-cortex-a72 max}"
((${#cpus[@]} > 0)) || die "SYNOPS_QEMU_CPUS is empty"

program_is_aarch64=0
is_aarch64_elf "$program" && program_is_aarch64=1
aarch64_args=() # indices (1-based) of the ARGS to wrap; only for host PROGRAMs
if ((!program_is_aarch64)); then
  for ((i = 1; i <= $#; i++)); do
    if [[ -x "${!i}" ]] && is_aarch64_elf "${!i}"; then
      aarch64_args+=("$i")
    fi
  done
fi

if ((!program_is_aarch64 && ${#aarch64_args[@]} == 0)); then
  # Nothing to emulate (a host tool or a script without aarch64 arguments).
  exec "$program" "$@"
fi

command -v "$QEMU" >/dev/null ||
  die "$QEMU not found (./bazelw installs qemu-user)"
[[ -d "$SYSROOT" ]] ||
  die "$SYSROOT not found (./bazelw installs g++-aarch64-linux-gnu)"

export SYNOPS_UNDER_QEMU=1

work=$(mktemp -d "${TEST_TMPDIR:-${TMPDIR:-/tmp}}/$ME.XXXXXX") ||
  die "cannot create a temporary directory"
trap 'rm -rf -- "$work"' EXIT

# Each CPU's run gets its own TEST_TMPDIR and gtest XML file, so that one run
# never sees another's leftovers. The XML of the first failing run (or of the
# last run if all pass) becomes the test's XML_OUTPUT_FILE.
orig_tmpdir=${TEST_TMPDIR:-}
orig_xml=${XML_OUTPUT_FILE:-}
status=0
failed=()
passed=()
xml_to_keep=
kept_failure=0

for cpu in "${cpus[@]}"; do
  run_dir="$work/$cpu"
  mkdir -p "$run_dir/tmp" || die "cannot create $run_dir/tmp"
  if [[ -n "$orig_tmpdir" ]]; then
    export TEST_TMPDIR="$run_dir/tmp"
  fi
  if [[ -n "$orig_xml" ]]; then
    export XML_OUTPUT_FILE="$run_dir/test.xml"
  fi

  args=("$@")
  for i in "${aarch64_args[@]}"; do
    bin=${args[i - 1]}
    [[ "$bin" == /* ]] || bin="$PWD/$bin"
    mkdir -p "$run_dir/wrap$i" || die "cannot create $run_dir/wrap$i"
    wrapper="$run_dir/wrap$i/${bin##*/}"
    printf '#!/usr/bin/env bash\nexec %q -L %q -cpu %q %q "$@"\n' \
      "$QEMU" "$SYSROOT" "$cpu" "$bin" >"$wrapper"
    chmod +x "$wrapper"
    args[i - 1]=$wrapper
  done

  if ((program_is_aarch64)); then
    cmd=("$QEMU" -L "$SYSROOT" -cpu "$cpu" "$program" "${args[@]}")
  else
    cmd=("$program" "${args[@]}")
  fi
  echo "===== $ME: -cpu $cpu: ${program##*/} =====" >&2
  "${cmd[@]}"
  rc=$?
  if ((rc != 0)); then
    echo "===== $ME: -cpu $cpu: FAILED (exit code $rc) =====" >&2
    failed+=("$cpu")
    ((status != 0)) || status=$rc
  else
    passed+=("$cpu")
  fi
  if ((!kept_failure)); then
    xml_to_keep="$run_dir/test.xml"
    ((rc == 0)) || kept_failure=1
  fi
done

if [[ -n "$orig_xml" && -f "$xml_to_keep" ]]; then
  cp -- "$xml_to_keep" "$orig_xml"
fi

if ((${#failed[@]})); then
  echo "===== $ME: FAILED on: ${failed[*]}; passed on: ${passed[*]:-none} =====" >&2
  exit "$status"
fi
echo "===== $ME: passed on: ${cpus[*]} =====" >&2
exit 0
