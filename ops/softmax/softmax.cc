#include "ops/softmax/softmax.h"

#include "core/status.h"
#include "ops/softmax/softmax_kernels.h"

namespace synops {

const KernelTable<Softmax32fFn>& Softmax32fKernels() {
  static const KernelTable<Softmax32fFn> table(
      softmax_internal::Softmax32fHwyKernels(),
      {{"ref", Isa::kRef, softmax_internal::Softmax32fRef}});
  return table;
}

const KernelTable<Softmax16bFn>& Softmax16bKernels() {
  static const KernelTable<Softmax16bFn> table(
      softmax_internal::Softmax16bHwyKernels(),
      {{"ref", Isa::kRef, softmax_internal::Softmax16bRef}});
  return table;
}

namespace {

// Shared validation; `bytes` receives the tensor's size in bytes.
absl::Status Validate(const void* src, size_t outer, size_t count, size_t inner, const void* dst,
                      size_t element_size) {
  size_t bytes;
  SYNOPS_RETURN_IF_ERROR(
      CheckedBytes({outer, count, inner, element_size}, "outer*count*inner", &bytes));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src, bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst, bytes, "dst"));
  return CheckSameOrDisjoint(dst, bytes, "dst", src, bytes, "src");
}

bool Empty(size_t outer, size_t count, size_t inner) {
  return outer == 0 || count == 0 || inner == 0;
}

}  // namespace

absl::Status Softmax32f(const float* src, size_t outer, size_t count, size_t inner, float* dst) {
  SYNOPS_RETURN_IF_ERROR(Validate(src, outer, count, inner, dst, sizeof(float)));
  if (!Empty(outer, count, inner)) Softmax32fKernels().Best().fn(src, outer, count, inner, dst);
  return absl::OkStatus();
}

absl::Status Softmax16b(const uint16_t* src, size_t outer, size_t count, size_t inner,
                        uint16_t* dst) {
  SYNOPS_RETURN_IF_ERROR(Validate(src, outer, count, inner, dst, sizeof(uint16_t)));
  if (!Empty(outer, count, inner)) Softmax16bKernels().Best().fn(src, outer, count, inner, dst);
  return absl::OkStatus();
}

}  // namespace synops
