// nhwc_gemm (conv16b_drivers.h): the direct convolution over the padded
// source and pair-interleaved weights, one GEMM row microkernel call per
// output row and group.
#include <algorithm>
#include <climits>
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
#include "core/aligned.h"
#include "core/cpu.h"

namespace synops {
namespace conv16b_internal {
namespace {

// A 1x1 stride-1 convolution without padding: its output rows' sources
// follow each other at the pixel stride (and NHWC dst rows too), so
// several output rows can run as one row call (NhwcGemm, NhwcGemmF32).
// `copied`: the source rows are copied one after another (NhwcGemmF32's
// ring) rather than read in place, so a stride also merges where the
// strided pixels tile each source row exactly (srcW == strideX * dstW:
// the ResNet downsampling shortcuts) and rows strideY apart are copied.
bool RowsMergeable(const ConvParams& p, bool copied = false) {
  const bool strided = copied && p.srcW == p.strideX * p.dstW;
  return p.kernelY == 1 && p.kernelX == 1 && (p.strideX == 1 || strided) &&
         (p.strideY == 1 || strided) && p.padY == 0 && p.padX == 0 && p.padH == 0 && p.padW == 0;
}

// Merged rows of `row_bytes` each (source and sums) that fit a quarter of
// the detected L2, at least one.
size_t RowsInQuarterL2(size_t row_bytes) {
  return std::max<size_t>(1, GetCacheSizes().l2 / 4 / row_bytes);
}

class NhwcGemm : public PackedGemm {
 public:
  NhwcGemm(const Geometry& g, GemmRowFn row, StoreRowFn store, bool fused_rows)
      : PackedGemm(g, RoundUp(g.icg, 2), g.p.kernelY * g.p.kernelX * RoundUp(g.icg, 2)),
        row_(row),
        store_(store),
        fused_rows_(fused_rows),
        pad_(g, RoundUp(g.icg, 2)) {
    const ConvParams& p = g.p;
    direct_ = p.srcT == DataType::k16b && p.srcF == TensorFormat::kNhwc && p.padY == 0 &&
              p.padX == 0 && p.padH == 0 && p.padW == 0 && g.icg % 2 == 0;
    nblocks_ = (g.ocg + 15) / 16;
    // A 1x1 stride-1 convolution without padding reads its output rows'
    // sources one after another: rows are merged into one row call of at
    // least kMergedWidth pixels, so the tiles are full width (14x14:
    // 12-pixel tiles with 24 accumulators instead of 7 + 7 with 14) and
    // the weights are streamed through once per merged row, with the sums
    // in at most a quarter of the detected L2. Where it fits, the merged
    // width is a multiple of kMergedMultiple pixels, so every tile is full
    // (56-pixel rows as 6 + ... + 6 + 5 x 4 had the 5-pixel tiles' set-up
    // and epilogue for fewer products; 3 rows are 28 x 6). Zen 5,
    // conv16b_onednn_bench, GFLOP/s, two rounds: 1x1 256->64 56x56
    // 495-498 -> 505-512, 64->256 454-460 -> 470-473, 256->256 506-507 ->
    // 506-519; 1x1 512->512 14x14 (4 rows -> 6) 524-525 -> 526-528,
    // 1024->256 529-532 -> 535-540.
    if (RowsMergeable(p)) {
      const size_t most = std::min(p.dstH, RowsInQuarterL2(p.dstW * nblocks_ * 16 * sizeof(float)));
      size_t rows = 1;
      while (rows < kMergedWidth &&
             (rows * p.dstW % kMergedMultiple != 0 || rows * p.dstW < kMergedWidth)) {
        ++rows;
      }
      if (rows <= most) {
        merge_ = rows;
      } else if (p.dstW < kMergedWidth) {
        merge_ = std::min((kMergedWidth + p.dstW - 1) / p.dstW, most);
      }
    }
    // Sums of a row call beyond half the L1d (1x1 64->256 56x56: 57 KB)
    // went to L2 and back between the row and its store: row calls of 4
    // blocks (a 6 x 4 tile's) at a time where they fit there.
    const size_t half_l1d = GetCacheSizes().l1d / 2;
    const size_t block_sums = merge_ * p.dstW * 16 * sizeof(float);
    const size_t fit = half_l1d / block_sums / 4 * 4;
    if (nblocks_ * block_sums > half_l1d && fit >= 4) chunk_ = fit;
    // Weights beyond half the L2 (3x3 256->256: 1.18 MB, more than Zen 5's
    // 1 MiB) in passes of 4-block tiles over every output row, the source
    // read again per pass (from L2 where it fits).
    if (merge_ < p.dstH) wchunk_ = L2ChunkBlocks(nblocks_, BlockElements() * sizeof(uint16_t), 4);
    const bool padded = p.padY != 0 || p.padX != 0 || p.padH != 0 || p.padW != 0;
    if (fused_rows && p.dstF == TensorFormat::kNhwc && g.ocg % 64 == 0 && !direct_ && padded) {
      BuildLists();
    }
    if (fused_rows && !direct_ && nblocks_ == 1) SetEdges();
  }

  size_t ExternalBufferSize() const override {
    return (direct_ || edges_ ? 0 : pad_.Bytes() + 64) +
           merge_ * geo_.p.dstW * nblocks_ * 16 * sizeof(float) + 64;
  }

