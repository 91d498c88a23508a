#include "ops/unary/unary_accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_format.h"
#include "core/ieee.h"

namespace synops {
namespace unary_internal {

bool IsBitExact(UnaryOp op) {
  switch (op) {
    case UnaryOp::kCos:
    case UnaryOp::kErf:
    case UnaryOp::kExp:
    case UnaryOp::kLog:
    case UnaryOp::kRsqrt:
    case UnaryOp::kSin:
    case UnaryOp::kTanh:
      return false;
    default:
      return true;
  }
}

double Exact(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::kCos:
      return std::cos(x);
    case UnaryOp::kErf:
      return std::erf(x);
    case UnaryOp::kExp:
      return std::exp(x);
    case UnaryOp::kLog:
      return std::log(x);
    case UnaryOp::kRsqrt:
      return IeeeDiv(1.0, std::sqrt(x));
    case UnaryOp::kSin:
      return std::sin(x);
    case UnaryOp::kTanh:
      return std::tanh(x);
    default:
      return NAN;
  }
}

namespace {

bool Close(float got, float want, int64_t ulps, double abs) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got)) return got == want;
  return testing::WithinUlpOrAbs(got, want, ulps, abs);
}

}  // namespace

bool WithinSpec(UnaryOp op, float x, float got) {
  if (std::isnan(x)) return std::isnan(got);
  const float want = static_cast<float>(Exact(op, x));
  switch (op) {
    case UnaryOp::kCos:
    case UnaryOp::kSin:
      return std::fabs(x) > 39000.0f || Close(got, want, 4, 1e-7);
    case UnaryOp::kErf:
    case UnaryOp::kTanh:
      return Close(got, want, 4, 1e-7);
    case UnaryOp::kExp:
      if (x > 88.7f && got == HUGE_VALF) return true;
      if (x < -87.3f && (got == 0.0f || std::fpclassify(got) == FP_SUBNORMAL)) return got >= 0.0f;
      return Close(got, want, 2, 0.0);
    case UnaryOp::kLog:
      if (x == 0.0f) return got == -HUGE_VALF;
      if (x < 0.0f) return std::isnan(got);
      return Close(got, want, 4, 0.0);
    case UnaryOp::kRsqrt:
      if (x == 0.0f && !std::signbit(x)) return got == HUGE_VALF;
      if (std::signbit(x)) return true;
      return Close(got, want, 2, 0.0);
    default:
      return false;
  }
}

double SpecFraction(UnaryOp op, float x, float got) {
  if (!WithinSpec(op, x, got)) return HUGE_VAL;
  if (std::isnan(x)) return 0;
  const float want = static_cast<float>(Exact(op, x));
  if (!std::isfinite(want) || !std::isfinite(got)) return 0;  // a required special value
  int64_t ulps = 0;
  double abs = 0;
  switch (op) {
    case UnaryOp::kCos:
    case UnaryOp::kSin:
      if (std::fabs(x) > 39000.0f) return 0;  // SPEC leaves these open
      ulps = 4, abs = 1e-7;
      break;
    case UnaryOp::kErf:
    case UnaryOp::kTanh:
      ulps = 4, abs = 1e-7;
      break;
    case UnaryOp::kExp:
      if (x > 88.7f || x < -87.3f) return 0;  // overflow / underflow rules, met
      ulps = 2;
      break;
    case UnaryOp::kLog:
      if (!(x > 0.0f)) return 0;
      ulps = 4;
      break;
    case UnaryOp::kRsqrt:
      if (!(x > 0.0f)) return 0;
      ulps = 2;
      break;
    default:
      return 0;
  }
  double f = static_cast<double>(testing::UlpDistance(got, want)) / static_cast<double>(ulps);
  if (abs > 0) f = std::min(f, std::fabs(static_cast<double>(got) - want) / abs);
  return f;
}

double SpecFraction(UnaryOp op, absl::Span<const float> src, absl::Span<const float> got,
                    absl::Span<const float> ref) {
  if (IsBitExact(op)) return testing::ExactFraction(testing::CompareBitExact(got, ref));
  if (got.size() != src.size()) return HUGE_VAL;
  double worst = 0;
  for (size_t i = 0; i < src.size(); ++i) worst = std::max(worst, SpecFraction(op, src[i], got[i]));
  return worst;
}

std::optional<testing::Mismatch> CheckUnary(UnaryOp op, absl::Span<const float> src,
                                            absl::Span<const float> got,
                                            absl::Span<const float> ref) {
  if (IsBitExact(op)) return testing::CompareBitExact(got, ref);
  for (size_t i = 0; i < src.size() && i < got.size(); ++i) {
    if (!WithinSpec(op, src[i], got[i])) {
      uint32_t bits;
      std::memcpy(&bits, &src[i], sizeof(bits));
      return testing::Mismatch{
          i, got[i], static_cast<float>(Exact(op, src[i])), 0.0,
          absl::StrFormat("%s(%.9g = 0x%08x) breaks the SPEC bound", UnaryOpName(op), src[i], bits)};
    }
  }
  if (got.size() != src.size()) return testing::Mismatch{std::min(got.size(), src.size())};
  return std::nullopt;
}

}  // namespace unary_internal
}  // namespace synops
