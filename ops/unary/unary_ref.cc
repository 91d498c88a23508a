// Reference: one scalar loop per op. The bit-exact ops are written on the bit
// pattern or with the IEEE operation itself; the others use <cmath>'s float
// functions (glibc's are within 2 ULP, well inside SPEC.md's bounds).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/ieee.h"
#include "ops/unary/unary_kernels.h"

namespace synops {
namespace unary_internal {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// A NaN input of ceil/floor/round comes back quiet, payload and sign kept
// (what roundps and NEON's frint* do).
float Quiet(float x) { return FromBits(Bits(x) | 0x00400000u); }

template <typename F>
void Map(const float* src, size_t size, float* dst, F f) {
  for (size_t i = 0; i < size; ++i) dst[i] = f(src[i]);
}

}  // namespace

void UnaryOperation32fRef(const float* src, size_t size, UnaryOp type, float* dst) {
  switch (type) {
    case UnaryOp::kAbs:
      return Map(src, size, dst, [](float x) { return FromBits(Bits(x) & 0x7FFFFFFFu); });
    case UnaryOp::kCeil:
      return Map(src, size, dst, [](float x) { return std::isnan(x) ? Quiet(x) : std::ceil(x); });
    case UnaryOp::kCos:
      return Map(src, size, dst, [](float x) { return std::cos(x); });
    case UnaryOp::kErf:
      return Map(src, size, dst, [](float x) { return std::erf(x); });
    case UnaryOp::kExp:
      return Map(src, size, dst, [](float x) { return std::exp(x); });
    case UnaryOp::kFloor:
      return Map(src, size, dst, [](float x) { return std::isnan(x) ? Quiet(x) : std::floor(x); });
    case UnaryOp::kLog:
      return Map(src, size, dst, [](float x) { return std::log(x); });
    case UnaryOp::kNeg:
      return Map(src, size, dst, [](float x) { return FromBits(Bits(x) ^ 0x80000000u); });
    case UnaryOp::kNot:
      return Map(src, size, dst, [](float x) { return FromBits(~Bits(x)); });
    case UnaryOp::kRcp:
      return Map(src, size, dst, [](float x) { return IeeeDiv(1.0f, x); });
    case UnaryOp::kRound:
      return Map(src, size, dst,
                 [](float x) { return std::isnan(x) ? Quiet(x) : std::nearbyint(x); });
    case UnaryOp::kRsqrt:
      return Map(src, size, dst, [](float x) { return IeeeDiv(1.0f, std::sqrt(x)); });
    case UnaryOp::kSign:
      return Map(src, size, dst, [](float x) {
        if (std::isnan(x)) return x;
        return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f;
      });
    case UnaryOp::kSin:
      return Map(src, size, dst, [](float x) { return std::sin(x); });
    case UnaryOp::kSqrt:
      return Map(src, size, dst, [](float x) { return std::sqrt(x); });
    case UnaryOp::kTanh:
      return Map(src, size, dst, [](float x) { return std::tanh(x); });
    case UnaryOp::kZero:
      return Map(src, size, dst, [](float) { return 0.0f; });
  }
}

}  // namespace unary_internal
}  // namespace synops
