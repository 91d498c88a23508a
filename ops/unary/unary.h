// Element-wise unary operations on FP32 arrays (SPEC.md §3 unary; the Simd
// Library's SimdSynetUnaryOperation32f).
#ifndef SYNOPS_OPS_UNARY_UNARY_H_
#define SYNOPS_OPS_UNARY_UNARY_H_

#include <cstddef>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace synops {

// The operation, with the values of the original SimdSynetUnaryOperation32fType.
enum class UnaryOp : int {
  kAbs = 0,     // clears the sign bit (of NaN too)
  kCeil = 1,    // IEEE ceil
  kCos = 2,     // <= 4 ULP or 1e-7 absolute for |x| <= 39000
  kErf = 3,     // <= 4 ULP or 1e-7 absolute
  kExp = 4,     // <= 2 ULP on [-87.3, 88.7]; +Inf above, 0 or a denormal below
  kFloor = 5,   // IEEE floor
  kLog = 6,     // <= 4 ULP for x > 0; log(±0) = -Inf; NaN for x < 0
  kNeg = 7,     // flips the sign bit
  kNot = 8,     // bitwise NOT of the 32 bits
  kRcp = 9,     // 1 / x, IEEE division
  kRound = 10,  // nearest integer, ties to even (nearbyint)
  kRsqrt = 11,  // <= 2 ULP for x > 0; +Inf at +0
  kSign = 12,   // -1, +0 or +1; sign(-0) = +0; a NaN is returned unchanged
  kSin = 13,    // <= 4 ULP or 1e-7 absolute for |x| <= 39000
  kSqrt = 14,   // IEEE sqrt
  kTanh = 15,   // <= 4 ULP or 1e-7 absolute
  kZero = 16,   // +0 for every input
};

inline constexpr int kNumUnaryOps = 17;

// Lower-case name ("abs", "ceil", ...), or "unknown" out of range.
const char* UnaryOpName(UnaryOp op);
// The op named `name` (as UnaryOpName spells it), or nullopt.
std::optional<UnaryOp> ParseUnaryOp(absl::string_view name);

// dst[i] = op(src[i]) for i < size. Ceil, Floor and Round return a NaN input
// quieted (its quiet bit set); Rcp and Sqrt follow the CPU's IEEE arithmetic.
// dst == src (in place) is allowed.
//
// Errors (InvalidArgument, nothing written): null `src` or `dst` with
// size > 0, `type` out of range, a byte size that overflows, `dst`
// partially overlapping `src`.
absl::Status UnaryOperation32f(const float* src, size_t size, UnaryOp type, float* dst);

}  // namespace synops

#endif  // SYNOPS_OPS_UNARY_UNARY_H_
