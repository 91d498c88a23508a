#include "ops/eltwise/eltwise.h"

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "ops/eltwise/eltwise_kernels.h"

namespace synops {

const char* EltwiseOpName(EltwiseOp op) {
  switch (op) {
    case EltwiseOp::kProduct:
      return "product";
    case EltwiseOp::kSum:
      return "sum";
    case EltwiseOp::kMax:
      return "max";
    case EltwiseOp::kMin:
      return "min";
  }
  return "unknown";
}

const KernelTable<EltwiseFn>& EltwiseKernels() {
  static const KernelTable<EltwiseFn> table(eltwise_internal::EltwiseHwyKernels(),
                                            {{"ref", Isa::kRef, eltwise_internal::EltwiseRef}});
  return table;
}

absl::Status EltwiseLayerForward(const float* const* src, const float* weight, size_t count,
                                 size_t size, EltwiseOp type, float* dst) {
  const int t = static_cast<int>(type);
  if (t < 0 || t > 3) {
    return InvalidArg("type", absl::StrCat("unsupported eltwise operation ", t,
                                           " (expected 0 = product, 1 = sum, 2 = max, 3 = min)"));
  }
  if (count < 2) return InvalidArg("count", absl::StrCat("must be at least 2, got ", count));
  size_t bytes, table_bytes, weight_bytes;
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({size, sizeof(float)}, "size", &bytes));
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({count, sizeof(float*)}, "count", &table_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({count, sizeof(float)}, "count", &weight_bytes));
  if (size == 0) return absl::OkStatus();
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src, table_bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst, bytes, "dst"));
  if (type == EltwiseOp::kSum) {
    SYNOPS_RETURN_IF_ERROR(CheckPointer(weight, weight_bytes, "weight (required for sum)"));
    SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, bytes, "dst", weight, weight_bytes, "weight"));
  }
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, bytes, "dst", src, table_bytes, "src (pointer array)"));
  for (size_t i = 0; i < count; ++i) {
    // The message is built only on failure: valid calls do not allocate.
    if (src[i] == nullptr) return InvalidArg(absl::StrCat("src[", i, "]"), "must not be null");
    if (src[i] != dst && Overlaps(dst, bytes, src[i], bytes)) {
      return CheckSameOrDisjoint(dst, bytes, "dst", src[i], bytes, absl::StrCat("src[", i, "]"));
    }
  }
  EltwiseKernels().Best().fn(src, weight, count, size, type, dst);
  return absl::OkStatus();
}

}  // namespace synops
