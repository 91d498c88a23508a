// nhwc_im2row (conv16b_drivers.h): im2row rows multiplied as a 1x1
// convolution, by the AMX image kernel (bands of output rows) or an AVX-512
// GEMM row kernel (one output row at a time).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "bf16/bf16.h"
#include "conv16b/conv16b_drivers.h"
#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_kernels.h"
#include "conv16b/conv16b_pack.h"
#include "core/cpu.h"

namespace synops {
namespace conv16b_internal {

#if defined(__x86_64__)
namespace {

// The gather of Im2RowAvx512: im2row rows of K = kernelY * kernelX * icg
// values (taps in (ky, kx) order, a tap's icg channels in order) at a
// pitch of kp = K rounded up to 32, zero past K, from a PaddedSource with
// icp = icg. Each 32-element chunk of a row is a few masked loads
// ("pieces") from the source window.
class Im2RowGather {
 public:
  Im2RowGather(const Geometry& g, const PaddedSource& pad) : pad_(pad) {
    const ConvParams& p = g.p;
    kp_ = RoundUp(p.kernelY * p.kernelX * g.icg, 32);
    // Taps of one kernel row are one run of source pixels when dilationX is
    // 1 and a pixel is exactly the group's channels.
    const bool runs = p.dilationX == 1 && p.group == 1;
    size_t pos = 0;  // of the segment in the im2row row
    size_t max_len = 0;
    for (size_t ky = 0; ky < p.kernelY; ++ky) {
      for (size_t kx = 0; kx < p.kernelX; ++kx) {
        if (runs && kx > 0) break;
        const size_t offset = (ky * p.dilationY * pad_.pw + kx * p.dilationX) * pad_.cp;
        const size_t len = runs ? p.kernelX * g.icg : g.icg;
        seg_offset_.push_back(static_cast<ptrdiff_t>(offset));
        seg_pos_.push_back(pos);
        max_len = std::max(max_len, len);
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
    k_ = pos;
    seg_width_ = max_len <= 16 ? 16 : max_len <= 32 ? 32 : 0;
    std::stable_sort(pieces_.begin(), pieces_.end(),
                     [](const Piece& x, const Piece& y) { return x.chunk < y.chunk; });
    for (const Piece& piece : pieces_) {
      chunk_.push_back(piece.chunk);
      offset_.push_back(piece.offset);
      mask_.push_back(piece.mask);
    }
  }

  size_t kp() const { return kp_; }

  // The arguments for rows written to `out`; the caller sets src, p0, npix.
  Im2RowArgs Args(const ConvParams& p, uint16_t* out) const {
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
    im.seg_offset = seg_offset_.data();
    im.seg_pos = seg_pos_.data();
    im.nseg = seg_pos_.size();
    im.k = k_;
    im.seg_width = seg_width_;
    im.out = out;
    return im;
  }

 private:
  const PaddedSource& pad_;
  size_t kp_, k_, seg_width_;
  struct Piece {
    size_t chunk;
    ptrdiff_t offset;
    uint32_t mask;
  };
  std::vector<Piece> pieces_;
  std::vector<size_t> chunk_;
  std::vector<ptrdiff_t> offset_;
  std::vector<uint32_t> mask_;
  std::vector<ptrdiff_t> seg_offset_;
  std::vector<size_t> seg_pos_;
};

// AMX for input-channel groups that are not whole 32-channel chunks (the
// 3-channel stem, 16- or 24-channel layers): bands of pixels are gathered
// into im2row rows of K = kernelY * kernelX * icg values padded to a
// multiple of 32, and multiplied as a 1x1 convolution.
class AmxIm2Row : public PackedGemm {
 public:
  AmxIm2Row(const Geometry& g, const AmxKernels& k)
      : PackedGemm(g, g.icg, RoundUp(g.p.kernelY * g.p.kernelX * g.icg, 32)),
        k_(k),
        pad_(g, g.icg),
        gather_(g, pad_) {
    kp_ = gather_.kp();
    nblocks_ = (g.ocg + 15) / 16;
    // A band is whole 32-pixel blocks of im2row rows taking at most a
    // quarter of the L1d (at least one block; bands cross output rows), so
    // the rows, the source window they come from, the weights and the
    // kernel's sums stay in L1d between the gather and the tile loads.
    // Whole output rows of up to 32 KiB before (84 pixels of 320 bytes in
    // a 16-channel group 3x3 over 28x28, 112 in the 7x7 stem) left the tile
    // loop waiting on its loads most of the time, by amounts that moved
    // with where the buffers lay (no PMU counters on the VM to say which
    // conflict).
    band_pixels_ =
        std::max<size_t>(1, GetCacheSizes().l1d / 4 / (kp_ * sizeof(uint16_t)) / 32) * 32;
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
    Im2RowArgs im = gather_.Args(p, rows);
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
    const AmxTiles tiles(k_);
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
          k_.image(a);
        }
      }
    }
  }

