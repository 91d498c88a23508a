// The register-tiled GEMM row of conv16b_kernels.h, templated on how a pair of
// BF16 products is accumulated (vdpbf16ps, or widening to FP32 and two FMAs).
// Included by the per-ISA files, each compiled with its own -m flags.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <utility>

#include "conv16b/conv16b_kernels.h"

namespace synops {
namespace conv16b_internal {
namespace x86_gemm {
// Internal linkage: each kernel file compiles these with its own ISA flags,
// and one file's copy must never stand in for another's (SIGILL on a CPU
// without the wider ISA).
namespace {

// Pixel m's source pair in Tile: base[m / 9] plus 0 .. 8 pixel strides
// (stride[0] = one), each one x86 address (a base, one of 4 stride
// registers times 1, 2, 4 or 8), so 28 pixels take 8 general registers,
// not 28 offsets (most of them spilled; 12 x 2 tiles with an offset per
// pixel reloaded two from the stack in every pair).
template <int M, int NV>
__attribute__((always_inline)) inline const uint16_t* PixelAt(const char* const* base,
                                                             const size_t* stride, int m) {
  constexpr int kIndex[9] = {0, 0, 0, 1, 0, 2, 1, 3, 0};
  constexpr size_t kScale[9] = {0, 1, 2, 1, 4, 1, 2, 1, 8};
  const int r = m % 9;
  const char* at = base[m / 9] + (r == 0 ? 0 : stride[kIndex[r]] * kScale[r]);
  return reinterpret_cast<const uint16_t*>(at);
}

template <class Dot, class = void>
struct HasFusedStore : std::false_type {};
template <class Dot>
struct HasFusedStore<Dot, std::void_t<decltype(Dot::kFusedStore)>> : std::true_type {};

template <class Dot, class = void>
struct HasAccumulateAt : std::false_type {};
template <class Dot>
struct HasAccumulateAt<Dot, std::void_t<decltype(&Dot::AccumulateAt)>> : std::true_type {};

// One pair of K for Tile's M pixels: the NV weight vectors at w, each
// pixel's pair broadcast (kHalf: its first value only, Dot::BroadcastLow).
template <class Dot, int M, int NV, bool kHalf>
__attribute__((always_inline)) inline void PairStep(__m512 (&acc)[M][NV], const char* const* base,
                                                    const size_t* stride, const uint16_t* w,
                                                    size_t block_stride) {
  typename Dot::W wv[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) wv[v] = Dot::LoadW(w + v * block_stride);
#pragma GCC unroll 28
  for (int m = 0; m < M; ++m) {
    const uint16_t* p = PixelAt<M, NV>(base, stride, m);
    // A single block: each pair feeds one product, so its broadcast is
    // embedded in the vdpbf16ps (group 4 3x3 64->64 28x28 +3%; 12 x 2
    // tiles with two embedded broadcasts per pair ran 14% slower).
    if constexpr (NV == 1 && !kHalf && HasAccumulateAt<Dot>::value) {
      acc[m][0] = Dot::AccumulateAt(acc[m][0], p, wv[0]);
      continue;
    }
    const typename Dot::S sv = kHalf ? Dot::BroadcastLow(p) : Dot::Broadcast(p);
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[m][v] = Dot::Accumulate(acc[m][v], sv, wv[v]);
  }
}

// A tile's sums of pixels x.. and the call's channels c.. to a.out, or with
// a.fused through the epilogue of Dot::StoreFused to the dst (where Dot
// has one).
template <class Dot, int M, int NV>
__attribute__((always_inline)) inline void StoreTile(const GemmRowArgs& a, __m512 (&acc)[M][NV],
                                                     size_t x, size_t c) {
  if constexpr (HasFusedStore<Dot>::value) {
    if (a.fused != nullptr) {
      return Dot::template StoreFused<M, NV>(acc, *a.fused, [x](int m) { return x + m; }, c);
    }
  }
  const size_t ld = a.nblocks * 16;
  float* out = a.out + x * ld + c;
#pragma GCC unroll 28
  for (int m = 0; m < M; ++m)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) _mm512_storeu_ps(out + m * ld + v * 16, acc[m][v]);
}

// Tile of M pixels x NV blocks of 16 output channels; all accumulators stay
// in registers (6 x 4, 12 x 2 or 28 x 1 of the 32 zmm registers). kHalf:
// each tap's last pair holds one value (GemmRowArgs::half_last). The sums
// of pixels x.. and the call's channels c.. go to a.out, or with a.fused
// through the epilogue of Dot::StoreFused to the dst (where Dot has one).
// Software prefetches tried on the AVX512-BF16 1x1 layers (Zen 5, against
// oneDNN in one binary): the next tile's source lines, the weights 4-16
// pairs ahead, the tile's dst lines by prefetchw: each within +-1%, not kept.
// Nor (Zen 5, one binary, 3 alternating rounds): non-temporal stores of an
// FP32 dst (1x1 64->256 56x56, 3.2 MB of dst, within +-2%); each tile run
// over all the row's 4-block groups before the next tile, so that a dst
// pixel's channels are written together: 0.95-0.97x the speed at 1x1
// 256->256 56x56 (BF16 and FP32 dst) and 64->256 (FP32 dst).
template <class Dot, int M, int NV, bool kHalf = false>
void Tile(const GemmRowArgs& a, const uint16_t* src, const uint16_t* weight, size_t block_stride,
          size_t x, size_t c) {
  // Every loop over M and NV is unrolled so acc stays in registers (GCC
  // keeps the array in memory otherwise).
  __m512 acc[M][NV];
#pragma GCC unroll 28
  for (int m = 0; m < M; ++m)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[m][v] = _mm512_setzero_ps();
  constexpr int kBases = (M + 8) / 9;
  const size_t ps = a.pixel_stride * sizeof(uint16_t);
  const size_t stride[4] = {ps, 3 * ps, 5 * ps, 7 * ps};
  const size_t ky_end = a.ky_end < a.kernel_y ? a.ky_end : a.kernel_y;
  // The taps in (ky, kx) order, walked by running pointers (their weights
  // follow each other; products of ky, kx and a.pairs per tap had put the
  // addresses on the stack), each advanced only while a tap follows: no
  // pointer is formed past the source.
  const size_t full = a.pairs - (kHalf ? 1 : 0);  // with kHalf the last one holds one value
  const uint16_t* w = weight + a.ky_begin * a.kernel_x * a.pairs * 32;
  const size_t ky_bytes = a.ky_stride * sizeof(uint16_t), kx_bytes = a.kx_stride * sizeof(uint16_t);
  const char* row = reinterpret_cast<const char*>(src + a.ky_begin * a.ky_stride);
  for (size_t ky = a.ky_begin; ky < ky_end; ++ky) {
    const char* tap = row;
    for (size_t kx = 0; kx < a.kernel_x; ++kx) {
      const char* base[kBases];
      base[0] = tap;
      if (kx + 1 < a.kernel_x) tap += kx_bytes;
#pragma GCC unroll 4
      for (int j = 1; j < kBases; ++j) base[j] = base[0] + j * 9 * stride[0];
      for (size_t p = 0; p < full; ++p, w += 32) {
        PairStep<Dot, M, NV, false>(acc, base, stride, w, block_stride);
#pragma GCC unroll 4
        for (int j = 0; j < kBases; ++j) base[j] += 4;
      }
      if constexpr (kHalf) {
        PairStep<Dot, M, NV, true>(acc, base, stride, w, block_stride);
        w += 32;
      }
    }
    if (ky + 1 < ky_end) row += ky_bytes;
  }
  StoreTile<Dot, M, NV>(a, acc, x, c);
}

// A single block's tile over a padded row read in place (GemmRowArgs::
// edges; 3 <= M): `src` is the tile's pixel 1 at tap (ky_begin, 0).
// Pixels 1 .. M - 2 read every tap there, pixel 0 and pixel M - 1 too
// except, in the row's first and last tiles, at the padding columns: there
// they read kPaddingZeros, the products (and their order) of the zero-padded
// copy the other rows read. Pixels 0 and M - 1 have a register each, the
// others PixelAt's bases from pixel 1. Group 4 3x3 64->64 28x28 (a tile of
// 28 pixels per row and group) spent 3% of its time copying the source.

template <class Dot, int M>
void EdgeTile(const GemmRowArgs& a, const uint16_t* src, const uint16_t* weight, size_t,
              size_t x, size_t c) {
  static_assert(M >= 3, "pixels 0 and M - 1 are not pixel 1");
  constexpr int kMid = M - 2;
  __m512 acc[M][1];
#pragma GCC unroll 28
  for (int m = 0; m < M; ++m) acc[m][0] = _mm512_setzero_ps();
  constexpr int kBases = (kMid + 8) / 9;
  const size_t ps = a.pixel_stride * sizeof(uint16_t);
  const size_t stride[4] = {ps, 3 * ps, 5 * ps, 7 * ps};
  const size_t ky_end = a.ky_end < a.kernel_y ? a.ky_end : a.kernel_y;
  const size_t lead = x == 0 ? a.edge_lead : 0;
  const size_t tail = x + M == a.width ? a.edge_tail : SIZE_MAX;
  const char* const zeros = reinterpret_cast<const char*>(kPaddingZeros);
  const uint16_t* w = weight + a.ky_begin * a.kernel_x * a.pairs * 32;
  const size_t ky_bytes = a.ky_stride * sizeof(uint16_t), kx_bytes = a.kx_stride * sizeof(uint16_t);
  const char* row = reinterpret_cast<const char*>(src);
  for (size_t ky = a.ky_begin; ky < ky_end; ++ky) {
    const char* tap = row;  // pixel 1
    for (size_t kx = 0; kx < a.kernel_x; ++kx) {
      const char* base[kBases];
      base[0] = tap;
#pragma GCC unroll 4
      for (int j = 1; j < kBases; ++j) base[j] = base[0] + j * 9 * stride[0];
      const bool with_first = kx >= lead, with_last = kx < tail;
      // Pixels 0 and M - 1 skip the padding columns' products (the reference's taps).
      const char* first = with_first ? tap - ps : zeros;
      const char* last = with_last ? tap + kMid * ps : zeros;
      if (kx + 1 < a.kernel_x) tap += kx_bytes;
      const auto pairs = [&](auto first_on, auto last_on) __attribute__((always_inline)) {
        for (size_t p = 0; p < a.pairs; ++p, w += 32, first += 4, last += 4) {
          const typename Dot::W wv = Dot::LoadW(w);
          if constexpr (decltype(first_on)::value) {
            acc[0][0] = Dot::AccumulateAt(acc[0][0], reinterpret_cast<const uint16_t*>(first), wv);
          }
#pragma GCC unroll 28
          for (int m = 0; m < kMid; ++m) {
            acc[m + 1][0] = Dot::AccumulateAt(acc[m + 1][0], PixelAt<kMid, 1>(base, stride, m), wv);
          }
          if constexpr (decltype(last_on)::value) {
            acc[M - 1][0] =
                Dot::AccumulateAt(acc[M - 1][0], reinterpret_cast<const uint16_t*>(last), wv);
          }
#pragma GCC unroll 4
          for (int j = 0; j < kBases; ++j) base[j] += 4;
        }
      };
      if (with_first && with_last) {
        pairs(std::true_type{}, std::true_type{});
      } else if (with_first) {
        pairs(std::true_type{}, std::false_type{});
      } else if (with_last) {
        pairs(std::false_type{}, std::true_type{});
      } else {
        pairs(std::false_type{}, std::false_type{});
      }
    }
    if (ky + 1 < ky_end) row += ky_bytes;
  }
  StoreTile<Dot, M, 1>(a, acc, x, c);
}

// Tile over a list of a.width <= kListM pixels (GemmRowArgs::offsets),
// NV blocks, taps [ky_begin, ky_end) x [kx_begin, kx_end), stored through
// Dot::StoreFused to dst pixels a.pixels[m]. Pixel m's pairs are read at
// p + d[m] (p: pixel 0's running address, d[m] a byte distance), one
// general register per pixel as in Tile.
constexpr int kListM = static_cast<int>(kListPixels);

template <class Dot, int M, int NV>
void ListTile(const GemmRowArgs& a, const uint16_t* weight, size_t block_stride, size_t c) {
  __m512 acc[M][NV];
#pragma GCC unroll 6
  for (int m = 0; m < M; ++m)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[m][v] = _mm512_setzero_ps();
  ptrdiff_t d[M];
#pragma GCC unroll 6
  for (int m = 0; m < M; ++m) {
    d[m] = (static_cast<ptrdiff_t>(a.offsets[m]) - static_cast<ptrdiff_t>(a.offsets[0])) *
           static_cast<ptrdiff_t>(sizeof(uint16_t));
  }
  const size_t ky_end = a.ky_end < a.kernel_y ? a.ky_end : a.kernel_y;
  const size_t kx_end = a.kx_end < a.kernel_x ? a.kx_end : a.kernel_x;
  const size_t tap_elements = a.pairs * 32;
  const uint16_t* w = weight + (a.ky_begin * a.kernel_x + a.kx_begin) * tap_elements;
  const size_t w_skip = (a.kernel_x - (kx_end - a.kx_begin)) * tap_elements;
  const size_t ky_bytes = a.ky_stride * sizeof(uint16_t), kx_bytes = a.kx_stride * sizeof(uint16_t);
  const char* row = reinterpret_cast<const char*>(a.src + a.offsets[0] + a.ky_begin * a.ky_stride +
                                                  a.kx_begin * a.kx_stride);
  for (size_t ky = a.ky_begin; ky < ky_end; ++ky) {
    const char* tap = row;
    for (size_t kx = a.kx_begin; kx < kx_end; ++kx) {
      const char* p = tap;
      if (kx + 1 < kx_end) tap += kx_bytes;
      for (size_t q = 0; q < a.pairs; ++q, w += 32, p += 4) {
        typename Dot::W wv[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) wv[v] = Dot::LoadW(w + v * block_stride);
#pragma GCC unroll 6
        for (int m = 0; m < M; ++m) {
          const typename Dot::S sv =
              Dot::Broadcast(reinterpret_cast<const uint16_t*>(p + d[m]));
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) acc[m][v] = Dot::Accumulate(acc[m][v], sv, wv[v]);
        }
      }
    }
    if (ky + 1 < ky_end) {
      row += ky_bytes;
      w += w_skip;
    }
  }
  Dot::template StoreFused<M, NV>(acc, *a.fused, [&a](int m) { return a.pixels[m]; }, c);
}

template <class Dot, size_t... M>
constexpr std::array<void (*)(const GemmRowArgs&, const uint16_t*, size_t, size_t),
                     sizeof...(M) + 1>
ListTileTable(std::index_sequence<M...>) {
  return {nullptr, ListTile<Dot, static_cast<int>(M) + 1, 4>...};
}

constexpr int kTileM = 12;

// Tile<Dot, 1..kMax, NV>, indexed by the pixel count (0: none).
using TileFn = void (*)(const GemmRowArgs&, const uint16_t*, const uint16_t*, size_t, size_t,
                        size_t);
template <class Dot, int NV, bool kHalf = false, size_t... M>
constexpr std::array<TileFn, sizeof...(M) + 1> TileTable(std::index_sequence<M...>) {
  return {nullptr, Tile<Dot, static_cast<int>(M) + 1, NV, kHalf>...};
}

// Pixels per tile of a single 16-channel block (a group of 16 output
// channels): Dot::kTileM1 where the traits give it (up to 28 accumulators:
// a single block has too few products per broadcast to cover the latency
// of vdpbf16ps otherwise), else kTileM.
template <class Dot, class = void>
struct TileM1 : std::integral_constant<int, kTileM> {};
template <class Dot>
struct TileM1<Dot, std::void_t<decltype(Dot::kTileM1)>>
    : std::integral_constant<int, Dot::kTileM1> {};

// Pixels per tile of 4 blocks where the traits give Dot::kTileM4 (one
// broadcast per 4 products where 12 x 2 tiles have one per 2), else 0: no
// such tiles (the FP32 traits' two weight registers per block leave no
// room for 4 blocks).
template <class Dot, class = void>
struct TileM4 : std::integral_constant<int, 0> {};
template <class Dot>
struct TileM4<Dot, std::void_t<decltype(Dot::kTileM4)>>
    : std::integral_constant<int, Dot::kTileM4> {};

// The row's pixels in tiles of balanced widths, at most max_m each (14
// pixels: 7 + 7, not 12 + 2; 28: 10 + 9 + 9, not 12 + 12 + 4: a narrow
// tile has too few accumulators to cover the latency of vdpbf16ps or of
// the FMA pair), through tiles[width] for block nb.
template <size_t N>
void RowTiles(const GemmRowArgs& a, const std::array<TileFn, N>& tiles, size_t max_m, size_t nb,
              size_t block_stride) {
  const size_t count = (a.width + max_m - 1) / max_m;
  const size_t base = count != 0 ? a.width / count : 0, extra = count != 0 ? a.width % count : 0;
  for (size_t t = 0, x = 0; t < count; ++t) {
    const size_t m = base + (t < extra ? 1 : 0);
    tiles[m](a, a.src + x * a.pixel_stride, a.weight + nb * block_stride, block_stride, x,
             nb * 16);
    x += m;
  }
}

// GemmRow's tiles, each tap's last pair whole or half (kHalf: the tiles
// of the stems read in place). A single block takes up to TileM1 pixels
// per tile, or kTileM with half pairs (16 tiles fewer to compile).
template <class Dot, bool kHalf>
struct GemmTiles {
  static constexpr auto k1 =
      TileTable<Dot, 1, kHalf>(std::make_index_sequence<kHalf ? kTileM : TileM1<Dot>::value>());
  static constexpr auto k2 = TileTable<Dot, 2, kHalf>(std::make_index_sequence<kTileM>());
  static constexpr auto k4 = TileTable<Dot, 4, kHalf>(std::make_index_sequence<TileM4<Dot>::value>());
  static constexpr size_t kM1 = kHalf ? kTileM : TileM1<Dot>::value;
};

// EdgeTile<Dot, M> for a single block, M >= 3 (GemmRowArgs::edges rows
// are at least 3 pixels wide, so RowTiles' balanced tiles are too).
template <class Dot, size_t... M>
constexpr std::array<TileFn, sizeof...(M) + 1> EdgeTileTable(std::index_sequence<M...>) {
  return {nullptr, (M + 1 >= 3 ? EdgeTile<Dot, std::max<int>(static_cast<int>(M) + 1, 3)>
                               : nullptr)...};
}

template <class Dot, bool kHalf>
void GemmRowTiles(const GemmRowArgs& a) {
  using T = GemmTiles<Dot, kHalf>;
  const size_t block_stride = a.kernel_y * a.kernel_x * a.pairs * 32;
  size_t nb = 0;
  if (TileM4<Dot>::value != 0) {
    for (; nb + 4 <= a.nblocks; nb += 4) {
      RowTiles(a, T::k4, TileM4<Dot>::value, nb, block_stride);
    }
  }
  for (; nb + 2 <= a.nblocks; nb += 2) RowTiles(a, T::k2, kTileM, nb, block_stride);
  if (nb < a.nblocks) RowTiles(a, T::k1, T::kM1, nb, block_stride);
}

template <class Dot>
void GemmRow(const GemmRowArgs& a) {
  if constexpr (HasFusedStore<Dot>::value && TileM4<Dot>::value >= kListM) {
    if (a.offsets != nullptr) {
      static constexpr auto kTiles = ListTileTable<Dot>(std::make_index_sequence<kListM>());
      const size_t block_stride = a.kernel_y * a.kernel_x * a.pairs * 32;
      for (size_t nb = 0; nb < a.nblocks; nb += 4) {
        kTiles[a.width](a, a.weight + nb * block_stride, block_stride, nb * 16);
      }
      return;
    }
  }
  if constexpr (HasAccumulateAt<Dot>::value) {
    if (a.edges) {
      static constexpr auto kTiles =
          EdgeTileTable<Dot>(std::make_index_sequence<TileM1<Dot>::value>());
      return RowTiles(a, kTiles, TileM1<Dot>::value, 0, 0);
    }
  }
  if (a.half_last) return GemmRowTiles<Dot, true>(a);
  GemmRowTiles<Dot, false>(a);
}

// The compute-peak loops of the benchmark: `step` on 24 independent
// accumulators per iteration, more than latency x throughput on current
// cores (a 12-accumulator VDPBF16PS loop was latency-bound on Zen 5: 412
// GFLOP/s where 24 gave 445 and oneDNN reached 459), fully unrolled so
// they live in registers (GCC otherwise keeps the array in memory and the
// loop measures store forwarding). Returns the steps run.
template <class Step>
inline uint64_t PeakLoop(uint64_t iterations, Step step) {
  constexpr int kAcc = 24;  // + the step's two operands: 26 of the 32 registers
  __m512 acc[kAcc];
  for (int j = 0; j < kAcc; ++j) acc[j] = _mm512_set1_ps(static_cast<float>(j));
  for (uint64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 24
    for (int j = 0; j < kAcc; ++j) acc[j] = step(acc[j]);
  }
  __m512 sum = acc[0];
  for (int j = 1; j < kAcc; ++j) sum = _mm512_add_ps(sum, acc[j]);
  volatile float sink = _mm512_reduce_add_ps(sum);
  (void)sink;
  return iterations * kAcc;
}

inline int32_t LoadPair(const uint16_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

}  // namespace
}  // namespace x86_gemm
}  // namespace conv16b_internal
}  // namespace synops
