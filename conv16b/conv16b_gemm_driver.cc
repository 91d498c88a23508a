// nhwc_gemm (conv16b_drivers.h): the direct convolution over the padded
// source and pair-interleaved weights, one GEMM row microkernel call per
// output row and group.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "bf16/bf16.h"
#include "conv16b/conv16b_drivers.h"
#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_kernels.h"
#include "conv16b/conv16b_pack.h"
#include "core/aligned.h"

namespace synops {
namespace conv16b_internal {
namespace {

class NhwcGemm : public PackedGemm {
 public:
  NhwcGemm(const Geometry& g, GemmRowFn row, StoreRowFn store)
      : PackedGemm(g, RoundUp(g.icg, 2), g.p.kernelY * g.p.kernelX * RoundUp(g.icg, 2)),
        row_(row),
        store_(store),
        pad_(g, RoundUp(g.icg, 2)) {
    const ConvParams& p = g.p;
    direct_ = p.srcT == DataType::k16b && p.srcF == TensorFormat::kNhwc && p.padY == 0 &&
              p.padX == 0 && p.padH == 0 && p.padW == 0 && g.icg % 2 == 0;
    nblocks_ = (g.ocg + 15) / 16;
  }

  size_t ExternalBufferSize() const override {
    return (direct_ ? 0 : pad_.Bytes() + 64) + geo_.p.dstW * nblocks_ * 16 * sizeof(float) + 64;
  }

  void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
               const Epilogue& e) const override {
    const ConvParams& p = geo_.p;
    uint8_t* cursor = Align64(buf);
    uint16_t* padded = nullptr;
    if (!direct_) {
      padded = reinterpret_cast<uint16_t*>(cursor);
      cursor = Align64(cursor + pad_.Bytes());
    }
    float* sums = reinterpret_cast<float*>(cursor);
    // Row geometry in the source the kernel reads.
    const size_t cp = direct_ ? p.srcC : pad_.cp;
    const size_t pw = direct_ ? p.srcW : pad_.pw;
    const size_t icp = direct_ ? geo_.icg : pad_.icp;
    GemmRowArgs a;
    a.pixel_stride = p.strideX * cp;
    a.ky_stride = p.dilationY * pw * cp;
    a.kx_stride = p.dilationX * cp;
    a.kernel_y = p.kernelY;
    a.kernel_x = p.kernelX;
    a.pairs = icp / 2;
    a.nblocks = nblocks_;
    a.width = p.dstW;
    a.out = sums;
    for (size_t n = 0; n < geo_.batch; ++n) {
      const uint16_t* base;
      if (direct_) {
        base = reinterpret_cast<const uint16_t*>(src) + n * geo_.src_image;
      } else {
        pad_.Fill(geo_, src, n, padded);
        base = padded;
      }
      for (size_t oy = 0; oy < p.dstH; ++oy) {
        for (size_t gr = 0; gr < p.group; ++gr) {
          a.src = base + oy * p.strideY * pw * cp + gr * icp;
          a.weight = GroupWeights(gr);
          row_(a);
          store_(geo_, e, sums, nblocks_ * 16, n, oy, gr * geo_.ocg, geo_.ocg, dst);
        }
      }
    }
  }

 private:
  GemmRowFn row_;
  StoreRowFn store_;
  PaddedSource pad_;
  bool direct_;
  size_t nblocks_;
};

// The FP32 variants (x86 without AVX-512): the padded source and the
// weights widened to FP32 once, so the microkernels' inner loops are loads
// and multiply-adds only (no widening shifts competing with the FMAs for
// ports). GEMM: one row call per output row and group, weights in blocks
// of 16 output channels (GemmRowF32Args). Depthwise: one row call per
// output row for every channel, weights [tap][cpad] (cpad = channels
// rounded up to 16; the kernel reads up to 15 channels past the last pixel,
// inside the buffer, and never stores them).
class NhwcGemmF32 : public Algorithm {
 public:
  NhwcGemmF32(const Geometry& g, GemmRowF32Fn row, StoreRowFn store, bool depthwise)
      : Algorithm(g), row_(row), store_(store), pad_(g, g.icg), depthwise_(depthwise) {
    nblocks_ = (g.ocg + 15) / 16;
    block_ = g.p.kernelY * g.p.kernelX * g.icg * 16;
    cpad_ = RoundUp(g.p.dstC, 16);
  }

  size_t WeightBytes() const override { return packed_.size() * sizeof(float); }

