// The AMX GEMM drivers (conv16b_drivers.h): amx nhwc_gemm and nchw_gemm
// around the image kernels of conv16b_amx.cc, and StorePixels.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "bf16/bf16.h"
#include "bf16/bf16_kernels.h"
#include "conv16b/conv16b_drivers.h"
#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_kernels.h"
#include "conv16b/conv16b_pack.h"

namespace synops {
namespace conv16b_internal {

void StorePixels(StoreRunFn run, const Geometry& g, const Epilogue& e, const float* sums,
                 size_t ld, size_t n, size_t oy, size_t ox, size_t vw, size_t npix, size_t c0,
                 size_t nc, uint8_t* dst) {
  const size_t width = g.p.dstW;
  while (npix != 0 && oy < g.p.dstH) {
    const size_t in_row = std::min(npix, vw - ox);
    if (ox < width) run(g, e, sums, ld, n, oy, ox, std::min(in_row, width - ox), c0, nc, dst);
    sums += in_row * ld;
    npix -= in_row;
    ox = 0;
    ++oy;
  }
}

#if defined(__x86_64__)
void AmxStoreContext::Store(const void* c, const float* out, size_t row, size_t m0, size_t npix,
                            size_t nb, size_t nc) {
  const AmxStoreContext& x = *static_cast<const AmxStoreContext*>(c);
  const size_t c0 = (x.nb0 + nb) * 16;
  if (c0 >= x.g->ocg) return;
  nc = std::min(nc, x.g->ocg - c0);
  const size_t pix = x.p0 + m0;
  StoreBlockAvx512Bf16(*x.g, *x.e, out, x.n, row + pix / x.vw, pix % x.vw, x.vw, npix, x.c0 + c0,
                       nc, x.dst);
}

namespace {

// The AMX algorithm: one kernel call per image and group. With stride 1 the
// output is one flat run of pixels over the source grid (virtual rows as wide
// as the source rows; the columns past dstW are computed and discarded), so
// 32-pixel blocks cross output rows; otherwise each output row is a run.
// BF16 NHWC sources are read in place when there is no padding and the run
// has >= 16 pixels; everything else reads the zero-padded copy, which has
// slack for the 31 pixels a block may read past the end. A strided 1x1
// convolution without padding over an NHWC source (the downsampling
// shortcuts of ResNets) reads only every stride-th pixel of every
// stride-th row: those are gathered into a dense image, which runs flat at
// stride 1 (full 32-pixel blocks, not a run of dstW pixels per row, and a
// copy of a quarter of the source at stride 2 instead of all of it).
class AmxGemm : public PackedGemm {
 public:
  AmxGemm(const Geometry& g, const AmxKernels& k)
      : PackedGemm(g, g.icg, g.p.kernelY * g.p.kernelX * g.icg),
        k_(k),
        pad_(g, g.icg, g.p.strideX == 1 && g.p.strideY == 1) {
    const ConvParams& p = g.p;
    const bool no_pad = p.padY == 0 && p.padX == 0 && p.padH == 0 && p.padW == 0;
    const bool bf16_nhwc = p.srcT == DataType::k16b && p.srcF == TensorFormat::kNhwc;
    compact_ = p.srcF == TensorFormat::kNhwc && no_pad && p.kernelY == 1 && p.kernelX == 1 &&
               (p.strideX > 1 || p.strideY > 1);
    flat_ = (p.strideX == 1 && p.strideY == 1) || compact_;
    const size_t run = flat_ ? (p.dstH - 1) * p.srcW + p.dstW : p.dstW;
    direct_ = bf16_nhwc && no_pad && flat_ && !compact_ && run >= 16;
    cp_ = direct_ || compact_ ? p.srcC : pad_.cp;
    pw_ = compact_ ? p.dstW : direct_ ? p.srcW : pad_.pw;
    stride_ = compact_ ? 1 : p.strideX;
    image_bytes_ = compact_ ? p.dstH * p.dstW * cp_ * sizeof(uint16_t) : pad_.Bytes();
    for (size_t ky = 0; ky < p.kernelY; ++ky)
      for (size_t kx = 0; kx < p.kernelX; ++kx)
        taps_.push_back((ky * p.dilationY * pw_ + kx * p.dilationX) * cp_);
    nblocks_ = (g.ocg + 15) / 16;
    // Weights beyond half the L2 (3x3 512->512: 4.7 MB) were streamed from
    // L3 for every block of 32 pixels: the image runs once per chunk of
    // block pairs whose weights fit a quarter of it.
    wchunk_ = std::min(nblocks_, L2ChunkBlocks(nblocks_, BlockElements() * sizeof(uint16_t), 2));
    // Blocks read up to 31 pixels past the run, plus the border's spill.
    slack_ = (32 * stride_ + (compact_ ? 0 : pad_.Spill(p))) * cp_ * sizeof(uint16_t);
  }

  size_t ExternalBufferSize() const override {
    return direct_ ? 0 : image_bytes_ + slack_ + 64;
  }

