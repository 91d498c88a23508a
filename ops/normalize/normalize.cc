#include "ops/normalize/normalize.h"

#include <atomic>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "core/status.h"
#include "ops/normalize/normalize_kernels.h"

namespace synops {

const KernelTable<NormalizeV1Fn>& NormalizeV1Kernels() {
  static const KernelTable<NormalizeV1Fn> table(
      normalize_internal::NormalizeV1HwyKernels(),
      {{"ref", Isa::kRef, normalize_internal::NormalizeV1Ref}});
  return table;
}
const KernelTable<NormalizeFn>& NormalizeV2Kernels() {
  static const KernelTable<NormalizeFn> table(
      normalize_internal::NormalizeV2HwyKernels(),
      {{"ref", Isa::kRef, normalize_internal::NormalizeV2Ref}});
  return table;
}
const KernelTable<NormalizeFn>& NormalizeV3Kernels() {
  static const KernelTable<NormalizeFn> table(
      normalize_internal::NormalizeV3HwyKernels(),
      {{"ref", Isa::kRef, normalize_internal::NormalizeV3Ref}});
  return table;
}
const KernelTable<NormalizeFn>& NormalizeV4Kernels() {
  static const KernelTable<NormalizeFn> table(
      normalize_internal::NormalizeV4HwyKernels(),
      {{"ref", Isa::kRef, normalize_internal::NormalizeV4Ref}});
  return table;
}
const KernelTable<Normalize16bV2Fn>& Normalize16bV2Kernels() {
  static const KernelTable<Normalize16bV2Fn> table(
      normalize_internal::Normalize16bV2HwyKernels(),
      {{"ref", Isa::kRef, normalize_internal::Normalize16bV2Ref}});
  return table;
}

namespace {

// Validates the arguments every variant shares; *bytes is the tensor's size
// in bytes (0: nothing to do).
absl::Status CheckCommon(const void* src, size_t batch, size_t channels, size_t spatial,
                         size_t element, const float* scale, const float* shift, bool has_shift,
                         const float* eps, TensorFormat format, void* dst, size_t* bytes) {
  size_t param_bytes;
  SYNOPS_RETURN_IF_ERROR(
      CheckedBytes({batch, channels, spatial, element}, "batch*channels*spatial", bytes));
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({channels, sizeof(float)}, "channels", &param_bytes));
  if (*bytes == 0) param_bytes = 0;  // nothing is read
  const size_t eps_bytes = *bytes != 0 ? sizeof(float) : 0;
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src, *bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(scale, param_bytes, "scale"));
  if (has_shift) SYNOPS_RETURN_IF_ERROR(CheckPointer(shift, param_bytes, "shift"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(eps, eps_bytes, "eps"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst, *bytes, "dst"));
  SYNOPS_RETURN_IF_ERROR(CheckFormat(format));
  SYNOPS_RETURN_IF_ERROR(CheckSameOrDisjoint(dst, *bytes, "dst", src, *bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, *bytes, "dst", scale, param_bytes, "scale"));
  if (has_shift) {
    SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, *bytes, "dst", shift, param_bytes, "shift"));
  }
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, *bytes, "dst", eps, eps_bytes, "eps"));
  return absl::OkStatus();
}

}  // namespace

absl::Status NormalizeLayerForward(const float* src, size_t batch, size_t channels,
                                   size_t spatial, const float* scale, const float* eps,
                                   bool across_spatial, TensorFormat format, float* buf,
                                   float* dst) {
  size_t bytes;
  SYNOPS_RETURN_IF_ERROR(CheckCommon(src, batch, channels, spatial, sizeof(float), scale, nullptr,
                                     false, eps, format, dst, &bytes));
  if (bytes != 0) {
    NormalizeV1Kernels().Best().fn(src, batch, channels, spatial, scale, *eps, across_spatial,
                                   format, buf, dst);
  }
  return absl::OkStatus();
}

