// Reference: the loops of SPEC.md (the seed's, for both formats), FP32.
// Each batch item reads all of its inputs before writing an output, so
// dst == src works.
#include <cmath>
#include <vector>

#include "bf16/bf16.h"
#include "core/ieee.h"
#include "ops/normalize/normalize_kernels.h"

namespace synops {
namespace normalize_internal {
namespace {

// Strides of one batch item: element (c, s) is at c * cs + s * ss.
struct Strides {
  size_t cs, ss;
  Strides(TensorFormat f, size_t channels, size_t spatial)
      : cs(f == TensorFormat::kNchw ? spatial : 1), ss(f == TensorFormat::kNchw ? 1 : channels) {}
};

}  // namespace

void NormalizeV1Ref(const float* src, size_t batch, size_t channels, size_t spatial,
                    const float* scale, float eps, bool across_spatial, TensorFormat format,
                    float* buf, float* dst) {
  const Strides st(format, channels, spatial);
  const size_t item = channels * spatial;
  for (size_t b = 0; b < batch; ++b) {
    const float* x = src + b * item;
    float* y = dst + b * item;
    if (across_spatial) {
      float sum = 0.0f;
      for (size_t c = 0; c < channels; ++c) {
        for (size_t s = 0; s < spatial; ++s) sum += x[c * st.cs + s * st.ss] * x[c * st.cs + s * st.ss];
      }
      const float k = IeeeDiv(1.0f, std::sqrt(eps + sum));
      for (size_t c = 0; c < channels; ++c) {
        for (size_t s = 0; s < spatial; ++s) y[c * st.cs + s * st.ss] = x[c * st.cs + s * st.ss] * scale[c] * k;
      }
    } else {
      for (size_t s = 0; s < spatial; ++s) {
        float sum = 0.0f;
        for (size_t c = 0; c < channels; ++c) sum += x[c * st.cs + s * st.ss] * x[c * st.cs + s * st.ss];
        const float k = IeeeDiv(1.0f, std::sqrt(eps + sum));
        for (size_t c = 0; c < channels; ++c) y[c * st.cs + s * st.ss] = x[c * st.cs + s * st.ss] * scale[c] * k;
      }
    }
  }
}

namespace {

// mean/variance normalization of `n` elements at stride `step` (V2: the
// channels of a position, V3: the positions of a channel); `scale` and
// `shift` are indexed by channel: per element (V2) or fixed (V3).
template <typename Load, typename Store>
void MeanVarNormalize(size_t n, float eps, Load load, Store store) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) sum += load(i);
  const float mean = sum / static_cast<float>(n);
  float sqsum = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    const float d = load(i) - mean;
    sqsum += d * d;
  }
  const float norm = IeeeDiv(1.0f, std::sqrt(sqsum / static_cast<float>(n) + eps));
  for (size_t i = 0; i < n; ++i) store(i, load(i) - mean, norm);
}

}  // namespace

void NormalizeV2Ref(const float* src, size_t batch, size_t channels, size_t spatial,
                    const float* scale, const float* shift, float eps, TensorFormat format,
                    float* buf, float* dst) {
  const Strides st(format, channels, spatial);
  const size_t item = channels * spatial;
  std::vector<float> row(channels);  // the position's inputs (dst may be src)
  for (size_t b = 0; b < batch; ++b) {
    for (size_t s = 0; s < spatial; ++s) {
      const float* x = src + b * item + s * st.ss;
      float* y = dst + b * item + s * st.ss;
      for (size_t c = 0; c < channels; ++c) row[c] = x[c * st.cs];
      MeanVarNormalize(
          channels, eps, [&](size_t c) { return row[c]; },
          [&](size_t c, float d, float norm) { y[c * st.cs] = d * norm * scale[c] + shift[c]; });
    }
  }
}

void NormalizeV3Ref(const float* src, size_t batch, size_t channels, size_t spatial,
                    const float* scale, const float* shift, float eps, TensorFormat format,
                    float* buf, float* dst) {
  const Strides st(format, channels, spatial);
  const size_t item = channels * spatial;
  std::vector<float> row(spatial);
  for (size_t b = 0; b < batch; ++b) {
    for (size_t c = 0; c < channels; ++c) {
      const float* x = src + b * item + c * st.cs;
      float* y = dst + b * item + c * st.cs;
      for (size_t s = 0; s < spatial; ++s) row[s] = x[s * st.ss];
      MeanVarNormalize(
          spatial, eps, [&](size_t s) { return row[s]; },
          [&](size_t s, float d, float norm) { y[s * st.ss] = d * norm * scale[c] + shift[c]; });
    }
  }
}

void NormalizeV4Ref(const float* src, size_t batch, size_t channels, size_t spatial,
                    const float* scale, const float* shift, float eps, TensorFormat format,
                    float* buf, float* dst) {
  const Strides st(format, channels, spatial);
  const size_t item = channels * spatial;
  std::vector<float> mul(channels);
  for (size_t b = 0; b < batch; ++b) {
    const float* x = src + b * item;
    float* y = dst + b * item;
    float sum = 0.0f;
    for (size_t c = 0; c < channels; ++c) {
      float sqsum = 0.0f;
      for (size_t s = 0; s < spatial; ++s) sqsum += x[c * st.cs + s * st.ss] * x[c * st.cs + s * st.ss];
      mul[c] = std::sqrt(sqsum);
      sum += mul[c];
    }
    const float norm = IeeeDiv(1.0f, sum / static_cast<float>(channels) + eps);
    for (size_t c = 0; c < channels; ++c) mul[c] = 1.0f + scale[c] * mul[c] * norm;
    for (size_t c = 0; c < channels; ++c) {
      for (size_t s = 0; s < spatial; ++s) {
        y[c * st.cs + s * st.ss] = x[c * st.cs + s * st.ss] * mul[c] + shift[c];
      }
    }
  }
}

void Normalize16bV2Ref(const uint16_t* src, size_t batch, size_t channels, size_t spatial,
                       const float* scale, const float* shift, float eps, TensorFormat format,
                       float* buf, uint16_t* dst) {
  const Strides st(format, channels, spatial);
  const size_t item = channels * spatial;
  std::vector<float> row(channels);
  for (size_t b = 0; b < batch; ++b) {
    for (size_t s = 0; s < spatial; ++s) {
      const uint16_t* x = src + b * item + s * st.ss;
      uint16_t* y = dst + b * item + s * st.ss;
      for (size_t c = 0; c < channels; ++c) row[c] = Bf16ToFp32(x[c * st.cs]);
      MeanVarNormalize(
          channels, eps, [&](size_t c) { return row[c]; },
          [&](size_t c, float d, float norm) {
            y[c * st.cs] = Fp32ToBf16(d * norm * scale[c] + shift[c]);
          });
    }
  }
}

}  // namespace normalize_internal
}  // namespace synops
