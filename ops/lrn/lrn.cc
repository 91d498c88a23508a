#include "ops/lrn/lrn.h"

#include "core/status.h"
#include "ops/lrn/lrn_kernels.h"

namespace synops {

const KernelTable<LrnFn>& LrnKernels() {
  static const KernelTable<LrnFn> table(lrn_internal::LrnHwyKernels(),
                                        {{"ref", Isa::kRef, lrn_internal::LrnRef}});
  return table;
}

absl::Status LrnLayerCrossChannels(const float* src, size_t half, size_t channels,
                                   size_t spatial, const float* k, float* dst,
                                   TensorFormat format) {
  size_t bytes;
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({channels, spatial, sizeof(float)}, "channels*spatial",
                                      &bytes));
  const size_t k_bytes = bytes != 0 ? 3 * sizeof(float) : 0;  // k is read only if non-empty
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src, bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(k, k_bytes, "k"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst, bytes, "dst"));
  SYNOPS_RETURN_IF_ERROR(CheckFormat(format));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, bytes, "dst", src, bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, bytes, "dst", k, k_bytes, "k"));
  if (bytes != 0) LrnKernels().Best().fn(src, half, channels, spatial, k, dst, format);
  return absl::OkStatus();
}

}  // namespace synops
