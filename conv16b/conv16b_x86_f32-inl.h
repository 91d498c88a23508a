// The FP32 GEMM row, its output epilogue and compute-peak loop, templated
// on a vector type V (AVX2 + FMA: 8 lanes; SSE4.1: 4 lanes, multiply then
// add). BF16 values widened to FP32 are exact, and so is the product of two
// of them (8 + 8 significant bits), so multiply-then-add rounds exactly
// like FMA: both ISAs give the same bits. Included by conv16b_avx2.cc and
// conv16b_sse41.cc, each compiled with its own -m flags; the AVX-512 files
// instantiate the GEMM and depthwise rows on 16 lanes (Avx512F32 of
// conv16b_x86_epilogue-inl.h: avx512::nhwc_gemm and the FP32 and strided
// BF16 depthwise).
#ifndef SYNOPS_CONV16B_CONV16B_X86_F32_INL_H_
#define SYNOPS_CONV16B_CONV16B_X86_F32_INL_H_

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "conv16b/conv16b.h"
#include "conv16b/conv16b_internal.h"
#include "core/exp_constants.h"
#include "core/strided_addresses.h"
#include "conv16b/conv16b_kernels.h"

namespace synops {
namespace conv16b_internal {
namespace x86_f32 {
// Internal linkage: each kernel file compiles these with its own ISA flags,
// and one file's copy must never stand in for another's (SIGILL on a CPU
// without the wider ISA).
namespace {

// e^x for x in [-87, 88]: the Cody-Waite exp of core/hwy_math-inl.h's
// ExpClamped (the same operations; FMA where V has it), 2^n added to the
// exponent field.
template <class V>
inline typename V::T ExpClamped(typename V::T x) {
  using namespace exp_constants;  // NOLINT(build/namespaces)
  const auto magic = V::Set1(kExpMagic);
  const auto t = V::MulAdd(x, V::Set1(kLog2e), magic);
  const auto n = V::Sub(t, magic);
  const auto r = V::NegMulAdd(n, V::Set1(kLn2Lo), V::NegMulAdd(n, V::Set1(kLn2Hi), x));
  auto q = V::Set1(kExpPoly[0]);
#pragma GCC unroll 6
  for (int i = 1; i < 7; ++i) q = V::MulAdd(q, r, V::Set1(kExpPoly[i]));
  return V::AddToExponent(q, t);
}

// The activations whose SPEC formula is a few FP32 operations, in the same
// operand order as the AVX-512 ActivateV (conv16b_x86_epilogue-inl.h), and
// Swish and Mish as ActivateKernels() computes them, on V::kLanes channels
// starting at channel c.
template <class V, Activation A>
inline typename V::T Activate(typename V::T v, const float* p, size_t c) {
  const auto zero = V::Zero();
  if constexpr (A == Activation::kSwish || A == Activation::kMish || A == Activation::kGelu) {
    const auto clamp = [](typename V::T x) {
      return V::Min(V::Max(x, V::Set1(-87.0f)), V::Set1(88.0f));
    };
    typename V::T r;
    if constexpr (A == Activation::kGelu) {
      // v Phi(v), Phi(v) = erfc(-v / sqrt 2) / 2 (conv16b_act_hwy.cc).
      const auto one = V::Set1(1.0f);
      const auto x = V::Mul(V::Max(v, V::Sub(zero, v)), V::Set1(0.70710678118654752440f));
      const auto t = V::Div(one, V::MulAdd(x, V::Set1(0.5f), one));
      auto q = V::Set1(kGeluErfcPoly[0]);
#pragma GCC unroll 9
      for (int i = 1; i < 10; ++i) q = V::MulAdd(q, t, V::Set1(kGeluErfcPoly[i]));
      const auto arg = V::Max(V::NegMulAdd(x, x, q), V::Set1(-80.0f));
      const auto half = V::Mul(V::Mul(t, ExpClamped<V>(arg)), V::Set1(0.5f));
      r = V::Mul(v, V::Blend(V::Greater(zero, v), V::Sub(one, half), half));
    } else if constexpr (A == Activation::kSwish) {
      // v / (1 + e^(-v p0)); e^80 already makes the quotient negligible.
      const auto arg = V::Min(V::Mul(V::Sub(zero, v), V::Set1(p[0])), V::Set1(80.0f));
      r = V::Div(v, V::Add(V::Set1(1.0f), ExpClamped<V>(clamp(arg))));
    } else {
      // v > p0 ? v : v * n / (n + 2), n = e (e + 2), e = e^min(v, 20).
      const auto e = ExpClamped<V>(clamp(V::Min(v, V::Set1(20.0f))));
      const auto n = V::Mul(e, V::Add(e, V::Set1(2.0f)));
      r = V::Blend(V::Greater(v, V::Set1(p[0])),
                   V::Mul(v, V::Div(n, V::Add(n, V::Set1(2.0f)))), v);
    }
    return V::Blend(V::Unordered(v, v), r, v);  // NaN stays NaN
  } else if constexpr (A == Activation::kIdentity) {
    return v;
  } else if constexpr (A == Activation::kRelu) {
    return V::Max(zero, v);
  } else if constexpr (A == Activation::kLeakyRelu) {
    return V::Add(V::Max(zero, v), V::Mul(V::Set1(p[0]), V::Min(zero, v)));
  } else if constexpr (A == Activation::kRestrictRange) {
    return V::Min(V::Max(V::Set1(p[0]), v), V::Set1(p[1]));
  } else if constexpr (A == Activation::kPrelu) {
    return V::Add(V::Max(zero, v), V::Mul(V::LoadU(p + c), V::Min(zero, v)));
  } else if constexpr (A == Activation::kHswish) {
    const auto shift = V::Set1(p[0]);
    const auto t = V::Max(V::Add(V::Min(v, shift), shift), zero);
    return V::Mul(V::Mul(t, V::Set1(p[1])), v);
  } else {
    static_assert(A == Activation::kHardSigmoid, "activation");
    const auto t = V::Add(V::Mul(v, V::Set1(p[0])), V::Set1(p[1]));
    return V::Max(zero, V::Min(t, V::Set1(1.0f)));
  }
}

// Traits with kReluPack (AVX2, SSE4.1) have BF16 stores that apply ReLU to
// sums not yet activated within the rounding and pack (x > 0 ? x : +0, NaN
// kept): the depthwise tiles' fused pixel pairs (StoreBf16SplitRelu) and
// StoreNhwc (StoreBf16Relu), and the GEMM tiles' Store1 and Store2
// (StoreBf16Relu, StoreBf16x2Relu).
template <class V, class = void>
struct HasReluPack : std::false_type {};
template <class V>
struct HasReluPack<V, std::void_t<decltype(V::kReluPack)>> : std::true_type {};
// A BF16 store of activation A takes the *Relu stores.
template <class V, Activation A, bool kBf16>
constexpr bool kStoreReluPack = kBf16 && A == Activation::kRelu && HasReluPack<V>::value;

// Where a tile's sums go, one or two vectors (2 * kLanes channels) at a
// time. ToSums: the row of sums, out[x][c] (the depthwise row's ld,
// its padded channel count, is nblocks * 16 too).
template <class V>
class ToSums {
 public:
  explicit ToSums(const GemmRowF32Args& a) : out_(a.out), ld_(a.nblocks * 16) {}
  static constexpr bool kBiasInSums = false;
  typename V::T Init(size_t) const { return V::Zero(); }
  void Store1(size_t x, size_t c, typename V::T v) const { V::Store(out_ + x * ld_ + c, v); }
  // Pixels x and x + 1, one vector each.
  void StorePixels2(size_t x, size_t c, typename V::T v0, typename V::T v1) const {
    Store1(x, c, v0);
    Store1(x + 1, c, v1);
  }
  void Store2(size_t x, size_t c, typename V::T v0, typename V::T v1) const {
    Store1(x, c, v0);
    Store1(x, c + V::kLanes, v1);
  }
  // Pixel x's channels [c, c + 2 * kLanes) from their even and odd
  // channels' sums (DepthwiseTileBf16x2).
  void StoreEvenOdd(size_t x, size_t c, typename V::T even, typename V::T odd) const {
    typename V::T lo, hi;
    V::Interleave(even, odd, &lo, &hi);
    Store2(x, c, lo, hi);
  }

 private:
  float* out_;
  size_t ld_;
};

// ToDst: bias, activation A and the store to the NHWC dst straight from
// the registers (GemmRowF32Args::fused), the operations of StoreNhwc.
template <class V, Activation A, bool kBf16, bool kBiased = false>
class ToDst {
 public:
  explicit ToDst(const GemmRowF32Args& a)
      : bias_(a.fused->epilogue->bias + a.fused->channel_base),
        params_(a.fused->epilogue->params),
        base_(a.fused->channel_base),
        dst_(a.fused->dst),
        stride_(a.fused->pixel_stride) {}
  // kBiased: the tile starts its sums at the bias (Init) and the stores add none.
  static constexpr bool kBiasInSums = kBiased;
  typename V::T Init(size_t c) const { return kBiased ? V::LoadU(bias_ + c) : V::Zero(); }
  typename V::T Biased(typename V::T v, size_t c) const {
    return kBiased ? v : V::Add(v, V::LoadU(bias_ + c));
  }
  void Store1(size_t x, size_t c, typename V::T v) const {
    const size_t at = x * stride_ + c;
    if constexpr (kReluPack) {
      return V::StoreBf16Relu(reinterpret_cast<uint16_t*>(dst_) + at, Biased(v, c));
    }
    v = Activate<V, A>(Biased(v, c), params_, base_ + c);
    if (kBf16) {
      V::StoreBf16(reinterpret_cast<uint16_t*>(dst_) + at, v);
    } else {
      V::StoreU(reinterpret_cast<float*>(dst_) + at, v);
    }
  }
  void StorePixels2(size_t x, size_t c, typename V::T v0, typename V::T v1) const {
    const size_t at = x * stride_ + c;
    if constexpr (kReluPack) {
      uint16_t* p = reinterpret_cast<uint16_t*>(dst_) + at;
      return V::StoreBf16SplitRelu(p, p + stride_, Biased(v0, c), Biased(v1, c));
    }
    v0 = Activate<V, A>(Biased(v0, c), params_, base_ + c);
    v1 = Activate<V, A>(Biased(v1, c), params_, base_ + c);
    if (kBf16) {
      uint16_t* p = reinterpret_cast<uint16_t*>(dst_) + at;
      V::StoreBf16Split(p, p + stride_, v0, v1);
    } else {
      V::StoreU(reinterpret_cast<float*>(dst_) + at, v0);
      V::StoreU(reinterpret_cast<float*>(dst_) + at + stride_, v1);
    }
  }
  void Store2(size_t x, size_t c, typename V::T v0, typename V::T v1) const {
    if constexpr (kReluPack) {
      return V::StoreBf16x2Relu(reinterpret_cast<uint16_t*>(dst_) + x * stride_ + c,
                                Biased(v0, c), Biased(v1, c + V::kLanes));
    }
    v0 = Activate<V, A>(Biased(v0, c), params_, base_ + c);
    v1 = Activate<V, A>(Biased(v1, c + V::kLanes), params_, base_ + c + V::kLanes);
    const size_t at = x * stride_ + c;
    if (kBf16) {
      V::StoreBf16x2(reinterpret_cast<uint16_t*>(dst_) + at, v0, v1);
    } else {
      V::StoreU(reinterpret_cast<float*>(dst_) + at, v0);
      V::StoreU(reinterpret_cast<float*>(dst_) + at + V::kLanes, v1);
    }
  }
  // As ToSums::StoreEvenOdd. To a BF16 dst with the bias in the sums and
  // an activation without per-channel parameters, the split sums need no
  // interleaving: the activation applies to them as they are, and the
  // BF16 rounding puts each channel in its place (StoreBf16EvenOdd).
  void StoreEvenOdd(size_t x, size_t c, typename V::T even, typename V::T odd) const {
    if constexpr (kBf16 && kBiased && A != Activation::kPrelu) {
      V::StoreBf16EvenOdd(reinterpret_cast<uint16_t*>(dst_) + x * stride_ + c,
                          Activate<V, A>(even, params_, 0), Activate<V, A>(odd, params_, 0));
    } else {
      typename V::T lo, hi;
      V::Interleave(even, odd, &lo, &hi);
      Store2(x, c, lo, hi);
    }
  }

