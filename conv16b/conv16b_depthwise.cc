// The depthwise algorithms (conv16b_drivers.h).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "bf16/bf16.h"
#include "conv16b/conv16b_drivers.h"
#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_kernels.h"
#include "conv16b/conv16b_pack.h"
#include "core/cpu.h"

namespace synops {
namespace conv16b_internal {
namespace {

class NhwcDepthwise : public Algorithm {
 public:
  NhwcDepthwise(const Geometry& g, DepthwiseRowFn row, StoreRowFn store)
      : Algorithm(g), row_(row), store_(store), pad_(g, 1), cpad_(RoundUp(g.p.dstC, 16)) {}

  size_t ExternalBufferSize() const override {
    return pad_.Bytes() + 64 + geo_.p.dstW * cpad_ * sizeof(float) + 64;
  }
  size_t WeightBytes() const override { return weight_.size() * sizeof(float); }

  // weight_[(ky * kernelX + kx) * cpad + c], BF16 values as FP32.
  void SetWeights(const float* weight) override {
    const ConvParams& p = geo_.p;
    weight_.assign(p.kernelY * p.kernelX * cpad_, 0.0f);
    for (size_t ky = 0; ky < p.kernelY; ++ky)
      for (size_t kx = 0; kx < p.kernelX; ++kx)
        for (size_t c = 0; c < p.dstC; ++c)
          weight_[(ky * p.kernelX + kx) * cpad_ + c] =
              Bf16ToFp32(Fp32ToBf16(WeightAt(weight, geo_, c, 0, ky, kx)));
  }

  void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
               const Epilogue& e) const override {
    const ConvParams& p = geo_.p;
    uint16_t* padded = reinterpret_cast<uint16_t*>(Align64(buf));
    float* sums = reinterpret_cast<float*>(Align64(buf + 64 + pad_.Bytes()));
    DepthwiseRowArgs a;
    a.pixel_stride = p.strideX * pad_.cp;
    a.ky_stride = p.dilationY * pad_.pw * pad_.cp;
    a.kx_stride = p.dilationX * pad_.cp;
    a.kernel_y = p.kernelY;
    a.kernel_x = p.kernelX;
    a.channels = p.dstC;
    a.cpad = cpad_;
    a.weight = weight_.data();
    a.width = p.dstW;
    a.out = sums;
    for (size_t n = 0; n < geo_.batch; ++n) {
      pad_.Fill(geo_, src, n, padded);
      for (size_t oy = 0; oy < p.dstH; ++oy) {
        a.src = padded + oy * p.strideY * pad_.pw * pad_.cp;
        row_(a);
        store_(geo_, e, sums, cpad_, n, oy, 0, p.dstC, dst);
      }
    }
  }

 private:
  DepthwiseRowFn row_;
  StoreRowFn store_;
  PaddedSource pad_;
  size_t cpad_;
  std::vector<float> weight_;
};

#if defined(__x86_64__)
// Depthwise on x86, one block of 16 channels at a time: each source row's
// 16 channels are widened once into a zero-padded FP32 row [pw][16] kept in
// a ring of the (kernelY - 1) * dilationY + 1 rows an output row reads (a
// few KiB: it stays in L1), so the kernel's taps are plain FP32 loads, and
// the output goes straight to dst.
class DepthwiseF32 : public Algorithm {
 public:
  DepthwiseF32(const Geometry& g, DepthwiseRowF32Fn row) : Algorithm(g), row_(row) {
    const ConvParams& p = g.p;
    blocks_ = (p.dstC + 15) / 16;
    pw_ = p.srcW + p.padX + p.padW;
    span_ = (p.kernelY - 1) * p.dilationY + 1;
  }

  size_t ExternalBufferSize() const override {
    return span_ * pw_ * 16 * sizeof(float) + 64 + geo_.p.dstW * 16 * sizeof(float) + 64;
  }
  size_t WeightBytes() const override { return weight_.size() * sizeof(float); }

  // weight_[(block * taps + ky * kernelX + kx) * 16 + j], BF16 values as FP32.
  void SetWeights(const float* weight) override {
    const ConvParams& p = geo_.p;
    const size_t taps = p.kernelY * p.kernelX;
    weight_.assign(blocks_ * taps * 16, 0.0f);
    for (size_t ky = 0; ky < p.kernelY; ++ky)
      for (size_t kx = 0; kx < p.kernelX; ++kx)
        for (size_t c = 0; c < p.dstC; ++c)
          weight_[((c / 16) * taps + ky * p.kernelX + kx) * 16 + c % 16] =
              Bf16ToFp32(Fp32ToBf16(WeightAt(weight, geo_, c, 0, ky, kx)));
  }

