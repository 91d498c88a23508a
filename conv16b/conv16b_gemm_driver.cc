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

}  // namespace

std::unique_ptr<Algorithm> MakeNhwcGemm(const Geometry& g, GemmRowFn row, StoreRowFn store) {
  return std::make_unique<NhwcGemm>(g, row, store);
}

}  // namespace conv16b_internal
}  // namespace synops