  void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
               const Epilogue& e) const override {
    const ConvParams& p = geo_.p;
    uint16_t* padded = nullptr;
    if (!direct_) {
      padded = reinterpret_cast<uint16_t*>(Align64(buf));
      std::memset(reinterpret_cast<uint8_t*>(padded) + image_bytes_, 0, slack_);
    }
    AmxStoreContext ctx{&geo_, &e, 0, 0, flat_ ? pw_ : p.dstW, 0, dst};
    AmxImageArgs a;
    a.rows = flat_ ? 1 : p.dstH;
    a.row_stride = p.strideY * pw_ * cp_;
    a.pixels = flat_ ? (p.dstH - 1) * pw_ + p.dstW : p.dstW;
    a.pixel_stride = stride_ * cp_;
    a.overread = !direct_;
    a.taps = taps_.data();
    a.ntaps = taps_.size();
    a.chunks = geo_.icg / 32;
    a.nblocks = nblocks_;
    a.store = &AmxStoreContext::Store;
    a.ctx = &ctx;
    const AmxTiles tiles(k_);
    for (size_t n = 0; n < geo_.batch; ++n) {
      const uint16_t* base =
          compact_ ? Compact(src, n, padded) : pad_.Image(geo_, src, n, direct_, padded);
      ctx.n = n;
      for (size_t gr = 0; gr < p.group; ++gr) {
        a.src = base + gr * geo_.icg;
        ctx.c0 = gr * geo_.ocg;
        for (size_t nb0 = 0; nb0 < nblocks_; nb0 += wchunk_) {
          a.weight = GroupWeights(gr) + nb0 * BlockElements();
          a.nblocks = std::min(wchunk_, nblocks_ - nb0);
          ctx.nb0 = nb0;
          k_.image(a);
        }
      }
    }
  }

 private:
  // The pixels (oy * strideY, ox * strideX) of batch item n, all channels,
  // as a dstH x dstW BF16 image at `out` (an FP32 source rounded).
  const uint16_t* Compact(const uint8_t* src, size_t n, uint16_t* out) const {
    const ConvParams& p = geo_.p;
    const bool f32 = p.srcT == DataType::k32f;
    const size_t es = f32 ? 4 : 2;
    const uint8_t* image = src + n * geo_.src_image * es;
    const Fp32ToBf16Fn convert = Fp32ToBf16Kernels().Best().fn;
    uint16_t* at = out;
    for (size_t oy = 0; oy < p.dstH; ++oy) {
      const uint8_t* row = image + oy * p.strideY * p.srcW * cp_ * es;
      for (size_t ox = 0; ox < p.dstW; ++ox, at += cp_) {
        const uint8_t* pixel = row + ox * p.strideX * cp_ * es;
        if (f32) {
          convert(reinterpret_cast<const float*>(pixel), cp_, at);
        } else {
          std::memcpy(at, pixel, cp_ * sizeof(uint16_t));
        }
      }
    }
    return out;
  }

  AmxKernels k_;
  PaddedSource pad_;
  bool flat_, direct_, compact_;
  size_t cp_, pw_, stride_, image_bytes_, nblocks_, slack_;
  size_t wchunk_;  // blocks per call of the image kernel (all of them where they fit the L2)
  std::vector<size_t> taps_;
};

// AMX GEMM for NCHW 1x1 (stride 1, whole 32-channel groups): output channels x
// pixels = weights x source, so each tile row of the result is a run of one
// output channel's pixels, stored straight into its plane. The source's
// channel pairs are interleaved over the zero-padded grid once per image
// (the B operand's pair layout); the output is one flat run over that grid
// like nhwc_gemm's (columns past dstW computed and discarded).
class AmxNchwGemm : public Algorithm {
 public:
  AmxNchwGemm(const Geometry& g, const AmxKernels& k) : Algorithm(g), k_(k) {
    const ConvParams& p = g.p;
    ph_ = p.srcH + p.padY + p.padH;
    pw_ = p.srcW + p.padX + p.padW;
    pairs_ = g.icg / 2;
    // 32 pixels of slack for the last block's overread; 64-byte rows.
    pair_stride_ = RoundUp(2 * (ph_ * pw_ + 32), 32);
    for (size_t ky = 0; ky < p.kernelY; ++ky)
      for (size_t kx = 0; kx < p.kernelX; ++kx)
        taps_.push_back(ky * p.dilationY * pw_ + kx * p.dilationX);
    oblocks_ = (g.ocg + 15) / 16;
    chunks_ = g.icg / 32;
    group_packed_ = oblocks_ * taps_.size() * chunks_ * 512;
    // As AmxGemm: weights beyond half the L2 in chunks of block pairs, each
    // over the whole image (1x1 2048->512: 2 MB).
    wchunk_ = std::min(oblocks_, L2ChunkBlocks(oblocks_, taps_.size() * g.icg * 32, 2));
  }

  size_t ExternalBufferSize() const override {
    return pairs_ * pair_stride_ * sizeof(uint16_t) + 64;
  }
  size_t WeightBytes() const override { return packed_.size() * sizeof(uint16_t); }

