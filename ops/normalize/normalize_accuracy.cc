#include "ops/normalize/normalize_accuracy.h"

#include <algorithm>
#include <cmath>

#include "bf16/bf16.h"

namespace synops {
namespace normalize_internal {
namespace {

using testing::ErrAdd;
using testing::ErrDiv;
using testing::ErrMul;
using testing::ErrSqrt;
using testing::ErrSub;
using testing::ErrSum;
using testing::ErrVal;
using testing::Exact;

size_t At(TensorFormat f, size_t b, size_t c, size_t s, size_t channels, size_t spatial) {
  return b * channels * spatial + (f == TensorFormat::kNchw ? c * spatial + s : s * channels + c);
}
double Finite(const ErrVal& v) { return std::isfinite(v.v) && v.e == v.e ? v.e : HUGE_VAL; }

// Mean/variance normalization of `n` elements (V2 and V3): bounds[i] for
// element i, with its scale and shift.
template <typename Elem, typename Scale, typename Shift, typename Out>
void MeanVarBounds(size_t n, float eps, Elem x, Scale scale, Shift shift, Out out) {
  // Sums accumulated term by term and deviations recomputed (the same values):
  // no vectors allocated per normalized group.
  testing::ErrSumAcc sum;
  for (size_t i = 0; i < n; ++i) sum.Add(Exact(x(i)));
  const ErrVal count = Exact(static_cast<double>(n));
  const ErrVal mean = ErrDiv(sum.Result(), count);
  testing::ErrSumAcc squares;
  for (size_t i = 0; i < n; ++i) {
    const ErrVal dev = ErrSub(Exact(x(i)), mean);
    squares.Add(ErrMul(dev, dev));
  }
  const ErrVal norm =
      ErrDiv(Exact(1.0), ErrSqrt(ErrAdd(ErrDiv(squares.Result(), count), Exact(eps))));
  for (size_t i = 0; i < n; ++i) {
    const ErrVal dev = ErrSub(Exact(x(i)), mean);
    out(i, Finite(ErrAdd(ErrMul(ErrMul(dev, norm), Exact(scale(i))), Exact(shift(i)))));
  }
}

}  // namespace

std::vector<double> NormalizeV1Bounds(const float* src, size_t batch, size_t channels,
                                      size_t spatial, const float* scale, float eps,
                                      bool across_spatial, TensorFormat format) {
  std::vector<double> bounds(batch * channels * spatial);
  for (size_t b = 0; b < batch; ++b) {
    const size_t groups = across_spatial ? 1 : spatial;
    for (size_t g = 0; g < groups; ++g) {
      const size_t s0 = across_spatial ? 0 : g, s1 = across_spatial ? spatial : g + 1;
      testing::ErrSumAcc squares;
      for (size_t s = s0; s < s1; ++s) {
        for (size_t c = 0; c < channels; ++c) {
          const ErrVal x = Exact(src[At(format, b, c, s, channels, spatial)]);
          squares.Add(ErrMul(x, x));
        }
      }
      const ErrVal k = ErrDiv(Exact(1.0), ErrSqrt(ErrAdd(Exact(eps), squares.Result())));
      for (size_t s = s0; s < s1; ++s) {
        for (size_t c = 0; c < channels; ++c) {
          const size_t at = At(format, b, c, s, channels, spatial);
          bounds[at] = Finite(ErrMul(ErrMul(Exact(src[at]), Exact(scale[c])), k));
        }
      }
    }
  }
  return bounds;
}

std::vector<double> NormalizeV2Bounds(const float* src, size_t batch, size_t channels,
                                      size_t spatial, const float* scale, const float* shift,
                                      float eps, TensorFormat format) {
  std::vector<double> bounds(batch * channels * spatial);
  for (size_t b = 0; b < batch; ++b) {
    for (size_t s = 0; s < spatial; ++s) {
      auto at = [&](size_t c) { return At(format, b, c, s, channels, spatial); };
      MeanVarBounds(
          channels, eps, [&](size_t c) { return src[at(c)]; }, [&](size_t c) { return scale[c]; },
          [&](size_t c) { return shift[c]; }, [&](size_t c, double e) { bounds[at(c)] = e; });
    }
  }
  return bounds;
}

std::vector<double> NormalizeV3Bounds(const float* src, size_t batch, size_t channels,
                                      size_t spatial, const float* scale, const float* shift,
                                      float eps, TensorFormat format) {
  std::vector<double> bounds(batch * channels * spatial);
  for (size_t b = 0; b < batch; ++b) {
    for (size_t c = 0; c < channels; ++c) {
      auto at = [&](size_t s) { return At(format, b, c, s, channels, spatial); };
      MeanVarBounds(
          spatial, eps, [&](size_t s) { return src[at(s)]; }, [&](size_t) { return scale[c]; },
          [&](size_t) { return shift[c]; }, [&](size_t s, double e) { bounds[at(s)] = e; });
    }
  }
  return bounds;
}

std::vector<double> NormalizeV4Bounds(const float* src, size_t batch, size_t channels,
                                      size_t spatial, const float* scale, const float* shift,
                                      float eps, TensorFormat format) {
  std::vector<double> bounds(batch * channels * spatial);
  std::vector<ErrVal> norms(channels);
  for (size_t b = 0; b < batch; ++b) {
    for (size_t c = 0; c < channels; ++c) {
      testing::ErrSumAcc squares;
      for (size_t s = 0; s < spatial; ++s) {
        const ErrVal x = Exact(src[At(format, b, c, s, channels, spatial)]);
        squares.Add(ErrMul(x, x));
      }
      norms[c] = ErrSqrt(squares.Result());
    }
    const ErrVal norm = ErrDiv(
        Exact(1.0),
        ErrAdd(ErrDiv(ErrSum(norms), Exact(static_cast<double>(channels))), Exact(eps)));
    for (size_t c = 0; c < channels; ++c) {
      const ErrVal m = ErrAdd(Exact(1.0), ErrMul(ErrMul(Exact(scale[c]), norms[c]), norm));
      for (size_t s = 0; s < spatial; ++s) {
        const size_t at = At(format, b, c, s, channels, spatial);
        bounds[at] = Finite(ErrAdd(ErrMul(Exact(src[at]), m), Exact(shift[c])));
      }
    }
  }
  return bounds;
}

std::optional<testing::Mismatch> CheckFp32(absl::Span<const float> got,
                                           absl::Span<const float> want,
                                           absl::Span<const double> bounds) {
  return testing::CompareWithinBounds(got, want, bounds);
}

std::optional<testing::Mismatch> CheckBf16(absl::Span<const uint16_t> got,
                                           absl::Span<const float> want,
                                           absl::Span<const double> bounds) {
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = Bf16ToFp32(got[i]), w = want[i];
    if (!(bounds[i] < HUGE_VAL) || testing::WithinOneBf16Ulp(got[i], want[i])) continue;
    if (std::isfinite(g) && std::isfinite(w)) {
      int e;
      std::frexp(w, &e);
      const double ulp = std::ldexp(1.0, std::max(e, -125) - 8);  // one BF16 ULP at |w|
      if (std::fabs(g - w) <= bounds[i] + ulp) continue;
    }
    return testing::Mismatch{i, g, w, bounds[i]};
  }
  return std::nullopt;
}

}  // namespace normalize_internal
}  // namespace synops