 private:
  static constexpr bool kReluPack = kStoreReluPack<V, A, kBf16>;
  const float* bias_;
  const float* params_;
  size_t base_;
  uint8_t* dst_;
  size_t stride_;
};

// Traits whose GEMM tiles give each pixel its own pointer (V::kRowWrap:
// AVX2, SSE4.1, at most 6 pixels a tile) can run rows that wrap
// (GemmRowF32Args::row_pixels); the AVX-512 tiles' 12 or 24 pixels share
// a pointer per 3.
template <class V, class = void>
struct HasRowWrap : std::false_type {};
template <class V>
struct HasRowWrap<V, std::void_t<decltype(V::kRowWrap)>> : std::true_type {};

// Independent accumulators the FMA latency needs (4 cycles) on two FMA
// ports.
constexpr int kMinChains = 8;

// Tile of M pixels x NV vectors of output channels (V::kLanes each): the
// M x NV accumulators, NV weight vectors and one broadcast stay in the
// vector registers (AVX2: 6 x 2 + 2 + 1 of 16; SSE4.1: 5 x 2 + 2 + 1 and
// the product; AVX-512: 12 x 2 + 2 + 1 of 32). `w` points at the tile's
// first channel of a 16-channel block; where NV vectors are more than a
// block (AVX-512: a vector is a block), vector v is in block
// v / (16 / kLanes), the next blocks of the weights.
//
// R = 2 (PairTiles; traits without kRowWrap): M / R pixels from each of
// two rows, a.row_stride elements apart in the source and a.row_pixels
// apart in the output (pixel m at column x0 + m % (M / R) of row m / (M / R)).
template <class V, class Sink, int M, int NV, int R = 1>
void Tile(const GemmRowF32Args& a, size_t x0, const float* w, size_t c0) {
  using T = typename V::T;
  constexpr int kPerBlock = 16 / V::kLanes;
  constexpr bool kWrap = HasRowWrap<V>::value;
  static_assert(M % R == 0 && (R == 1 || !kWrap), "pair tiles of a row split in two");
  constexpr int S = M / R, kGroups = (S + 2) / 3;  // pixels and bases per row
  constexpr int kBases = kWrap ? M : R * kGroups;
  const Sink sink(a);
  // The sums start at the bias where the sink takes it so (kBiasInSums).
  T init[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) init[v] = sink.Init(c0 + v * V::kLanes);
  T acc[M][NV];
#pragma GCC unroll 28
  for (int m = 0; m < M; ++m)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[m][v] = init[v];
  const size_t channels = a.channels;
  const size_t block_stride = NV > kPerBlock ? a.kernel_y * a.kernel_x * channels * 16 : 0;
  // One K step: NV weight vectors, then each pixel's broadcast feeds NV
  // accumulators. Pixel m's value is at b[m / 3] + (m % 3) * stride
  // bytes: base + index * {1, 2} addresses, so the loop's only address
  // arithmetic is a pointer increment per base per two steps, which leaves
  // the ALU ports the FMAs share free. With kWrap (at most 6 pixels:
  // general registers for a pointer each) pixel m's value is at b[m], a
  // pointer of its own: the pixels may span rows
  // (GemmRowF32Args::row_pixels).
  const size_t stride = a.pixel_stride * sizeof(float);
  const auto at = [&](const char* const* b, int m, size_t off) __attribute__((always_inline)) {
    if constexpr (kWrap) {
      return reinterpret_cast<const float*>(b[m] + off);
    } else {
      const int r = m / S, i = m % S;
      return reinterpret_cast<const float*>(b[r * kGroups + i / 3] + off + (i % 3) * stride);
    }
  };
  // kWrap: each pixel's offset from the call's pixel 0 (bytes).
  size_t pix[kWrap ? M : 1];
  if constexpr (kWrap) {
    // No division where the pixels are one row (row_pixels 0): the tile's
    // first loads wait for these offsets.
    const size_t rp = a.row_pixels != 0 ? a.row_pixels : SIZE_MAX;
    size_t r = 0, col = x0;
    if (a.row_pixels != 0) {
      r = x0 / rp;
      col = x0 % rp;
    }
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) {
      pix[m] = (r * a.row_stride + col * a.pixel_stride) * sizeof(float);
      if (++col == rp) {
        col = 0;
        ++r;
      }
    }
  }
  auto step = [&](const char* const* b, size_t off, const float* wt) __attribute__((always_inline)) {
    if constexpr (NV > V::kTileNV) {
      // A wide tile (GemmBlocks' narrow tiles over two blocks): M
      // broadcasts, then one weight vector at a time (AVX2: 3 x 4
      // accumulators + 3 + 1 of 16 registers).
      T b_m[M];
#pragma GCC unroll 4
      for (int m = 0; m < M; ++m) {
        b_m[m] = V::Broadcast(at(b, m, off));
      }
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        const T wv = V::Load(wt + (v / kPerBlock) * block_stride + (v % kPerBlock) * V::kLanes);
#pragma GCC unroll 4
        for (int m = 0; m < M; ++m) acc[m][v] = V::MulAdd(b_m[m], wv, acc[m][v]);
      }
    } else {
      T wv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        wv[v] = V::Load(wt + (v / kPerBlock) * block_stride + (v % kPerBlock) * V::kLanes);
      }
#pragma GCC unroll 28
      for (int m = 0; m < M; ++m) {
        const T b_m = V::Broadcast(at(b, m, off));
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[m][v] = V::MulAdd(b_m, wv[v], acc[m][v]);
      }
    }
  };
  const size_t ky_end = a.ky_end < a.kernel_y ? a.ky_end : a.kernel_y;
  const size_t kx_end = a.kx_end < a.kernel_x ? a.kx_end : a.kernel_x;
  for (size_t ky = a.ky_begin; ky < ky_end; ++ky) {
    for (size_t kx = a.kx_begin; kx < kx_end; ++kx) {
      const char* b[kBases];
      const char* tap = reinterpret_cast<const char*>(a.rows[ky] + a.offset + kx * a.kx_stride);
      if constexpr (kWrap) {
#pragma GCC unroll 8
        for (int m = 0; m < M; ++m) b[m] = tap + pix[m];
      } else {
#pragma GCC unroll 2
        for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
          for (int g = 0; g < kGroups; ++g) {
            b[r * kGroups + g] = tap + (r * a.row_stride * sizeof(float)) + (x0 + 3 * g) * stride;
          }
        }
      }
      const float* wt = w + (ky * a.kernel_x + kx) * channels * 16;
      size_t c = 0;
      for (; c + 2 <= channels; c += 2, wt += 32) {
        step(b, 0, wt);
        step(b, 4, wt + 16);
#pragma GCC unroll 8
        for (int i = 0; i < kBases; ++i) b[i] += 8;
      }
      if (c < channels) step(b, 0, wt);
    }
  }
  // Pixel m's index in the call's output (row m / S of a pair tile).
  const auto px = [&](int m) { return x0 + m / S * a.row_pixels + m % S; };
  if constexpr (NV % 2 == 1) {
#pragma GCC unroll 28
    for (int m = 0; m < M; ++m)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) sink.Store1(px(m), c0 + v * V::kLanes, acc[m][v]);
  } else {
#pragma GCC unroll 12
    for (int m = 0; m < M; ++m)
#pragma GCC unroll 2
      for (int v = 0; v < NV; v += 2) sink.Store2(px(m), c0 + v * V::kLanes, acc[m][v], acc[m][v + 1]);
  }
}

using GemmTileFn = void (*)(const GemmRowF32Args&, size_t, const float*, size_t);
template <class V, class Sink, int NV, size_t... kIs>
constexpr auto GemmTiles(std::index_sequence<kIs...>) {
  return std::array<GemmTileFn, sizeof...(kIs) + 1>{nullptr, Tile<V, Sink, kIs + 1, NV>...};
}
// Tiles of 2 x (1 .. N) pixels over two rows, indexed by pixels per row.
template <class V, class Sink, int NV, size_t... kIs>
constexpr auto PairTiles(std::index_sequence<kIs...>) {
  return std::array<GemmTileFn, sizeof...(kIs) + 1>{nullptr, Tile<V, Sink, 2 * (kIs + 1), NV, 2>...};
}
// Pixels per row of a pair tile (AVX-512: 2 x 7 pixels x 2 vectors, 28
// accumulators of 32 registers).
constexpr size_t kPairWidth = 7;

// f(x, m) for a row of width >= 1 pixels in tiles of balanced widths m,
// at most max_m pixels each, from x = 0 (14 pixels: 5 + 5 + 4, not 6 + 6
// + 2): a narrow tile has too few accumulators to cover the FMA latency.
template <class F>
inline void BalancedTiles(size_t width, size_t max_m, F f) {
  const size_t count = (width + max_m - 1) / max_m, base = width / count;
  const size_t extra = width % count;
  for (size_t t = 0, x = 0; t < count; ++t) {
    const size_t m = base + (t < extra ? 1 : 0);
    f(x, m);
    x += m;
  }
}

// The 16-channel blocks [nb0, nb1) of the row, tiles to Sink.
template <class V, class Sink>
void GemmBlocks(const GemmRowF32Args& a, size_t nb0, size_t nb1) {
  constexpr int kM = V::kTileM, kNV = V::kTileNV;
  constexpr int kPerBlock = 16 / V::kLanes;  // vectors of a 16-channel block
  const size_t block_stride = a.kernel_y * a.kernel_x * a.channels * 16;
  const auto row = [&](const auto& tiles, size_t max_m, const float* w, size_t c0) {
    BalancedTiles(a.width, max_m, [&](size_t x, size_t m) { tiles[m](a, x, w, c0); });
  };
  static constexpr auto kTiles = GemmTiles<V, Sink, kNV>(std::make_index_sequence<kM>());
  if constexpr (kNV > kPerBlock) {
    // Tiles of kNV / kPerBlock blocks (AVX-512: two, a vector each); an
    // odd last block in tiles of its own, up to V::kTileM1 pixels wide
    // (one weight vector leaves room for more accumulators).
    constexpr size_t kBlocks = kNV / kPerBlock;
    static constexpr auto kTiles1 =
        GemmTiles<V, Sink, kPerBlock>(std::make_index_sequence<V::kTileM1>());
    if constexpr (!HasRowWrap<V>::value) {
      if (a.row_pixels != 0) {
        // Two rows of a.row_pixels (NhwcGemmF32::ImageRows): pair tiles,
        // each row in balanced segments of at most kPairWidth pixels.
        static constexpr auto kPairs = PairTiles<V, Sink, kNV>(std::make_index_sequence<kPairWidth>());
        static constexpr auto kPairs1 =
            PairTiles<V, Sink, kPerBlock>(std::make_index_sequence<kPairWidth>());
        const auto pairs = [&](const auto& tiles, const float* w, size_t c0) {
          BalancedTiles(a.row_pixels, kPairWidth,
                        [&](size_t x, size_t m) { tiles[m](a, x, w, c0); });
        };
        size_t nb = nb0;
        for (; nb + kBlocks <= nb1; nb += kBlocks) pairs(kPairs, a.weight + nb * block_stride, nb * 16);
        for (; nb < nb1; ++nb) pairs(kPairs1, a.weight + nb * block_stride, nb * 16);
        return;
      }
    }
    size_t nb = nb0;
    for (; nb + kBlocks <= nb1; nb += kBlocks) row(kTiles, kM, a.weight + nb * block_stride, nb * 16);
    for (; nb < nb1; ++nb) row(kTiles1, V::kTileM1, a.weight + nb * block_stride, nb * 16);
  } else if constexpr (kNV == kPerBlock) {
    // A tile of at most kNarrow pixels has fewer accumulators than the
    // FMA latency needs (kMinChains; AVX2: 7-pixel rows as 4 + 3, the
    // 3-pixel tile 6 of 8): where a second block follows, such a tile
    // runs over both blocks at once (2 kNV vectors). Each sum keeps its
    // order over K, so the bits do not depend on the tiling.
    constexpr size_t kNarrow = (kMinChains - 1) / kNV;
    static constexpr auto kWide = GemmTiles<V, Sink, 2 * kNV>(std::make_index_sequence<kNarrow>());
    size_t nb = nb0;
    if (a.width / ((a.width + kM - 1) / kM) <= kNarrow) {  // the narrowest tile
      for (; nb + 2 <= nb1; nb += 2) {
        const float* w = a.weight + nb * block_stride;
        BalancedTiles(a.width, kM, [&](size_t x, size_t m) {
          if (m <= kNarrow) return kWide[m](a, x, w, nb * 16);
          kTiles[m](a, x, w, nb * 16);
          kTiles[m](a, x, w + block_stride, nb * 16 + 16);
        });
      }
    }
    // (Tiles outer and chunks of 2-8 blocks inner, each tile's source read
    // from the L2 once per chunk: slower, Zen 5, one binary, best of 3: 1x1
    // 64->256 56x56 98 -> 93-98 GFLOP/s, 3x3 s2 stem 79 -> 74.) Each tile
    // costs about 3 to 4 K steps more than its FMAs: AVX2 1x1 C->256 56x56
    // on Zen 5, synbench, two rounds, GFLOP/s by C: 32 93.5-95, 64 101-102,
    // 128 105.5-107, 256 106-107. Two merged rows instead of three (a
    // call's source then fits the L1d): 64->256 1.00-1.01x the time.
    for (; nb < nb1; ++nb) row(kTiles, kM, a.weight + nb * block_stride, nb * 16);
  } else {
    // A 16-channel block is kPerBlock / kNV passes of kNV vectors.
    for (size_t nb = nb0; nb < nb1; ++nb) {
      for (int pass = 0; pass < kPerBlock / kNV; ++pass) {
        row(kTiles, kM, a.weight + nb * block_stride + pass * kNV * V::kLanes,
            nb * 16 + pass * kNV * V::kLanes);
      }
    }
  }
}

