// The fast algorithms' drivers: nhwc_gemm (any geometry; direct convolution
// over pair-interleaved packed weights, the row microkernels of
// conv16b_gemm.h) and nhwc_depthwise. Both read a zero-padded BF16 NHWC copy
// of each source image (built here from FP32 or BF16, NHWC or NCHW), so the
// kernels never test bounds; a BF16 NHWC source without padding whose groups
// have an even channel count is read in place (the 1x1 / no-padding fast
// path). Each output row of sums goes through StoreOutput (bias, activation,
// FP32/BF16, NHWC/NCHW).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bf16/bf16.h"
#include "bf16/bf16_kernels.h"
#include "conv16b/conv16b_gemm.h"
#include "conv16b/conv16b_internal.h"
#include "core/aligned.h"

namespace synops {
namespace conv16b_internal {
namespace {

size_t RoundUp(size_t v, size_t m) { return (v + m - 1) / m * m; }
uint8_t* Align64(uint8_t* p) {
  return reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t{63});
}

// The padded source: [PH][PW][group][icp], icp >= icg (the extra channels and
// the border are zero); image pixel (y, x) at row y + padY, column x + padX.
// With `shared_gap` (for flat runs) the rows are only max(padX, padW)
// columns wider than the image: the zeros between two image rows are the
// right border of one and the left border of the next (read through the
// flat run's row wrap), so fewer discarded columns are computed (28x28
// 3x3: 816 instead of 848 tile rows). The right border of the last row
// then spills min(padX, padW) pixels past Bytes().
struct PaddedSource {
  size_t ph, pw, icp, cp;  // cp = group * icp: elements per pixel

  PaddedSource(const Geometry& g, size_t icp_, bool shared_gap = false) {
    const ConvParams& p = g.p;
    ph = p.srcH + p.padY + p.padH;
    pw = p.srcW + p.padX + p.padW;
    // Every output column must still fit a row: dstW <= srcW + gap.
    const size_t gap = std::max(p.padX, p.padW);
    if (shared_gap && std::min(p.padX, p.padW) <= (p.kernelX - 1) * p.dilationX) {
      pw = p.srcW + gap;
    }
    icp = icp_;
    cp = p.group * icp;
  }
  // Pixels of the last row's right border past Bytes() (zero them).
  size_t Spill(const ConvParams& p) const { return p.padX + p.srcW + p.padW - pw; }
  size_t Bytes() const { return ph * pw * cp * sizeof(uint16_t); }

