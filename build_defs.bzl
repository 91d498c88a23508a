"""Macros every synops package uses, so BUILD files stay short and uniform.

synops_library      a cc_library with the project's compile options
synops_isa_library  sources compiled only for one architecture, with their own -m flags
synops_test         a GoogleTest cc_test
synops_benchmark    a Google Benchmark binary plus a smoke test that runs it once
synops_fuzzer       a libFuzzer differential fuzzer plus its corpus-replay cc_test
"""

# No -ffast-math anywhere; no FMA contraction, so the reference is the plain
# loops of SPEC.md and the scalar tails of vector kernels round like it.
SYNOPS_COPTS = [
    "-ffp-contract=off",
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-missing-field-initializers",
    # Highway targets synops has no kernel names for: skip compiling them, here
    # and nowhere else. (SVE's sizeless vectors could not live in the arrays
    # of accumulators the kernels keep, so no kernel file has to guard them.)
    "-DHWY_DISABLED_TARGETS=(HWY_SSSE3|HWY_AVX3_DL|HWY_SVE|HWY_SVE2|HWY_SVE_256|HWY_SVE2_128)",
] + select({
    # Highway's NEON target needs the AES extension enabled with GCC.
    "//platforms:aarch64": ["-march=armv8-a+crypto"],
    "//conditions:default": [],
})

def synops_library(name, copts = [], **kwargs):
    native.cc_library(
        name = name,
        copts = SYNOPS_COPTS + copts,
        **kwargs
    )

_ARCH_SETTINGS = {
    "aarch64": "//platforms:aarch64",
    "x86_64": "//platforms:x86_64",
}

def synops_isa_library(name, arch, srcs, copts = [], deps = [], **kwargs):
    """Raw-intrinsics kernels for one architecture (XNNPACK's pattern).

    On any other architecture the library is empty, so no x86 flag ever
    reaches the aarch64 compiler and vice versa. Callers guard their
    references with #if defined(__x86_64__) / defined(__aarch64__).

    Args:
      name: target name.
      arch: "x86_64" or "aarch64".
      srcs: sources (and private headers).
      copts: ISA flags such as -mavx512bf16; applied only on `arch`.
      deps: dependencies.
      **kwargs: passed to cc_library.
    """
    setting = _ARCH_SETTINGS[arch]
    native.cc_library(
        name = name,
        srcs = select({setting: srcs, "//conditions:default": []}),
        copts = SYNOPS_COPTS + select({setting: copts, "//conditions:default": []}),
        deps = deps,
        **kwargs
    )

def synops_test(name, deps = [], copts = [], **kwargs):
    native.cc_test(
        name = name,
        copts = SYNOPS_COPTS + copts,
        deps = deps + [
            "//testing:test_util",
            "@com_google_googletest//:gtest_main",
        ],
        **kwargs
    )

def synops_benchmark(name, deps = [], copts = [], smoke_args = [], smoke_size = "medium", **kwargs):
    """A benchmark binary `name` and `name_smoke`, a test running it once.

    The smoke test runs every benchmark for a single iteration so that a
    benchmark which crashes or fails its own checks is caught by `bazel test`.
    `smoke_size` is its Bazel test size (its timeout: medium 300 s, large
    900 s; under qemu the conv16b benchmarks take minutes).
    """
    native.cc_binary(
        name = name,
        testonly = True,
        copts = SYNOPS_COPTS + copts,
        deps = deps + [
            "//testing:bench_util",
            "@com_github_google_benchmark//:benchmark_main",
        ],
        **kwargs
    )
    native.sh_test(
        name = name + "_smoke",
        srcs = ["//testing:bench_smoke.sh"],
        args = ["$(location :%s)" % name] + smoke_args,
        data = [":" + name],
        size = smoke_size,
    )

def synops_fuzzer(name, srcs, deps = [], corpus = None, **kwargs):
    """A differential fuzzer and its corpus-replay test.

    `name`: the fuzzer binary. With --config=fuzz it is a libFuzzer binary
    (clang, ASan, UBSan); with --define=synops_fuzz=engine (the OSS-Fuzz
    build.sh) it links whatever engine --linkopt names; otherwise it is
    linked with the replay main and runs the files or directories given on
    its command line.
    `name_replay`: a cc_test replaying fuzz/corpus/<corpus>/ and
    fuzz/regressions/<corpus>/ (every saved crash); it runs in `bazel test //...`.

    Args:
      name: target name, by convention <op>_fuzz.
      srcs: sources defining LLVMFuzzerTestOneInput.
      deps: dependencies.
      corpus: corpus name under fuzz/corpus and fuzz/regressions (default: name).
      **kwargs: passed to both targets.
    """
    corpus = corpus or name
    replay_main = select({
        "//fuzz:fuzzing": [],
        "//fuzz:fuzzing_engine": [],
        "//conditions:default": ["//fuzz:replay_main"],
    })
    native.cc_binary(
        name = name,
        srcs = srcs,
        copts = SYNOPS_COPTS,
        linkopts = select({
            "//fuzz:fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps + ["//fuzz:harness"] + replay_main,
        tags = ["fuzzer"],
        testonly = True,
        **kwargs
    )
    native.cc_test(
        name = name + "_replay",
        srcs = srcs,
        copts = SYNOPS_COPTS,
        deps = deps + ["//fuzz:harness", "//fuzz:replay_main"],
        data = ["//fuzz:corpus_" + corpus],
        args = ["$(locations //fuzz:corpus_%s)" % corpus],
        size = "medium",
        **kwargs
    )