// Runs run(Sink*, begin, end) over [0, total) units: with a.fused, the
// units [0, fused) through ToDst (the activation and BF16-or-FP32 dst of
// the epilogue) and the rest through ToSums; without, all through ToSums.
template <class V, bool kBiased = false, class Run>
void WithSinks(const GemmRowF32Args& a, size_t fused, size_t total, Run run) {
  size_t done = 0;
  if (a.fused != nullptr) {
    const bool bf16 = a.fused->bf16;
    if (WithFusedActivation(a.fused->epilogue->activation, [&](auto act) {
          constexpr Activation A = decltype(act)::value;
          if (bf16) {
            run(static_cast<ToDst<V, A, true, kBiased>*>(nullptr), size_t{0}, fused);
          } else {
            run(static_cast<ToDst<V, A, false, kBiased>*>(nullptr), size_t{0}, fused);
          }
        })) {
      done = fused;
    }
  }
  run(static_cast<ToSums<V>*>(nullptr), done, total);
}

// kFused = false: every block's sums to a.out (ToSums; the driver was made
// with fused rows off and stores them all). The fused blocks' tiles start
// their sums at the bias (ToDst's kBiased, as the depthwise rows): one
// load per vector of channels instead of an add per output vector. Zen 5,
// best of 3-4 alternating rounds in three runs: the AVX2 stems 4-6% less
// time, the other layers within the +-3% noise. The AVX-512 row: its 36 tile
// widths for each of the 23 sinks were most of the sanitizer builds' time.
template <class V, bool kFused = true>
void GemmRow(const GemmRowF32Args& a) {
  if constexpr (!kFused) {
    GemmBlocks<V, ToSums<V>>(a, 0, a.nblocks);
    return;
  }
  const size_t fused_blocks = a.fused != nullptr ? a.fused->channels / 16 : 0;
  WithSinks<V, true>(a, fused_blocks, a.nblocks, [&](auto* sink, size_t nb0, size_t nb1) {
    GemmBlocks<V, std::remove_pointer_t<decltype(sink)>>(a, nb0, nb1);
  });
}

// A depthwise tile's M accumulators (pixels x0.., one vector of channels
// at c), two pixels at a time (one BF16 pack for both). Always inlined: a
// call takes the accumulators through memory (GCC left the odd M out of
// line in the AVX-512 files: 14% of depthwise 3x3 512ch 14x14).
template <int M, class Sink, class T>
__attribute__((always_inline)) inline void StorePixels(const Sink& sink, size_t x0, size_t c, const T* acc) {
#pragma GCC unroll 4
  for (int m = 0; m + 1 < M; m += 2) sink.StorePixels2(x0 + m, c, acc[m], acc[m + 1]);
  if (M % 2 == 1) sink.Store1(x0 + M - 1, c, acc[M - 1]);
}

// Traits with a BF16 dot product (V::kBf16Dot: Avx512Bf16Dot) multiply a
// BF16 source vector without widening it to FP32 first (V::MulAddBf16, the
// weights of GemmRowF32Args::rows16 rows as BF16 in the low half of each
// lane). The others widen the source and use FMA.
template <class V, class = void>
struct HasBf16Dot : std::false_type {};
template <class V>
struct HasBf16Dot<V, std::void_t<decltype(V::kBf16Dot)>> : std::true_type {};

// acc + (a source vector: FP32 ring rows as they are, BF16 rows widened)
// * w.
template <class V>
inline typename V::T MulAddSource(const float* p, typename V::T w, typename V::T acc) {
  return V::MulAdd(V::LoadU(p), w, acc);
}
template <class V>
inline typename V::T MulAddSource(const uint16_t* p, typename V::T w, typename V::T acc) {
  if constexpr (HasBf16Dot<V>::value) {
    return V::MulAddBf16(p, w, acc);
  } else {
    return V::MulAdd(V::WidenBf16(p), w, acc);
  }
}
inline const float* const* SourceRows(const GemmRowF32Args& a, const float*) { return a.rows; }
inline const uint16_t* const* SourceRows(const GemmRowF32Args& a, const uint16_t*) {
  return a.rows16;
}

// A depthwise tile's source rows at its pixel x0: the first 16 kernel rows'
// pointers kept in `first`, the others (taller kernels) made per use by
// TileRow.
template <class Src>
struct TileRows {
  const Src* const* rows;
  size_t offset;  // x0 * pixel_stride
  const Src* first[16];

  TileRows(const Src* const* r, size_t kernel_y, size_t x0, size_t pixel_stride)
      : rows(r), offset(x0 * pixel_stride) {
    for (size_t ky = 0; ky < kernel_y && ky < 16; ++ky) first[ky] = rows[ky] + offset;
  }
  const Src* Row(size_t ky) const { return ky < 16 ? first[ky] : rows[ky] + offset; }
};

// The kernel rows a depthwise row sums, [ky_begin, KyEnd(a)): the others
// read only padding rows for this output row (TapRows; ref::direct skips
// those taps too) and are not formed (the FP32 ring does not fill them).
inline size_t KyEnd(const GemmRowF32Args& a) { return a.ky_end < a.kernel_y ? a.ky_end : a.kernel_y; }

// Depthwise: M pixels x every channel, one vector of channels at a time;
// each tap's weights are loaded once for the M pixels. Taps in (ky, kx)
// order like the reference (a product of BF16 values is exact, so FMA
// rounds like multiply then add). Src: the rows' element type (float:
// a.rows; uint16_t: a.rows16, BF16).
template <class V, class Sink, int M, class Src = float>
void DepthwiseTile(const GemmRowF32Args& a, size_t x0, size_t c0, size_t c1) {
  using T = typename V::T;
  const size_t channels = a.channels;
  const Sink sink(a);
  const TileRows<Src> src(SourceRows(a, static_cast<const Src*>(nullptr)), a.kernel_y, x0,
                          a.pixel_stride);
  for (size_t c = c0; c < c1; c += V::kLanes) {
    T acc[M];
    const T init = sink.Init(c);
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) acc[m] = init;
    const float* w = a.weight + a.ky_begin * a.kernel_x * channels + c;
    for (size_t ky = a.ky_begin; ky < KyEnd(a); ++ky) {
      const Src* s = src.Row(ky) + c;
      for (size_t kx = 0; kx < a.kernel_x; ++kx, w += channels, s += a.kx_stride) {
        const T wv = V::Load(w);
#pragma GCC unroll 8
        for (int m = 0; m < M; ++m) acc[m] = MulAddSource<V>(s + m * a.pixel_stride, wv, acc[m]);
      }
    }
    StorePixels<M>(sink, x0, c, acc);
  }
}

// Traits with kEvenOdd (AVX2, SSE4.1, AVX-512) widen a BF16 source vector of
// 2 * kLanes channels, as loaded (LoadPairs: channel 2i in the low half of
// 32-bit lane i, 2i + 1 in its upper half), by one shift (EvenOf: the even
// channels) and one AND (OddOf: the odd ones) instead of two shuffles per
// vector pair (WidenBf16), which share execution ports with the FMAs.
template <class V, class = void>
struct HasEvenOdd : std::false_type {};
template <class V>
struct HasEvenOdd<V, std::void_t<decltype(V::kEvenOdd)>> : std::true_type {};

// The tiles over BF16 rows of traits with kEvenOdd (the FMA ones and the
// BF16 dot product, AVX512-BF16): M pixels x two vectors of channels,
// 2 * M accumulators that taps(src, c, acc0, acc1) fills for channels c..
// (always inlined, so they stay in registers), the even channels' and the
// odd ones' (V::EvenOf / OddOf of a LoadPairs vector, multiplied by
// V::SplitMulAdd). They start at the sink's Init split the same way, so
// each channel adds the same values in the same (ky, kx) order as
// DepthwiseTile, and are stored one pixel at a time (StoreEvenOdd: one
// 64-byte BF16 store per pixel instead of two 32-byte ones for the dot
// product, 3x3 512ch 14x14 on Zen 5 83 -> 90 GFLOP/s); an odd last vector
// of channels (AVX-512: 16 of 32) through DepthwiseTile.
template <class V, class Sink, int M, class Taps>
__attribute__((always_inline)) inline void Bf16x2Channels(const GemmRowF32Args& a, size_t x0,
                                                          size_t c0, size_t c1, Taps taps) {
  using T = typename V::T;
  constexpr size_t kL = V::kLanes;
  const Sink sink(a);
  const TileRows<uint16_t> src(a.rows16, a.kernel_y, x0, a.pixel_stride);
  size_t c = c0;
  for (; c + 2 * kL <= c1; c += 2 * kL) {
    // acc0: the even channels c, c + 2, ..; acc1: the odd ones (the
    // split of V::LoadPairs), put back in order for the sink.
    T acc0[M], acc1[M], init0, init1;
    V::Deinterleave(sink.Init(c), sink.Init(c + kL), &init0, &init1);
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) {
      acc0[m] = init0;
      acc1[m] = init1;
    }
    taps(src, c, acc0, acc1);
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) sink.StoreEvenOdd(x0 + m, c, acc0[m], acc1[m]);
  }
  if (c < c1) DepthwiseTile<V, Sink, M, uint16_t>(a, x0, c, c1);
}

// DepthwiseTile over BF16 rows for kEvenOdd traits: each tap's weights
// (a.weight16) loaded and split once for the M pixels, each pixel's 2 *
// kLanes channels loaded once and split. The dot product's 7x7 256ch
// 14x14 on Zen 5: 104 -> 122 GFLOP/s against two zero-extending loads
// (vpmovzxwd) per pixel and tap.
template <class V, class Sink, int M>
void DepthwiseTileBf16x2(const GemmRowF32Args& a, size_t x0, size_t c0, size_t c1) {
  using T = typename V::T;
  const size_t channels = a.channels, ps = a.pixel_stride, psb = ps * sizeof(uint16_t);
  Bf16x2Channels<V, Sink, M>(a, x0, c0, c1, [&](const TileRows<uint16_t>& src, size_t c, T* acc0,
                                                T* acc1) __attribute__((always_inline)) {
    const uint16_t* w = a.weight16 + a.ky_begin * a.kernel_x * channels + c;
    for (size_t ky = a.ky_begin; ky < KyEnd(a); ++ky) {
      const uint16_t* s = src.Row(ky) + c;
      for (size_t kx = 0; kx < a.kernel_x; ++kx, w += channels, s += a.kx_stride) {
        const T wr = V::LoadPairs(w);
        const T w0 = V::EvenOf(wr), w1 = V::OddOf(wr);
        // Pixel m at b[m / 3] + (m % 3) * psb bytes: base + index * {1, 2}
        // addresses from a few registers (16 offsets spilled otherwise).
        const char* b[(M + 2) / 3];
#pragma GCC unroll 3
        for (int j = 0; j < (M + 2) / 3; ++j) b[j] = reinterpret_cast<const char*>(s + 3 * j * ps);
#pragma GCC unroll 8
        for (int m = 0; m < M; ++m) {
          const T sr = V::LoadPairs(reinterpret_cast<const uint16_t*>(b[m / 3] + (m % 3) * psb));
          acc0[m] = V::SplitMulAdd(V::EvenOf(sr), w0, acc0[m]);
          acc1[m] = V::SplitMulAdd(V::OddOf(sr), w1, acc1[m]);
        }
      }
    }
  });
}

// f(std::integral_constant<int, i>()) for i = 0, 1, .., N - 1 in order: a
// loop whose index is a compile-time constant.
template <class F, int... kIs>
__attribute__((always_inline)) inline void ForEachIndexOf(F&& f,
                                                          std::integer_sequence<int, kIs...>) {
  (f(std::integral_constant<int, kIs>()), ...);
}
template <int N, class F>
__attribute__((always_inline)) inline void ForEachIndex(F&& f) {
  ForEachIndexOf(f, std::make_integer_sequence<int, N>());
}

// The columns of a 3x3 stride-2 paired tile (M pixels at x0) under
// GemmRowF32Args::lead_zero: its column 1 is at TileRows::Row(ky) +
// first, its column 0 one column before that, or kPaddingZeros where that is
// pixel 0's left padding (zero0). Without lead_zero, column 0 is at Row(ky).
struct LeadColumns {
  size_t first, cs;
  bool zero0;
  LeadColumns(size_t lead_zero, size_t kx_stride, bool at_pixel0)
      : first(lead_zero != 0 ? 0 : kx_stride), cs(kx_stride), zero0(at_pixel0 && lead_zero != 0) {}
  const uint16_t* Column0(const uint16_t* col1) const { return zero0 ? kPaddingZeros : col1 - cs; }
};

// Prefetches into L1 the n columns of `bytes` past p, `stride` bytes apart:
// the next tile's columns of the same channels (the sliding and stride-2
// paired tiles). A tile's loads walk its columns at the pixel stride, one
// load per line per vector of channels, which the hardware prefetchers do
// not follow; at stride 2 each tile waited for its lines from L2 or L3
// (Zen 5, 3x3 s2 96ch 112x112: 68.7 -> 76.6 GFLOP/s, 7x7 256ch 14x14 165
// -> 170; a standalone loop of the tiles from L3 65 -> 84). Not in the tiles that load per tap
// (AVX2 3x3 s2 44.6 -> 42.8, SSE4.1 19.9 -> 17.7) nor the stride-1 pair
// tiles (3x3 512ch 14x14 107 -> 95): their columns are near enough for the
// hardware. The addresses are integers: the next tile's last columns may lie
// past the row (a prefetch does not fault), and no pointer is formed there.
__attribute__((always_inline)) inline void PrefetchColumns(const void* p, size_t bytes,
                                                           size_t stride, size_t n) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(p) + bytes;
