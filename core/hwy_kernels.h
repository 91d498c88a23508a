// Kernel-table entries for functions compiled by Highway's foreach_target.
//
// Define the kernels in namespace synops::HWY_NAMESPACE, then inside
// `#if HWY_ONCE` write SYNOPS_HWY_KERNELS(fn): one initializer
// `{name, isa, &synops::N_<TARGET>::fn},` per target this translation unit was
// compiled for that synops names (sse41, avx2, avx512 on x86; neon on aarch64).
#ifndef SYNOPS_CORE_HWY_KERNELS_H_
#define SYNOPS_CORE_HWY_KERNELS_H_

#include "core/dispatch.h"
#include "hwy/highway.h"

#if HWY_TARGETS & HWY_AVX3
#define SYNOPS_HWY_AVX3_(fn) {"avx512", ::synops::Isa::kAvx512, &::synops::N_AVX3::fn},
#else
#define SYNOPS_HWY_AVX3_(fn)
#endif
#if HWY_TARGETS & HWY_AVX2
#define SYNOPS_HWY_AVX2_(fn) {"avx2", ::synops::Isa::kAvx2, &::synops::N_AVX2::fn},
#else
#define SYNOPS_HWY_AVX2_(fn)
#endif
#if HWY_TARGETS & HWY_SSE4
#define SYNOPS_HWY_SSE4_(fn) {"sse41", ::synops::Isa::kSse41, &::synops::N_SSE4::fn},
#else
#define SYNOPS_HWY_SSE4_(fn)
#endif
#if HWY_TARGETS & HWY_NEON
#define SYNOPS_HWY_NEON_(fn) {"neon", ::synops::Isa::kNeon, &::synops::N_NEON::fn},
#else
#define SYNOPS_HWY_NEON_(fn)
#endif

// For functions defined in namespace synops::HWY_NAMESPACE.
#define SYNOPS_HWY_KERNELS(fn) \
  SYNOPS_HWY_AVX3_(fn) SYNOPS_HWY_AVX2_(fn) SYNOPS_HWY_SSE4_(fn) SYNOPS_HWY_NEON_(fn)

#endif  // SYNOPS_CORE_HWY_KERNELS_H_