 private:
  AmxKernels k_;
  PaddedSource pad_;
  Im2RowGather gather_;
  size_t kp_, nblocks_, band_pixels_;
};

// AVX-512 for groups of few input channels (stems), multiplied by a GEMM
// row kernel over K = kernelX * icg values per kernel row instead of a K
// loop of ceil(icg / 2) pairs per tap (3 channels: 2 pairs, a third of them
// zero, and a loop per tap). With one group and dilationX 1 a kernel row's
// window is one run of the padded source: the row kernel reads it in place,
// ceil(kernelX * icg / 2) pairs per kernel row, the last one half when the
// count is odd (3x3 of 3 channels: 15 pairs per pixel where the im2row
// rows take 14, but no gather pass). That last pair is read whole when
// the padded source holds no infinity or NaN (its second value, the next
// one in the row or the zero guard after the image, times a zero weight
// adds an exact zero: 3x3 stem 3->32 8% faster than the masked broadcast),
// else as half (GemmRowArgs::half_last: 0 * Inf would be NaN). Otherwise each
// output row's im2row rows (Im2RowGather, pitch kp) are gathered and
// multiplied as a 1x1 convolution over K = kernelY * kernelX * icg rounded
// up to a pair.
class NhwcIm2Row : public PackedGemm {
 public:
  NhwcIm2Row(const Geometry& g, GemmRowFn row, StoreRowFn store, bool fused_rows)
      : PackedGemm(g, g.icg, Rows(g), InPlace(g) ? RowK(g) : 0),
        row_(row),
        store_(store),
        fused_rows_(fused_rows),
        pad_(g, g.icg) {
    if (!InPlace(g)) gather_.emplace(g, pad_);
    nblocks_ = (g.ocg + 15) / 16;
  }

  size_t ExternalBufferSize() const override {
    const ConvParams& p = geo_.p;
    return pad_.Bytes() + 64 + RowsBytes() + 64 + p.dstW * nblocks_ * 16 * sizeof(float) + 64;
  }

  void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
               const Epilogue& e) const override {
    const ConvParams& p = geo_.p;
    uint8_t* cursor = Align64(buf);
    uint16_t* padded = reinterpret_cast<uint16_t*>(cursor);
    // In place the guard follows the image at once.
    cursor += pad_.Bytes();
    if (gather_) cursor = Align64(cursor);
    uint16_t* rows = reinterpret_cast<uint16_t*>(cursor);
    cursor = Align64(cursor + RowsBytes());
    GemmRowArgs a;
    a.nblocks = nblocks_;
    a.width = p.dstW;
    a.out = reinterpret_cast<float*>(cursor);
    Im2RowArgs im{};
    if (!gather_) {
      a.pixel_stride = p.strideX * pad_.cp;
      a.ky_stride = p.dilationY * pad_.pw * pad_.cp;
      a.kx_stride = 0;
      a.kernel_y = p.kernelY;
      a.kernel_x = 1;
      a.pairs = RowK(geo_) / 2;
      std::memset(rows, 0, RowsBytes());  // the guard
    } else {
      im = gather_->Args(p, rows);
      im.npix = p.dstW;
      a.src = rows;
      a.pixel_stride = gather_->kp();
      a.ky_stride = a.kx_stride = 0;
      a.kernel_y = a.kernel_x = 1;
      a.pairs = Rows(geo_) / 2;  // zeros past K
    }
    FusedStoreArgs fused;
    const bool fuse = FusedRows(fused_rows_, e, &fused);
    for (size_t n = 0; n < geo_.batch; ++n) {
      pad_.Fill(geo_, src, n, padded);
      if (!gather_ && HalfPair(geo_)) {
        a.half_last = !AllFiniteBf16Avx512(padded, pad_.Bytes() / sizeof(uint16_t));
      }
      RunRows(
          n, a, row_, store_, e, dst,
          [&](size_t oy, size_t gr) {
            if (!gather_) {
              a.src = padded + oy * p.strideY * pad_.pw * pad_.cp;
              return;
            }
            im.src = padded + gr * geo_.icg;  // a.src: the rows gathered here
            im.p0 = oy * p.dstW;
            Im2RowAvx512(im);
          },
          fuse ? &fused : nullptr);
    }
  }

 private:
  static bool InPlace(const Geometry& g) { return g.p.group == 1 && g.p.dilationX == 1; }
  // The K rows of one kernel row read in place: a run of kernelX pixels.
  static size_t RowK(const Geometry& g) { return RoundUp(g.p.kernelX * g.icg, 2); }
  // Whether that run's last pair holds one value of the window.
  static bool HalfPair(const Geometry& g) { return RowK(g) != g.p.kernelX * g.icg; }
  // The gathered im2row rows of one output row, or in place the zero
  // guard after the padded source (the second value of the last row's
  // last pair read whole).
  size_t RowsBytes() const {
    return gather_ ? geo_.p.dstW * gather_->kp() * sizeof(uint16_t) : 64;
  }
  static size_t Rows(const Geometry& g) {
    return InPlace(g) ? g.p.kernelY * RowK(g) : RoundUp(g.p.kernelY * g.p.kernelX * g.icg, 2);
  }

  GemmRowFn row_;
  StoreRowFn store_;
  bool fused_rows_;  // row_ takes GemmRowArgs::fused
  PaddedSource pad_;
  std::optional<Im2RowGather> gather_;  // not in place
  size_t nblocks_;
};

}  // namespace

std::unique_ptr<Algorithm> MakeNhwcIm2Row(const Geometry& g, GemmRowFn row, StoreRowFn store,
                                          bool fused_rows) {
  return std::make_unique<NhwcIm2Row>(g, row, store, fused_rows);
}

std::unique_ptr<Algorithm> MakeAmxIm2Row(const Geometry& g, const AmxKernels& k) {
  return std::make_unique<AmxIm2Row>(g, k);
}
#endif

}  // namespace conv16b_internal
}  // namespace synops