#pragma GCC unroll 32
  for (size_t i = 0; i < n; ++i) {
    __builtin_prefetch(reinterpret_cast<const void*>(at + i * stride), 0, 3);
  }
}

// DepthwiseTileBf16x2 for stride S, dilation 1 and K = kernel_x columns:
// each source vector pair of a kernel row is loaded and split once and
// feeds the pixels whose windows cover it (S * (M - 1) + K instead of
// M * K per kernel row), with the 2K weight vectors in registers (2M + 2K
// + 3 of the 32). Pixel m adds its taps in (ky, kx) order.
template <class V, class Sink, int K, int S, int M>
void DepthwiseSlideTileBf16x2(const GemmRowF32Args& a, size_t x0, size_t c0, size_t c1) {
  using T = typename V::T;
  constexpr int kColumns = S * (M - 1) + K;
  const size_t channels = a.channels, cs = a.kx_stride, csb = cs * sizeof(uint16_t);
  const bool next = x0 + M < a.width;  // another tile follows in this row
  static_assert(kColumns <= 17, "StridedAddresses reaches columns 0..16");
  const StridedAddresses columns(csb);
  Bf16x2Channels<V, Sink, M>(a, x0, c0, c1, [&](const TileRows<uint16_t>& src, size_t c, T* acc0,
                                                T* acc1) __attribute__((always_inline)) {
    for (size_t ky = a.ky_begin; ky < KyEnd(a); ++ky) {
      const StridedAddresses::Bases row = columns.From(src.Row(ky) + c);
      if (next) PrefetchColumns(src.Row(ky) + c, S * M * csb, csb, kColumns);
      const uint16_t* w = a.weight16 + ky * K * channels + c;
      T w0[K], w1[K];
#pragma GCC unroll 7
      for (int kx = 0; kx < K; ++kx) {
        const T wr = V::LoadPairs(w + kx * channels);
        w0[kx] = V::EvenOf(wr);
        w1[kx] = V::OddOf(wr);
      }
      ForEachIndex<kColumns>([&](auto i_) __attribute__((always_inline)) {
        constexpr int i = decltype(i_)::value;
        const T sr = V::LoadPairs(reinterpret_cast<const uint16_t*>(columns.At<i>(row)));
        const T s0 = V::EvenOf(sr), s1 = V::OddOf(sr);
        // Pixel m = (i - kx) / S: the larger kx first, so each pixel's
        // taps arrive in increasing kx over consecutive i.
#pragma GCC unroll 7
        for (int kx = K - 1; kx >= 0; --kx) {
          const int m = (i - kx) / S;
          if (i >= kx && (i - kx) % S == 0 && m < M) {
            acc0[m] = V::SplitMulAdd(s0, w0[kx], acc0[m]);
            acc1[m] = V::SplitMulAdd(s1, w1[kx], acc1[m]);
          }
        }
      });
    }
  });
}

// The two passes of the paired-row 3x3 tiles over channels c..: pass 0
// pairs kernel rows 0 and 1 in each lane, pass 1 row 2 with zeros.
// load(p, q) pairs the vectors at p and q (zeros for q null) into a P;
// dot(m, s, w) adds the products of column pair s and tap pair w to pixel
// m. Each column pair feeds the pixels whose windows cover it, the larger
// kx first, so each pixel's taps arrive in increasing kx.
template <class P, int S, int M, class Load, class Dot>
__attribute__((always_inline)) inline void PairedRowPasses(const GemmRowF32Args& a,
                                                           const TileRows<uint16_t>& src,
                                                           size_t c, Load load, Dot dot) {
  constexpr int kColumns = S * (M - 1) + 3;
  const size_t channels = a.channels, cs = a.kx_stride;
  // a.lead_zero at stride 2 (LeadColumns). (At stride 1 the columns from
  // column 0, as before lead_zero: the addresses from column 1 ran the
  // 144ch 56x56 layer 3% slower on Zen 5.)
  const LeadColumns lead(S == 2 ? a.lead_zero : 0, cs, src.offset == 0);
  for (int pass = 0; pass < 2; ++pass) {
    const uint16_t* r0 = src.Row(pass == 0 ? 0 : 2) + c;
    const uint16_t* r1 = src.Row(1) + c;
    if constexpr (S == 2) {  // column 1
      r0 += lead.first;
      r1 += lead.first;
    }
    const uint16_t* w = a.weight16 + (pass == 0 ? 0 : 6) * channels + c;
    P wp[3];
#pragma GCC unroll 3
    for (int kx = 0; kx < 3; ++kx) {
      wp[kx] = load(w + kx * channels, pass == 0 ? w + (3 + kx) * channels : nullptr);
    }
#pragma GCC unroll 17
    for (int i = 0; i < kColumns; ++i) {
      const auto column = [&](const uint16_t* r) __attribute__((always_inline)) {
        if constexpr (S != 2) return r + i * cs;
        return i > 0 ? r + (i - 1) * cs : lead.Column0(r);
      };
      const P sp = load(column(r0), pass == 0 ? column(r1) : nullptr);
#pragma GCC unroll 3
      for (int kx = 2; kx >= 0; --kx) {
        const int m = (i - kx) / S;
        if (i >= kx && (i - kx) % S == 0 && m < M) dot(m, sp, wp[kx]);
      }
    }
  }
}

// DepthwisePairTile's last V::kLanes channels, from c (channel counts
// are multiples of kLanes), paired the same way but in channel order
// (V::LoadPair16): 6 instead of 9 vdpbf16ps per pixel (3x3 144ch 56: 144 =
// 4 x 32 + 16). Out of line: inlined, it slowed the 32-channel tiles.
template <class V, class Sink, int S, int M>
__attribute__((noinline)) void DepthwisePairTile16(const GemmRowF32Args& a, size_t x0, size_t c) {
  using T = typename V::T;
  const Sink sink(a);
  const TileRows<uint16_t> src(a.rows16, 3, x0, a.pixel_stride);
  T acc[M];
#pragma GCC unroll 8
  for (int m = 0; m < M; ++m) acc[m] = V::Zero();
  PairedRowPasses<T, S, M>(
      a, src, c, [](const uint16_t* p, const uint16_t* q)
          __attribute__((always_inline)) { return V::LoadPair16(p, q); },
      [&](int m, T sp, T wp) __attribute__((always_inline)) {
        acc[m] = V::DotLanes(sp, wp, acc[m]);
      });
#pragma GCC unroll 8
  for (int m = 0; m < M; ++m) sink.Store1(x0 + m, c, acc[m]);
}

// 3x3 depthwise, stride S, dilation 1, with a BF16 dot product using both
// products of each lane (V::kPairDot): kernel rows 0 and 1 of a channel
// share a lane (V::LoadPair: vpunpck{l,h}wd of the two rows'
// vectors), so one vdpbf16ps adds two taps where the zero-extended split
// adds one; row 2 pairs with zeros. Each source column pair is loaded and
// paired (V::LoadPair) once for the pixels whose windows cover it (as in
// DepthwiseSlideTileBf16x2); 2M accumulators + 6 weights + 4 of 32
// registers. The sums are in the unpack order (V::FromPairOrder puts them
// back); per pixel, taps (0, kx) + (1, kx) for kx = 0, 1, 2, then (2, kx).
// Used at stride 1 (Zen 5: 3x3 32ch 112 87 -> 98 GFLOP/s, 144ch 56 83 ->
// 88, 512ch 14 87 -> 99); at stride 2 DepthwiseStride2PairTile instead.
template <class V, class Sink, int S, int M>
void DepthwisePairTile(const GemmRowF32Args& a, size_t x0, size_t c0, size_t c1) {
  using T = typename V::T;
  constexpr size_t kL = V::kLanes;
  const Sink sink(a);
  const TileRows<uint16_t> src(a.rows16, 3, x0, a.pixel_stride);
  size_t c = c0;
  for (; c + 2 * kL <= c1; c += 2 * kL) {
    // The sums start at zero, as every sink of a dot product does
    // (DepthwiseRow: the bias is added by the store).
    static_assert(!Sink::kBiasInSums, "DepthwisePairTile sums start at zero");
    T lo[M], hi[M];
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) lo[m] = hi[m] = V::Zero();
    struct Pair {
      T lo, hi;
    };
    PairedRowPasses<Pair, S, M>(
        a, src, c,
        [](const uint16_t* p, const uint16_t* q) __attribute__((always_inline)) {
          Pair r;
          V::LoadPair(p, q, &r.lo, &r.hi);
          return r;
        },
        [&](int m, Pair sp, Pair wp) __attribute__((always_inline)) {
          lo[m] = V::DotLanes(sp.lo, wp.lo, lo[m]);
          hi[m] = V::DotLanes(sp.hi, wp.hi, hi[m]);
        });
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) {
      T v0, v1;
      V::FromPairOrder(lo[m], hi[m], &v0, &v1);
      sink.Store2(x0 + m, c, v0, v1);
    }
  }
  if (c < c1) DepthwisePairTile16<V, Sink, S, M>(a, x0, c);
}

// 3x3 depthwise at stride 2, dilation 1, with both products of each lane
// (V::kPairDot) and fewer of them than DepthwisePairTile's passes: kernel
// rows 0 and 1 share a lane (V::Pair of the two rows' vectors of a column;
// each column pair feeds the pixels whose windows cover it), then row 2
// pairs columns 2m and 2m + 1 of pixel m (taps (2, 0) and (2, 1)) and takes
// column 2m + 2 with zeros (tap (2, 2)): per 8 pixels 80 vdpbf16ps and 66
// shuffles against the split tile's 144 and 102 shift/AND
// (DepthwiseSlideTileBf16x2) and the two passes' 96 and 68. Two straight
// phases without a pass loop: DepthwisePairTile at stride 2 compiled to
// register copies and stack reloads and ran 0.8x the split tile. 2M
// accumulators + 6 weights + 4 of 32 registers; the next tile's columns
// prefetched (PrefetchColumns). Zen 5, 3x3 s2 96ch 112x112: 77.6 -> 89.2
// GFLOP/s against the split tile with its prefetch (oneDNN 82-84 in the
// same runs). Per pixel and lane, the taps in the order (0, kx) + (1, kx)
// for kx = 0, 1, 2, (2, 0) + (2, 1), (2, 2); the sums in the pair order
// (V::FromPairOrder). With a.lead_zero pixel 0's first column (the left
// padding) is read from kPaddingZeros (LeadColumns): the same products as
// from a zero-padded copy of the row.
template <class V, class Sink, int M>
void DepthwiseStride2PairTile(const GemmRowF32Args& a, size_t x0, size_t c0, size_t c1) {
  using T = typename V::T;
  constexpr size_t kL = V::kLanes;
  constexpr int kColumns = 2 * M + 1;
  static_assert(!Sink::kBiasInSums, "DepthwiseStride2PairTile sums start at zero");
  static_assert(2 * kL * sizeof(uint16_t) <= sizeof(kPaddingZeros), "a column vector of zeros");
  const Sink sink(a);
  const TileRows<uint16_t> src(a.rows16, 3, x0, a.pixel_stride);
  const size_t channels = a.channels, cs = a.kx_stride, csb = cs * sizeof(uint16_t);
  const bool next = x0 + M < a.width;  // another tile follows in this row
  const LeadColumns lead(a.lead_zero, cs, x0 == 0);
  size_t c = c0;
  for (; c + 2 * kL <= c1; c += 2 * kL) {
    T lo[M], hi[M];
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) lo[m] = hi[m] = V::Zero();
    const uint16_t* w = a.weight16 + c;
    {
      // Running column pointers, advanced only while a column follows (the
      // empty asm: without it the compiler kept one induction variable per
      // column over the channel loop, and spilled).
      const uint16_t* r0 = src.Row(0) + lead.first + c;  // column 1
      const uint16_t* r1 = src.Row(1) + lead.first + c;
      asm("" : "+r"(r0), "+r"(r1));
      if (next) {
        PrefetchColumns(r0, (2 * M - 1) * csb, csb, kColumns);
        PrefetchColumns(r1, (2 * M - 1) * csb, csb, kColumns);
      }
      T wl[3], wh[3];
#pragma GCC unroll 3
      for (int kx = 0; kx < 3; ++kx) {
        V::Pair(V::Load32(w + kx * channels), V::Load32(w + (3 + kx) * channels), &wl[kx],
                &wh[kx]);
      }
#pragma GCC unroll 17
      for (int i = 0; i < kColumns; ++i) {
        T sl, sh;
        if (i == 0) {
          V::Pair(V::Load32(lead.Column0(r0)), V::Load32(lead.Column0(r1)), &sl, &sh);
        } else {
          V::Pair(V::Load32(r0), V::Load32(r1), &sl, &sh);
          if (i + 1 < kColumns) {
            r0 += cs;
            r1 += cs;
          }
        }
#pragma GCC unroll 3
        for (int kx = 2; kx >= 0; --kx) {
          const int m = (i - kx) / 2;
          if (i >= kx && (i - kx) % 2 == 0 && m < M) {
            lo[m] = V::DotLanes(sl, wl[kx], lo[m]);
            hi[m] = V::DotLanes(sh, wh[kx], hi[m]);
          }
        }
      }
    }
    {
      const uint16_t* r2 = src.Row(2) + lead.first + c;  // column 1
      asm("" : "+r"(r2));
      if (next) PrefetchColumns(r2, (2 * M - 1) * csb, csb, kColumns);
      T pl, ph, zl, zh;
      V::Pair(V::Load32(w + 6 * channels), V::Load32(w + 7 * channels), &pl, &ph);
      V::Pair(V::Load32(w + 8 * channels), V::Zero(), &zl, &zh);
      T x = V::Load32(lead.Column0(r2));
#pragma GCC unroll 8
      for (int m = 0; m < M; ++m) {
        const T y = V::Load32(r2), z = V::Load32(r2 + cs);
        if (m + 1 < M) r2 += 2 * cs;
        T sl, sh;
        V::Pair(x, y, &sl, &sh);
        lo[m] = V::DotLanes(sl, pl, lo[m]);
        hi[m] = V::DotLanes(sh, ph, hi[m]);
        V::Pair(z, V::Zero(), &sl, &sh);
        lo[m] = V::DotLanes(sl, zl, lo[m]);
        hi[m] = V::DotLanes(sh, zh, hi[m]);
        x = z;
      }
    }
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) {
      T v0, v1;
      V::FromPairOrder(lo[m], hi[m], &v0, &v1);
      sink.Store2(x0 + m, c, v0, v1);
    }
  }
  if (c < c1) DepthwisePairTile16<V, Sink, 2, M>(a, x0, c);
}