namespace {

// V2 and V3: the same checks, then the best kernel of `table`.
absl::Status ScaleShiftForward(const KernelTable<NormalizeFn>& table, const float* src,
                               size_t batch, size_t channels, size_t spatial, const float* scale,
                               const float* shift, const float* eps, TensorFormat format,
                               float* buf, float* dst) {
  size_t bytes;
  SYNOPS_RETURN_IF_ERROR(CheckCommon(src, batch, channels, spatial, sizeof(float), scale, shift,
                                     true, eps, format, dst, &bytes));
  if (bytes != 0) {
    table.Best().fn(src, batch, channels, spatial, scale, shift, *eps, format, buf, dst);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status NormalizeLayerForwardV2(const float* src, size_t batch, size_t channels,
                                     size_t spatial, const float* scale, const float* shift,
                                     const float* eps, TensorFormat format, float* buf,
                                     float* dst) {
  return ScaleShiftForward(NormalizeV2Kernels(), src, batch, channels, spatial, scale, shift, eps,
                           format, buf, dst);
}

absl::Status NormalizeLayerForwardV3(const float* src, size_t batch, size_t channels,
                                     size_t spatial, const float* scale, const float* shift,
                                     const float* eps, TensorFormat format, float* buf,
                                     float* dst) {
  return ScaleShiftForward(NormalizeV3Kernels(), src, batch, channels, spatial, scale, shift, eps,
                           format, buf, dst);
}

absl::Status NormalizeLayerForwardV4(const float* src, size_t batch, size_t channels,
                                     size_t spatial, const float* scale, const float* shift,
                                     const float* eps, TensorFormat format, float* buf,
                                     float* dst) {
  size_t bytes;
  SYNOPS_RETURN_IF_ERROR(CheckCommon(src, batch, channels, spatial, sizeof(float), scale, shift,
                                     true, eps, format, dst, &bytes));
  if (bytes == 0) return absl::OkStatus();
  const size_t buf_bytes = channels * sizeof(float);  // no overflow: checked above
  if (buf != nullptr) {
    SYNOPS_RETURN_IF_ERROR(CheckDisjoint(buf, buf_bytes, "buf", src, bytes, "src"));
    SYNOPS_RETURN_IF_ERROR(CheckDisjoint(buf, buf_bytes, "buf", dst, bytes, "dst"));
    SYNOPS_RETURN_IF_ERROR(CheckDisjoint(buf, buf_bytes, "buf", scale, buf_bytes, "scale"));
    SYNOPS_RETURN_IF_ERROR(CheckDisjoint(buf, buf_bytes, "buf", shift, buf_bytes, "shift"));
    SYNOPS_RETURN_IF_ERROR(CheckDisjoint(buf, buf_bytes, "buf", eps, sizeof(float), "eps"));
  }
  std::vector<float> own;
  if (buf == nullptr) {
    own.resize(channels);
    buf = own.data();
  }
  NormalizeV4Kernels().Best().fn(src, batch, channels, spatial, scale, shift, *eps, format, buf,
                                 dst);
  return absl::OkStatus();
}

absl::Status NormalizeLayerForward16bV2(const uint16_t* src, size_t batch, size_t channels,
                                        size_t spatial, const float* scale, const float* shift,
                                        const float* eps, TensorFormat format, float* buf,
                                        uint16_t* dst) {
  size_t bytes;
  SYNOPS_RETURN_IF_ERROR(CheckCommon(src, batch, channels, spatial, sizeof(uint16_t), scale,
                                     shift, true, eps, format, dst, &bytes));
  if (bytes != 0) {
    Normalize16bV2Kernels().Best().fn(src, batch, channels, spatial, scale, shift, *eps, format,
                                      buf, dst);
  }
  return absl::OkStatus();
}

namespace normalize_internal {
namespace {
std::atomic<int> flat_periods_for_testing{-1};

// An AMD or Hygon CPU: CPUID leaf 0's vendor, ebx "Auth" / "Hygo" (the test
// core/cpu.cc makes for the AMD cache leaves).
bool AmdCpu() {
#if defined(__x86_64__)
  unsigned eax, ebx, ecx, edx;
  __cpuid(0, eax, ebx, ecx, edx);
  return ebx == 0x68747541u || ebx == 0x6F677948u;
#else
  return false;
#endif
}
}  // namespace

bool FlatPeriods() {
  static const bool amd = AmdCpu();
  const int forced = flat_periods_for_testing.load(std::memory_order_relaxed);
  return forced < 0 ? !amd : forced != 0;
}

void SetFlatPeriodsForTesting(int flat) {
  flat_periods_for_testing.store(flat, std::memory_order_relaxed);
}
}  // namespace normalize_internal

}  // namespace synops
