#!/usr/bin/env bash
# Runs .clusterfuzzlite/build.sh the way OSS-Fuzz's `compile` does for
# libFuzzer, once with SANITIZER=address and once with SANITIZER=undefined
# (the flags of OSS-Fuzz's base-builder image), into a scratch $OUT; then
# checks what it wrote: every fuzzer of fuzz/fuzzers.bzl has a binary, a seed
# corpus zip and an .options file, and every binary runs every input of its
# seed corpus without a finding. Usage: .ci/oss_fuzz_build.sh [address|undefined]...
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizers=("$@")
((${#sanitizers[@]})) || sanitizers=(address undefined)

# OSS-Fuzz base-builder (infra/base-images/base-builder/Dockerfile, compile).
base_flags="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
declare -A sanitizer_flags=(
  [address]="-fsanitize=address -fsanitize-address-use-after-scope"
  [undefined]="-fsanitize=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound,vptr -fno-sanitize-recover=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr"
)
# The run-time options OSS-Fuzz's runners set (the parts that change results).
export ASAN_OPTIONS="alloc_dealloc_mismatch=0:allocator_may_return_null=1:check_malloc_usable_size=0:detect_leaks=1:detect_stack_use_after_return=1:handle_abort=1:handle_segv=1:strict_memcmp=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:print_summary=1:silence_unsigned_overflow=1"

status=0
for sanitizer in "${sanitizers[@]}"; do
  [[ -n "${sanitizer_flags[$sanitizer]:-}" ]] || {
    echo "oss_fuzz_build: unknown sanitizer $sanitizer" >&2
    exit 2
  }
  out=$(mktemp -d)
  echo "oss_fuzz_build: SANITIZER=$sanitizer OUT=$out" >&2
  cflags="$base_flags ${sanitizer_flags[$sanitizer]} -fsanitize=fuzzer-no-link"
  if ! env CC=clang CXX=clang++ CFLAGS="$cflags" CXXFLAGS="$cflags -stdlib=libc++" \
    LIB_FUZZING_ENGINE=-fsanitize=fuzzer SANITIZER="$sanitizer" OUT="$out" \
    SRC="$(dirname "$PWD")" WORK="$(mktemp -d)" .clusterfuzzlite/build.sh; then
    echo "oss_fuzz_build: build.sh failed ($sanitizer)" >&2
    status=1
    continue
  fi
  ./bazelw build //fuzz:fuzzer_list >/dev/null 2>&1
  while read -r name label; do
    [[ "$name" == selftest ]] && continue
    target="${label##*:}"
    for f in "$target" "${target}_seed_corpus.zip" "$target.options"; do
      [[ -s "$out/$f" ]] || {
        echo "oss_fuzz_build: $sanitizer: $out/$f is missing" >&2
        status=1
      }
    done
    [[ -x "$out/$target" && -s "$out/${target}_seed_corpus.zip" ]] || continue
    seeds=$(mktemp -d)
    unzip -q "$out/${target}_seed_corpus.zip" -d "$seeds"
    # Each input once (files, not a corpus directory: no fuzzing), from $OUT
    # with the environment of a runner (the libraries in $OUT/lib).
    if (cd "$out" && find "$seeds" -type f -print0 | xargs -0 "./$target" -rss_limit_mb=2560 -timeout=30 \
      >"$seeds.log" 2>&1); then
      echo "oss_fuzz_build: $sanitizer: $target ran $(find "$seeds" -type f | wc -l) seed inputs" >&2
    else
      echo "oss_fuzz_build: $sanitizer: $target failed on its seeds:" >&2
      tail -n 30 "$seeds.log" >&2
      status=1
    fi
    rm -rf "$seeds" "$seeds.log"
  done <bazel-bin/fuzz/fuzzers.txt
  rm -rf "$out"
done
exit "$status"
