// Validation and dispatch for the bf16 package.
#include "bf16/bf16.h"

#include "bf16/bf16_kernels.h"
#include "core/status.h"

namespace synops {
namespace {

size_t DefaultW(size_t element_size, size_t w) { return w != 0 ? w : 16 / element_size; }

bool ValidElementSize(size_t e) { return e == 1 || e == 2 || e == 4; }

}  // namespace

using namespace bf16_internal;  // NOLINT: kernel names

const KernelTable<Fp32ToBf16Fn>& Fp32ToBf16Kernels() {
  static const KernelTable<Fp32ToBf16Fn> table(Fp32ToBf16HwyKernels(), {
#if defined(__x86_64__)
    {"avx512bf16", Isa::kAvx512Bf16, Fp32ToBf16Avx512Bf16},
#endif
#if defined(__aarch64__)
        {"neon_bf16", Isa::kNeonBf16, Fp32ToBf16NeonBf16},
#endif
        {"ref", Isa::kRef, Fp32ToBf16Ref},
  });
  return table;
}

const KernelTable<Bf16ToFp32Fn>& Bf16ToFp32Kernels() {
  static const KernelTable<Bf16ToFp32Fn> table(Bf16ToFp32HwyKernels(),
                                               {{"ref", Isa::kRef, Bf16ToFp32Ref}});
  return table;
}

const KernelTable<Transpose1xWFn>& Transpose1xWKernels() {
  static const KernelTable<Transpose1xWFn> table(Transpose1xWHwyKernels(),
                                                 {{"ref", Isa::kRef, Transpose1xWRef}});
  return table;
}

const KernelTable<PackPairInterleavedFn>& PackPairInterleavedKernels() {
  static const KernelTable<PackPairInterleavedFn> table(
      PackPairInterleavedHwyKernels(), {{"ref", Isa::kRef, PackPairInterleavedRef}});
  return table;
}

absl::Status Fp32ToBf16(const float* src, size_t size, uint16_t* dst) {
  size_t src_bytes, dst_bytes;
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({size, sizeof(float)}, "size", &src_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({size, sizeof(uint16_t)}, "size", &dst_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src, src_bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst, dst_bytes, "dst"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, dst_bytes, "dst", src, src_bytes, "src"));
  if (size != 0) Fp32ToBf16Kernels().Best().fn(src, size, dst);
  return absl::OkStatus();
}

absl::Status Bf16ToFp32(const uint16_t* src, size_t size, float* dst) {
  size_t src_bytes, dst_bytes;
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({size, sizeof(uint16_t)}, "size", &src_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({size, sizeof(float)}, "size", &dst_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src, src_bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst, dst_bytes, "dst"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, dst_bytes, "dst", src, src_bytes, "src"));
  if (size != 0) Bf16ToFp32Kernels().Best().fn(src, size, dst);
  return absl::OkStatus();
}

size_t Transpose1xWSize(size_t height, size_t width, size_t element_size, size_t w) {
  if (!ValidElementSize(element_size)) return 0;
  w = DefaultW(element_size, w);
  size_t bytes = 0;
  if (!CheckedBytes({(width + w - 1) / w, height, w, element_size}, "", &bytes).ok()) return 0;
  return bytes;
}

absl::Status Transpose1xW(const void* src, size_t height, size_t width, size_t element_size,
                          size_t w, void* dst) {
  if (!ValidElementSize(element_size)) return InvalidArg("element_size", "must be 1, 2 or 4");
  w = DefaultW(element_size, w);
  if (width > SIZE_MAX - w) return InvalidArg("width", "too large");
  size_t src_bytes, dst_bytes;
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({height, width, element_size}, "height*width", &src_bytes));
  SYNOPS_RETURN_IF_ERROR(
      CheckedBytes({(width + w - 1) / w, height, w, element_size}, "w", &dst_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src, src_bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst, dst_bytes, "dst"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, dst_bytes, "dst", src, src_bytes, "src"));
  if (dst_bytes != 0) {
    Transpose1xWKernels().Best().fn(static_cast<const uint8_t*>(src), height, width,
                                     element_size, w, static_cast<uint8_t*>(dst));
  }
  return absl::OkStatus();
}

size_t PackPairInterleavedSize(size_t k, size_t n, size_t w) {
  if (w == 0 || n > SIZE_MAX - w) return 0;
  size_t bytes = 0;
  if (!CheckedBytes({(n + w - 1) / w, (k + 1) / 2, w, 2, sizeof(uint16_t)}, "", &bytes).ok()) {
    return 0;
  }
  return bytes / sizeof(uint16_t);
}

absl::Status PackPairInterleaved(const uint16_t* src, size_t k, size_t n, size_t w,
                                 uint16_t* dst) {
  if (w == 0) return InvalidArg("w", "must be at least 1");
  if (n > SIZE_MAX - w) return InvalidArg("n", "too large");
  size_t src_bytes, dst_bytes;
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({k, n, sizeof(uint16_t)}, "k*n", &src_bytes));
  SYNOPS_RETURN_IF_ERROR(
      CheckedBytes({(n + w - 1) / w, (k + 1) / 2, w, 2, sizeof(uint16_t)}, "w", &dst_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src, src_bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst, dst_bytes, "dst"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, dst_bytes, "dst", src, src_bytes, "src"));
  if (dst_bytes != 0) PackPairInterleavedKernels().Best().fn(src, k, n, w, dst);
  return absl::OkStatus();
}

}  // namespace synops
