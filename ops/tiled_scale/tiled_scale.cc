#include "ops/tiled_scale/tiled_scale.h"

#include "core/status.h"
#include "ops/tiled_scale/tiled_scale_kernels.h"

namespace synops {

const KernelTable<TiledScale2D32fFn>& TiledScale2D32fKernels() {
  static const KernelTable<TiledScale2D32fFn> table(
      tiled_scale_internal::TiledScale2D32fHwyKernels(),
      {{"ref", Isa::kRef, tiled_scale_internal::TiledScale2D32fRef}});
  return table;
}

absl::Status TiledScale2D32f(const float* src, size_t channels, size_t height, size_t width,
                             TensorFormat format, const float* ver, const float* hor, float* dst) {
  SYNOPS_RETURN_IF_ERROR(CheckFormat(format));
  size_t bytes, ver_bytes, hor_bytes;
  SYNOPS_RETURN_IF_ERROR(
      CheckedBytes({channels, height, width, sizeof(float)}, "channels*height*width", &bytes));
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({channels, width, sizeof(float)}, "channels*width", &ver_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({channels, height, sizeof(float)}, "channels*height", &hor_bytes));
  if (bytes == 0) return absl::OkStatus();
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src, bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(ver, ver_bytes, "ver"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(hor, hor_bytes, "hor"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst, bytes, "dst"));
  SYNOPS_RETURN_IF_ERROR(CheckSameOrDisjoint(dst, bytes, "dst", src, bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, bytes, "dst", ver, ver_bytes, "ver"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, bytes, "dst", hor, hor_bytes, "hor"));
  TiledScale2D32fKernels().Best().fn(src, channels, height, width, format, ver, hor, dst);
  return absl::OkStatus();
}

}  // namespace synops
