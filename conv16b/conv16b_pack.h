// Source and weight packing shared by the fast algorithms' drivers: the
// zero-padded BF16 NHWC copy of a source image and the pair-interleaved
// weight matrices of every group.
#ifndef SYNOPS_CONV16B_CONV16B_PACK_H_
#define SYNOPS_CONV16B_CONV16B_PACK_H_

#include <cstddef>
#include <cstdint>

#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_kernels.h"
#include "core/aligned.h"

namespace synops {
namespace conv16b_internal {

inline size_t RoundUp(size_t v, size_t m) { return (v + m - 1) / m * m; }
inline uint8_t* Align64(uint8_t* p) {
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

  PaddedSource(const Geometry& g, size_t icp_, bool shared_gap = false);
  // Pixels of the last row's right border past Bytes() (zero them).
  size_t Spill(const ConvParams& p) const { return p.padX + p.srcW + p.padW - pw; }
  size_t Bytes() const { return ph * pw * cp * sizeof(uint16_t); }
  // Fills `out` from batch item n of `src`.
  void Fill(const Geometry& g, const uint8_t* src, size_t n, uint16_t* out) const;
  // Batch item n as a kernel reads it: `src` in place when `direct` (a BF16
  // NHWC source the kernel can read unpadded), else Fill()ed into `padded`.
  const uint16_t* Image(const Geometry& g, const uint8_t* src, size_t n, bool direct,
                        uint16_t* padded) const {
    if (direct) return reinterpret_cast<const uint16_t*>(src) + n * g.src_image;
    Fill(g, src, n, padded);
    return padded;
  }
};

// Every group's weights as pair-interleaved (w = 16) `rows` x ocg matrices
// at out + gr * PackPairInterleavedSize(rows, ocg, 16): row ky * ky_rows +
// kx * icp + ic holds tap (ky, kx) of input channel ic < icg; the other
// rows are zero. ky_rows: the rows of one kernel row, kernelX * icp by
// default (0).
void PackGroups(const Geometry& g, const float* weight, size_t icp, size_t rows, uint16_t* out,
                size_t ky_rows = 0);

// Blocks of output channels per pass over every output row where a
// group's weights (nblocks blocks of block_bytes) exceed half the detected
// L2 (they were streamed from L3 for every output row otherwise): whole
// tiles of `tile` blocks whose weights fit a quarter of it (at least one
// tile), the passes as even as the tiles allow. SIZE_MAX (one pass) where
// the weights fit. The GEMM drivers (NhwcGemm, NhwcGemmF32, AmxGemm).
size_t L2ChunkBlocks(size_t nblocks, size_t block_bytes, size_t tile);

// The algorithms whose weights are PackGroups' matrices: `rows` K rows per
// group, input channels padded to `icp`, `ky_rows` per kernel row.
class PackedGemm : public Algorithm {
 public:
  PackedGemm(const Geometry& g, size_t icp, size_t rows, size_t ky_rows = 0);

  size_t WeightBytes() const override { return packed_.size() * sizeof(uint16_t); }
  void SetWeights(const float* weight) override;

 protected:
  const uint16_t* GroupWeights(size_t gr) const { return packed_.data() + gr * group_packed_; }
  // Elements of one block of 16 output channels of a group (its K rows).
  size_t BlockElements() const { return rows_ * 16; }

  // Every output row and group of batch item n, one GEMM row call per
  // `merge` output rows and group: set_src(oy, gr) points a.src at output
  // row oy's source, `row` fills a.out with the sums of a.width = merge *
  // dstW pixels (merge > 1 only where the rows' sources follow each other
  // at the pixel stride: 1x1, stride 1, no padding) and `store` writes each
  // row to dst. Each row call takes at most `chunk` blocks of 16 output
  // channels (all of a.nblocks by default), its sums stored before the
  // next call, so that they can stay in L1 (NhwcGemm). With `wchunk`, the
  // blocks run in chunks of that many blocks, every output row for one
  // chunk before the next: its weights stay in L2 across the rows. With
  // `fused` (FusedRows: a row that takes GemmRowArgs::fused, an NHWC dst,
  // whole blocks, an activation it applies) the row stores to dst itself.
  template <class SetSrc>
  void RunRows(size_t n, GemmRowArgs& a, GemmRowFn row, StoreRowFn store, const Epilogue& e,
               uint8_t* dst, SetSrc set_src, FusedStoreArgs* fused = nullptr, size_t merge = 1,
               size_t chunk = SIZE_MAX, size_t wchunk = SIZE_MAX) const {
    const ConvParams& p = geo_.p;
    const size_t nblocks = a.nblocks;
    const size_t block_stride = BlockElements();
    const size_t es = p.dstT == DataType::k16b ? sizeof(uint16_t) : sizeof(float);
    a.fused = fused;
    for (size_t w0 = 0; w0 < nblocks; w0 += wchunk) {
      const size_t wend = wchunk < nblocks - w0 ? w0 + wchunk : nblocks;
      for (size_t oy = 0; oy < p.dstH; oy += merge) {
        const size_t count = merge < p.dstH - oy ? merge : p.dstH - oy;
        a.width = count * p.dstW;
        for (size_t gr = 0; gr < p.group; ++gr) {
          set_src(oy, gr);
          for (size_t b0 = w0; b0 < wend; b0 += a.nblocks) {
            a.nblocks = chunk < wend - b0 ? chunk : wend - b0;
            a.weight = GroupWeights(gr) + b0 * block_stride;
            const size_t ld = a.nblocks * 16, c0 = b0 * 16;
            if (fused != nullptr) {
              fused->channel_base = gr * geo_.ocg + c0;
              fused->dst = dst + ((n * p.dstH + oy) * p.dstW * p.dstC + gr * geo_.ocg + c0) * es;
            }
            row(a);
            if (fused != nullptr) continue;  // the row stored them
            const size_t nc = geo_.ocg - c0 < ld ? geo_.ocg - c0 : ld;
            for (size_t r = 0; r < count; ++r) {
              store(geo_, e, a.out + r * p.dstW * ld, ld, n, oy + r, gr * geo_.ocg + c0, nc,
                    dst);
            }
          }
        }
      }
    }
    a.nblocks = nblocks;
    a.fused = nullptr;
  }

  // Whether RunRows may fuse the epilogue into a row that can (fused_rows):
  // NHWC dst, whole blocks of 16 output channels, identity or ReLU. Sets
  // up *f for it.
  bool FusedRows(bool fused_rows, const Epilogue& e, FusedStoreArgs* f) const {
    const ConvParams& p = geo_.p;
    if (!fused_rows || p.dstF != TensorFormat::kNhwc || geo_.ocg % 16 != 0 ||
        (e.activation != Activation::kIdentity && e.activation != Activation::kRelu)) {
      return false;
    }
    f->epilogue = &e;
    f->channels = geo_.ocg;
    f->pixel_stride = p.dstC;
    f->bf16 = p.dstT == DataType::k16b;
    f->bias_zero_or_large = e.bias != nullptr && BiasZeroOrLarge(e.bias, p.dstC);
    return true;
  }

 private:
  size_t icp_, rows_, ky_rows_, group_packed_;
  AlignedVector<uint16_t> packed_;  // 64-byte aligned: AMX tile rows must not straddle lines
};

}  // namespace conv16b_internal
}  // namespace synops

#endif  // SYNOPS_CONV16B_CONV16B_PACK_H_
