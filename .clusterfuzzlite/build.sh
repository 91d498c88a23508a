#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build script: builds every differential fuzzer of
# fuzz/fuzzers.bzl with the compiler, flags and fuzzing engine the
# environment gives ($CC, $CXX, $CFLAGS, $CXXFLAGS, $LIB_FUZZING_ENGINE,
# $SANITIZER) and writes to $OUT, per fuzzer: the binary,
# <fuzzer>_seed_corpus.zip (fuzz/corpus/<name>/ + fuzz/regressions/<name>/)
# and <fuzzer>.options. The libraries the binaries load that a runner image
# lacks (Abseil, Highway, the C++ runtime they were built with) go to
# $OUT/lib, found through the binaries' RUNPATH ($ORIGIN/lib).
#
# Run from the repository root (OSS-Fuzz runs it in the Dockerfile's WORKDIR).
# .ci/run runs it the way OSS-Fuzz sets the variables for libFuzzer with
# `address` and with `undefined`: .ci/oss_fuzz_build.sh.

[[ -f WORKSPACE && -x bazelw ]] || {
  echo "build.sh: run it from the synops repository root" >&2
  exit 1
}
: "${OUT:?}" "${CC:?}" "${CXX:?}" "${LIB_FUZZING_ENGINE:?}" "${SANITIZER:?}"
CFLAGS="${CFLAGS:-}"
CXXFLAGS="${CXXFLAGS:-}"

# OSS-Fuzz's CXXFLAGS pick libc++; Debian's Abseil, Highway and GoogleTest are
# built against libstdc++, whose std::string and friends are a different ABI.
CXXFLAGS="${CXXFLAGS//-stdlib=libc++/}"

flags=(
  # Clang from $CC/$CXX, in an output base of its own (the toolchain differs
  # from the default gcc build's and from --config=fuzz's).
  "--repo_env=CC=$CC" "--repo_env=CXX=$CXX"
  # Fuzzer binaries without the replay main or -fsanitize=fuzzer: the engine
  # comes from $LIB_FUZZING_ENGINE.
  --define=synops_fuzz=engine
  # Bazel links with $CC: ask for the sanitizers' C++ runtime parts
  # (operator new/delete, UBSan's vptr check) explicitly.
  --linkopt=-fsanitize-link-c++-runtime
  "--linkopt=-Wl,-rpath,\$ORIGIN/lib"
)
for f in $CFLAGS; do flags+=("--conlyopt=$f"); done
for f in $CXXFLAGS; do flags+=("--cxxopt=$f" "--linkopt=$f"); done
for f in $LIB_FUZZING_ENGINE; do flags+=("--linkopt=$f"); done

output_base="${SYNOPS_OSS_FUZZ_OUTPUT_BASE:-${XDG_CACHE_HOME:-$HOME/.cache}/synops/bazel-oss-fuzz}"

# "<name> <label>" per fuzzer, from fuzz/fuzzers.bzl; the self-test of the
# harness is not a project fuzzer.
./bazelw --output_base="$output_base" build //fuzz:fuzzer_list
bin_dir="$(./bazelw --output_base="$output_base" info bazel-bin 2>/dev/null)"
mapfile -t fuzzers < <(grep -v '^selftest ' "$bin_dir/fuzz/fuzzers.txt")
labels=()
for line in "${fuzzers[@]}"; do labels+=("${line#* }"); done

./bazelw --output_base="$output_base" build "${flags[@]}" -- "${labels[@]}"
bin_dir="$(./bazelw --output_base="$output_base" info "${flags[@]}" bazel-bin 2>/dev/null)"

mkdir -p "$OUT/lib"
for line in "${fuzzers[@]}"; do
  name="${line%% *}"
  label="${line#* }"
  pkg="${label#//}"
  pkg="${pkg%%:*}"
  target="${label##*:}"
  cp "$bin_dir/$pkg/$target" "$OUT/$target"
  # Shared libraries other than glibc's, next to the binaries.
  ldd "$OUT/$target" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
    grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L -n "$lib" "$OUT/lib/"; done
  rm -f "$OUT/${target}_seed_corpus.zip"
  seeds=()
  for d in "fuzz/corpus/$name" "fuzz/regressions/$name"; do
    [[ -d "$d" ]] && seeds+=("$d")
  done
  # -j: flat file names (a seed and a regression never share a name: both are
  # named by content or numbered seedNN).
  zip -q -j "$OUT/${target}_seed_corpus.zip" $(find "${seeds[@]}" -type f | sort)
  cat >"$OUT/$target.options" <<OPTIONS
[libfuzzer]
max_len = 4096
timeout = 30
OPTIONS
done
echo "build.sh: ${#fuzzers[@]} fuzzers in $OUT ($SANITIZER)"