  // Fills `out` from batch item n of `src`.
  void Fill(const Geometry& g, const uint8_t* src, size_t n, uint16_t* out) const {
    const ConvParams& p = g.p;
    const size_t row = pw * cp;
    // Borders.
    std::memset(out, 0, p.padY * row * sizeof(uint16_t));
    std::memset(out + (p.padY + p.srcH) * row, 0, p.padH * row * sizeof(uint16_t));
    for (size_t y = 0; y < p.srcH; ++y) {
      uint16_t* r = out + (y + p.padY) * row;
      std::memset(r, 0, p.padX * cp * sizeof(uint16_t));
      std::memset(r + (p.padX + p.srcW) * cp, 0,
                  (pw - p.padX - p.srcW) * cp * sizeof(uint16_t));
    }
    const bool f32 = p.srcT == DataType::k32f;
    const float* s32 = reinterpret_cast<const float*>(src) + n * g.src_image;
    const uint16_t* s16 = reinterpret_cast<const uint16_t*>(src) + n * g.src_image;
    if (p.srcF == TensorFormat::kNhwc) {
      const Fp32ToBf16Fn convert = Fp32ToBf16Kernels().Best().fn;
      for (size_t y = 0; y < p.srcH; ++y) {
        uint16_t* d = out + ((y + p.padY) * pw + p.padX) * cp;
        const size_t s = y * p.srcW * p.srcC;
        if (icp == g.icg) {
          if (f32) {
            convert(s32 + s, p.srcW * p.srcC, d);
          } else {
            std::memcpy(d, s16 + s, p.srcW * p.srcC * sizeof(uint16_t));
          }
          continue;
        }
        for (size_t x = 0; x < p.srcW; ++x) {
          for (size_t gr = 0; gr < p.group; ++gr) {
            uint16_t* dd = d + x * cp + gr * icp;
            const size_t ss = s + x * p.srcC + gr * g.icg;
            if (f32) {
              convert(s32 + ss, g.icg, dd);
            } else {
              std::memcpy(dd, s16 + ss, g.icg * sizeof(uint16_t));
            }
            std::fill(dd + g.icg, dd + icp, uint16_t{0});
          }
        }
      }
      return;
    }
    // NCHW: transpose plane by plane.
    const size_t plane = p.srcH * p.srcW;
#if defined(__x86_64__)
    if (icp == g.icg && CpuSupports(Isa::kAvx512)) {
      const uint8_t* image = src + n * g.src_image * (f32 ? 4 : 2);
      for (size_t y = 0; y < p.srcH; ++y) {
        PlanarToNhwcAvx512(image + y * p.srcW * (f32 ? 4 : 2), f32, plane, p.srcC, p.srcW,
                           out + ((y + p.padY) * pw + p.padX) * cp, cp);
      }
      return;
    }
#elif defined(__aarch64__)
    if (icp == g.icg) {
      const uint8_t* image = src + n * g.src_image * (f32 ? 4 : 2);
      for (size_t y = 0; y < p.srcH; ++y) {
        PlanarToNhwcNeon(image + y * p.srcW * (f32 ? 4 : 2), f32, plane, p.srcC, p.srcW,
                         out + ((y + p.padY) * pw + p.padX) * cp, cp);
      }
      return;
    }
#endif
    if (icp != g.icg) {
      for (size_t y = 0; y < p.srcH; ++y) {
        uint16_t* d = out + ((y + p.padY) * pw + p.padX) * cp;
        for (size_t x = 0; x < p.srcW; ++x)
          for (size_t gr = 0; gr < p.group; ++gr)
            std::fill(d + x * cp + gr * icp + g.icg, d + x * cp + (gr + 1) * icp, uint16_t{0});
      }
    }
    for (size_t c = 0; c < p.srcC; ++c) {
      const size_t dc = (c / g.icg) * icp + c % g.icg;
      for (size_t y = 0; y < p.srcH; ++y) {
        uint16_t* d = out + ((y + p.padY) * pw + p.padX) * cp + dc;
        const size_t s = c * plane + y * p.srcW;
        if (f32) {
          for (size_t x = 0; x < p.srcW; ++x) d[x * cp] = Fp32ToBf16(s32[s + x]);
        } else {
          for (size_t x = 0; x < p.srcW; ++x) d[x * cp] = s16[s + x];
        }
      }
    }
  }
};

// Every group's weights as pair-interleaved (w = 16) `rows` x ocg matrices
// at out + gr * PackPairInterleavedSize(rows, ocg, 16): row (ky * kernelX +
// kx) * icp + ic holds tap (ky, kx) of input channel ic < icg; the other
// rows are zero.
void PackGroups(const Geometry& g, const float* weight, size_t icp, size_t rows,
                uint16_t* out) {
  const ConvParams& p = g.p;
  const size_t group_packed = PackPairInterleavedSize(rows, g.ocg, 16);
  std::vector<uint16_t> b(rows * g.ocg);
  for (size_t gr = 0; gr < p.group; ++gr) {
    std::fill(b.begin(), b.end(), uint16_t{0});
    for (size_t ky = 0; ky < p.kernelY; ++ky)
      for (size_t kx = 0; kx < p.kernelX; ++kx)
        for (size_t ic = 0; ic < g.icg; ++ic)
          for (size_t oc = 0; oc < g.ocg; ++oc)
            b[((ky * p.kernelX + kx) * icp + ic) * g.ocg + oc] =
                Fp32ToBf16(WeightAt(weight, g, gr * g.ocg + oc, ic, ky, kx));
    PackPairInterleavedKernels().Best().fn(b.data(), rows, g.ocg, 16, out + gr * group_packed);
  }
}

// The algorithms whose weights are PackGroups' matrices: `rows` K rows per
// group, input channels padded to `icp`.
class PackedGemm : public Algorithm {
 public:
  PackedGemm(const Geometry& g, size_t icp, size_t rows)
      : Algorithm(g),
        icp_(icp),
        rows_(rows),
        group_packed_(PackPairInterleavedSize(rows, g.ocg, 16)) {}

  size_t WeightBytes() const override { return packed_.size() * sizeof(uint16_t); }
  void SetWeights(const float* weight) override {
    packed_.assign(group_packed_ * geo_.p.group, 0);
    PackGroups(geo_, weight, icp_, rows_, packed_.data());
  }