  void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
               const Epilogue& e) const override {
    const ConvParams& p = geo_.p;
    uint8_t* cursor = Align64(buf);
    uint16_t* padded = nullptr;
    if (!direct_ && !edges_) {
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
    FusedStoreArgs fused;
    const bool fuse = FusedRows(fused_rows_, e, &fused);
    if (fuse && !lists_.empty()) return ForwardLists(src, padded, dst, a, &fused);
    if (edges_) {
      a.ky_stride = p.dilationY * p.srcW * p.srcC;
      a.kx_stride = p.dilationX * p.srcC;
      a.pixel_stride = p.strideX * p.srcC;
      a.pairs = geo_.icg / 2;
      a.edges = true;
      a.edge_lead = edge_lead_;
      a.edge_tail = edge_tail_;
    }
    for (size_t n = 0; n < geo_.batch; ++n) {
      const uint16_t* base = pad_.Image(geo_, src, n, direct_ || edges_, padded);
      RunRows(
          n, a, row_, store_, e, dst,
          [&](size_t oy, size_t gr) {
            TapRows(p, oy, &a.ky_begin, &a.ky_end);
            if (edges_) {
              // Pixel 1's window at kernel row ky_begin (GemmRowArgs::edges).
              const size_t y = oy * p.strideY + a.ky_begin * p.dilationY - p.padY;
              a.src = base + (y * p.srcW + p.strideX - p.padX) * p.srcC + gr * geo_.icg;
              return;
            }
            a.src = base + oy * p.strideY * pw * cp + gr * icp;
          },
          fuse ? &fused : nullptr, merge_, chunk_, wchunk_);
    }
  }

 private:
  static constexpr size_t kMergedWidth = 48;  // 4 tiles of 12 pixels
  static constexpr size_t kMergedMultiple = 12;  // tiles of 12, 6, 4 or 3 pixels

  // One tile of the pixel lists (GemmRowArgs::offsets), as x86_gemm::ListTile runs it.
  struct PixelList {
    size_t m, ky_begin, ky_end, kx_begin, kx_end;
    size_t offsets[kListPixels], pixels[kListPixels];
  };

  // The image's pixels in tiles of up to kListPixels by the taps they read
  // inside the image: with padding, row tiles carry the taps of the
  // padding columns (zeros) for the pixels at a row's ends and are narrow
  // where rows are (3x3 over 7x7: tiles of 4 + 3 pixels, 16 and 12
  // accumulators, 10% of the products on padding). The pixels of rows whose
  // kernel rows are all inside are grouped by their kernel columns inside
  // (the left edge pixels of every such row in one list, the middle ones
  // in another, ...), rows with kernel rows cut keep their whole row of
  // kernel columns (a corner pixel alone would be a 1-pixel tile); each
  // group in balanced tiles of up to kListPixels.
  void BuildLists() {
    const ConvParams& p = geo_.p;
    struct Group {
      size_t kyb, kye, kxb, kxe;
      std::vector<size_t> pixels;
    };
    std::vector<Group> groups;
    for (size_t oy = 0; oy < p.dstH; ++oy) {
      size_t kyb, kye;
      TapRows(p, oy, &kyb, &kye);
      const bool rows_cut = kyb != 0 || kye != p.kernelY;
      for (size_t ox = 0; ox < p.dstW; ++ox) {
        size_t kxb = 0, kxe = p.kernelX;
        if (!rows_cut) TapCols(p, ox, &kxb, &kxe);
        auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& gp) {
          return gp.kyb == kyb && gp.kye == kye && gp.kxb == kxb && gp.kxe == kxe;
        });
        if (it == groups.end()) it = groups.insert(groups.end(), Group{kyb, kye, kxb, kxe, {}});
        it->pixels.push_back(oy * p.dstW + ox);
      }
    }
    for (const Group& gp : groups) {
      const size_t n = gp.pixels.size(), count = (n + kListPixels - 1) / kListPixels;
      for (size_t t = 0, i = 0; t < count; ++t) {
        PixelList tile{};
        tile.m = n / count + (t < n % count ? 1 : 0);
        tile.ky_begin = gp.kyb;
        tile.ky_end = gp.kye;
        tile.kx_begin = gp.kxb;
        tile.kx_end = gp.kxe;
        for (size_t j = 0; j < tile.m; ++j, ++i) {
          const size_t oy = gp.pixels[i] / p.dstW, ox = gp.pixels[i] % p.dstW;
          tile.offsets[j] = (oy * p.strideY * pad_.pw + ox * p.strideX) * pad_.cp;
          tile.pixels[j] = gp.pixels[i];
        }
        lists_.push_back(tile);
      }
    }
  }

  // A BF16 NHWC source with padding is read in place by the rows of a
  // single block (GemmRowArgs::edges: the edge pixels read zeros at the
  // padding columns) where only each row's first and last pixels reach
  // the padding columns and every output row has a kernel row inside the
  // image. Group 4 3x3 64->64 28x28 spent 3% of its time on the padded
  // copy (Zen 5, conv16b_onednn_bench, two alternating interleaved runs:
  // 425-426 -> 436-439 GFLOP/s; oneDNN 435-438 in the same runs).
  void SetEdges() {
    const ConvParams& p = geo_.p;
    if (p.srcT != DataType::k16b || p.srcF != TensorFormat::kNhwc || geo_.icg % 2 != 0 ||
        geo_.icg / 2 > kEdgeZeroPairs || p.dstW < 3) {
      return;
    }
    const size_t reach = (p.kernelX - 1) * p.dilationX;  // a window's last column - its first
    // Pixel 1's first column and pixel dstW - 2's last one inside the row.
    if (p.strideX < p.padX || (p.dstW - 2) * p.strideX + reach >= p.srcW + p.padX) return;
    for (size_t oy = 0; oy < p.dstH; ++oy) {
      size_t kb, ke;
      TapRows(p, oy, &kb, &ke);
      if (kb >= ke) return;
    }
    edges_ = true;
    // Pixel 0's column at kx is kx * dilationX - padX; the last pixel's
    // (dstW - 1) * strideX + kx * dilationX - padX.
    edge_lead_ = std::min(p.kernelX, (p.padX + p.dilationX - 1) / p.dilationX);
    const size_t last = (p.dstW - 1) * p.strideX;
    edge_tail_ = last >= p.srcW + p.padX
                     ? 0
                     : std::min(p.kernelX, (p.srcW + p.padX - last + p.dilationX - 1) / p.dilationX);
  }

  // Forward through the pixel lists, fused: every tile for one chunk of
  // blocks (wchunk_) before the next.
  void ForwardLists(const uint8_t* src, uint16_t* padded, uint8_t* dst, GemmRowArgs& a,
                    FusedStoreArgs* fused) const {
    const ConvParams& p = geo_.p;
    const size_t es = fused->bf16 ? sizeof(uint16_t) : sizeof(float);
    a.fused = fused;
    for (size_t n = 0; n < geo_.batch; ++n) {
      const uint16_t* base = pad_.Image(geo_, src, n, false, padded);
      for (size_t w0 = 0; w0 < nblocks_; w0 += wchunk_) {
        a.nblocks = std::min(wchunk_, nblocks_ - w0);
        for (size_t gr = 0; gr < p.group; ++gr) {
          a.src = base + gr * pad_.icp;
          a.weight = GroupWeights(gr) + w0 * BlockElements();
          fused->channel_base = gr * geo_.ocg + w0 * 16;
          fused->dst = dst + (n * p.dstH * p.dstW * p.dstC + fused->channel_base) * es;
          for (const PixelList& t : lists_) {
            a.width = t.m;
            a.offsets = t.offsets;
            a.pixels = t.pixels;
            a.ky_begin = t.ky_begin;
            a.ky_end = t.ky_end;
            a.kx_begin = t.kx_begin;
            a.kx_end = t.kx_end;
            row_(a);
          }
        }
      }
    }
  }

