// Reference: the seed's loops, reordered to run over j outermost so that every
// src[i][j] is read before dst[j] is written (in place stays correct); the
// operations on each element happen in the seed's order.
#include "ops/eltwise/eltwise_kernels.h"

namespace synops {
namespace eltwise_internal {

void EltwiseRef(const float* const* src, const float* weight, size_t count, size_t size,
                EltwiseOp type, float* dst) {
  for (size_t j = 0; j < size; ++j) {
    float acc;
    switch (type) {
      case EltwiseOp::kProduct:
        acc = src[0][j] * src[1][j];
        for (size_t i = 2; i < count; ++i) acc = acc * src[i][j];
        break;
      case EltwiseOp::kSum:
        acc = src[0][j] * weight[0] + src[1][j] * weight[1];
        for (size_t i = 2; i < count; ++i) acc = acc + src[i][j] * weight[i];
        break;
      case EltwiseOp::kMax:
        acc = MaxOf(src[0][j], src[1][j]);
        for (size_t i = 2; i < count; ++i) acc = MaxOf(acc, src[i][j]);
        break;
      case EltwiseOp::kMin:
      default:
        acc = MinOf(src[0][j], src[1][j]);
        for (size_t i = 2; i < count; ++i) acc = MinOf(acc, src[i][j]);
        break;
    }
    dst[j] = acc;
  }
}

}  // namespace eltwise_internal
}  // namespace synops