 protected:
  const uint16_t* GroupWeights(size_t gr) const { return packed_.data() + gr * group_packed_; }

 private:
  size_t icp_, rows_, group_packed_;
  AlignedVector<uint16_t> packed_;  // tile rows must not straddle lines
};

// ------------------------------------------------------------- nhwc_gemm

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

// ------------------------------------------------------------- amx nhwc_gemm

#if defined(__x86_64__)
// Where AMX blocks of an NHWC algorithm go: pixel p0 + m0 of a run of
// `row` is virtual pixel (row + pix / vw, pix % vw) of image n; block nb's
// channels start at c0 + 16 * nb.
struct AmxStoreContext {
  const Geometry* g;
  const Epilogue* e;
  size_t n, c0, vw, p0;
  uint8_t* dst;

  static void Store(const void* c, const float* out, size_t row, size_t m0, size_t npix,
                    size_t nb, size_t nc) {
    const AmxStoreContext& x = *static_cast<const AmxStoreContext*>(c);
    const size_t c0 = nb * 16;
    if (c0 >= x.g->ocg) return;
    nc = std::min(nc, x.g->ocg - c0);
    const size_t pix = x.p0 + m0;
    StoreBlockAvx512Bf16(*x.g, *x.e, out, x.n, row + pix / x.vw, pix % x.vw, x.vw, npix,
                         x.c0 + c0, nc, x.dst);
  }
};
#endif


#if defined(__x86_64__)
// The AMX algorithm: one kernel call per image and group. With stride 1 the
// output is one flat run of pixels over the source grid (virtual rows as wide
// as the source rows; the columns past dstW are computed and discarded), so
// 32-pixel blocks cross output rows; otherwise each output row is a run.
// BF16 NHWC sources are read in place when there is no padding and the run
// has >= 16 pixels; everything else reads the zero-padded copy, which has
// slack for the 31 pixels a block may read past the end.
class AmxGemm : public PackedGemm {
 public:
  explicit AmxGemm(const Geometry& g)
      : PackedGemm(g, g.icg, g.p.kernelY * g.p.kernelX * g.icg),
        pad_(g, g.icg, g.p.strideX == 1 && g.p.strideY == 1) {
    const ConvParams& p = g.p;
    flat_ = p.strideX == 1 && p.strideY == 1;
    const bool no_pad = p.padY == 0 && p.padX == 0 && p.padH == 0 && p.padW == 0;
    const size_t run = flat_ ? (p.dstH - 1) * p.srcW + p.dstW : p.dstW;
    direct_ = p.srcT == DataType::k16b && p.srcF == TensorFormat::kNhwc && no_pad && flat_ &&
              run >= 16;
    cp_ = direct_ ? p.srcC : pad_.cp;
    pw_ = direct_ ? p.srcW : pad_.pw;
    for (size_t ky = 0; ky < p.kernelY; ++ky)
      for (size_t kx = 0; kx < p.kernelX; ++kx)
        taps_.push_back((ky * p.dilationY * pw_ + kx * p.dilationX) * cp_);
    nblocks_ = (g.ocg + 15) / 16;
    // Blocks read up to 31 pixels past the run, plus the border's spill.
    slack_ = (32 * p.strideX + pad_.Spill(p)) * cp_ * sizeof(uint16_t);
  }

  size_t ExternalBufferSize() const override {
    return direct_ ? 0 : pad_.Bytes() + slack_ + 64;
  }

  void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
               const Epilogue& e) const override {
    const ConvParams& p = geo_.p;
    uint16_t* padded = nullptr;
    if (!direct_) {
      padded = reinterpret_cast<uint16_t*>(Align64(buf));
      std::memset(reinterpret_cast<uint8_t*>(padded) + pad_.Bytes(), 0, slack_);
    }
    AmxStoreContext ctx{&geo_, &e, 0, 0, flat_ ? pw_ : p.dstW, 0, dst};
    AmxImageArgs a;
    a.rows = flat_ ? 1 : p.dstH;
    a.row_stride = p.strideY * pw_ * cp_;
    a.pixels = flat_ ? (p.dstH - 1) * pw_ + p.dstW : p.dstW;
    a.pixel_stride = p.strideX * cp_;
    a.overread = !direct_;
    a.taps = taps_.data();
    a.ntaps = taps_.size();
    a.chunks = geo_.icg / 32;
    a.nblocks = nblocks_;
    a.store = &AmxStoreContext::Store;
    a.ctx = &ctx;
    for (size_t n = 0; n < geo_.batch; ++n) {
      const uint16_t* base;
      if (direct_) {
        base = reinterpret_cast<const uint16_t*>(src) + n * geo_.src_image;
      } else {
        pad_.Fill(geo_, src, n, padded);
        base = padded;
      }
      ctx.n = n;
      for (size_t gr = 0; gr < p.group; ++gr) {
        a.src = base + gr * geo_.icg;
        a.weight = GroupWeights(gr);
        ctx.c0 = gr * geo_.ocg;
        GemmImageAmxBf16(a);
      }
    }
  }

