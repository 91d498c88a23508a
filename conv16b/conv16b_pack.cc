// Packing shared by the fast algorithms' drivers (conv16b_pack.h).
#include "conv16b/conv16b_pack.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "bf16/bf16.h"
#include "bf16/bf16_kernels.h"
#include "conv16b/conv16b_kernels.h"
#include "core/cpu.h"

namespace synops {
namespace conv16b_internal {

PaddedSource::PaddedSource(const Geometry& g, size_t icp_, bool shared_gap) {
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

void PaddedSource::Fill(const Geometry& g, const uint8_t* src, size_t n, uint16_t* out) const {
  const ConvParams& p = g.p;
  const size_t row = pw * cp;
  // Borders, before the rows are copied: the top rows and the first
  // row's left border; between two rows, a row's right border and the
  // next one's left (one gap); the last right border and the bottom rows.
  // A gap of at most 16 bytes is one 16-byte store (a stem's 2 x 3
  // channels: a memset call per row was 2.6% of the 3x3 stem), which may
  // run into the next row's pixels: they are copied after.
  uint16_t* const end = out + ph * row;
  std::memset(out, 0, (p.padY * row + p.padX * cp) * sizeof(uint16_t));
  const size_t gap = (pw - p.srcW) * cp;
  for (size_t y = 0; y + 1 < p.srcH; ++y) {
    uint16_t* at = out + (y + p.padY) * row + (p.padX + p.srcW) * cp;
    if (gap * sizeof(uint16_t) <= 16 && end - at >= 8) {
      std::memset(at, 0, 16);
    } else {
      std::memset(at, 0, gap * sizeof(uint16_t));
    }
  }
  uint16_t* last = out + (p.padY + p.srcH - 1) * row + (p.padX + p.srcW) * cp;
  std::memset(last, 0, static_cast<size_t>(end - last) * sizeof(uint16_t));
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

size_t L2ChunkBlocks(size_t nblocks, size_t block_bytes, size_t tile) {
  const size_t l2 = GetCacheSizes().l2;
  if (nblocks * block_bytes <= l2 / 2) return SIZE_MAX;
  const size_t most = std::max(tile, l2 / 4 / block_bytes / tile * tile);
  const size_t passes = (nblocks + most - 1) / most;
  return RoundUp((nblocks + passes - 1) / passes, tile);
}

void PackGroups(const Geometry& g, const float* weight, size_t icp, size_t rows, uint16_t* out,
                size_t ky_rows) {
  const ConvParams& p = g.p;
  if (ky_rows == 0) ky_rows = p.kernelX * icp;
  const size_t group_packed = PackPairInterleavedSize(rows, g.ocg, 16);
  std::vector<uint16_t> b(rows * g.ocg);
  for (size_t gr = 0; gr < p.group; ++gr) {
    std::fill(b.begin(), b.end(), uint16_t{0});
    for (size_t ky = 0; ky < p.kernelY; ++ky)
      for (size_t kx = 0; kx < p.kernelX; ++kx)
        for (size_t ic = 0; ic < g.icg; ++ic)
          for (size_t oc = 0; oc < g.ocg; ++oc)
            b[(ky * ky_rows + kx * icp + ic) * g.ocg + oc] =
                Fp32ToBf16(WeightAt(weight, g, gr * g.ocg + oc, ic, ky, kx));
    PackPairInterleavedKernels().Best().fn(b.data(), rows, g.ocg, 16, out + gr * group_packed);
  }
}

PackedGemm::PackedGemm(const Geometry& g, size_t icp, size_t rows, size_t ky_rows)
    : Algorithm(g),
      icp_(icp),
      rows_(rows),
      ky_rows_(ky_rows),
      group_packed_(PackPairInterleavedSize(rows, g.ocg, 16)) {}

void PackedGemm::SetWeights(const float* weight) {
  packed_.assign(group_packed_ * geo_.p.group, 0);
  PackGroups(geo_, weight, icp_, rows_, packed_.data(), ky_rows_);
}

}  // namespace conv16b_internal
}  // namespace synops