  GemmRowFn row_;
  StoreRowFn store_;
  bool fused_rows_;  // row_ takes GemmRowArgs::fused
  PaddedSource pad_;
  bool direct_;
  bool edges_ = false;  // SetEdges: padded rows read in place
  size_t edge_lead_ = 0, edge_tail_ = 0;
  size_t nblocks_;
  size_t merge_ = 1;  // output rows per row call
  size_t chunk_ = SIZE_MAX;  // blocks per row call (RunRows)
  size_t wchunk_ = SIZE_MAX;  // blocks per pass over every output row (RunRows)
  std::vector<PixelList> lists_;  // BuildLists: Forward through them where fused
};

// The FP32 variants (x86 without AVX-512): the weights widened to FP32 at
// SetWeights and each padded source row widened to FP32 once, into a ring
// of the (kernelY - 1) * dilationY + 1 rows an output row reads (so it
// stays in cache: a whole FP32 image of 56x56x256 is 3.2 MB), so the
// microkernels' inner loops are loads and multiply-adds only. GEMM: one
// row call per output row and group, weights in blocks of 16 output
// channels (GemmRowF32Args). Depthwise: one row call per output row for
// every channel, weights [tap][cpad] (cpad = channels rounded up to 16; the
// kernel reads up to 15 channels past a row's last pixel, inside the ring's
// slack, and never stores them). A depthwise convolution with stride or
// dilation > 1 over a BF16 NHWC source widens its loads in the tile (per
// tap, or per column in the AVX2 3x3 stride-2 sliding tiles) instead
// (GemmRowF32Args::rows16): each source value feeds only a few
// taps there, and widening the rows first costs their FP32 writes and
// reloads. It reads the source in place (DirectRow: only the pixels at a
// row's ends read zero-padded copies of their columns); rows too narrow
// for that keep the FP32 ring. With `in_place` (a row that multiplies BF16
// sources without widening them, Avx512Bf16Dot) every BF16 NHWC
// depthwise reads the source this way, stride 1 included, and a row too
// narrow for a middle segment reads one zero-padded copy of all its columns;
// with `dot` those rows take the weights as BF16 values in the low half of
// each 32-bit lane (dot_), else as FP32 like the FP32 ring's (packed_).
// MakeNhwcDepthwiseWiden sets `in_place` without `dot` for kernels 3, 5 or
// 7 columns wide: the AVX2 and SSE4.1 sliding tiles widen each source
// vector as they load it (a 128-bit broadcast and a byte shuffle for AVX2)
// instead of reading the FP32 ring, and the rows are not widened first
// (Sapphire Rapids, SYNOPS_MAX_ISA=avx2, best of 3-4 rounds: 3x3 32ch
// 112x112 43 -> 47 GFLOP/s, 144ch 56x56 44 -> 48, 512ch 14x14 43 -> 48;
// 7x7 256ch 14x14 and SSE4.1 the same).
class NhwcGemmF32 : public Algorithm {
 public:
  NhwcGemmF32(const Geometry& g, GemmRowF32Fn row, StoreRowFn store, PlanarRowToF32Fn planar,
              RoundRowF32Fn round, bool depthwise, bool in_place = false, bool dot = false,
              bool fuse_rows = true, const RowsPerCall* rows_per_call = nullptr,
              bool lead_zero = false)
      : Algorithm(g),
        row_(row),
        store_(store),
        planar_(planar),
        round_(round),
        depthwise_(depthwise),
        dot_weights_(dot),
        fuse_rows_(fuse_rows) {
    const ConvParams& p = g.p;
    nblocks_ = (g.ocg + 15) / 16;
    block_ = p.kernelY * p.kernelX * g.icg * 16;
    cpad_ = RoundUp(p.dstC, 16);
    pw_ = p.srcW + p.padX + p.padW;
    span_ = (p.kernelY - 1) * p.dilationY + 1;
    // Depthwise: room for a copy of every column and both copies' slack.
    row_floats_ = RoundUp(pw_ * p.srcC + (depthwise ? 2 : 1) * kSlack, 16);
    if (depthwise && p.srcT == DataType::k16b && p.srcF == TensorFormat::kNhwc &&
        (in_place || p.strideX > 1 || p.dilationX > 1)) {
      // Output pixels [xl_, xr_) read only columns inside the source row, and
      // their last vector's channels past srcC (up to cpad_) stay inside it too.
      const size_t reach = (p.kernelX - 1) * p.dilationX;  // a window's last column - its first
      const size_t margin = (cpad_ - p.srcC + p.srcC - 1) / p.srcC;
      xl_ = (p.padX + p.strideX - 1) / p.strideX;
      const ptrdiff_t last = static_cast<ptrdiff_t>(p.srcW + p.padX) - 1 -
                             static_cast<ptrdiff_t>(margin + reach);  // largest x * strideX
      xr_ = last < 0 ? 0 : std::min<size_t>(p.dstW, static_cast<size_t>(last) / p.strideX + 1);
      // An edge segment of at least one whole tile (kEdgePixels): a tile of
      // one or two pixels has too few accumulators to cover the FMA latency.
      const size_t wl = xl_ > 0 ? std::max(xl_, kEdgePixels) : xl_;
      const size_t wr =
          xr_ < p.dstW ? std::min(xr_, p.dstW > kEdgePixels ? p.dstW - kEdgePixels : 0) : xr_;
      // Unless that leaves no middle segment where the fewest edge pixels
      // (those whose windows reach the padding) leave one: a strided row of
      // the per-tap tiles then keeps those and reads the rest in place,
      // instead of copying the whole row (or widening it into the ring).
      // 3x3 s2 over 14x14, Sapphire Rapids, synbench GFLOP/s, best of 2:
      // 576ch 36.1 -> 41.3 (avx512bf16::nhwc_depthwise_strided), 960ch 35.1
      // -> 38.9, 160ch 40.5 -> 43.2, AVX2 576ch 30.9 -> 33.0. Not for the
      // paired dot tiles (576ch 37.4 -> 30.7) nor at stride 1 (AVX2 3x3
      // 1024ch 7x7 50 -> 41).
      const bool fewest = wl >= wr && xl_ < xr_ && p.strideX > 1 && !dot_weights_;
      // The 3x3 stride-2 paired dot tiles (7 or 8 pixels) take pixel 0's
      // padding column as zeros (GemmRowF32Args::lead_zero): rows with no
      // other padding read wholly in place instead of copied (the copies
      // were a quarter of the time). Zen 5, synbench us, best of 3
      // alternating rounds, 3x3 s2: 576ch 14x14 6.31 -> 4.82, 192ch 28x28
      // 7.84 -> 5.69, 144ch 56x56 23.2 -> 19.1, 96ch 112x112 54.4 -> 52.2.
      // The AVX2 stride-2 sliding tiles take it too (`lead_zero`): 576ch
      // 14x14 was a 1-pixel tile from the left copy and a 6-pixel one,
      // now one 7-pixel tile (Zen 5, conv16b_bench SYNOPS_MAX_ISA=avx2,
      // three alternating rounds: 52.9-53.7 -> 62.9-64.3 GFLOP/s).
      lead_ = (dot_weights_ || lead_zero) && p.kernelY == 3 && p.kernelX == 3 && p.strideX == 2 &&
              p.dilationX == 1 && p.padX == 1 && xr_ == p.dstW && p.srcC % 16 == 0 &&
              p.dstW / ((p.dstW + kEdgePixels - 1) / kEdgePixels) >= kEdgePixels - 1;
      if (lead_) {
        xl_ = 0;
      } else if (!fewest) {
        xl_ = wl;
        xr_ = wr;
      }
      // No middle segment: the whole row from the left copy (BF16) where the
      // FP32 ring the rows would otherwise be widened into exceeds the L1d.
      // Depthwise 3x3 s2 over 14x14 on Sapphire Rapids (strided AVX512-BF16,
      // synbench, GFLOP/s ring -> copy): 576ch (ring 110 KiB) 29 -> 37, 960ch
      // 28 -> 35; but 160ch (30 KiB) 44 -> 43, 64ch 46 -> 40, 32ch 40 -> 35.
      const bool whole = xl_ >= xr_ && (in_place || span_ * row_floats_ * sizeof(float) >
                                                         GetCacheSizes().l1d);
      if (whole) xl_ = xr_ = p.dstW;
      left_cols_ = xl_ > 0 ? (xl_ - 1) * p.strideX + reach + 1 : 0;
      right_cols_ = xr_ < p.dstW ? (p.dstW - 1 - xr_) * p.strideX + reach + 1 : 0;
      direct_ = (xl_ < xr_ || whole) && p.kernelY <= kMaxDirectRows &&
                (left_cols_ + right_cols_) * p.srcC + 2 * kSlack <= row_floats_;
    }
    // A 1x1 stride-1 convolution without padding: merge_ output rows per
    // call, as one row of merge_ * dstW pixels (contiguous in the ring
    // and in NHWC dst), with the merged source rows and sums in a quarter
    // of the L2. Each weight block is read once per row call and the tiles
    // of a longer row are full width more often (56 pixels: six of 6 and
    // four of 5; 168: 28 of 6). AVX2 on a Zen 5 core (1 MiB L2, alternating
    // runs): 1x1 512->512 14x14 1.13-1.17 -> 1.05-1.09 ms, 1024->256
    // 1.14-1.17 -> 1.02-1.05; best of 5 in five alternations, 3 rows
    // merged: 256->64 56x56 1.02-1.06 -> 1.01-1.02, 64->256 1.06-1.09 ->
    // 1.03-1.05. Strided 1x1 layers whose pixels tile the source rows
    // merge too (RowsMergeable: the ring holds every strideY-th source
    // row): rows of 14 pixels ran as tiles of 5 + 5 + 4. Sapphire Rapids,
    // synbench, best of 3 alternating rounds, us: AVX2 1x1 s2 512->1024
    // 28x28 1971 -> 1882, 1024->2048 14x14 2479 -> 1986; AVX-512 1305 ->
    // 1221, 1533 -> 1329; 256->512 56x56 (28-pixel rows) unchanged.
    if (!depthwise && RowsMergeable(p, true)) {
      merge_ = std::min(p.dstH, RowsInQuarterL2((p.srcW * p.srcC + p.dstW * nblocks_ * 16) *
                                                sizeof(float)));
    }
    // Narrow output rows of other layers (3x3 512->512 7x7: AVX2 tiles of
    // 4 + 3 pixels, AVX-512 one of 7; 14x14: 5 + 5 + 4, 7 + 7) where the
    // widened source image fits a quarter of the L2: the image is widened
    // once and the rows whose windows stay inside it run as one call of
    // wrapping rows (RowsPerCall::kAny: AVX2, SSE4.1; tiles of full width)
    // or as calls of two rows (kTwo: the AVX-512 pair tiles, 2 x 7 pixels),
    // in ImageRows.
    if (!depthwise && rows_per_call != nullptr && merge_ == 1 && p.dstW < kWrapWidth) {
      pairs_ = *rows_per_call == RowsPerCall::kTwo;
      const ptrdiff_t pad = static_cast<ptrdiff_t>(p.padY);
      const ptrdiff_t reach = static_cast<ptrdiff_t>(span_) - 1 - pad;  // last kernel row - padY
      band_lo_ = (p.padY + p.strideY - 1) / p.strideY;
      const ptrdiff_t last = static_cast<ptrdiff_t>(p.srcH) - 1 - reach;  // largest oy * strideY
      band_hi_ = last < 0 ? 0 : std::min<size_t>(p.dstH, static_cast<size_t>(last) / p.strideY + 1);
      image_ = band_hi_ >= band_lo_ + 2 &&
               p.srcH * pw_ * p.srcC * sizeof(float) <= GetCacheSizes().l2 / 4;
      // Wrapping rows multiply the padding columns of their first and last
      // pixels (3x3 over 7x7: 21 taps a row where 19 count). Where those
      // are at least 1/16 of a row's taps the band runs as columns instead
      // (BandColumns), each skipping the kernel columns that read only
      // padding. Emerald Rapids, conv16b_bench SYNOPS_MAX_ISA=avx2, best
      // of 4 alternating rounds, ms: 3x3 512->512 7x7 3.15 -> 2.80 (2.86
      // -> 2.79, 3.01 -> 2.86 in two more runs), SSE4.1 9.05 -> 8.05. The
      // columns' tiles are narrower (a column's rows: 5 pixels over 7x7,
      // AVX2 tiles of up to 6): no faster at 14x14 (3x3 256->256, 2 of 42
      // taps: 2.73 -> 2.71) and slower at 3x3 s2 128->256 28x28 (1 of 42:
      // 1.44 -> 1.61), which stay rows.
      size_t inside = 0;
      for (size_t x = 0; x < p.dstW; ++x) {
        size_t kx_begin, kx_end;
        TapCols(p, x, &kx_begin, &kx_end);
        inside += kx_end - kx_begin;
      }
      columns_ = image_ && !pairs_ && (p.dstW * p.kernelX - inside) * 16 >= p.dstW * p.kernelX;
    }
    // FP32 weights beyond half the L2 (3x3 256->256: 2.4 MB) in passes of
    // 2-block tiles over every output row (ChunkedRows; each pass widens
    // the source rows again, a pass over the FP32 image).
    if (!depthwise && merge_ == 1 && p.dstH > 1) {
      wchunk_ = L2ChunkBlocks(nblocks_, block_ * sizeof(float), 2);
    }
  }