template <class V, class = void>
struct HasPairDot : std::false_type {};
template <class V>
struct HasPairDot<V, std::void_t<decltype(V::kPairDot)>> : std::true_type {};

// DepthwiseTile for stride S, dilation 1 and K = kernel_x columns: each
// source vector of a kernel row is loaded once and feeds the pixels whose
// window covers it (S * (M - 1) + K loads per kernel row instead of M * K;
// at stride 1 up to K pixels), with the K weights in registers. Pixel m
// still adds its taps in (ky, kx) order. Src: FP32 ring rows (a.rows) or
// BF16 rows read in place (a.rows16, MakeNhwcDepthwiseWiden), each vector
// widened once as it is loaded (V::WidenBf16). Pixels are S columns apart
// (a.pixel_stride == S * a.kx_stride). BF16 rows at stride 2 take
// a.lead_zero (LeadColumns: the columns from column 1, pixel 0's column 0
// from kPaddingZeros), so a row with padding 1 is read wholly in place.
template <class V, class Sink, int K, int M, class Src = float, int S = 1>
void DepthwiseSlideTile(const GemmRowF32Args& a, size_t x0, size_t c0, size_t c1) {
  using T = typename V::T;
  constexpr int kColumns = S * (M - 1) + K;
  constexpr bool kLead = S == 2 && std::is_same_v<Src, uint16_t>;
  const size_t channels = a.channels, cs = a.kx_stride, csb = cs * sizeof(Src);
  const Src* const* rows = SourceRows(a, static_cast<const Src*>(nullptr));
  static_assert(kColumns <= 17, "StridedAddresses reaches columns 0..16");
  static_assert(!kLead || V::kLanes * sizeof(Src) <= sizeof(kPaddingZeros), "a zero column");
  const Sink sink(a);
  const StridedAddresses columns(csb);
  const LeadColumns lead(kLead ? a.lead_zero : 0, cs, x0 == 0);
  // Another tile follows in this row, from beyond the L2 (a.prefetch).
  const bool next = kLead && a.prefetch != 0 && x0 + M < a.width;
  for (size_t c = c0; c < c1; c += V::kLanes) {
    T acc[M];
    const T init = sink.Init(c);
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) acc[m] = init;
    for (size_t ky = a.ky_begin; ky < KyEnd(a); ++ky) {
      // kLead: from column 1 (Column<i - 1>), column 0 by lead.Column0.
      const Src* base = rows[ky] + S * x0 * cs + c;
      if constexpr (kLead) base += lead.first;
      const StridedAddresses::Bases row = columns.From(base);
      // The next tile's columns, once per 64-byte line of each (32
      // channels): Zen 5, conv16b_bench AVX2 3x3 s2 96ch 112x112, three
      // alternating rounds, 55.5-56.2 -> 58.3-59.0 GFLOP/s (for every
      // vector of 8 channels 54; from the L2, 96ch 56x56, 3% slower). The
      // next tile's dst lines prefetched as well (prefetcht0, one per
      // 64-byte line, here and in DepthwiseStride2EvenOddTile, for every
      // tile): every AVX2 depthwise row 1.12-1.27x the time (Zen 5, one
      // binary, best of 5 alternating rounds), in the L2 or beyond.
      if (next && ((c - c0) & 31) == 0) PrefetchColumns(base, S * M * csb, csb, kColumns);
      const float* w = a.weight + ky * K * channels + c;
      T wv[K];
#pragma GCC unroll 7
      for (int kx = 0; kx < K; ++kx) wv[kx] = V::Load(w + kx * channels);
      ForEachIndex<kColumns>([&](auto i_) __attribute__((always_inline)) {
        constexpr int i = decltype(i_)::value;
        const Src* p;
        if constexpr (!kLead) {
          p = reinterpret_cast<const Src*>(columns.At<i>(row));
        } else if constexpr (i == 0) {
          p = lead.Column0(base);
        } else {
          p = reinterpret_cast<const Src*>(columns.At<(i > 0 ? i - 1 : 0)>(row));
        }
        T sv;
        if constexpr (std::is_same_v<Src, float>) {
          sv = V::LoadU(p);
        } else {
          sv = V::WidenBf16(p);
        }
#pragma GCC unroll 7
        for (int kx = K - 1; kx >= 0; --kx) {
          // Pixel m = (i - kx) / S: the larger kx first, so each pixel's
          // taps arrive in increasing kx over consecutive i.
          const int m = (i - kx) / S;
          if (i >= kx && (i - kx) % S == 0 && m < M) acc[m] = V::MulAdd(sv, wv[kx], acc[m]);
        }
      });
    }
    StorePixels<M>(sink, x0, c, acc);
  }
}

// DepthwiseStride2EvenOddTile's 32-byte loads and stores split no cache
// line: the rows, the column step and the NHWC dst 32-byte aligned. (A
// source from malloc, 16 bytes past a 64-byte line, split every other
// column load: synbench's 3x3 s2 96ch 112x112 ran 62 -> 56 GFLOP/s on Zen
// 5 with the two-pass tile; the sliding tile's 16-byte loads split none.)
inline bool EvenOddAligned(const GemmRowF32Args& a) {
  uintptr_t bits = a.kx_stride * sizeof(uint16_t);
  for (size_t ky = a.ky_begin; ky < KyEnd(a); ++ky) {
    bits |= reinterpret_cast<uintptr_t>(a.rows16[ky]);
  }
  if (a.fused != nullptr) {
    bits |= reinterpret_cast<uintptr_t>(a.fused->dst) |
            a.fused->pixel_stride * (a.fused->bf16 ? sizeof(uint16_t) : sizeof(float));
  }
  return (bits & 31) == 0;
}

// DepthwiseSlideTile at 3x3 stride 2 over BF16 rows read in place, for
// kEvenOdd traits with 16 registers (AVX2): 2 * kLanes channels at a time
// in two passes, the even channels then the odd ones (V::EvenOf / OddOf of
// each column's LoadPairs: a shift and an AND), M accumulators + 3 weights
// + a column + the AND mask in registers; the even pass's sums wait in
// memory for the odd pass, and each pixel's 2 * kLanes channels are
// stored by one StoreEvenOdd (no pack, no permute). On Zen 5 the byte
// shuffle of WidenBf16 (and the packs of the paired stores) issue on the
// FMA pipes, while shifts, ANDs, integer adds and compares do not: in a
// loop of 10 independent FMAs, 12 more vpshufb cost 48% more time, 12
// vpand or vpaddd 6%. Pixel m still adds its taps in (ky, kx) order.
// conv16b_bench with SYNOPS_MAX_ISA=avx2 on Zen 5, three alternating
// rounds: 3x3 s2 576ch 14x14 57.0-57.8 -> 63.4-63.7 GFLOP/s, 96ch
// 112x112 (beyond the L2) 58.3-59.3 -> 58.4-60.1; 64ch 14x14 (synbench,
// in L1) 55 -> 59. Not kept (Zen 5, best of 6 alternating rounds): the
// weights pre-split into an FP32 even/odd copy (no split per tile),
// measured together with an odd store of one AND instead of the shift,
// 1.01x the time at 96ch 112x112 and 576ch 14x14; the same copy as the
// FMAs' memory operands 1.35x (24 more loads per kernel row and pass); the
// prefetch 2-4 tiles ahead instead of one, and each output row prefetching
// the next row's new source rows, slower (0.85-0.95x the GFLOP/s). Also
// slower (one binary, alternating rounds): each column's next channel line
// prefetched 1-3 lines ahead (96ch 112x112 42 -> 40, 576ch 14x14 45 ->
// 44); the row swept per 32 channels instead of per tile over all of them
// (47 -> 44, 53 -> 47). The tile's rate with the source in the L2 is not
// what 96ch 112x112 lacks: in one synbench binary, 96ch from 56x56 (600
// KB) ran 55-58 GFLOP/s, from 112x112 (2.4 MB, beyond the L2) 46-48.
template <class V, class Sink, int M>
void DepthwiseStride2EvenOddTile(const GemmRowF32Args& a, size_t x0, size_t c0, size_t c1) {
  using T = typename V::T;
  constexpr int K = 3, S = 2, kColumns = S * (M - 1) + K;
  constexpr size_t kL = V::kLanes;
  const size_t channels = a.channels, cs = a.kx_stride, csb = cs * sizeof(uint16_t);
  const Sink sink(a);
  const StridedAddresses columns(csb);
  const LeadColumns lead(a.lead_zero, cs, x0 == 0);
  // Another tile follows in this row, from beyond the L2 (a.prefetch).
  const bool next = a.prefetch != 0 && x0 + M < a.width;
  size_t c = c0;
  for (; c + 2 * kL <= c1; c += 2 * kL) {
    T init[2];
    V::Deinterleave(sink.Init(c), sink.Init(c + kL), &init[0], &init[1]);
    alignas(64) float even[M][kL];
    T acc[M];
    ForEachIndex<2>([&](auto h_) __attribute__((always_inline)) {
      constexpr bool kOdd = decltype(h_)::value == 1;
      const auto split = [](T v) __attribute__((always_inline)) {
        return kOdd ? V::OddOf(v) : V::EvenOf(v);
      };
#pragma GCC unroll 8
      for (int m = 0; m < M; ++m) acc[m] = init[kOdd];
      for (size_t ky = a.ky_begin; ky < KyEnd(a); ++ky) {
        // From column 1 (Column<i - 1>), column 0 by lead.Column0.
        const uint16_t* base = a.rows16[ky] + S * x0 * cs + c + lead.first;
        const StridedAddresses::Bases row = columns.From(base);
        // The next tile's columns, once per 64-byte line (DepthwiseSlideTile).
        if (!kOdd && next && ((c - c0) & 31) == 0) {
          PrefetchColumns(base, S * M * csb, csb, kColumns);
        }
        const uint16_t* w = a.weight16 + ky * K * channels + c;
        T wv[K];
#pragma GCC unroll 3
        for (int kx = 0; kx < K; ++kx) wv[kx] = split(V::LoadPairs(w + kx * channels));
        ForEachIndex<kColumns>([&](auto i_) __attribute__((always_inline)) {
          constexpr int i = decltype(i_)::value;
          const uint16_t* p;
          if constexpr (i == 0) {
            p = lead.Column0(base);
          } else {
            p = reinterpret_cast<const uint16_t*>(columns.At<(i > 0 ? i - 1 : 0)>(row));
          }
          const T sv = split(V::LoadPairs(p));
#pragma GCC unroll 3
          for (int kx = K - 1; kx >= 0; --kx) {
            const int m = (i - kx) / S;
            if (i >= kx && (i - kx) % S == 0 && m < M) acc[m] = V::MulAdd(sv, wv[kx], acc[m]);
          }
        });
      }
      if constexpr (!kOdd) {
#pragma GCC unroll 8
        for (int m = 0; m < M; ++m) V::Store(even[m], acc[m]);
      }
    });
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) sink.StoreEvenOdd(x0 + m, c, V::Load(even[m]), acc[m]);
  }
  if (c < c1) DepthwiseSlideTile<V, Sink, K, M, uint16_t, S>(a, x0, c, c1);
}

using DepthwiseTileFn = void (*)(const GemmRowF32Args&, size_t, size_t, size_t);

template <class V, class Sink, int K, class Src = float, int S = 1, size_t... kIs>
constexpr auto SlideTiles(std::index_sequence<kIs...>) {
  return std::array<DepthwiseTileFn, sizeof...(kIs) + 1>{
      nullptr, DepthwiseSlideTile<V, Sink, K, kIs + 1, Src, S>...};
}

template <class V, class Sink, size_t... kIs>
constexpr auto Stride2EvenOddTiles(std::index_sequence<kIs...>) {
  return std::array<DepthwiseTileFn, sizeof...(kIs) + 1>{
      nullptr, DepthwiseStride2EvenOddTile<V, Sink, kIs + 1>...};
}