 private:
  PaddedSource pad_;
  bool flat_, direct_;
  size_t cp_, pw_, nblocks_, slack_;
  std::vector<size_t> taps_;
  AlignedVector<uint16_t> packed_;  // tile rows must not straddle lines
};

// AMX GEMM for NCHW 1x1 (stride 1, whole 32-channel groups): output channels x
// pixels = weights x source, so each tile row of the result is a run of one
// output channel's pixels, stored straight into its plane. The source's
// channel pairs are interleaved over the zero-padded grid once per image
// (the B operand's pair layout); the output is one flat run over that grid
// like nhwc_gemm's (columns past dstW computed and discarded).
class AmxNchwGemm : public Algorithm {
 public:
  explicit AmxNchwGemm(const Geometry& g) : Algorithm(g) {
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
    for (size_t n = 0; n < geo_.batch; ++n) {
      ctx.n = n;
      for (size_t gr = 0; gr < p.group; ++gr) {
        InterleavePairsAvx512(src + (n * geo_.src_image + gr * geo_.icg * plane) * es, f32,
                              plane, p.srcW, 0, p.srcH, pairs_, pw_, p.padY, p.padX,
                              pair_stride_, pairs);
        a.weight = packed_.data() + gr * group_packed_;
        ctx.c0 = gr * geo_.ocg;
        GemmImageNchwAmxBf16(a);
      }
    }
  }

 private:
  struct Context {
    const Geometry* g;
    const Epilogue* e;
    size_t n, c0, vw;
    uint8_t* dst;
  };

  static void Store(const void* c, const float* out, size_t m0, size_t npix, size_t ob,
                    size_t nc) {
    const Context& x = *static_cast<const Context*>(c);
    const size_t c0 = ob * 16;
    nc = std::min(nc, x.g->ocg - c0);
    StoreNchwBlockAvx512Bf16(*x.g, *x.e, out, x.n, m0 / x.vw, m0 % x.vw, x.vw, npix, x.c0 + c0,
                             nc, x.dst);
  }

  size_t ph_, pw_, pairs_, pair_stride_, oblocks_, chunks_, group_packed_;
  std::vector<size_t> taps_;
  AlignedVector<uint16_t> packed_;  // tile rows must not straddle lines
};

// AMX for input-channel groups that are not whole 32-channel chunks (the
// 3-channel stem, 16- or 24-channel layers): bands of output rows are
// gathered into im2row rows of K = kernelY * kernelX * icg values padded to
// a multiple of 32, and multiplied as a 1x1 convolution.
class AmxIm2Row : public PackedGemm {
 public:
  explicit AmxIm2Row(const Geometry& g)
      : PackedGemm(g, g.icg, RoundUp(g.p.kernelY * g.p.kernelX * g.icg, 32)), pad_(g, g.icg) {
    const ConvParams& p = g.p;
    kp_ = RoundUp(p.kernelY * p.kernelX * g.icg, 32);
    nblocks_ = (g.ocg + 15) / 16;
    // A band of whole output rows of about 32 KiB of im2row rows.
    band_rows_ = std::max<size_t>(1, std::min(p.dstH, 32768 / (kp_ * 2 * p.dstW)));
    band_pixels_ = band_rows_ * p.dstW;
    // Taps of one kernel row are one run of source pixels when dilationX is
    // 1 and a pixel is exactly the group's channels.
    const bool runs = p.dilationX == 1 && p.group == 1;
    size_t pos = 0;  // of the segment in the im2row row
    for (size_t ky = 0; ky < p.kernelY; ++ky) {
      for (size_t kx = 0; kx < p.kernelX; ++kx) {
        if (runs && kx > 0) break;
        const size_t offset = (ky * p.dilationY * pad_.pw + kx * p.dilationX) * pad_.cp;
        const size_t len = runs ? p.kernelX * g.icg : g.icg;
        // Split the segment [pos, pos + len) at 32-element chunk borders.
        for (size_t at = pos; at < pos + len;) {
          const size_t c = at / 32, end = std::min(pos + len, (c + 1) * 32);
          const uint32_t lanes = static_cast<uint32_t>(end - at);
          const uint32_t first = static_cast<uint32_t>(at - c * 32);
          pieces_.push_back({c, static_cast<ptrdiff_t>(offset + at - pos) -
                                    static_cast<ptrdiff_t>(first),
                             static_cast<uint32_t>(((uint64_t{1} << lanes) - 1) << first)});
          at = end;
        }
        pos += len;
      }
    }
    std::stable_sort(pieces_.begin(), pieces_.end(),
                     [](const Piece& x, const Piece& y) { return x.chunk < y.chunk; });
    for (const Piece& piece : pieces_) {
      chunk_.push_back(piece.chunk);
      offset_.push_back(piece.offset);
      mask_.push_back(piece.mask);
    }
  }