  size_t WeightBytes() const override {
    return (packed_.size() + dot_.size()) * sizeof(float) + packed16_.size() * sizeof(uint16_t);
  }

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
      if (direct_) {
        // The rows that split BF16 source vectors split these the same way.
        packed16_.resize(packed_.size());
        for (size_t i = 0; i < packed_.size(); ++i) packed16_[i] = Fp32ToBf16(packed_[i]);
      }
      if (dot_weights_) {
        // The dot row's weights: each BF16 value in the low half of its
        // 32-bit lane, where vdpbf16ps pairs it with a zero-extended source.
        dot_.assign(packed_.size(), 0.0f);
        for (size_t i = 0; i < packed_.size(); ++i) {
          uint32_t bits;
          std::memcpy(&bits, &packed_[i], sizeof(bits));
          bits >>= 16;
          std::memcpy(&dot_[i], &bits, sizeof(bits));
        }
      }
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
    const ConvParams& p = geo_.p;
    const size_t ld = depthwise_ ? cpad_ : nblocks_ * 16;
    const size_t sum_rows = image_ ? band_hi_ - band_lo_ : merge_;
    return RingFloats() * sizeof(float) + 64 + sum_rows * p.dstW * ld * sizeof(float) + 64;
  }

  void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
               const Epilogue& e) const override {
    const ConvParams& p = geo_.p;
    uint8_t* cursor = Align64(buf);
    float* ring = reinterpret_cast<float*>(cursor);
    cursor = Align64(cursor + RingFloats() * sizeof(float));
    float* sums = reinterpret_cast<float*>(cursor);
    std::vector<const float*> rows(p.kernelY);
    std::vector<ptrdiff_t> tag(span_);
    GemmRowF32Args a;
    a.rows = rows.data();
    a.pixel_stride = p.strideX * p.srcC;
    a.kx_stride = p.dilationX * p.srcC;
    a.kernel_y = p.kernelY;
    a.kernel_x = p.kernelX;
    a.channels = depthwise_ ? cpad_ : geo_.icg;
    a.nblocks = depthwise_ ? cpad_ / 16 : nblocks_;
    a.width = p.dstW;
    a.out = sums;
    a.prefetch = geo_.src_image * (p.srcT == DataType::k16b ? 2 : 4) > GetCacheSizes().l2;
    // NHWC output with an activation of a few FP32 operations: the row
    // applies the epilogue to the whole 16-channel blocks in registers,
    // and only the channel tail goes through `sums`.
    FusedStoreArgs fused;
    const size_t outc = depthwise_ ? p.dstC : geo_.ocg;  // output channels of a row call
    const bool fuse = fuse_rows_ && p.dstF == TensorFormat::kNhwc && outc >= 16 &&
                      WithFusedActivation(e.activation, [](auto) {});
    const size_t es = p.dstT == DataType::k16b ? 2 : 4;
    if (fuse) {
      fused.epilogue = &e;
      fused.channels = outc / 16 * 16;
      fused.pixel_stride = p.dstC;
      fused.bf16 = p.dstT == DataType::k16b;
      a.fused = &fused;
    }
    if (direct_) {
      // DirectRow's zero row, and its edge copies' zeros: the padding
      // columns and the slack, the same for every row (a row's copy writes
      // only its image columns, ImageValues; zeroing whole copies was 2.5%
      // of depthwise 3x3 512ch 14x14, whose rows are copied whole: AVX2,
      // Emerald Rapids, perf).
      uint16_t* zero = reinterpret_cast<uint16_t*>(ring);
      std::fill(zero, zero + row_floats_, uint16_t{0});
      const auto zero_padding = [&](uint16_t* out, ptrdiff_t col0, size_t cols) {
        const ValueRange image = ImageValues(col0, cols);
        std::fill(out, out + image.begin, uint16_t{0});
        std::fill(out + image.end, out + cols * p.srcC + kSlack, uint16_t{0});
      };
      const ptrdiff_t pad = static_cast<ptrdiff_t>(p.padX);
      for (size_t slot = 0; slot < span_; ++slot) {
        uint16_t* edge = Edge(ring, slot);
        zero_padding(edge, -pad, left_cols_);
        zero_padding(edge + left_cols_ * p.srcC + kSlack,
                     static_cast<ptrdiff_t>(xr_ * p.strideX) - pad, right_cols_);
      }
    }
    for (size_t n = 0; n < geo_.batch; ++n) {
      std::fill(tag.begin(), tag.end(), PTRDIFF_MIN);
      if (merge_ > 1) {
        rows[0] = ring;
        for (size_t oy = 0; oy < p.dstH; oy += merge_) {
          MergedRows(src, n, oy, std::min(merge_, p.dstH - oy), ring, sums, e,
                     fuse ? &fused : nullptr, es, dst, &a);
        }
        continue;
      }
      if (image_) {
        ImageRows(src, n, ring, rows.data(), sums, e, fuse ? &fused : nullptr, es, dst, &a);
        continue;
      }
      if (wchunk_ < nblocks_) {
        ChunkedRows(src, n, ring, tag.data(), rows.data(), sums, e, fuse ? &fused : nullptr, es,
                    dst, &a);
        continue;
      }
      for (size_t oy = 0; oy < p.dstH; ++oy) {
        const ptrdiff_t top = static_cast<ptrdiff_t>(oy * p.strideY) - static_cast<ptrdiff_t>(p.padY);
        TapRows(p, oy, &a.ky_begin, &a.ky_end);
        if (direct_) {
          a.offset = 0;
          a.weight = dot_weights_ ? dot_.data() : packed_.data();
          a.weight16 = packed16_.data();
          fused.channel_base = 0;
          DirectRow(src, n, top, ring, tag.data(), fuse ? &fused : nullptr,
                    dst + (n * p.dstH + oy) * p.dstW * p.dstC * es, es, sums, &a);
          const size_t done = fuse ? fused.channels : 0;
          if (done < p.dstC) store_(geo_, e, sums + done, cpad_, n, oy, done, p.dstC - done, dst);
          continue;
        }
        SetRows(src, n, top, a, ring, tag.data(), rows.data());
        if (depthwise_) {
          a.offset = 0;
          a.weight = packed_.data();
          size_t done = 0;
          if (fuse) {
            fused.channel_base = 0;
            fused.dst = dst + (n * p.dstH + oy) * p.dstW * p.dstC * es;
            done = fused.channels;
          }
          row_(a);
          if (done < p.dstC) store_(geo_, e, sums + done, cpad_, n, oy, done, p.dstC - done, dst);
          continue;
        }
        const size_t fused_channels = fuse ? fused.channels : 0;
        for (size_t gr = 0; gr < p.group; ++gr) {
          BlocksRow(n, oy, gr, 0, fused_channels, fuse ? &fused : nullptr, sums, e, es, dst, &a);
        }
      }
    }
  }

 private:
  static constexpr size_t kSlack = 16;          // floats past a row the depthwise kernel may read
  static constexpr size_t kMaxDirectRows = 16;  // kernelY of a direct_ depthwise
  static constexpr size_t kEdgePixels = 8;      // the depthwise tile's pixels
  static constexpr size_t kWrapWidth = 16;      // output rows narrower run as ImageRows

  // Source row y (inside the image) of item n as BF16 values in FP32,
  // zero-padded: [pw][srcC] (zero in the side padding and the slack).
  void FillRow(const uint8_t* src, size_t n, ptrdiff_t y, float* out) const {
    const ConvParams& p = geo_.p;
    std::fill(out, out + p.padX * p.srcC, 0.0f);
    std::fill(out + (p.padX + p.srcW) * p.srcC, out + row_floats_, 0.0f);
    float* mid = out + p.padX * p.srcC;
    const size_t count = p.srcW * p.srcC;
    const bool f32 = p.srcT == DataType::k32f;
    const size_t es = f32 ? 4 : 2;
    const uint8_t* image = src + n * geo_.src_image * es;
    if (p.srcF == TensorFormat::kNhwc) {
      const uint8_t* s = image + static_cast<size_t>(y) * count * es;
      if (f32) {
        round_(reinterpret_cast<const float*>(s), count, mid);
      } else {
        Bf16ToFp32Kernels().Best().fn(reinterpret_cast<const uint16_t*>(s), count, mid);
      }
      return;
    }
    // NCHW: channel c's pixels of row y at c * plane + y * srcW.
    planar_(image + static_cast<size_t>(y) * p.srcW * es, f32, p.srcH * p.srcW, p.srcC, p.srcW, mid);
  }

  // Ring slot `slot`'s edge copies (DirectRow): its second half.
  uint16_t* Edge(float* ring, size_t slot) const {
    return reinterpret_cast<uint16_t*>(ring + slot * row_floats_) + row_floats_;
  }

  // The values [begin, end) of an edge copy of source columns [col0, col0
  // + cols) that lie in the image (DirectRow copies them for each row;
  // the others are padding): possibly none, where the columns lie
  // entirely in the padding (a large stride, or a whole row copied), and
  // then no pointer is formed outside the row.
  struct ValueRange {
    size_t begin, end;
  };
  ValueRange ImageValues(ptrdiff_t col0, size_t cols) const {
    const ConvParams& p = geo_.p;
    const ptrdiff_t lo = std::max<ptrdiff_t>(col0, 0);
    const ptrdiff_t hi = std::min<ptrdiff_t>(col0 + static_cast<ptrdiff_t>(cols), p.srcW);
    const size_t lead = std::min(static_cast<size_t>(lo - col0), cols) * p.srcC;
    return {lead, hi > lo ? lead + static_cast<size_t>(hi - lo) * p.srcC : lead};
  }

  size_t RingFloats() const {
    const ConvParams& p = geo_.p;
    if (image_) return (p.srcH - 1) * pw_ * p.srcC + row_floats_;
    return merge_ > 1 ? (merge_ - 1) * p.srcW * p.srcC + row_floats_ : span_ * row_floats_;
  }

  // The ring rows of the kernel rows of an output row whose window starts
  // at source row `top`: only those inside the image (a.ky_begin ..
  // a.ky_end, TapRows) are filled, each source row once while it stays in
  // the ring (tag[slot] == y); the others point at the ring, unread.
  void SetRows(const uint8_t* src, size_t n, ptrdiff_t top, const GemmRowF32Args& a,
               float* ring, ptrdiff_t* tag, const float** rows) const {
    const ConvParams& p = geo_.p;
    const ptrdiff_t span = static_cast<ptrdiff_t>(span_);
    for (size_t ky = 0; ky < p.kernelY; ++ky) {
      rows[ky] = ring;
      if (ky < a.ky_begin || ky >= a.ky_end) continue;
      const ptrdiff_t y = top + static_cast<ptrdiff_t>(ky * p.dilationY);
      const size_t slot = static_cast<size_t>(((y % span) + span) % span);
      float* row = ring + slot * row_floats_;
      if (tag[slot] != y) {
        FillRow(src, n, y, row);
        tag[slot] = y;
      }
      rows[ky] = row;
    }
  }

  // Every output row of item n, group by group, in chunks of wchunk_
  // blocks of output channels: all rows of a chunk, then the next, so the
  // chunk's weights stay in the L2. A chunk's row call stores its sums at
  // its own pitch (chunk blocks); its fused stores start at its channel.
  void ChunkedRows(const uint8_t* src, size_t n, float* ring, ptrdiff_t* tag, const float** rows,
                   float* sums, const Epilogue& e, FusedStoreArgs* fused, size_t es, uint8_t* dst,
                   GemmRowF32Args* a) const {
    const ConvParams& p = geo_.p;
    const size_t fused_channels = fused != nullptr ? fused->channels : 0;
    for (size_t gr = 0; gr < p.group; ++gr) {
      for (size_t b0 = 0; b0 < nblocks_; b0 += wchunk_) {
        a->nblocks = std::min(nblocks_, b0 + wchunk_) - b0;
        for (size_t oy = 0; oy < p.dstH; ++oy) {
          const ptrdiff_t top =
              static_cast<ptrdiff_t>(oy * p.strideY) - static_cast<ptrdiff_t>(p.padY);
          TapRows(p, oy, &a->ky_begin, &a->ky_end);
          SetRows(src, n, top, *a, ring, tag, rows);
          BlocksRow(n, oy, gr, b0, fused_channels, fused, sums, e, es, dst, a);
        }
      }
    }
    a->nblocks = nblocks_;
    if (fused != nullptr) fused->channels = fused_channels;
  }

  // Every output row of item n from its whole source image, widened into
  // the ring once (rows pw_ * srcC floats apart), per group and chunk of
  // weight blocks (ChunkedRows' wchunk_, else all): the rows whose windows
  // leave the image one call each, skipping the kernel rows outside
  // (TapRows), the rows [band_lo_, band_hi_) between as one call of
  // wrapping rows (row_pixels = dstW), or two per call (pairs_). Each pixel
  // adds its taps in the same order either way: the same bits as one call
  // per row.
  void ImageRows(const uint8_t* src, size_t n, float* ring, const float** rows, float* sums,
                 const Epilogue& e, FusedStoreArgs* fused, size_t es, uint8_t* dst,
                 GemmRowF32Args* a) const {
    const ConvParams& p = geo_.p;
    const size_t pitch = pw_ * p.srcC;
    for (size_t y = 0; y < p.srcH; ++y) FillRow(src, n, static_cast<ptrdiff_t>(y), ring + y * pitch);
    const size_t fused_channels = fused != nullptr ? fused->channels : 0;
    const size_t chunk = std::min(wchunk_, nblocks_);
    a->row_stride = p.strideY * pitch;
    for (size_t gr = 0; gr < p.group; ++gr) {
      for (size_t b0 = 0; b0 < nblocks_; b0 += chunk) {
        a->nblocks = std::min(nblocks_, b0 + chunk) - b0;
        for (size_t oy = 0; oy < p.dstH;) {
          const bool band = oy >= band_lo_ && oy < band_hi_;
          const size_t rest = band ? band_hi_ - oy : 1;  // rows left in the band
          const size_t count = pairs_ ? std::min<size_t>(2, rest) : rest;
          const ptrdiff_t top =
              static_cast<ptrdiff_t>(oy * p.strideY) - static_cast<ptrdiff_t>(p.padY);
          TapRows(p, oy, &a->ky_begin, &a->ky_end);
          for (size_t ky = 0; ky < p.kernelY; ++ky) {
            const bool inside = ky >= a->ky_begin && ky < a->ky_end;
            rows[ky] = inside ? ring + static_cast<size_t>(top + static_cast<ptrdiff_t>(
                                                                       ky * p.dilationY)) * pitch
                              : ring;
          }
          if (band && columns_ && fused != nullptr && fused_channels == geo_.ocg) {
            BandColumns(n, oy, count, gr, b0, fused, es, dst, a);
            oy += count;
            continue;
          }
          a->width = count * p.dstW;
          a->row_pixels = count > 1 ? p.dstW : 0;
          BlocksRow(n, oy, gr, b0, fused_channels, fused, sums, e, es, dst, a, count);
          oy += count;
        }
      }
    }
    a->nblocks = nblocks_;
    a->width = p.dstW;
    a->row_pixels = 0;
    if (fused != nullptr) fused->channels = fused_channels;
  }

  // The weights of group gr's blocks from b0 and, with `fused`, the fused
  // stores' first channel and their dst at pixel x of output row oy (for
  // BlocksRow and BandColumns).
  void SetBlocks(size_t n, size_t oy, size_t x, size_t gr, size_t b0, size_t es, uint8_t* dst,
                 FusedStoreArgs* fused, GemmRowF32Args* a) const {
    const ConvParams& p = geo_.p;
    const size_t channel = gr * geo_.ocg + b0 * 16;
    a->weight = packed_.data() + (gr * nblocks_ + b0) * block_;
    if (fused != nullptr) {
      fused->channel_base = channel;
      fused->dst = dst + (((n * p.dstH + oy) * p.dstW + x) * p.dstC + channel) * es;
    }
  }

  // Output rows [oy, oy + count) of ImageRows' band, group gr, blocks [b0,
  // b0 + a->nblocks) (the ring rows set), every channel fused: one call per
  // output column, its pixels one per row (pixel_stride strideY source
  // rows), the kernel columns that read only padding for the column
  // skipped (TapCols), the stores a dst row apart.
  void BandColumns(size_t n, size_t oy, size_t count, size_t gr, size_t b0, FusedStoreArgs* fused,
                   size_t es, uint8_t* dst, GemmRowF32Args* a) const {
    const ConvParams& p = geo_.p;
    const size_t pixel_stride = a->pixel_stride;
    a->width = count;
    a->row_pixels = 0;
    a->pixel_stride = a->row_stride;
    fused->channels = a->nblocks * 16;
    fused->pixel_stride = p.dstW * p.dstC;
    for (size_t x = 0; x < p.dstW; ++x) {
      a->offset = gr * geo_.icg + x * pixel_stride;
      TapCols(p, x, &a->kx_begin, &a->kx_end);
      SetBlocks(n, oy, x, gr, b0, es, dst, fused, a);
      row_(*a);
    }
    a->pixel_stride = pixel_stride;
    a->kx_begin = 0;
    a->kx_end = SIZE_MAX;
    fused->pixel_stride = p.dstC;
  }

  // The GEMM row call of output rows [oy, oy + count) (count > 1: merged,
  // one row of count * dstW pixels), group gr, blocks [b0, b0 +
  // a->nblocks) (the ring rows set): its whole 16-channel blocks within
  // the row's first fused_channels stored by the row (fused), the rest
  // from the sums at the call's pitch through store_, row by row.
  void BlocksRow(size_t n, size_t oy, size_t gr, size_t b0, size_t fused_channels,
                 FusedStoreArgs* fused, float* sums, const Epilogue& e, size_t es, uint8_t* dst,
                 GemmRowF32Args* a, size_t count = 1) const {
    const ConvParams& p = geo_.p;
    const size_t c0 = b0 * 16, nc = std::min(geo_.ocg, (b0 + a->nblocks) * 16) - c0;
    a->offset = gr * geo_.icg;
    SetBlocks(n, oy, 0, gr, b0, es, dst, fused, a);
    size_t done = 0;  // channels the row stored itself
    if (fused != nullptr) {
      fused->channels = fused_channels > c0 ? std::min(fused_channels - c0, nc) / 16 * 16 : 0;
      done = fused->channels;
    }
    row_(*a);
    const size_t ld = a->nblocks * 16;
    for (size_t r = 0; r < count && done < nc; ++r) {
      store_(geo_, e, sums + r * p.dstW * ld + done, ld, n, oy + r, gr * geo_.ocg + c0 + done,
             nc - done, dst);
    }
  }

  // Output rows [oy, oy + count) of a merge_ convolution in one row call
  // per group: the source rows one after another in the ring (each
  // FillRow's zero slack overwritten by the next row).
  void MergedRows(const uint8_t* src, size_t n, size_t oy, size_t count, float* ring, float* sums,
                  const Epilogue& e, FusedStoreArgs* fused, size_t es, uint8_t* dst,
                  GemmRowF32Args* a) const {
    const ConvParams& p = geo_.p;
    for (size_t r = 0; r < count; ++r) {
      FillRow(src, n, (oy + r) * p.strideY, ring + r * p.srcW * p.srcC);
    }
    a->width = count * p.dstW;
    a->ky_begin = 0;
    a->ky_end = 1;
    const size_t fused_channels = fused != nullptr ? fused->channels : 0;
    for (size_t gr = 0; gr < p.group; ++gr) {
      BlocksRow(n, oy, gr, 0, fused_channels, fused, sums, e, es, dst, a, count);
    }
  }

  // One depthwise output row of a direct_ convolution: the pixels
  // [xl_, xr_) read the BF16 source rows in place; the few at either end
  // read zero-padded copies of the columns they cover (in the second half
  // of ring slot y mod span_, made once per source row y: tag[slot] == y),
  // and rows outside the image read the zero row (the first half of slot 0).
  void DirectRow(const uint8_t* src, size_t n, ptrdiff_t top, float* ring, ptrdiff_t* tag,
                 FusedStoreArgs* fused, uint8_t* row_dst, size_t es, float* sums,
                 GemmRowF32Args* a) const {
    const ConvParams& p = geo_.p;
    const uint16_t* zero = reinterpret_cast<const uint16_t*>(ring);
    const uint16_t* image = reinterpret_cast<const uint16_t*>(src) + n * geo_.src_image;
    const uint16_t* left[kMaxDirectRows];
    const uint16_t* mid[kMaxDirectRows];
    const uint16_t* right[kMaxDirectRows];
    for (size_t ky = 0; ky < p.kernelY; ++ky) {
      const ptrdiff_t y = top + static_cast<ptrdiff_t>(ky * p.dilationY);
      if (y < 0 || y >= static_cast<ptrdiff_t>(p.srcH)) {
        left[ky] = mid[ky] = right[ky] = zero;
        continue;
      }
      const uint16_t* row = image + static_cast<size_t>(y) * p.srcW * p.srcC;
      // Only a middle segment has xl_ * strideX >= padX (a whole row read
      // from the left copy can end before the padding does).
      mid[ky] = lead_ ? row : xl_ < xr_ ? row + (xl_ * p.strideX - p.padX) * p.srcC : zero;
      if (lead_) continue;  // no edge copies
      const ptrdiff_t span = static_cast<ptrdiff_t>(span_);
      const size_t slot = static_cast<size_t>(((y % span) + span) % span);
      uint16_t* edge = Edge(ring, slot);
      uint16_t* edge_right = edge + left_cols_ * p.srcC + kSlack;
      left[ky] = edge;
      right[ky] = edge_right;
      if (tag[slot] == y) continue;
      tag[slot] = y;
      // Columns [col0, col0 + cols) of the row to out; the columns outside
      // the image stay zero (Forward).
      const auto copy = [&](ptrdiff_t col0, size_t cols, uint16_t* out) {
        const ValueRange image = ImageValues(col0, cols);
        if (image.end > image.begin) {
          const size_t lo = static_cast<size_t>(std::max<ptrdiff_t>(col0, 0));
          std::memcpy(out + image.begin, row + lo * p.srcC,
                      (image.end - image.begin) * sizeof(uint16_t));
        }
      };
      const ptrdiff_t pad = static_cast<ptrdiff_t>(p.padX);
      copy(-pad, left_cols_, edge);
      copy(static_cast<ptrdiff_t>(xr_ * p.strideX) - pad, right_cols_, edge_right);
    }
    const auto run = [&](size_t x0, size_t x1, const uint16_t* const* rows) {
      if (x0 >= x1) return;
      a->rows16 = rows;
      a->width = x1 - x0;
      a->out = sums + x0 * cpad_;
      if (fused != nullptr) fused->dst = row_dst + x0 * p.dstC * es;
      row_(*a);
    };
    run(0, xl_, left);
    a->lead_zero = lead_ ? 1 : 0;
    run(xl_, xr_, mid);
    a->lead_zero = 0;
    run(xr_, p.dstW, right);
  }

  GemmRowF32Fn row_;
  StoreRowFn store_;
  PlanarRowToF32Fn planar_;
  RoundRowF32Fn round_;
  bool depthwise_, dot_weights_, fuse_rows_, direct_ = false;
  bool lead_ = false;  // DirectRow: one in-place segment from pixel 0 (lead_zero)
  bool image_ = false;  // ImageRows, its band of wrapping rows [band_lo_, band_hi_)
  bool pairs_ = false;  // ImageRows' band in calls of two rows
  bool columns_ = false;  // ImageRows' band in calls of one column (BandColumns)
  size_t band_lo_ = 0, band_hi_ = 0;
  size_t xl_ = 0, xr_ = 0, left_cols_ = 0, right_cols_ = 0;  // DirectRow's segments
  size_t nblocks_, block_, cpad_, pw_, span_, row_floats_;
  size_t merge_ = 1;  // output rows per row call (1x1 convolutions only)
  size_t wchunk_ = SIZE_MAX;  // blocks of output channels per pass over the rows (ChunkedRows)
  AlignedVector<float> packed_;
  AlignedVector<float> dot_;  // dot_weights_: packed_'s BF16 bits in the low halves
  AlignedVector<uint16_t> packed16_;  // direct_: packed_ as BF16
};

}  // namespace