template <class V, class Sink, size_t... kIs>
constexpr auto Bf16x2Tiles(std::index_sequence<kIs...>) {
  return std::array<DepthwiseTileFn, sizeof...(kIs) + 1>{nullptr, DepthwiseTileBf16x2<V, Sink, kIs + 1>...};
}

// Bf16x2Tiles with the 7- and 8-pixel tiles replaced by t7 and t8 (the
// sliding or paired tiles of the widest tiles).
template <class V, class Sink>
constexpr auto WideTiles(DepthwiseTileFn t7, DepthwiseTileFn t8) {
  auto t = Bf16x2Tiles<V, Sink>(std::make_index_sequence<8>());
  t[7] = t7;
  t[8] = t8;
  return t;
}

// Channels [c0, c1) of a depthwise row in tiles of at most M pixels,
// balanced.
template <int M>
void DepthwiseTiles(const GemmRowF32Args& a, const DepthwiseTileFn* tiles, size_t c0, size_t c1) {
  BalancedTiles(a.width, M, [&](size_t x, size_t m) { tiles[m](a, x, c0, c1); });
}

template <class V, class Sink>
void DepthwiseChannels(const GemmRowF32Args& a, size_t c0, size_t c1) {
  if (c0 >= c1) return;
  // Registers: M accumulators + K weights + one source vector. 7x7 takes
  // 8 accumulators too, the fewest chains that cover the FMA latency (the
  // compiler takes a weight or two from memory; 6 accumulators: 0.75x the
  // speed with AVX2, 0.9x with SSE4.1); 3x3 with 10 or 12 spilled in the
  // epilogue (0.75x).
  // The BF16 dot tiles, instantiated for those traits only. (A second set
  // with kernel_x = 3 unrolled at compile time was 3-10% faster on three
  // 3x3 layers on Zen 5, but doubled this file's sanitizer build, already
  // the longest of CI: not kept.)
  if constexpr (HasBf16Dot<V>::value) {
    if (a.rows16 != nullptr) {
      static constexpr auto kTiles = Bf16x2Tiles<V, Sink>(std::make_index_sequence<8>());
      // 3x3 (the most common) at stride 1 or 2: paired tiles for the
      // widest tiles (7 and 8 pixels), sliding ones for 3-column kernels
      // of other heights; 7x7 at stride 1: a sliding tile of
      // 7 pixels (14 accumulators + 14 weights + 3 of 32 registers; with
      // two zero-extended source vectors instead of one split load it
      // spilled and ran at a third of the speed); narrower tiles and
      // other kernels load per tap.
      if constexpr (HasPairDot<V>::value) {
        if (a.kernel_x == 3 && a.kernel_y == 3 && a.pixel_stride == a.kx_stride) {
          static constexpr auto kPair = WideTiles<V, Sink>(DepthwisePairTile<V, Sink, 1, 7>,
                                                           DepthwisePairTile<V, Sink, 1, 8>);
          return DepthwiseTiles<8>(a, kPair.data(), c0, c1);
        }
        if (a.kernel_x == 3 && a.kernel_y == 3 && a.pixel_stride == 2 * a.kx_stride) {
          static constexpr auto kPair2 = WideTiles<V, Sink>(
              DepthwiseStride2PairTile<V, Sink, 7>, DepthwiseStride2PairTile<V, Sink, 8>);
          return DepthwiseTiles<8>(a, kPair2.data(), c0, c1);
        }
      }
      if (a.kernel_x == 3 && a.pixel_stride == a.kx_stride) {
        static constexpr auto kSlide = WideTiles<V, Sink>(
            DepthwiseSlideTileBf16x2<V, Sink, 3, 1, 7>, DepthwiseSlideTileBf16x2<V, Sink, 3, 1, 8>);
        return DepthwiseTiles<8>(a, kSlide.data(), c0, c1);
      }
      if (a.kernel_x == 3 && a.pixel_stride == 2 * a.kx_stride) {
        static constexpr auto kSlide = WideTiles<V, Sink>(
            DepthwiseSlideTileBf16x2<V, Sink, 3, 2, 7>, DepthwiseSlideTileBf16x2<V, Sink, 3, 2, 8>);
        return DepthwiseTiles<8>(a, kSlide.data(), c0, c1);
      }
      if (a.kernel_x == 7 && a.pixel_stride == a.kx_stride) {
        // DepthwiseTiles<7> never takes the 8-pixel tile.
        static constexpr auto kSlide7 = WideTiles<V, Sink>(
            DepthwiseSlideTileBf16x2<V, Sink, 7, 1, 7>, DepthwiseTileBf16x2<V, Sink, 8>);
        return DepthwiseTiles<7>(a, kSlide7.data(), c0, c1);
      }
      return DepthwiseTiles<8>(a, kTiles.data(), c0, c1);
    }
  }
  static_assert(HasEvenOdd<V>::value, "BF16 rows (rows16) take the even/odd tiles");
  if constexpr (!HasBf16Dot<V>::value) {
    // V::kEvenOddM pixels: 16 registers (AVX2, SSE4.1) hold 2 x 5
    // accumulators, the tap's two weight vectors, the pixel's two source
    // vectors and the AND mask; 32 (AVX-512) 2 x 8.
    if (a.rows16 != nullptr) {
      // Stride 1 in place (MakeNhwcDepthwiseWiden: AVX2, SSE4.1; the
      // AVX-512 strided rows read stride > 1 only): the sliding tiles.
      if constexpr (V::kLanes <= 8) {
        if (a.pixel_stride == a.kx_stride) {
          static constexpr auto k3 =
              SlideTiles<V, Sink, 3, uint16_t>(std::make_index_sequence<8>());
          static constexpr auto k5 =
              SlideTiles<V, Sink, 5, uint16_t>(std::make_index_sequence<8>());
          static constexpr auto k7 =
              SlideTiles<V, Sink, 7, uint16_t>(std::make_index_sequence<8>());
          if (a.kernel_x == 3) return DepthwiseTiles<8>(a, k3.data(), c0, c1);
          if (a.kernel_x == 5) return DepthwiseTiles<8>(a, k5.data(), c0, c1);
          if (a.kernel_x == 7) return DepthwiseTiles<8>(a, k7.data(), c0, c1);
        }
      }
      // 3x3 at stride 2 on 8 lanes: sliding tiles too, each column widened
      // once for the pixels that share it (2M + 1 per kernel row instead of
      // 3M); 8 pixels and the 3 weights fit the 16 registers, where the
      // even/odd tiles (16 channels) take 5 pixels and load per tap.
      // Sapphire Rapids, synbench BF16 in place, best of 3 alternating
      // rounds, us: 576ch 14x14 16.5 -> 13.8, 192ch 28x28 20.4 -> 18.6, 32ch
      // 112x112 49.2 -> 43.4, 96ch 112x112 (beyond L2) 196 -> 180. SSE4.1
      // (4 lanes) was no faster (96ch 112x112 321 -> 328).
      if constexpr (V::kLanes == 8) {
        if (a.kernel_x == 3 && a.pixel_stride == 2 * a.kx_stride) {
          static constexpr auto kEvenOdd =
              Stride2EvenOddTiles<V, Sink>(std::make_index_sequence<8>());
          if (EvenOddAligned(a)) return DepthwiseTiles<8>(a, kEvenOdd.data(), c0, c1);
          static constexpr auto k3s2 =
              SlideTiles<V, Sink, 3, uint16_t, 2>(std::make_index_sequence<8>());
          return DepthwiseTiles<8>(a, k3s2.data(), c0, c1);
        }
      }
      // 3x3 at stride 2 on 16 lanes (nhwc_depthwise_strided): the sliding
      // tiles, each column pair loaded and split once for the pixels that
      // share it (2M + 1 per kernel row instead of 3M) and the next tile's
      // columns prefetched. Sapphire Rapids, synbench BF16 in place, us:
      // 576ch 14x14 12.8 -> 10.8, 192ch 28x28 16.0 -> 13.6, 96ch 56x56
      // 29.6 -> 25.9, 96ch 112x112 151 -> 115, 32ch 112x112 37.6 -> 31.9.
      if constexpr (V::kLanes == 16) {
        if (a.kernel_x == 3 && a.pixel_stride == 2 * a.kx_stride) {
          static constexpr DepthwiseTileFn kSlide2[] = {
              nullptr,
              DepthwiseSlideTileBf16x2<V, Sink, 3, 2, 1>,
              DepthwiseSlideTileBf16x2<V, Sink, 3, 2, 2>,
              DepthwiseSlideTileBf16x2<V, Sink, 3, 2, 3>,
              DepthwiseSlideTileBf16x2<V, Sink, 3, 2, 4>,
              DepthwiseSlideTileBf16x2<V, Sink, 3, 2, 5>,
              DepthwiseSlideTileBf16x2<V, Sink, 3, 2, 6>,
              DepthwiseSlideTileBf16x2<V, Sink, 3, 2, 7>,
              DepthwiseSlideTileBf16x2<V, Sink, 3, 2, 8>};
          return DepthwiseTiles<8>(a, kSlide2, c0, c1);
        }
      }
      constexpr int kM = V::kEvenOddM;
      static constexpr auto kTiles = Bf16x2Tiles<V, Sink>(std::make_index_sequence<kM>());
      return DepthwiseTiles<kM>(a, kTiles.data(), c0, c1);
    }
  }
  if (a.pixel_stride == a.kx_stride) {  // stride 1, dilation 1
    static constexpr auto k3 = SlideTiles<V, Sink, 3>(std::make_index_sequence<8>());
    static constexpr auto k5 = SlideTiles<V, Sink, 5>(std::make_index_sequence<8>());
    static constexpr auto k7 = SlideTiles<V, Sink, 7>(std::make_index_sequence<8>());
    if (a.kernel_x == 3) return DepthwiseTiles<8>(a, k3.data(), c0, c1);
    if (a.kernel_x == 5) return DepthwiseTiles<8>(a, k5.data(), c0, c1);
    if (a.kernel_x == 7) return DepthwiseTiles<8>(a, k7.data(), c0, c1);
  }
  // The 8-lane stride-2 sliding tiles over the FP32 ring (FP32 and NCHW
  // sources), us: 96ch 112x112 FP32 340 -> 331 (344 -> 320 in another
  // set of rounds), NCHW BF16 345 -> 325, 576ch 14x14 FP32 to BF16 25.3 ->
  // 23.0.
  if constexpr (V::kLanes == 8) {
    if (a.kernel_x == 3 && a.pixel_stride == 2 * a.kx_stride) {
      static constexpr auto k3s2 = SlideTiles<V, Sink, 3, float, 2>(std::make_index_sequence<8>());
      return DepthwiseTiles<8>(a, k3s2.data(), c0, c1);
    }
  }
  static const DepthwiseTileFn kTiles[] = {nullptr,
                                           DepthwiseTile<V, Sink, 1>,
                                           DepthwiseTile<V, Sink, 2>,
                                           DepthwiseTile<V, Sink, 3>,
                                           DepthwiseTile<V, Sink, 4>,
                                           DepthwiseTile<V, Sink, 5>,
                                           DepthwiseTile<V, Sink, 6>,
                                           DepthwiseTile<V, Sink, 7>,
                                           DepthwiseTile<V, Sink, 8>};
  DepthwiseTiles<8>(a, kTiles, c0, c1);
}

// One output row of a depthwise convolution: `channels` (a multiple of
// 16) is the padded channel count and the row stride of `out`; `weight` is
// [tap][channels]. With `fused`, its channels go straight to dst.
template <class V>
void DepthwiseRow(const GemmRowF32Args& a) {
  const size_t fused = a.fused != nullptr ? a.fused->channels : 0;
  // The depthwise tiles start their sums at the bias (one load per channel
  // vector instead of one add per output vector), but not with a BF16 dot
  // product, which would flush a denormal bias (its accumulator input) to
  // zero: those start at zero and the store adds the bias.
  WithSinks<V, !HasBf16Dot<V>::value>(a, fused, a.channels, [&](auto* sink, size_t c0, size_t c1) {
    DepthwiseChannels<V, std::remove_pointer_t<decltype(sink)>>(a, c0, c1);
  });
}