  size_t ExternalBufferSize() const override {
    return pad_.Bytes() + 64 + (band_pixels_ + 32) * kp_ * sizeof(uint16_t) + 64;
  }

  void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
               const Epilogue& e) const override {
    const ConvParams& p = geo_.p;
    uint16_t* padded = reinterpret_cast<uint16_t*>(Align64(buf));
    uint16_t* rows = reinterpret_cast<uint16_t*>(Align64(buf + 64 + pad_.Bytes()));
    // The 32 rows the kernel may read past a band stay zero.
    std::memset(rows + band_pixels_ * kp_, 0, 32 * kp_ * sizeof(uint16_t));
    const size_t zero_tap = 0;
    AmxStoreContext ctx{&geo_, &e, 0, 0, p.dstW, 0, dst};
    Im2RowArgs im;
    im.pw = pad_.pw;
    im.cp = pad_.cp;
    im.stride_y = p.strideY;
    im.stride_x = p.strideX;
    im.dst_w = p.dstW;
    im.chunk = chunk_.data();
    im.offset = offset_.data();
    im.mask = mask_.data();
    im.npieces = chunk_.size();
    im.kp = kp_;
    im.out = rows;
    AmxImageArgs a;
    a.src = rows;
    a.rows = 1;
    a.row_stride = 0;
    a.pixel_stride = kp_;
    a.overread = true;
    a.taps = &zero_tap;
    a.ntaps = 1;
    a.chunks = kp_ / 32;
    a.nblocks = nblocks_;
    a.store = &AmxStoreContext::Store;
    a.ctx = &ctx;
    const size_t total = p.dstH * p.dstW;
    for (size_t n = 0; n < geo_.batch; ++n) {
      pad_.Fill(geo_, src, n, padded);
      ctx.n = n;
      for (size_t p0 = 0; p0 < total; p0 += band_pixels_) {
        const size_t npix = std::min(band_pixels_, total - p0);
        ctx.p0 = p0;
        for (size_t gr = 0; gr < p.group; ++gr) {
          im.src = padded + gr * geo_.icg;
          im.p0 = p0;
          im.npix = npix;
          Im2RowAvx512(im);
          a.pixels = npix;
          a.weight = GroupWeights(gr);
          ctx.c0 = gr * geo_.ocg;
          GemmImageAmxBf16(a);
        }
      }
    }
  }

 private:
  PaddedSource pad_;
  size_t kp_, nblocks_, band_rows_, band_pixels_;
  struct Piece {
    size_t chunk;
    ptrdiff_t offset;
    uint32_t mask;
  };
  std::vector<Piece> pieces_;
  std::vector<size_t> chunk_;
  std::vector<ptrdiff_t> offset_;
  std::vector<uint32_t> mask_;
  AlignedVector<uint16_t> packed_;  // tile rows must not straddle lines
};
#endif

// ------------------------------------------------------------- nhwc_depthwise