  // Tiles [16 output channels][16 pairs x 2] per (block, tap, chunk).
  void SetWeights(const float* weight) override {
    const ConvParams& p = geo_.p;
    const size_t ntaps = taps_.size();
    packed_.assign(group_packed_ * p.group, 0);
    for (size_t gr = 0; gr < p.group; ++gr) {
      uint16_t* w = packed_.data() + gr * group_packed_;
      for (size_t oc = 0; oc < geo_.ocg; ++oc)
        for (size_t t = 0; t < ntaps; ++t)
          for (size_t ic = 0; ic < geo_.icg; ++ic) {
            const size_t tile = ((oc / 16) * ntaps + t) * chunks_ + ic / 32;
            w[tile * 512 + (oc % 16) * 32 + ic % 32] = Fp32ToBf16(
                WeightAt(weight, geo_, gr * geo_.ocg + oc, ic, t / p.kernelX, t % p.kernelX));
          }
    }
  }

  void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
               const Epilogue& e) const override {
    const ConvParams& p = geo_.p;
    uint16_t* pairs = reinterpret_cast<uint16_t*>(Align64(buf));
    // Borders and slack: zero once; the interior is rewritten per image.
    for (size_t q = 0; q < pairs_; ++q) {
      uint16_t* plane = pairs + q * pair_stride_;
      std::fill(plane, plane + 2 * (p.padY * pw_ + p.padX), uint16_t{0});
      for (size_t y = 0; y + 1 < p.srcH; ++y) {
        uint16_t* gap = plane + 2 * ((y + p.padY) * pw_ + p.padX + p.srcW);
        std::fill(gap, gap + 2 * (p.padW + p.padX), uint16_t{0});
      }
      std::fill(plane + 2 * ((p.padY + p.srcH - 1) * pw_ + p.padX + p.srcW), plane + pair_stride_,
                uint16_t{0});
    }
    const bool f32 = p.srcT == DataType::k32f;
    const size_t es = f32 ? 4 : 2;
    const size_t plane = p.srcH * p.srcW;
    Context ctx{&geo_, &e, 0, 0, pw_, dst};
    AmxNchwArgs a;
    a.src = pairs;
    a.pair_stride = pair_stride_;
    a.pixels = (p.dstH - 1) * pw_ + p.dstW;
    a.taps = taps_.data();
    a.ntaps = taps_.size();
    a.chunks = chunks_;
    a.oblocks = oblocks_;
    a.store = &Store;
    a.ctx = &ctx;
    const AmxTiles tiles(k_);
    for (size_t n = 0; n < geo_.batch; ++n) {
      ctx.n = n;
      for (size_t gr = 0; gr < p.group; ++gr) {
        InterleavePairsAvx512(src + (n * geo_.src_image + gr * geo_.icg * plane) * es, f32,
                              plane, p.srcW, 0, p.srcH, pairs_, pw_, p.padY, p.padX,
                              pair_stride_, pairs);
        ctx.c0 = gr * geo_.ocg;
        for (size_t ob0 = 0; ob0 < oblocks_; ob0 += wchunk_) {
          a.weight = packed_.data() + gr * group_packed_ + ob0 * taps_.size() * chunks_ * 512;
          a.oblocks = std::min(wchunk_, oblocks_ - ob0);
          ctx.ob0 = ob0;
          k_.nchw(a);
        }
      }
    }
  }

 private:
  // Block ob of a call stores the group's channels from 16 * (ob0 + ob).
  struct Context {
    const Geometry* g;
    const Epilogue* e;
    size_t n, c0, vw;
    uint8_t* dst;
    size_t ob0 = 0;
  };

  static void Store(const void* c, const float* out, size_t m0, size_t npix, size_t ob,
                    size_t nc) {
    const Context& x = *static_cast<const Context*>(c);
    const size_t c0 = (x.ob0 + ob) * 16;
    nc = std::min(nc, x.g->ocg - c0);
    StoreNchwBlockAvx512Bf16(*x.g, *x.e, out, x.n, m0 / x.vw, m0 % x.vw, x.vw, npix, x.c0 + c0,
                             nc, x.dst);
  }

  AmxKernels k_;
  size_t ph_, pw_, pairs_, pair_stride_, oblocks_, chunks_, group_packed_;
  size_t wchunk_;  // blocks per call of the image kernel (all of them where they fit the L2)
  std::vector<size_t> taps_;
  AlignedVector<uint16_t> packed_;  // tile rows must not straddle lines
};

}  // namespace

std::unique_ptr<Algorithm> MakeAmxGemm(const Geometry& g, const AmxKernels& k) {
  return std::make_unique<AmxGemm>(g, k);
}

std::unique_ptr<Algorithm> MakeAmxNchwGemm(const Geometry& g, const AmxKernels& k) {
  return std::make_unique<AmxNchwGemm>(g, k);
}
#endif

}  // namespace conv16b_internal
}  // namespace synops