std::unique_ptr<Algorithm> MakeNhwcGemmF32(const Geometry& g, GemmRowF32Fn row, StoreRowFn store,
                                           PlanarRowToF32Fn planar, RoundRowF32Fn round,
                                           bool fused_rows, RowsPerCall rows) {
  return std::make_unique<NhwcGemmF32>(g, row, store, planar, round, false, false, false,
                                       fused_rows, &rows);
}

std::unique_ptr<Algorithm> MakeNhwcDepthwiseF32(const Geometry& g, GemmRowF32Fn row,
                                                StoreRowFn store, PlanarRowToF32Fn planar,
                                                RoundRowF32Fn round) {
  return std::make_unique<NhwcGemmF32>(g, row, store, planar, round, true);
}

std::unique_ptr<Algorithm> MakeNhwcDepthwiseInPlace(const Geometry& g, GemmRowF32Fn row,
                                                    StoreRowFn store, PlanarRowToF32Fn planar,
                                                    RoundRowF32Fn round) {
  return std::make_unique<NhwcGemmF32>(g, row, store, planar, round, true, true, true);
}

std::unique_ptr<Algorithm> MakeNhwcDepthwiseWiden(const Geometry& g, GemmRowF32Fn row,
                                                  StoreRowFn store, PlanarRowToF32Fn planar,
                                                  RoundRowF32Fn round, bool lead_zero) {
  const size_t kx = g.p.kernelX;
  return std::make_unique<NhwcGemmF32>(g, row, store, planar, round, true,
                                       kx == 3 || kx == 5 || kx == 7, false, true, nullptr,
                                       lead_zero);
}

std::unique_ptr<Algorithm> MakeNhwcGemm(const Geometry& g, GemmRowFn row, StoreRowFn store,
                                        bool fused_rows) {
  return std::make_unique<NhwcGemm>(g, row, store, fused_rows);
}

}  // namespace conv16b_internal
}  // namespace synops