bool IsDepthwise(const Geometry& g) {
  return g.p.group == g.p.srcC && g.p.group == g.p.dstC;
}

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
    for (size_t n = 0; n < geo_.batch; ++n) {
      for (size_t b = 0; b < blocks_; ++b) {
        a.c0 = b * 16;
        a.weight = weight_.data() + b * p.kernelY * p.kernelX * 16;
        std::fill(tag.begin(), tag.end(), PTRDIFF_MIN);
        for (size_t oy = 0; oy < p.dstH; ++oy) {
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

bool Any(const Geometry&) { return true; }

// AMX reads 32 input channels of a tap per tile row: whole chunks only.
bool AmxFits(const Geometry& g) { return g.icg % 32 == 0; }
// NCHW in and out, 1x1, stride 1, whole 32-channel groups. (With a wider
// kernel the taps shift the source tiles off 64-byte boundaries: 3x3
// 64->64 56x56 took 0.265 ms this way, 0.239 ms through nhwc_gemm's
// transposes.)
bool AmxNchwFits(const Geometry& g) {
  return g.icg % 32 == 0 && g.p.srcF == TensorFormat::kNchw && g.p.dstF == TensorFormat::kNchw &&
         g.p.strideX == 1 && g.p.strideY == 1 && g.p.kernelX == 1 && g.p.kernelY == 1;
}
// The other groups, except depthwise (a separate algorithm).
bool AmxIm2RowFits(const Geometry& g) {
  return g.icg % 32 != 0 && !IsDepthwise(g);
}

}  // namespace

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

std::vector<AlgorithmSpec> GemmAlgorithms() {
#if defined(__x86_64__)
  return {
      {"amx_bf16::nchw_gemm", Isa::kAmxBf16, AmxNchwFits,
       [](const Geometry& g) -> std::unique_ptr<Algorithm> {
         return std::make_unique<AmxNchwGemm>(g);
       }},
      {"amx_bf16::nhwc_gemm", Isa::kAmxBf16, AmxFits,
       [](const Geometry& g) -> std::unique_ptr<Algorithm> {
         return std::make_unique<AmxGemm>(g);
       }},
      {"amx_bf16::nhwc_im2row", Isa::kAmxBf16, AmxIm2RowFits,
       [](const Geometry& g) -> std::unique_ptr<Algorithm> {
         return std::make_unique<AmxIm2Row>(g);
       }},
      {"avx512bf16::nhwc_gemm", Isa::kAvx512Bf16, Any,
       [](const Geometry& g) -> std::unique_ptr<Algorithm> {
         return std::make_unique<NhwcGemm>(g, GemmRowAvx512Bf16, StoreRowAvx512);
       }},
      {"avx512::nhwc_gemm", Isa::kAvx512, Any,
       [](const Geometry& g) -> std::unique_ptr<Algorithm> {
         return std::make_unique<NhwcGemm>(g, GemmRowAvx512, StoreRowAvx512);
       }},
  };
#elif defined(__aarch64__)
  (void)AmxFits;
  (void)AmxNchwFits;
  (void)AmxIm2RowFits;
  return {
      {"neon_bf16::nhwc_gemm", Isa::kNeonBf16, Any,
       [](const Geometry& g) -> std::unique_ptr<Algorithm> {
         return std::make_unique<NhwcGemm>(g, GemmRowNeonBf16, StoreRowNeon);
       }},
      {"neon::nhwc_gemm", Isa::kNeon, Any,
       [](const Geometry& g) -> std::unique_ptr<Algorithm> {
         return std::make_unique<NhwcGemm>(g, GemmRowNeon, StoreRowNeon);
       }},
  };
#else
  (void)Any;
  (void)AmxFits;
  (void)AmxNchwFits;
  (void)AmxIm2RowFits;
  return {};
#endif
}

std::vector<AlgorithmSpec> DepthwiseAlgorithms() {
#if defined(__x86_64__)
  return {
      {"avx512bf16::nhwc_depthwise", Isa::kAvx512Bf16, IsDepthwise,
       [](const Geometry& g) -> std::unique_ptr<Algorithm> {
         return std::make_unique<DepthwiseF32>(g, DepthwiseRowF32Avx512Bf16);
       }},
      {"avx512::nhwc_depthwise", Isa::kAvx512, IsDepthwise,
       [](const Geometry& g) -> std::unique_ptr<Algorithm> {
         return std::make_unique<DepthwiseF32>(g, DepthwiseRowF32Avx512);
       }},
  };
#elif defined(__aarch64__)
  return {
      {"neon::nhwc_depthwise", Isa::kNeon, IsDepthwise,
       [](const Geometry& g) -> std::unique_ptr<Algorithm> {
         return std::make_unique<NhwcDepthwise>(g, DepthwiseRowNeon, StoreRowNeon);
       }},
  };
#else
  (void)IsDepthwise;
  return {};
#endif
}

}  // namespace conv16b_internal
}  // namespace synops