// Fp32ToBf16 of SPEC.md §2 on 4 lanes (round to nearest even on the bit
// pattern; NaN -> quiet NaN of its sign), each BF16 in the low half of
// its 32-bit lane.
// kRelu: the rounded bits shifted arithmetically, so a negative value (-0
// too) is a negative lane, which a pack's unsigned saturation (packus)
// makes +0: ReLU for sums not yet activated (kReluPack).
// Bf16LanesNotNan: the same for lanes that hold no NaN (no quieting blend).
template <bool kRelu = false>
inline __m128i Bf16LanesNotNan(__m128 v) {
  const __m128i u = _mm_castps_si128(v);
  const __m128i lsb = _mm_and_si128(_mm_srli_epi32(u, 16), _mm_set1_epi32(1));
  const __m128i sum = _mm_add_epi32(_mm_add_epi32(u, _mm_set1_epi32(0x7FFF)), lsb);
  return kRelu ? _mm_srai_epi32(sum, 16) : _mm_srli_epi32(sum, 16);
}
template <bool kRelu = false>
inline __m128i Bf16Lanes(__m128 v) {
  const __m128i quiet = _mm_or_si128(_mm_srli_epi32(_mm_castps_si128(v), 16), _mm_set1_epi32(0x0040));
  return _mm_blendv_epi8(Bf16LanesNotNan<kRelu>(v), quiet, _mm_castps_si128(_mm_cmpunord_ps(v, v)));
}
// Bf16Lanes of v0 and v1 packed to 8 BF16 values. NaN is rare: one compare
// finds it in either vector, and only then do the lanes pay for the
// quieting blend (the SSE4.1 stores; Avx2::PackBf16 likewise).
template <bool kRelu = false>
inline __m128i PackBf16x8(__m128 v0, __m128 v1) {
  if (_mm_movemask_ps(_mm_cmpunord_ps(v0, v1)) != 0) {
    return _mm_packus_epi32(Bf16Lanes<kRelu>(v0), Bf16Lanes<kRelu>(v1));
  }
  return _mm_packus_epi32(Bf16LanesNotNan<kRelu>(v0), Bf16LanesNotNan<kRelu>(v1));
}

// Bf16Lanes as 4 uint16 in the low 64 bits.
template <bool kRelu = false>
inline __m128i ToBf16x4(__m128 v) {
  const bool nan = _mm_movemask_ps(_mm_cmpunord_ps(v, v)) != 0;
  return _mm_packus_epi32(nan ? Bf16Lanes<kRelu>(v) : Bf16LanesNotNan<kRelu>(v), _mm_setzero_si128());
}

// Output row (n, oy), channels [c0, c0 + nc) of NHWC dst: bias and
// activation on whole vectors, the channel tail through StoreOutput.
template <class V, Activation A, bool kBf16>
void StoreNhwc(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
               size_t oy, size_t c0, size_t nc, uint8_t* dst) {
  const ConvParams& p = g.p;
  const size_t vec = nc / V::kLanes * V::kLanes;
  for (size_t x = 0; x < p.dstW; ++x) {
    const size_t base = ((n * p.dstH + oy) * p.dstW + x) * p.dstC + c0;
    const float* s = sums + x * ld;
    for (size_t j = 0; j < vec; j += V::kLanes) {
      const auto sum = V::Add(V::LoadU(s + j), V::LoadU(e.bias + c0 + j));
      if constexpr (kStoreReluPack<V, A, kBf16>) {
        V::StoreBf16Relu(reinterpret_cast<uint16_t*>(dst) + base + j, sum);
        continue;
      }
      const auto v = Activate<V, A>(sum, e.params, c0 + j);
      if (kBf16) {
        V::StoreBf16(reinterpret_cast<uint16_t*>(dst) + base + j, v);
      } else {
        V::StoreU(reinterpret_cast<float*>(dst) + base + j, v);
      }
    }
    if (vec < nc) StoreOutput(g, e, s + vec, ld, n, oy, x, 1, c0 + vec, nc - vec, dst);
  }
}

// StoreNchw on 8 lanes: `count` (<= 8) pixels of sums (pixel i at s + i
// * ld) with bias and activation, zero past them, transposed: r[k] is
// channel c + k's pixels.
template <class V, Activation A>
inline void Transposed8(const float* s, size_t ld, size_t count, typename V::T bias, const float* params,
                        size_t c, typename V::T* r) {
#pragma GCC unroll 8
  for (size_t i = 0; i < 8; ++i) {
    r[i] = i < count ? Activate<V, A>(V::Add(V::LoadU(s + i * ld), bias), params, c) : V::Zero();
  }
  V::Transpose8x8(r);
}

// NCHW dst: bias and activation with lanes = channels, then 8 x 8 (AVX2)
// or 4 x 4 transposes so each channel's pixels are one store; the channel
// tail and rows narrower than one transpose (4 pixels) through StoreOutput.
template <class V, Activation A, bool kBf16>
void StoreNchw(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
               size_t oy, size_t c0, size_t nc, uint8_t* dst) {
  const ConvParams& p = g.p;
  const size_t plane = p.dstH * p.dstW;
  const size_t cvec = nc / V::kLanes * V::kLanes, xvec = p.dstW / 4 * 4;
  for (size_t j = 0; j < cvec; j += V::kLanes) {
    const auto bias = V::LoadU(e.bias + c0 + j);
    size_t x = 0;
    if constexpr (V::kLanes == 8) {
      // 8 pixels x 8 channels per 8 x 8 transpose, each channel's 8 pixels
      // one store (the 4 x 4 transposes below took half the time of
      // depthwise 3x3 144ch 56x56 with BF16 NCHW output).
      const auto block = [&](size_t x0) __attribute__((always_inline)) {
        typename V::T r[8];
        Transposed8<V, A>(sums + x0 * ld + j, ld, 8, bias, e.params, c0 + j, r);
        const size_t at = ((n * p.dstC + c0 + j) * p.dstH + oy) * p.dstW + x0;
#pragma GCC unroll 4
        for (int k = 0; k < 8; k += 2) {
          if (kBf16) {
            uint16_t* d = reinterpret_cast<uint16_t*>(dst) + at + k * plane;
            V::StoreBf16Split(d, d + plane, r[k], r[k + 1]);
          } else {
            float* d = reinterpret_cast<float*>(dst) + at + k * plane;
            V::StoreU(d, r[k]);
            V::StoreU(d + plane, r[k + 1]);
          }
        }
      };
      for (; x + 8 <= p.dstW; x += 8) block(x);
      // A row of 8k + r pixels (k > 0) ends with a block over its last 8
      // (the overlap stored twice, the same values), one of fewer than 8
      // pixels takes the staged tail below (the 4 x 4 transposes and the
      // staged tail took 28% of depthwise 3x3 s2 576ch 14x14 with BF16
      // NCHW tensors, Zen 5, perf).
      if (x < p.dstW && x >= 8) {
        block(p.dstW - 8);
        x = p.dstW;
      }
    }
    if constexpr (V::kLanes != 8) {
      // 4 pixels per 4 x 4 transpose, each channel's 4 pixels one store.
      const auto block = [&](size_t x0) __attribute__((always_inline)) {
        alignas(32) float t[4][V::kLanes];
        for (int i = 0; i < 4; ++i) {
          V::StoreU(t[i], Activate<V, A>(V::Add(V::LoadU(sums + (x0 + i) * ld + j), bias), e.params, c0 + j));
        }
        for (int q = 0; q < V::kLanes; q += 4) {
          __m128 r0 = _mm_load_ps(t[0] + q), r1 = _mm_load_ps(t[1] + q), r2 = _mm_load_ps(t[2] + q),
                 r3 = _mm_load_ps(t[3] + q);
          _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
          const __m128 r[4] = {r0, r1, r2, r3};
          const size_t at = ((n * p.dstC + c0 + j + q) * p.dstH + oy) * p.dstW + x0;
          for (int i = 0; i < 4; ++i) {
            if (kBf16) {
              _mm_storel_epi64(reinterpret_cast<__m128i*>(reinterpret_cast<uint16_t*>(dst) + at + i * plane),
                               ToBf16x4(r[i]));
            } else {
              _mm_storeu_ps(reinterpret_cast<float*>(dst) + at + i * plane, r[i]);
            }
          }
        }
      };
      for (; x < xvec; x += 4) block(x);
      // A row of 4k + r pixels (k > 0) ends with a block over its last 4
      // (the overlap stored twice, the same values), as the 8-lane path
      // does: the scalar StoreOutput of the last r pixels of every row was
      // 40% of SSE4.1 depthwise 3x3 s2 576ch 14x14 with BF16 NCHW tensors
      // (7-pixel rows; Emerald Rapids, perf).
      if (x < p.dstW && x >= 4) {
        block(p.dstW - 4);
        x = p.dstW;
      }
    }
    if constexpr (V::kLanes == 8) {
      if (x < p.dstW) {
        // A row of 1-7 pixels: the 8 x 8 transpose, each channel's pixels
        // through a staging row (14-wide rows took 2 of every 14 pixels
        // through StoreOutput, element by element).
        const size_t rem = p.dstW - x;
        typename V::T r[8];
        Transposed8<V, A>(sums + x * ld + j, ld, rem, bias, e.params, c0 + j, r);
        const size_t at = ((n * p.dstC + c0 + j) * p.dstH + oy) * p.dstW + x;
        // The first rem (1-7) values of t to d, in pieces of constant size
        // (16, 8, 4, 2 bytes: moves, no call). A memcpy of rem values was a
        // call into libc for each channel: 30% of depthwise 3x3 s2 576ch
        // 14x14 with BF16 NCHW tensors (7-pixel output rows; Emerald
        // Rapids, perf).
        auto put = [rem](auto* d, const auto* t) {
          const size_t bytes = rem * sizeof(*t);
          auto* out = reinterpret_cast<uint8_t*>(d);
          const auto* in = reinterpret_cast<const uint8_t*>(t);
          size_t done = 0;
          const auto piece = [&](auto size_) __attribute__((always_inline)) {
            constexpr size_t kSize = decltype(size_)::value;
            if (bytes & kSize) {
              std::memcpy(out + done, in + done, kSize);
              done += kSize;
            }
          };
          piece(std::integral_constant<size_t, 16>());
          piece(std::integral_constant<size_t, 8>());
          piece(std::integral_constant<size_t, 4>());
          piece(std::integral_constant<size_t, 2>());
        };
        for (int k = 0; k < 8; ++k) {
          if (kBf16) {
            alignas(16) uint16_t t[8];
            V::StoreBf16(t, r[k]);
            put(reinterpret_cast<uint16_t*>(dst) + at + k * plane, t);
          } else {
            alignas(32) float t[8];
            V::StoreU(t, r[k]);
            put(reinterpret_cast<float*>(dst) + at + k * plane, t);
          }
        }
      }
    }
  }
  if (V::kLanes != 8 && p.dstW < 4 && cvec > 0) {
    StoreOutput(g, e, sums, ld, n, oy, 0, p.dstW, c0, cvec, dst);
  }
  if (cvec < nc) StoreOutput(g, e, sums + cvec, ld, n, oy, 0, p.dstW, c0 + cvec, nc - cvec, dst);
}

// NHWC dst with an activation outside WithFusedActivation (Elu): bias added and the result
// stored in vectors of this ISA around one ActivateKernels() call per
// chunk of whole pixels (StoreOutputVector's scalar loops cost as much as
// the activation); the channel tail through StoreOutputVector.
template <class V, bool kBf16>
void StoreNhwcTranscendental(const Geometry& g, const Epilogue& e, const float* sums, size_t ld,
                             size_t n, size_t oy, size_t c0, size_t nc, uint8_t* dst) {
  const ConvParams& p = g.p;
  constexpr size_t kChunk = 1024;
  const size_t vec = nc / V::kLanes * V::kLanes;
  if (vec == 0 || vec > kChunk) return StoreOutputVector(g, e, sums, ld, n, oy, 0, p.dstW, c0, nc, dst);
  const ActivateFn activate = ActivateKernels().Best().fn;
  alignas(64) float v[kChunk];
  const size_t px = kChunk / vec;
  for (size_t x = 0; x < p.dstW; x += px) {
    const size_t npx = std::min(px, p.dstW - x);
    for (size_t i = 0; i < npx; ++i) {
      const float* s = sums + (x + i) * ld;
      for (size_t j = 0; j < vec; j += V::kLanes) {
        V::StoreU(v + i * vec + j, V::Add(V::LoadU(s + j), V::LoadU(e.bias + c0 + j)));
      }
    }
    activate(e.activation, e.params, v, npx * vec);
    for (size_t i = 0; i < npx; ++i) {
      const size_t base = ((n * p.dstH + oy) * p.dstW + x + i) * p.dstC + c0;
      for (size_t j = 0; j < vec; j += V::kLanes) {
        const auto r = V::LoadU(v + i * vec + j);
        if (kBf16) {
          V::StoreBf16(reinterpret_cast<uint16_t*>(dst) + base + j, r);
        } else {
          V::StoreU(reinterpret_cast<float*>(dst) + base + j, r);
        }
      }
    }
  }
  if (vec < nc) StoreOutputVector(g, e, sums + vec, ld, n, oy, 0, p.dstW, c0 + vec, nc - vec, dst);
}

template <class V>
void StoreRow(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
              size_t oy, size_t c0, size_t nc, uint8_t* dst) {
  const bool bf16 = g.p.dstT == DataType::k16b, nhwc = g.p.dstF == TensorFormat::kNhwc;
  if (WithFusedActivation(e.activation, [&](auto a) {
        constexpr Activation A = decltype(a)::value;
        if (nhwc) {
          (bf16 ? StoreNhwc<V, A, true> : StoreNhwc<V, A, false>)(g, e, sums, ld, n, oy, c0, nc, dst);
        } else {
          (bf16 ? StoreNchw<V, A, true> : StoreNchw<V, A, false>)(g, e, sums, ld, n, oy, c0, nc, dst);
        }
      })) {
    return;
  }
  // Elu: the Highway kernels of ActivateKernels().
  if (nhwc) {
    (bf16 ? StoreNhwcTranscendental<V, true>
          : StoreNhwcTranscendental<V, false>)(g, e, sums, ld, n, oy, c0, nc, dst);
  } else {
    StoreOutputVector(g, e, sums, ld, n, oy, 0, g.p.dstW, c0, nc, dst);
  }
}

