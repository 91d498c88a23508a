#include "testing/tolerance.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_format.h"
#include "bf16/bf16.h"

namespace synops {
namespace testing {

bool BitEqual(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

double RelBound(float ref) { return 1e-5 * std::fmax(1.0, std::fabs(static_cast<double>(ref))); }

double SumBound(size_t n, double sum_abs_terms) {
  return static_cast<double>(n) * kFp32Eps * sum_abs_terms;
}

int64_t UlpDistance(float a, float b) {
  auto key = [](float f) -> int64_t {
    int32_t i;
    std::memcpy(&i, &f, sizeof(i));
    // Map the sign-magnitude bit pattern onto a monotonic integer line.
    return i < 0 ? -static_cast<int64_t>(i & 0x7FFFFFFF) : static_cast<int64_t>(i);
  };
  const int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

bool WithinUlpOrAbs(float got, float want, int64_t max_ulp, double max_abs) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return UlpDistance(got, want) <= max_ulp ||
         std::fabs(static_cast<double>(got) - static_cast<double>(want)) <= max_abs;
}

bool WithinOneBf16Ulp(uint16_t got, float ref_fp32) {
  const uint16_t want = Fp32ToBf16(ref_fp32);
  if (std::isnan(ref_fp32)) return std::isnan(Bf16ToFp32(got));
  return UlpDistance(Bf16ToFp32(got), Bf16ToFp32(want)) <= (1 << 16);
}

std::string Mismatch::ToString() const {
  std::string s = absl::StrFormat("element %d: got %.9g, want %.9g (|diff| %.3g > bound %.3g)",
                                  index, got, want, std::fabs(got - want), bound);
  if (!note.empty()) absl::StrAppend(&s, " [", note, "]");
  return s;
}

std::optional<Mismatch> CompareBitExact(absl::Span<const float> got, absl::Span<const float> want) {
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (!BitEqual(got[i], want[i])) return Mismatch{i, got[i], want[i], 0.0};
  }
  if (got.size() != want.size()) return Mismatch{std::min(got.size(), want.size()), 0, 0, 0};
  return std::nullopt;
}

std::optional<Mismatch> CompareBitExact(absl::Span<const uint16_t> got,
                                        absl::Span<const uint16_t> want) {
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (got[i] != want[i]) return Mismatch{i, static_cast<double>(got[i]),
                                           static_cast<double>(want[i]), 0.0};
  }
  if (got.size() != want.size()) return Mismatch{std::min(got.size(), want.size()), 0, 0, 0};
  return std::nullopt;
}

std::optional<Mismatch> CompareBitExactOrNan(absl::Span<const float> got,
                                             absl::Span<const float> want) {
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (std::isnan(got[i]) && std::isnan(want[i])) continue;
    if (!BitEqual(got[i], want[i])) return Mismatch{i, got[i], want[i], 0.0};
  }
  if (got.size() != want.size()) return Mismatch{std::min(got.size(), want.size()), 0, 0, 0};
  return std::nullopt;
}

std::optional<Mismatch> CompareWithin(absl::Span<const float> got, absl::Span<const float> want,
                                      absl::Span<const double> bound) {
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    const double g = got[i], w = want[i];
    bool ok;
    if (std::isnan(w) || std::isnan(g)) {
      ok = std::isnan(w) && std::isnan(g);
    } else if (std::isinf(w) || std::isinf(g)) {
      ok = g == w;
    } else {
      ok = std::fabs(g - w) <= bound[i];
    }
    if (!ok) return Mismatch{i, g, w, bound[i]};
  }
  if (got.size() != want.size()) return Mismatch{std::min(got.size(), want.size()), 0, 0, 0};
  return std::nullopt;
}

double MaxAbsError(absl::Span<const float> got, absl::Span<const float> want) {
  double m = 0;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (std::isfinite(got[i]) && std::isfinite(want[i])) {
      m = std::fmax(m, std::fabs(static_cast<double>(got[i]) - want[i]));
    }
  }
  return m;
}

}  // namespace testing
}  // namespace synops
