#include "ops/unary/unary.h"

#include "core/status.h"
#include "ops/unary/unary_kernels.h"

namespace synops {
namespace {

constexpr const char* kNames[kNumUnaryOps] = {
    "abs", "ceil", "cos",   "erf",   "exp",  "floor", "log", "neg",  "not",
    "rcp", "round", "rsqrt", "sign", "sin",  "sqrt",  "tanh", "zero",
};

}  // namespace

const char* UnaryOpName(UnaryOp op) {
  const int i = static_cast<int>(op);
  return i >= 0 && i < kNumUnaryOps ? kNames[i] : "unknown";
}

std::optional<UnaryOp> ParseUnaryOp(absl::string_view name) {
  for (int i = 0; i < kNumUnaryOps; ++i) {
    if (name == kNames[i]) return static_cast<UnaryOp>(i);
  }
  return std::nullopt;
}

const KernelTable<UnaryOperation32fFn>& UnaryOperation32fKernels() {
  static const KernelTable<UnaryOperation32fFn> table(
      unary_internal::UnaryOperation32fHwyKernels(),
      {{"ref", Isa::kRef, unary_internal::UnaryOperation32fRef}});
  return table;
}

absl::Status UnaryOperation32f(const float* src, size_t size, UnaryOp type, float* dst) {
  size_t bytes;
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({size, sizeof(float)}, "size", &bytes));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src, bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst, bytes, "dst"));
  const int t = static_cast<int>(type);
  if (t < 0 || t >= kNumUnaryOps) return InvalidArg("type", "must be in [0, 16]");
  SYNOPS_RETURN_IF_ERROR(CheckSameOrDisjoint(dst, bytes, "dst", src, bytes, "src"));
  if (size != 0) UnaryOperation32fKernels().Best().fn(src, size, type, dst);
  return absl::OkStatus();
}

}  // namespace synops
