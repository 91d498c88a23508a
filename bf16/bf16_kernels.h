// Kernel tables of the bf16 package (for dispatch, tests, benchmarks, fuzzers).
// Kernels receive validated arguments.
#ifndef SYNOPS_BF16_BF16_KERNELS_H_
#define SYNOPS_BF16_BF16_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dispatch.h"

namespace synops {

using Fp32ToBf16Fn = void (*)(const float* src, size_t size, uint16_t* dst);
using Bf16ToFp32Fn = void (*)(const uint16_t* src, size_t size, float* dst);
// element_size in {1, 2, 4}; w >= 1.
using Transpose1xWFn = void (*)(const uint8_t* src, size_t height, size_t width,
                                size_t element_size, size_t w, uint8_t* dst);
using PackPairInterleavedFn = void (*)(const uint16_t* src, size_t k, size_t n, size_t w,
                                       uint16_t* dst);

const KernelTable<Fp32ToBf16Fn>& Fp32ToBf16Kernels();
const KernelTable<Bf16ToFp32Fn>& Bf16ToFp32Kernels();
const KernelTable<Transpose1xWFn>& Transpose1xWKernels();
const KernelTable<PackPairInterleavedFn>& PackPairInterleavedKernels();

namespace bf16_internal {

// bf16_ref.cc
void Fp32ToBf16Ref(const float* src, size_t size, uint16_t* dst);
void Bf16ToFp32Ref(const uint16_t* src, size_t size, float* dst);
void Transpose1xWRef(const uint8_t* src, size_t height, size_t width, size_t element_size,
                     size_t w, uint8_t* dst);
void PackPairInterleavedRef(const uint16_t* src, size_t k, size_t n, size_t w, uint16_t* dst);

// bf16_hwy.cc: Highway kernels (sse41, avx2, avx512 / neon).
std::vector<Kernel<Fp32ToBf16Fn>> Fp32ToBf16HwyKernels();
std::vector<Kernel<Bf16ToFp32Fn>> Bf16ToFp32HwyKernels();
std::vector<Kernel<Transpose1xWFn>> Transpose1xWHwyKernels();
std::vector<Kernel<PackPairInterleavedFn>> PackPairInterleavedHwyKernels();

#if defined(__x86_64__)
// bf16_x86.cc: vcvtneps2bf16 with a fix-up for denormal inputs.
void Fp32ToBf16Avx512Bf16(const float* src, size_t size, uint16_t* dst);
#endif
#if defined(__aarch64__)
// bf16_neon.cc: BFCVTN.
void Fp32ToBf16NeonBf16(const float* src, size_t size, uint16_t* dst);
#endif

}  // namespace bf16_internal
}  // namespace synops

#endif  // SYNOPS_BF16_BF16_KERNELS_H_