  void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
               const Epilogue& e) const override {
    const ConvParams& p = geo_.p;
    float* ring = reinterpret_cast<float*>(Align64(buf));
    float* sums = reinterpret_cast<float*>(Align64(buf + 64 + span_ * pw_ * 16 * sizeof(float)));
    std::vector<const float*> rows(p.kernelY);
    std::vector<ptrdiff_t> tag(span_);
    DepthwiseF32Args a;
    a.rows = rows.data();
    a.kernel_y = p.kernelY;
    a.kernel_x = p.kernelX;
    a.stride_x = p.strideX;
    a.dilation_x = p.dilationX;
    a.sums = sums;
    const ptrdiff_t span = static_cast<ptrdiff_t>(span_);
    const size_t band = BandRows();
    for (size_t n = 0; n < geo_.batch; ++n) {
      for (size_t oy0 = 0; oy0 < p.dstH; oy0 += band) {
        const size_t oy1 = std::min(oy0 + band, p.dstH);
        for (size_t b = 0; b < blocks_; ++b) {
          a.c0 = b * 16;
          a.weight = weight_.data() + b * p.kernelY * p.kernelX * 16;
          std::fill(tag.begin(), tag.end(), PTRDIFF_MIN);
          for (size_t oy = oy0; oy < oy1; ++oy) {
            const ptrdiff_t top =
                static_cast<ptrdiff_t>(oy * p.strideY) - static_cast<ptrdiff_t>(p.padY);
            for (size_t ky = 0; ky < p.kernelY; ++ky) {
              const ptrdiff_t y = top + static_cast<ptrdiff_t>(ky * p.dilationY);
              const size_t slot = static_cast<size_t>(((y % span) + span) % span);
              float* row = ring + slot * pw_ * 16;
              if (tag[slot] != y) {
                FillRow(src, n, y, a.c0, row);
                tag[slot] = y;
              }
              rows[ky] = row;
            }
            row_(a, geo_, e, n, oy, dst);
          }
        }
      }
    }
  }

  // Output rows per band. Each band runs every channel block over its rows,
  // so the source rows it reads ((band - 1) * strideY + span rows of all
  // channels) come from memory once and from L2 for the other blocks; they
  // get a quarter of the detected L2. An image that fits is one band
  // (blocks outermost). Depthwise 3x3 s2 96ch 112x112 (2.4 MB of BF16
  // source, every cache line read by two blocks) went from 0.87x to 1.0x
  // oneDNN's speed on SPR.
  size_t BandRows() const {
    const ConvParams& p = geo_.p;
    const size_t row_bytes = p.srcW * p.srcC * (p.srcT == DataType::k32f ? 4 : 2);
    const size_t fit = GetCacheSizes().l2 / 4 / std::max<size_t>(row_bytes, 1);
    if (fit <= span_) return 1;
    return (fit - span_) / p.strideY + 1;
  }

 private:
  // Channels [c0, c0 + 16) of source row y of item n (zero outside the
  // image and past the channels) as BF16 values in FP32.
  void FillRow(const uint8_t* src, size_t n, ptrdiff_t y, size_t c0, float* out) const {
    const ConvParams& p = geo_.p;
    if (y < 0 || y >= static_cast<ptrdiff_t>(p.srcH)) {
      std::fill(out, out + pw_ * 16, 0.0f);
      return;
    }
    std::fill(out, out + p.padX * 16, 0.0f);
    std::fill(out + (p.padX + p.srcW) * 16, out + pw_ * 16, 0.0f);
    float* mid = out + p.padX * 16;
    const size_t nc = std::min<size_t>(16, p.srcC - c0);
    const bool f32 = p.srcT == DataType::k32f;
    const size_t es = f32 ? 4 : 2;
    const uint8_t* image = src + n * geo_.src_image * es;
    if (p.srcF == TensorFormat::kNhwc) {
      WidenPixelsAvx512(image + (y * p.srcW * p.srcC + c0) * es, f32, p.srcC, p.srcW, nc, mid);
      return;
    }
    const size_t plane = p.srcH * p.srcW;
    WidenPlanarAvx512(image + (c0 * plane + y * p.srcW) * es, f32, plane, nc, p.srcW, mid);
  }

  DepthwiseRowF32Fn row_;
  size_t blocks_, pw_, span_;
  AlignedVector<float> weight_;
};
#endif

}  // namespace

std::unique_ptr<Algorithm> MakeNhwcDepthwise(const Geometry& g, DepthwiseRowFn row,
                                             StoreRowFn store) {
  return std::make_unique<NhwcDepthwise>(g, row, store);
}

#if defined(__x86_64__)
std::unique_ptr<Algorithm> MakeDepthwiseF32(const Geometry& g, DepthwiseRowF32Fn row) {
  return std::make_unique<DepthwiseF32>(g, row);
}
#endif

}  // namespace conv16b_internal
}  // namespace synops