// Fp32ToBf16 of SPEC.md §2 on 4 lanes, kept as FP32 (the BF16 value's
// bits in the upper half).
inline __m128 RoundToBf16x4(__m128 v) {
  const __m128i u = _mm_castps_si128(v);
  const __m128i lsb = _mm_and_si128(_mm_srli_epi32(u, 16), _mm_set1_epi32(1));
  const __m128i rounded = _mm_add_epi32(_mm_add_epi32(u, _mm_set1_epi32(0x7FFF)), lsb);
  const __m128i quiet = _mm_or_si128(u, _mm_set1_epi32(0x00400000));
  const __m128i nan = _mm_castps_si128(_mm_cmpunord_ps(v, v));
  return _mm_castsi128_ps(
      _mm_and_si128(_mm_blendv_epi8(rounded, quiet, nan), _mm_set1_epi32(static_cast<int>(0xFFFF0000u))));
}

// One row of an NCHW image (channel c's `width` pixels at src + c *
// plane, FP32 or BF16) as BF16 values in FP32, interleaved: out[x * ld +
// c]. 4 x 4 transposes; the channel tail and rows of 1-3 pixels scalar.
inline void PlanarRowToF32(const void* src, bool f32, size_t plane, size_t channels, size_t width,
                           float* out, size_t ld) {
  const size_t cvec = channels / 4 * 4, xvec = width / 4 * 4;
  const float* s32 = static_cast<const float*>(src);
  const uint16_t* s16 = static_cast<const uint16_t*>(src);
  auto load = [&](size_t at) {
    if (f32) return RoundToBf16x4(_mm_loadu_ps(s32 + at));
    __m128i h;
    std::memcpy(&h, s16 + at, 8);  // 4 BF16 in the low 64 bits
    return _mm_castsi128_ps(_mm_slli_epi32(_mm_cvtepu16_epi32(h), 16));
  };
  const auto block = [&](size_t c, size_t x) __attribute__((always_inline)) {
    __m128 r0 = load(c * plane + x), r1 = load((c + 1) * plane + x), r2 = load((c + 2) * plane + x),
           r3 = load((c + 3) * plane + x);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(out + x * ld + c, r0);
    _mm_storeu_ps(out + (x + 1) * ld + c, r1);
    _mm_storeu_ps(out + (x + 2) * ld + c, r2);
    _mm_storeu_ps(out + (x + 3) * ld + c, r3);
  };
  // A row of 4k + r pixels (k > 0) ends with a block over its last 4,
  // overlapping the one before (the same values written twice) instead of
  // r scalar pixels per channel: a fifth of SSE4.1 depthwise 3x3 s2 576ch
  // 14x14 with a BF16 NCHW source (Emerald Rapids, perf).
  const bool tail = width >= 4 && xvec < width;
  for (size_t c = 0; c < cvec; c += 4) {
    for (size_t x = 0; x < xvec; x += 4) block(c, x);
    if (tail) block(c, width - 4);
  }
  const size_t done = tail ? width : xvec;
  for (size_t c = 0; c < channels; ++c) {
    for (size_t x = c < cvec ? done : 0; x < width; ++x) {
      uint32_t bits;
      if (f32) {
        _mm_store_ss(reinterpret_cast<float*>(&bits), RoundToBf16x4(_mm_set_ss(s32[c * plane + x])));
      } else {
        bits = uint32_t{s16[c * plane + x]} << 16;
      }
      std::memcpy(out + x * ld + c, &bits, 4);
    }
  }
}

template <class V, class = void>
struct HasRoundNotNan : std::false_type {};
template <class V>
struct HasRoundNotNan<V, std::void_t<decltype(&V::RoundBf16NotNan)>> : std::true_type {};

// RoundRowF32Fn of conv16b_kernels.h on V. Traits with RoundBf16NotNan
// (AVX2) round two vectors at a time without the NaN quieting where one
// compare finds no NaN in either: AVX2 1x1 256->64 56x56 from FP32 spent
// 14% of its time here (Sapphire Rapids, perf), 3x3 s2 96ch 112x112
// depthwise over half.
template <class V>
void RoundRow(const float* src, size_t n, float* out) {
  size_t i = 0;
  if constexpr (HasRoundNotNan<V>::value) {
    for (; i + 2 * V::kLanes <= n; i += 2 * V::kLanes) {
      const typename V::T a = V::LoadU(src + i), b = V::LoadU(src + i + V::kLanes);
      const bool nan = V::AnyNan(a, b);
      V::StoreU(out + i, nan ? V::RoundBf16(a) : V::RoundBf16NotNan(a));
      V::StoreU(out + i + V::kLanes, nan ? V::RoundBf16(b) : V::RoundBf16NotNan(b));
    }
  }
  for (; i + V::kLanes <= n; i += V::kLanes) V::StoreU(out + i, V::RoundBf16(V::LoadU(src + i)));
  for (; i < n; ++i) out[i] = _mm_cvtss_f32(RoundToBf16x4(_mm_set_ss(src[i])));
}

// PlanarRowToF32 on V: with 8 lanes (AVX2), 8 channels x 8 pixels per 8 x
// 8 transpose (each channel's 8 pixels one load), the rest as above.
template <class V>
void PlanarRowToF32V(const void* src, bool f32, size_t plane, size_t channels, size_t width,
                     float* out) {
  size_t c8 = 0, x8 = 0;
  if constexpr (V::kLanes == 8) {
    c8 = channels / 8 * 8;
    x8 = width / 8 * 8;
    const float* s32 = static_cast<const float*>(src);
    const uint16_t* s16 = static_cast<const uint16_t*>(src);
    // A row of at least 8 pixels ends with a block over its last 8,
    // overlapping the one before (the same values written twice) instead
    // of the 4 x 4 and scalar tails: 3x3 s2 576ch 14x14 with a BF16 NCHW
    // source spent a third of its time in those (Zen 5, perf).
    const bool tail = width >= 8 && x8 < width;
    const auto block = [&](size_t c, size_t x) __attribute__((always_inline)) {
      typename V::T r[8];
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) {
        const size_t at = (c + k) * plane + x;
        r[k] = f32 ? V::RoundBf16(V::LoadU(s32 + at)) : V::WidenBf16(s16 + at);
      }
      V::Transpose8x8(r);
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) V::StoreU(out + (x + i) * channels + c, r[i]);
    };
    for (size_t c = 0; c < c8; c += 8) {
      for (size_t x = 0; x < x8; x += 8) block(c, x);
      if (tail) block(c, width - 8);
    }
    if (tail) x8 = width;
  }
  const size_t es = f32 ? 4 : 2;
  const uint8_t* s = static_cast<const uint8_t*>(src);
  if (x8 < width && c8 > 0) {
    PlanarRowToF32(s + x8 * es, f32, plane, c8, width - x8, out + x8 * channels, channels);
  }
  if (c8 < channels) {
    PlanarRowToF32(s + c8 * plane * es, f32, plane, channels - c8, width, out + c8, channels);
  }
}

// The compute peak of V::MulAdd, `acc += x * y` on independent
// accumulators: more of them than latency x throughput on current x86
// cores. Fused (FMA, 4 x 2): 12 accumulators. Multiply then add: 8
// accumulators (ADDPS 3-4 x 2 on Zen, 4 x 1 on Intel, where MULPS and
// ADDPS share two ports), each with its own product, so the loop runs as
// many multiplies as adds like the kernel; x and y are hidden from the
// compiler every iteration so no product is hoisted. Each unfused product
// multiplies an x loaded from memory, as the kernels' do: with x in
// registers, two-operand SSE copied x before each MULPS, and on a Zen 5
// core ("AMD EPYC" family 26 model 2) those copies held the loop to 37
// GFLOP/s while the SSE4.1 GEMM rows ran at up to 43 (from memory: 53-58;
// a standalone copy of both loops, 2026-12-07). Returns the FLOPs
// performed.
template <class V>
uint64_t Peak(uint64_t iterations) {
  using T = typename V::T;
  constexpr int kAcc = V::kFused ? 12 : 8;
  T acc[kAcc];
#pragma GCC unroll 12
  for (int j = 0; j < kAcc; ++j) acc[j] = V::Set1(static_cast<float>(j));
  T x = V::Set1(1.0f);
  alignas(64) float xs[4][V::kLanes];
  for (int k = 0; k < 4; ++k) {
    for (int l = 0; l < V::kLanes; ++l) xs[k][l] = 1.0f / static_cast<float>(1 << k);
  }
  const float* xp = &xs[0][0];
  T y[2] = {V::Set1(0.999f), V::Set1(0.998f)};
  for (uint64_t i = 0; i < iterations; ++i) {
    if constexpr (V::kFused) {
      // 12 accumulators + x + y: 14 of the 16 registers.
      __asm__("" : "+x"(x), "+x"(y[0]));
#pragma GCC unroll 12
      for (int j = 0; j < kAcc; ++j) acc[j] = V::MulAdd(x, y[0], acc[j]);
    } else {
      // 8 accumulators + 2 y, 8 different products of 4 x in memory.
      __asm__("" : "+r"(xp), "+x"(y[0]), "+x"(y[1]));
#pragma GCC unroll 8
      for (int j = 0; j < kAcc; ++j) {
        acc[j] = V::MulAdd(V::Load(xp + (j % 4) * V::kLanes), y[j / 4], acc[j]);
      }
    }
  }
  T sum = acc[0];
  for (int j = 1; j < kAcc; ++j) sum = V::Add(sum, acc[j]);
  alignas(32) float out[V::kLanes];
  V::StoreU(out, sum);
  volatile float sink = out[0];
  (void)sink;
  return iterations * kAcc * V::kLanes * 2;
}

// Clears the upper halves of the vector registers (VZEROUPPER) where the
// file is compiled for AVX, at the end of every kernel entry point of
// SYNOPS_CONV16B_X86_F32_KERNELS. GCC assumes a call returns with them
// clean, but a function taking __m256 arguments out of line
// (Avx2::StoreBf16x2, ToDst::Store2) returns without VZEROUPPER, and its
// caller then did too: the AVX2 rows with a BF16 dst returned to the
// driver with the upper state dirty, and on Zen 5 every legacy-SSE
// instruction after that (the baseline's scalar float code; the SSE4.1
// kernels) ran up to 4x slower, until some AVX code cleared it
// (Peak/sse41/mul_add 68 -> 6.8 GFLOP/s after avx2::nhwc_gemm in one
// benchmark run). Conv16bAlgorithm.ForwardLeavesAvxStateClean tests it.
struct LeaveAvxStateClean {
  LeaveAvxStateClean() = default;
  LeaveAvxStateClean(const LeaveAvxStateClean&) = delete;
  LeaveAvxStateClean& operator=(const LeaveAvxStateClean&) = delete;
  ~LeaveAvxStateClean() {
#if defined(__AVX__)
    _mm256_zeroupper();
#endif
  }
};

}  // namespace
}  // namespace x86_f32
}  // namespace conv16b_internal
}  // namespace synops

// The kernels of conv16b_kernels.h for one ISA file: GemmRowF32<Isa>,
// DepthwiseRowF32<Isa>, StoreRow<Isa>, PlanarRowToF32<Isa>,
// RoundRowF32<Isa>, Peak<Isa> from the vector traits V.
#define SYNOPS_CONV16B_X86_F32_KERNELS(Isa, V)                                                  \
  void GemmRowF32##Isa(const GemmRowF32Args& args) {                                            \
    const x86_f32::LeaveAvxStateClean leave;                                                    \
    x86_f32::GemmRow<V>(args);                                                                  \
  }                                                                                             \
  void DepthwiseRowF32##Isa(const GemmRowF32Args& args) {                                       \
    const x86_f32::LeaveAvxStateClean leave;                                                    \
    x86_f32::DepthwiseRow<V>(args);                                                             \
  }                                                                                             \
  void StoreRow##Isa(const Geometry& g, const Epilogue& e, const float* sums, size_t ld,        \
                     size_t n, size_t oy, size_t c0, size_t nc, uint8_t* dst) {                 \
    const x86_f32::LeaveAvxStateClean leave;                                                    \
    x86_f32::StoreRow<V>(g, e, sums, ld, n, oy, c0, nc, dst);                                   \
  }                                                                                             \
  void PlanarRowToF32##Isa(const void* src, bool f32, size_t plane, size_t channels,            \
                           size_t width, float* out) {                                          \
    const x86_f32::LeaveAvxStateClean leave;                                                    \
    x86_f32::PlanarRowToF32V<V>(src, f32, plane, channels, width, out);                         \
  }                                                                                             \
  void RoundRowF32##Isa(const float* src, size_t n, float* out) {                               \
    const x86_f32::LeaveAvxStateClean leave;                                                    \
    x86_f32::RoundRow<V>(src, n, out);                                                          \
  }                                                                                             \
  uint64_t Peak##Isa(uint64_t iterations) {                                                     \
    const x86_f32::LeaveAvxStateClean leave;                                                    \
    return x86_f32::Peak<V>(iterations);                                                        \
  }

#endif  // SYNOPS_CONV16B_CONV16B_X86_F32_INL_H_