  void SetWeights(const float* weight) override {
    const ConvParams& p = geo_.p;
    auto at = [&](size_t oc, size_t ic, size_t ky, size_t kx) {
      return Bf16ToFp32(Fp32ToBf16(WeightAt(weight, geo_, oc, ic, ky, kx)));
    };
    if (depthwise_) {
      packed_.assign(p.kernelY * p.kernelX * cpad_, 0.0f);
      for (size_t ky = 0; ky < p.kernelY; ++ky)
        for (size_t kx = 0; kx < p.kernelX; ++kx)
          for (size_t c = 0; c < p.dstC; ++c) packed_[(ky * p.kernelX + kx) * cpad_ + c] = at(c, 0, ky, kx);
      return;
    }
    packed_.assign(p.group * nblocks_ * block_, 0.0f);
    for (size_t gr = 0; gr < p.group; ++gr) {
      float* out = packed_.data() + gr * nblocks_ * block_;
      for (size_t oc = 0; oc < geo_.ocg; ++oc)
        for (size_t ky = 0; ky < p.kernelY; ++ky)
          for (size_t kx = 0; kx < p.kernelX; ++kx)
            for (size_t ic = 0; ic < geo_.icg; ++ic)
              out[(oc / 16) * block_ + ((ky * p.kernelX + kx) * geo_.icg + ic) * 16 + oc % 16] =
                  at(gr * geo_.ocg + oc, ic, ky, kx);
    }
  }

  size_t ExternalBufferSize() const override {
    const size_t ld = depthwise_ ? cpad_ : nblocks_ * 16;
    return pad_.Bytes() * 3 + 64 + kSlack + 64 + geo_.p.dstW * ld * sizeof(float) + 64;
  }

  void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
               const Epilogue& e) const override {
    const ConvParams& p = geo_.p;
    uint8_t* cursor = Align64(buf);
    uint16_t* padded16 = reinterpret_cast<uint16_t*>(cursor);
    cursor = Align64(cursor + pad_.Bytes());
    float* padded = reinterpret_cast<float*>(cursor);
    cursor = Align64(cursor + pad_.Bytes() * 2 + kSlack);
    float* sums = reinterpret_cast<float*>(cursor);
    const size_t cp = pad_.cp, pw = pad_.pw, count = pad_.Bytes() / sizeof(uint16_t);
    GemmRowF32Args a;
    a.pixel_stride = p.strideX * cp;
    a.ky_stride = p.dilationY * pw * cp;
    a.kx_stride = p.dilationX * cp;
    a.kernel_y = p.kernelY;
    a.kernel_x = p.kernelX;
    a.channels = depthwise_ ? cpad_ : geo_.icg;
    a.nblocks = depthwise_ ? cpad_ / 16 : nblocks_;
    a.width = p.dstW;
    a.out = sums;
    for (size_t n = 0; n < geo_.batch; ++n) {
      pad_.Fill(geo_, src, n, padded16);
      for (size_t i = 0; i < count; ++i) {
        const uint32_t bits = uint32_t{padded16[i]} << 16;
        std::memcpy(padded + i, &bits, sizeof(bits));
      }
      std::memset(padded + count, 0, kSlack);
      for (size_t oy = 0; oy < p.dstH; ++oy) {
        const float* row = padded + oy * p.strideY * pw * cp;
        if (depthwise_) {
          a.src = row;
          a.weight = packed_.data();
          row_(a);
          store_(geo_, e, sums, cpad_, n, oy, 0, p.dstC, dst);
          continue;
        }
        for (size_t gr = 0; gr < p.group; ++gr) {
          a.src = row + gr * geo_.icg;
          a.weight = packed_.data() + gr * nblocks_ * block_;
          row_(a);
          store_(geo_, e, sums, nblocks_ * 16, n, oy, gr * geo_.ocg, geo_.ocg, dst);
        }
      }
    }
  }

 private:
  static constexpr size_t kSlack = 16 * sizeof(float);

  GemmRowF32Fn row_;
  StoreRowFn store_;
  PaddedSource pad_;
  bool depthwise_;
  size_t nblocks_, block_, cpad_;
  AlignedVector<float> packed_;
};

}  // namespace

std::unique_ptr<Algorithm> MakeNhwcGemmF32(const Geometry& g, GemmRowF32Fn row, StoreRowFn store) {
  return std::make_unique<NhwcGemmF32>(g, row, store, false);
}

std::unique_ptr<Algorithm> MakeNhwcDepthwiseF32(const Geometry& g, GemmRowF32Fn row,
                                                StoreRowFn store) {
  return std::make_unique<NhwcGemmF32>(g, row, store, true);
}

std::unique_ptr<Algorithm> MakeNhwcGemm(const Geometry& g, GemmRowFn row, StoreRowFn store) {
  return std::make_unique<NhwcGemm>(g, row, store);
}

}  // namespace conv16b_internal
}  // namespace synops
