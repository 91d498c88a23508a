"""Every differential fuzzer in the repository: corpus name -> fuzzer target.

Adding a fuzzer: add it here, create fuzz/corpus/<name>/ with a few seed
inputs (fuzz/regressions/<name>/ holds saved crashes), and use
synops_fuzzer(name = "<op>_fuzz", corpus = "<name>") in the op's BUILD.
The campaign runner and the corpus filegroups read this list.
"""

SYNOPS_FUZZERS = {
    "bf16": "//bf16:bf16_fuzz",
    "channel_sum": "//ops/channel_sum:channel_sum_fuzz",
    "conv16b": "//conv16b:conv16b_fuzz",
    "eltwise": "//ops/eltwise:eltwise_fuzz",
    "lrn": "//ops/lrn:lrn_fuzz",
    "normalize": "//ops/normalize:normalize_fuzz",
    "shuffle": "//ops/shuffle:shuffle_fuzz",
    "softmax": "//ops/softmax:softmax_fuzz",
    "tiled_scale": "//ops/tiled_scale:tiled_scale_fuzz",
    "unary": "//ops/unary:unary_fuzz",
    # Fuzzes fuzz/harness.h itself; a quick smoke test of the campaign runner.
    "selftest": "//fuzz/selftest:selftest_fuzz",
}
