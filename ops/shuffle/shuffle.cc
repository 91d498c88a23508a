#include "ops/shuffle/shuffle.h"

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "ops/shuffle/shuffle_kernels.h"

namespace synops {

const KernelTable<ShuffleFn>& ShuffleKernels() {
  static const KernelTable<ShuffleFn> table(shuffle_internal::ShuffleHwyKernels(),
                                            {{"ref", Isa::kRef, shuffle_internal::ShuffleRef}});
  return table;
}

absl::Status ShuffleLayerForward(const float* src0, const float* src1, size_t channels0,
                                 size_t channels1, size_t spatial, float* dst0, float* dst1,
                                 TensorFormat format, int type) {
  if (type != 0 && type != 1) {
    return InvalidArg("type", absl::StrCat("unsupported shuffle type ", type,
                                           " (expected 0 = split or 1 = interleave)"));
  }
  SYNOPS_RETURN_IF_ERROR(CheckFormat(format));
  if (channels0 % 2 != 0) {
    return InvalidArg("channels0", absl::StrCat("must be even, got ", channels0));
  }
  if (channels1 % 2 != 0) {
    return InvalidArg("channels1", absl::StrCat("must be even, got ", channels1));
  }
  const size_t half = channels0 / 2 + channels1 / 2;  // C, without overflow
  // Channel counts of src0, src1, dst0, dst1.
  const size_t in0 = type == 0 ? channels0 : half, in1 = type == 0 ? channels1 : half;
  const size_t out0 = type == 0 ? half : channels0, out1 = type == 0 ? half : channels1;
  size_t in0_bytes, in1_bytes, out0_bytes, out1_bytes;
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({in0, spatial, sizeof(float)}, "src0", &in0_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({in1, spatial, sizeof(float)}, "src1", &in1_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({out0, spatial, sizeof(float)}, "dst0", &out0_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({out1, spatial, sizeof(float)}, "dst1", &out1_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src0, in0_bytes, "src0"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src1, in1_bytes, "src1"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst0, out0_bytes, "dst0"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst1, out1_bytes, "dst1"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst0, out0_bytes, "dst0", src0, in0_bytes, "src0"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst0, out0_bytes, "dst0", src1, in1_bytes, "src1"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst1, out1_bytes, "dst1", src0, in0_bytes, "src0"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst1, out1_bytes, "dst1", src1, in1_bytes, "src1"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst1, out1_bytes, "dst1", dst0, out0_bytes, "dst0"));
  if (spatial == 0 || half == 0) return absl::OkStatus();
  ShuffleKernels().Best().fn(src0, src1, channels0, channels1, spatial, dst0, dst1, format, type);
  return absl::OkStatus();
}

}  // namespace synops
