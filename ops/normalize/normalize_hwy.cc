// Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
//
// Reductions along the contiguous axis (a position's channels in NHWC, a
// channel's positions in NCHW) run over the row with four accumulators.
// Reductions along the strided axis (positions of a chunk across channels in
// NCHW, channels across positions in NHWC) stream whole rows in memory order
// into per-element accumulators on the stack (RowsAccumulate), four rows
// at a time; column blocks of a power-of-two row stride would map to a
// fraction of the cache sets and fall out of cache between the passes. No
// heap scratch is needed (V4 keeps its per-channel norms in `buf`; V3 with
// more than kMaxRowChannels channels falls back to column blocks).
// Every output is written after all of its inputs were read, so dst == src
// works. Divisions and square roots are IEEE (no reciprocal estimates), as
// in the reference.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/normalize/normalize_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "bf16/bf16.h"
#include "bf16/bf16_hwy-inl.h"
#include "core/cpu.h"
#include "core/hwy_math-inl.h"
#include "core/ieee.h"
#include "core/streaming.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "ops/normalize/normalize_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// ---- FP32 / BF16 element access ----
HWY_INLINE VF LoadT(DF d, const float* HWY_RESTRICT p) { return hn::LoadU(d, p); }
HWY_INLINE VF LoadT(DF d, const uint16_t* HWY_RESTRICT p) { return LoadBf16(d, p); }
HWY_INLINE void StoreT(DF d, VF v, float* HWY_RESTRICT p) { hn::StoreU(v, d, p); }
// Fp32ToBf16 (SPEC.md §2: ties to even, quiet NaN) on a vector.
HWY_INLINE void StoreT(DF d, VF v, uint16_t* HWY_RESTRICT p) { StoreBf16(d, v, p); }
// Two vectors to 2N consecutive elements.
HWY_INLINE void StoreT2(DF d, VF v0, VF v1, float* HWY_RESTRICT p) {
  hn::StoreU(v0, d, p);
  hn::StoreU(v1, d, p + hn::Lanes(d));
}
HWY_INLINE void StoreT2(DF d, VF v0, VF v1, uint16_t* HWY_RESTRICT p) { StoreBf16x2(d, v0, v1, p); }
HWY_INLINE float ToF(float x) { return x; }
HWY_INLINE float ToF(uint16_t x) { return Bf16ToFp32(x); }
HWY_INLINE void FromF(float v, float* p) { *p = v; }
HWY_INLINE void FromF(float v, uint16_t* p) { *p = Fp32ToBf16(v); }

// ---- row reductions (contiguous) ----
// If `stage` is not null, the row is also stored there as FP32 (BF16 rows
// are then widened once for all passes).
template <class T>
HWY_INLINE float RowSum(const T* HWY_RESTRICT x, size_t n, float* HWY_RESTRICT stage = nullptr) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto load = [&](size_t i) HWY_ATTR {
    const VF v = LoadT(d, x + i);
    if (stage != nullptr) hn::StoreU(v, d, stage + i);
    return v;
  };
  size_t i = 0;
  float s = 0.0f;
  if (n >= N) {
    VF a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (; i + 4 * N <= n; i += 4 * N) {
      a0 = hn::Add(a0, load(i));
      a1 = hn::Add(a1, load(i + N));
      a2 = hn::Add(a2, load(i + 2 * N));
      a3 = hn::Add(a3, load(i + 3 * N));
    }
    for (; i + N <= n; i += N) a0 = hn::Add(a0, load(i));
    s = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
  }
  for (; i < n; ++i) {
    const float v = ToF(x[i]);
    if (stage != nullptr) stage[i] = v;
    s += v;
  }
  return s;
}

// sum (x - mean)^2 (mean = 0: the sum of squares, exactly).
template <class T>
HWY_INLINE float RowSqDev(const T* HWY_RESTRICT x, size_t n, float mean) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const VF m = hn::Set(d, mean);
  size_t i = 0;
  float s = 0.0f;
  if (n >= N) {
    VF a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (; i + 4 * N <= n; i += 4 * N) {
      const VF v0 = hn::Sub(LoadT(d, x + i), m), v1 = hn::Sub(LoadT(d, x + i + N), m);
      const VF v2 = hn::Sub(LoadT(d, x + i + 2 * N), m), v3 = hn::Sub(LoadT(d, x + i + 3 * N), m);
      a0 = hn::MulAdd(v0, v0, a0);
      a1 = hn::MulAdd(v1, v1, a1);
      a2 = hn::MulAdd(v2, v2, a2);
      a3 = hn::MulAdd(v3, v3, a3);
    }
    for (; i + N <= n; i += N) {
      const VF v = hn::Sub(LoadT(d, x + i), m);
      a0 = hn::MulAdd(v, v, a0);
    }
    s = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
  }
  for (; i < n; ++i) {
    const float v = ToF(x[i]) - mean;
    s += v * v;
  }
  return s;
}

// ---- reductions across rows: acc[j] += Term(row[j]) over many rows ----

// Terms: x (kSum), (x - mean[j])^2 (kSqDev) or x^2 (kSq).
enum RowTerm { kSum, kSqDev, kSq };
template <RowTerm kT>
HWY_INLINE VF Term(VF v, VF m) {
  if (kT == kSum) return v;
  if (kT == kSq) return hn::Mul(v, v);
  const VF t = hn::Sub(v, m);
  return hn::Mul(t, t);
}
template <RowTerm kT>
HWY_INLINE float Term(float v, float m) {
  if (kT == kSum) return v;
  if (kT == kSq) return v * v;
  return (v - m) * (v - m);
}

// ForRowGroups: four(s) for each group of four rows from s, one(s) for
// the rows left over, in memory order (or the reverse if kBackward).
template <bool kBackward, class F4, class F1>
HWY_INLINE void ForRowGroups(size_t rows, const F4& four, const F1& one) {
  const size_t whole = rows - rows % 4;  // rows in groups of four
  if (kBackward) {
    for (size_t s = rows; s > whole;) one(--s);
    for (size_t s = whole; s >= 4;) four(s -= 4);
  } else {
    for (size_t s = 0; s < whole; s += 4) four(s);
    for (size_t s = whole; s < rows; ++s) one(s);
  }
}

// acc[j] += sum over `rows` rows r of Term(x[r * stride + j]), j < len
// (NHWC: a position's channels, rows = positions; NCHW: a chunk of
// positions, rows = channels). Four rows are added in registers at a time
// (fewer loads and stores of acc); every pass streams the rows in memory
// order, or in reverse order of groups if kBackward (a second pass over a
// tensor larger than L2 then starts on the part the first pass left in
// cache). `mean` is read only for kSqDev.
//
// A row of at most four whole vectors (NHWC with few channels) keeps its
// accumulators in registers for the whole pass, in the same order of
// additions: loading and storing acc for every group of four rows (in a
// call per group: the lambdas were not inlined) was most of the pass at
// 64 channels.
template <RowTerm kT, bool kBackward, size_t kV, class T>
HWY_INLINE void RowsAccumulateInRegisters(const T* HWY_RESTRICT x, size_t rows, size_t stride,
                                          const float* HWY_RESTRICT mean, float* HWY_RESTRICT acc) {
  const DF d;
  const size_t N = hn::Lanes(d);
  VF a[kV], m[kV];
#pragma GCC unroll 4
  for (size_t k = 0; k < kV; ++k) {
    a[k] = hn::LoadU(d, acc + k * N);
    m[k] = kT == kSqDev ? hn::LoadU(d, mean + k * N) : hn::Zero(d);
  }
  const auto four = [&](size_t s) HWY_ATTR __attribute__((always_inline)) {
    const T* HWY_RESTRICT r = x + s * stride;
#pragma GCC unroll 4
    for (size_t k = 0; k < kV; ++k) {
      const size_t j = k * N;
      const VF p = hn::Add(Term<kT>(LoadT(d, r + j), m[k]), Term<kT>(LoadT(d, r + stride + j), m[k]));
      const VF q = hn::Add(Term<kT>(LoadT(d, r + 2 * stride + j), m[k]),
                           Term<kT>(LoadT(d, r + 3 * stride + j), m[k]));
      a[k] = hn::Add(a[k], hn::Add(p, q));
    }
  };
  const auto one = [&](size_t s) HWY_ATTR __attribute__((always_inline)) {
    const T* HWY_RESTRICT r = x + s * stride;
#pragma GCC unroll 4
    for (size_t k = 0; k < kV; ++k) a[k] = hn::Add(a[k], Term<kT>(LoadT(d, r + k * N), m[k]));
  };
  ForRowGroups<kBackward>(rows, four, one);
#pragma GCC unroll 4
  for (size_t k = 0; k < kV; ++k) hn::StoreU(a[k], d, acc + k * N);
}

template <RowTerm kT, bool kBackward = false, class T>
void RowsAccumulate(const T* HWY_RESTRICT x, size_t len, size_t rows, size_t stride,
                    const float* HWY_RESTRICT mean, float* HWY_RESTRICT acc) {
  const DF d;
  const size_t N = hn::Lanes(d);
  if (len % N == 0) {
    switch (len / N) {
      case 1:
        return RowsAccumulateInRegisters<kT, kBackward, 1>(x, rows, stride, mean, acc);
      case 2:
        return RowsAccumulateInRegisters<kT, kBackward, 2>(x, rows, stride, mean, acc);
      case 3:
        return RowsAccumulateInRegisters<kT, kBackward, 3>(x, rows, stride, mean, acc);
      case 4:
        return RowsAccumulateInRegisters<kT, kBackward, 4>(x, rows, stride, mean, acc);
      default:
        break;
    }
  }
  const auto four = [&](size_t s) HWY_ATTR __attribute__((always_inline)) {
    const T* HWY_RESTRICT r = x + s * stride;
    size_t j = 0;
    for (; j + N <= len; j += N) {
      const VF m = kT == kSqDev ? hn::LoadU(d, mean + j) : hn::Zero(d);
      const VF a = hn::Add(Term<kT>(LoadT(d, r + j), m), Term<kT>(LoadT(d, r + stride + j), m));
      const VF b = hn::Add(Term<kT>(LoadT(d, r + 2 * stride + j), m),
                           Term<kT>(LoadT(d, r + 3 * stride + j), m));
      hn::StoreU(hn::Add(hn::LoadU(d, acc + j), hn::Add(a, b)), d, acc + j);
    }
    for (; j < len; ++j) {
      const float m = kT == kSqDev ? mean[j] : 0.0f;
      acc[j] += (Term<kT>(ToF(r[j]), m) + Term<kT>(ToF(r[stride + j]), m)) +
                (Term<kT>(ToF(r[2 * stride + j]), m) + Term<kT>(ToF(r[3 * stride + j]), m));
    }
  };
  const auto one = [&](size_t s) HWY_ATTR __attribute__((always_inline)) {
    const T* HWY_RESTRICT r = x + s * stride;
    size_t j = 0;
    for (; j + N <= len; j += N) {
      const VF m = kT == kSqDev ? hn::LoadU(d, mean + j) : hn::Zero(d);
      hn::StoreU(hn::Add(hn::LoadU(d, acc + j), Term<kT>(LoadT(d, r + j), m)), d, acc + j);
    }
    for (; j < len; ++j) acc[j] += Term<kT>(ToF(r[j]), kT == kSqDev ? mean[j] : 0.0f);
  };
  ForRowGroups<kBackward>(rows, four, one);
}

// y[j] = fv(j) (a vector) for j < len, fs(j) for single elements. With
// `stream`, the vectors from the first aligned one on are non-temporal
// stores (the caller calls hwy::FlushStream() after the pass).
template <class FV, class FS>
HWY_INLINE void OutputRow(float* HWY_RESTRICT y, size_t len, bool stream, FV fv, FS fs) {
  const DF d;
  const size_t N = hn::Lanes(d);
  size_t j = 0;
  if (stream) {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(y);
    const size_t head = HWY_MIN(len, ((0 - addr) % (N * sizeof(float))) / sizeof(float));
    for (; j < head; ++j) y[j] = fs(j);
    for (; j + N <= len; j += N) hn::Stream(fv(j), d, y + j);
  }
  for (; j + N <= len; j += N) hn::StoreU(fv(j), d, y + j);
  for (; j < len; ++j) y[j] = fs(j);
}

// Positions per NCHW chunk: the chunk's rows are streamed in memory order
// and stay in L2 between the passes. A chunk takes 1/`fraction` of the
// detected L2 (so a core with 1 MiB of L2 gets half the positions of one with
// 2 MiB), at most kChunk positions (the stack arrays), at least one vector, a
// multiple of the vector. Measured on a Sapphire Rapids core (2 MiB L2),
// 56x56, against the fixed 256 (V1) and 128 (V2) positions before: V1 with
// L2/16 chunks, 512 channels 0.72 -> 0.58 ms, 64-256 channels within noise;
// V2 with L2/8 (its three chunks in flight), within noise (L2/24 made AVX2
// at 512 channels 1.3x slower). At least 4 cache lines of each row
// (kMinChunkBytes): with a 1 MiB L2, L2/16 leaves 512 channels 32
// positions, rows of 2 lines, which ran at 1.6x BM_ReadThenCopy; Zen 4
// core (AMD EPYC family 25 model 17), normalize_bench V1 NCHW 512 x
// 56x56, best of 3 alternating rounds, us, 32 -> 64 positions: AVX-512
// 378 -> 307, AVX2 388 -> 300 (BM_ReadThenCopy 227-236; 256 channels, 64
// positions either way, 128-140).
constexpr size_t kChunk = 256;
constexpr size_t kMinChunkBytes = 256;
HWY_INLINE size_t ChunkPositions(size_t channels, size_t elem_bytes, size_t fraction) {
  const size_t N = hn::Lanes(DF());
  const size_t fit = GetCacheSizes().l2 / fraction / (channels * elem_bytes);
  const size_t least = HWY_MAX(N, kMinChunkBytes / elem_bytes);
  return HWY_MAX(least, HWY_MIN(kChunk, fit / N * N));
}

// ---- NCHW with few positions (7x7 maps and smaller), FP32 ----
// The per-position sums of up to kMaxRegVectors vectors of positions stay in
// registers over all channels (the chunked passes loaded and stored them for
// every four channels and took the last partial vector element by element);
// the last vector is a masked load and store. Only where masked loads and
// stores never fault (AVX2, AVX-512), and while the tensor fits half the L2
// (each pass reads it from there).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// AVX-512 (32 registers): 16 vectors, whole 12x12 to 16x16 maps in one
// block, so that each pass reads the item in memory order. Zen 5 (AMD
// EPYC family 26 model 2), normalize_bench NCHW, best of 4 alternating
// rounds, time with 16 against 8: V1 128 x 14x14 0.58, 256 x 12x12 0.79,
// 14x14 0.55, 16x16 0.64; V2 0.78-0.87 (V4, 7x7, 28x28 and 56x56 within
// +-6%). AVX2 (16 registers) with 16: 0.87-1.09, the sums spilled.
constexpr size_t kMaxRegVectors = HWY_TARGET <= HWY_AVX3 ? 16 : 8;

// out[k] = sum over the channels of Term(x[c * stride + k * N ...],
// mean[k]), k < kV, over the first `len` positions of each row ((kV - 1) *
// N < len <= kV * N; `mean` is read only for kSqDev).
template <size_t kV, RowTerm kT>
HWY_INLINE void SumPositions(const float* HWY_RESTRICT x, size_t channels, size_t stride,
                             size_t len, const VF* mean, VF* out) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto last = hn::FirstN(d, len - (kV - 1) * N);
  // Two sets of sums for alternate channels when kV is small: at least eight
  // independent add chains.
  constexpr size_t kSets = kV <= 4 ? 2 : 1;
  VF acc[kSets][kV];
  hmath::Unroll<kSets * kV>([&](size_t i) HWY_ATTR __attribute__((always_inline)) {
    acc[i / kV][i % kV] = hn::Zero(d);
  });
  const auto row = [&](const float* HWY_RESTRICT r, size_t set)
                       HWY_ATTR __attribute__((always_inline)) {
    hmath::Unroll<kV>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
      const VF v = k + 1 < kV ? hn::LoadU(d, r + k * N) : hn::MaskedLoad(last, d, r + k * N);
      acc[set][k] = hn::Add(acc[set][k], Term<kT>(v, kT == kSqDev ? mean[k] : v));
    });
  };
  size_t c = 0;
  for (; c + kSets <= channels; c += kSets) {
    hmath::Unroll<kSets>([&](size_t set) HWY_ATTR __attribute__((always_inline)) {
      row(x + (c + set) * stride, set);
    });
  }
  for (; c < channels; ++c) row(x + c * stride, 0);
  hmath::Unroll<kV>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
    out[k] = kSets == 2 ? hn::Add(acc[0][k], acc[kSets - 1][k]) : acc[0][k];
  });
}

// y[c * stride + s] = f(x[c * stride + s...], scale[c], shift[c], s / N)
// for every channel and s < len (as SumPositions), the last vector of each
// row masked. Each row is read before it is written. kBackward: the last
// channel first (OutputAll chooses).
template <size_t kV, bool kBackward, class F>
HWY_INLINE void OutputPositions(const float* HWY_RESTRICT x, size_t channels, size_t stride,
                                size_t len, const float* HWY_RESTRICT scale,
                                const float* HWY_RESTRICT shift, F f, float* HWY_RESTRICT y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto last = hn::FirstN(d, len - (kV - 1) * N);
  const auto row = [&](size_t c) HWY_ATTR __attribute__((always_inline)) {
    const float* HWY_RESTRICT r = x + c * stride;
    float* HWY_RESTRICT w = y + c * stride;
    const VF sc = hn::Set(d, scale[c]), sh = hn::Set(d, shift != nullptr ? shift[c] : 0.0f);
    hmath::Unroll<kV>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
      if (k + 1 < kV) {
        hn::StoreU(f(hn::LoadU(d, r + k * N), sc, sh, k), d, w + k * N);
      } else {
        hn::BlendedStore(f(hn::MaskedLoad(last, d, r + k * N), sc, sh, k), last, d, w + k * N);
      }
    });
  };
  if constexpr (kBackward) {
    for (size_t c = channels; c-- > 0;) row(c);
  } else {
    for (size_t c = 0; c < channels; ++c) row(c);
  }
}

// Rows of a few positions that are not whole vectors (7x7: 49 values,
// four vectors of 16, the last masked, three across two cache lines) are
// read as whole vectors instead: each period of N rows (spatial vectors of
// N values) is one array, lane i of its vector j holding position (j * N +
// i) % spatial of row (j * N + i) / spatial. The sums gather per vector
// of the period and fold per position once (FoldPeriod); the output pass
// reads each vector's position factors from a table of the period
// (FillPeriod) and its rows' scale and shift by a lane permutation of the
// period's N channels (FillRows). Channels past the last whole period go
// through the row passes above. Taken for items beyond the L1d, AVX-512
// and V1 on AVX2 (FewPositions: the figures).
constexpr size_t kMaxFlatPositions = 64;
constexpr size_t kMaxLanes = 16;
// Sums of FlatSums in registers over all periods: half the registers
// (AVX-512: 16; AVX2: 8). (The periods in memory order with the sums in
// memory, 8 periods per load and store of them, timed the same.)
constexpr size_t kFlatGroup = HWY_TARGET <= HWY_AVX3 ? 16 : 8;

// pat[(j0 + i) * N ...] = sum over the periods of Term(vector j0 + i,
// mean[(j0 + i) * N ...]) for i < kG.
template <size_t kG, RowTerm kT>
HWY_INLINE void FlatGroup(const float* HWY_RESTRICT x, size_t periods, size_t spatial, size_t j0,
                          const float* HWY_RESTRICT mean, float* HWY_RESTRICT pat) {
  const DF d;
  const size_t N = hn::Lanes(d);
  VF acc[kG];
  hmath::Unroll<kG>([&](size_t i) HWY_ATTR __attribute__((always_inline)) {
    acc[i] = hn::Zero(d);
  });
  for (size_t p = 0; p < periods; ++p) {
    const float* HWY_RESTRICT r = x + (p * spatial + j0) * N;
    hmath::Unroll<kG>([&](size_t i) HWY_ATTR __attribute__((always_inline)) {
      const VF v = hn::LoadU(d, r + i * N);
      acc[i] = hn::Add(acc[i], Term<kT>(v, kT == kSqDev ? hn::Load(d, mean + (j0 + i) * N) : v));
    });
  }
  hmath::Unroll<kG>([&](size_t i) HWY_ATTR __attribute__((always_inline)) {
    hn::Store(acc[i], d, pat + (j0 + i) * N);
  });
}

// Vectors [j, spatial) (fewer than 2 * kG) in groups of kG, kG / 2, ...
template <size_t kG, RowTerm kT>
HWY_INLINE void FlatRest(const float* HWY_RESTRICT x, size_t periods, size_t spatial, size_t j,
                         const float* HWY_RESTRICT mean, float* HWY_RESTRICT pat) {
  if constexpr (kG != 0) {
    if (j + kG <= spatial) {
      FlatGroup<kG, kT>(x, periods, spatial, j, mean, pat);
      j += kG;
    }
    FlatRest<kG / 2, kT>(x, periods, spatial, j, mean, pat);
  }
}

// Every vector j < spatial of the periods, in groups of kFlatGroup
// accumulators and the rest in halves of that; the N values of slack
// after them zero (FoldPeriod reads them).
template <RowTerm kT>
HWY_NOINLINE void FlatSums(const float* HWY_RESTRICT x, size_t periods, size_t spatial,
                           const float* HWY_RESTRICT mean, float* HWY_RESTRICT pat) {
  const DF d;
  size_t j = 0;
  for (; j + kFlatGroup <= spatial; j += kFlatGroup) {
    FlatGroup<kFlatGroup, kT>(x, periods, spatial, j, mean, pat);
  }
  FlatRest<kFlatGroup / 2, kT>(x, periods, spatial, j, mean, pat);
  hn::Store(hn::Zero(d), d, pat + spatial * hn::Lanes(d));
}

// sums[k] += the N rows' pat[r * spatial + k * N ...] (lanes at positions
// past spatial hold other rows' values: never stored).
template <size_t kV>
HWY_INLINE void FoldPeriod(const float* HWY_RESTRICT pat, size_t spatial, VF* sums) {
  const DF d;
  const size_t N = hn::Lanes(d);
  for (size_t r = 0; r < N; ++r) {
    hmath::Unroll<kV>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
      sums[k] = hn::Add(sums[k], hn::LoadU(d, pat + r * spatial + k * N));
    });
  }
}

// pat[r * spatial + s] = v[s / N][s % N] for every row r < N: each row's
// last vector spills past it, into the next row (written after) or the
// N values of slack at the end.
template <size_t kV>
HWY_INLINE void FillPeriod(const VF* v, size_t spatial, float* HWY_RESTRICT pat) {
  const DF d;
  const size_t N = hn::Lanes(d);
  for (size_t r = 0; r < N; ++r) {
    hmath::Unroll<kV>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
      hn::StoreU(v[k], d, pat + r * spatial + k * N);
    });
  }
}

// rows[j * N + i] = (j * N + i) / spatial for j < spatial: (index + 0.5) /
// spatial is at least 0.5 / spatial away from an integer, far more than
// its float error at these sizes (index < 1024), and truncated.
HWY_INLINE void FillRows(size_t spatial, int32_t* HWY_RESTRICT rows) {
  const DF d;
  const hn::RebindToSigned<DF> di;
  const size_t N = hn::Lanes(d);
  const VF inv = hn::Set(d, 1.0f / static_cast<float>(spatial));
  const VF step = hn::Set(d, static_cast<float>(N));
  VF index = hn::Add(hn::ConvertTo(d, hn::Iota(di, 0)), hn::Set(d, 0.5f));
  for (size_t j = 0; j < spatial; ++j, index = hn::Add(index, step)) {
    hn::Store(hn::ConvertTo(di, hn::Mul(index, inv)), di, rows + j * N);
  }
}

// y = f(x, scale, shift, j) over the periods' vectors, `scale` and `shift`
// of each lane's row (kShift; else `shift` is null and f gets zeros).
template <bool kShift, class F>
HWY_NOINLINE void FlatOutput(const float* x, size_t periods, size_t spatial,
                             const float* HWY_RESTRICT scale, const float* HWY_RESTRICT shift,
                             const int32_t* HWY_RESTRICT rows, F f, float* y) {
  const DF d;
  const hn::RebindToSigned<DF> di;
  const size_t N = hn::Lanes(d);
  // Backwards, as V4's output pass: the last vectors the sums read are the
  // likeliest still in the L1d. Zen 5, normalize_bench AVX-512 NCHW 7x7,
  // ns, two rounds: V1 256 channels 882-894 -> 860-873, 512 channels
  // 1826-1829 -> 1776-1787; V2 the same within 2%.
  for (size_t p = periods; p-- > 0;) {
    const VF sc = hn::LoadU(d, scale + p * N);
    const VF sh = kShift ? hn::LoadU(d, shift + p * N) : hn::Zero(d);
    const float* r = x + p * spatial * N;  // y == x in place: each vector read, then written
    float* w = y + p * spatial * N;
    for (size_t j = spatial; j-- > 0;) {
      const auto idx = hn::IndicesFromVec(d, hn::Load(di, rows + j * N));
      hn::StoreU(f(hn::LoadU(d, r + j * N), hn::TableLookupLanes(sc, idx),
                   kShift ? hn::TableLookupLanes(sh, idx) : sh, j),
                 d, w + j * N);
    }
  }
}

// Whether this target runs V1 (v1) or V2 flat: AVX-512, or AVX2 for V1
// (FewPositions: the figures).
constexpr bool FlatOnTarget(bool v1) {
  return HWY_TARGET <= HWY_AVX3 || (v1 && HWY_TARGET <= HWY_AVX2);
}

// Whether V1FewPositions (kV1) / V2FewPositions<kV> can run flat
// (FewPositions chooses): FlatOnTarget and rows of at most
// kMaxFlatPositions (no flat code for the other instantiations).
template <size_t kV, bool kV1>
constexpr bool kMayRunFlat =
    FlatOnTarget(kV1) && kV * (HWY_MAX_BYTES / sizeof(float)) <= kMaxFlatPositions;

// The period arrays of one item (kMaxFlatPositions vectors and the slack).
struct FlatScratch {
  HWY_ALIGN float pat[(kMaxFlatPositions + 1) * kMaxLanes];
  HWY_ALIGN float mean[(kMaxFlatPositions + 1) * kMaxLanes];
  HWY_ALIGN float k[(kMaxFlatPositions + 1) * kMaxLanes];
  HWY_ALIGN int32_t rows[kMaxFlatPositions * kMaxLanes];
};

// The scratch of V1FewPositions / V2FewPositions<kV>: none (not even a
// frame of 16 KiB on the stack) where they never run flat.
struct NoFlatScratch {};
template <size_t kV, bool kV1>
using FlatScratchFor = std::conditional_t<kMayRunFlat<kV, kV1>, FlatScratch, NoFlatScratch>;

// out[k] = the sums of Term over every channel of the first `spatial`
// positions of rows `stride` apart: `periods` periods flat (only where
// stride == spatial), the rows after them as rows (mean: kV vectors, and
// the period table in t->mean for the flat part).
template <size_t kV, RowTerm kT>
HWY_INLINE void SumAll(const float* HWY_RESTRICT x, size_t channels, size_t stride,
                       size_t spatial, size_t periods, const VF* mean,
                       FlatScratchFor<kV, kT == kSq>* t, VF* out) {
  const size_t N = hn::Lanes(DF());
  const size_t flat = periods * N;
  SumPositions<kV, kT>(x + flat * stride, channels - flat, stride, spatial, mean, out);
  if constexpr (kMayRunFlat<kV, kT == kSq>) {
    if (periods != 0) {
      FlatSums<kT>(x, periods, spatial, t->mean, t->pat);
      FoldPeriod<kV>(t->pat, spatial, out);
    }
  }
}

// y = g(x, scale, shift, mean, k) for every channel, with each position's
// mean (kMean; else zero) and k: `periods` periods flat (mean from the
// period table in t->mean, k's table filled from `k` first), the rows after
// them as rows (mean and k: kV vectors); rows and positions as SumAll.
template <size_t kV, bool kMean, bool kBackward, class G>
HWY_INLINE void OutputAll(const float* x, size_t channels, size_t stride, size_t spatial,
                          size_t periods,
                          const float* HWY_RESTRICT scale, const float* HWY_RESTRICT shift,
                          const VF* mean, const VF* k, FlatScratchFor<kV, !kMean>* t, G g,
                          float* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const size_t flat = periods * N;
  if constexpr (kMayRunFlat<kV, !kMean>) {
    if (periods != 0) {
      FillPeriod<kV>(k, spatial, t->k);
      FillRows(spatial, t->rows);
      FlatOutput<kMean>(
          x, periods, spatial, scale, shift, t->rows,
          [d, N, g, m_tab = t->mean, k_tab = t->k](VF v, VF sc, VF sh, size_t j)
              HWY_ATTR __attribute__((always_inline)) {
                return g(v, sc, sh, kMean ? hn::Load(d, m_tab + j * N) : hn::Zero(d),
                         hn::Load(d, k_tab + j * N));
              },
          y);
    }
  }
  OutputPositions<kV, kBackward>(
      x + flat * stride, channels - flat, stride, spatial, scale + flat,
      shift != nullptr ? shift + flat : nullptr,
      [&](VF v, VF sc, VF sh, size_t i) HWY_ATTR __attribute__((always_inline)) {
        return g(v, sc, sh, kMean ? mean[i] : hn::Zero(d), k[i]);
      },
      y + flat * stride);
}

template <size_t kV, bool kBackward>
HWY_NOINLINE void V1FewPositions(const float* x, size_t channels, size_t stride, size_t spatial,
                                 const float* HWY_RESTRICT scale, float eps, size_t periods,
                                 float* y) {
  const DF d;
  FlatScratchFor<kV, true> t;
  VF k[kV];
  SumAll<kV, kSq>(x, channels, stride, spatial, periods, nullptr, &t, k);
  const VF e = hn::Set(d, eps), one = hn::Set(d, 1.0f);
  hmath::Unroll<kV>([&](size_t i) HWY_ATTR __attribute__((always_inline)) {
    k[i] = hn::Div(one, hn::Sqrt(hn::Add(e, k[i])));
  });
  OutputAll<kV, false, kBackward>(
      x, channels, stride, spatial, periods, scale, nullptr, nullptr, k, &t,
      [](VF v, VF sc, VF, VF, VF kv) HWY_ATTR __attribute__((always_inline)) {
        return hn::Mul(hn::Mul(v, sc), kv);
      },
      y);
}

template <size_t kV, bool kBackward>
HWY_NOINLINE void V2FewPositions(const float* x, size_t channels, size_t stride, size_t spatial,
                                 const float* HWY_RESTRICT scale, const float* HWY_RESTRICT shift,
                                 float eps, size_t periods, float* y) {
  const DF d;
  FlatScratchFor<kV, false> t;
  VF mean[kV], k[kV];
  SumAll<kV, kSum>(x, channels, stride, spatial, periods, nullptr, &t, mean);
  const VF n = hn::Set(d, static_cast<float>(channels));
  const VF e = hn::Set(d, eps), one = hn::Set(d, 1.0f);
  hmath::Unroll<kV>([&](size_t i) HWY_ATTR __attribute__((always_inline)) {
    mean[i] = hn::Div(mean[i], n);
  });
  if constexpr (kMayRunFlat<kV, false>) {
    if (periods != 0) FillPeriod<kV>(mean, spatial, t.mean);
  }
  SumAll<kV, kSqDev>(x, channels, stride, spatial, periods, mean, &t, k);
  hmath::Unroll<kV>([&](size_t i) HWY_ATTR __attribute__((always_inline)) {
    k[i] = hn::Div(one, hn::Sqrt(hn::Add(hn::Div(k[i], n), e)));
  });
  OutputAll<kV, true, kBackward>(
      x, channels, stride, spatial, periods, scale, shift, mean, k, &t,
      [](VF v, VF sc, VF sh, VF m, VF kv) HWY_ATTR __attribute__((always_inline)) {
        return hn::MulAdd(hn::Mul(hn::Sub(v, m), kv), sc, sh);
      },
      y);
}

// The cache line of x86 cores, in bytes.
constexpr size_t kLine = 64;

// Whether no set of the L1d holds more than 3/4 of its ways of a block of
// `bytes` of each of `rows` rows `stride` bytes apart. An x86 L1d has 64
// sets of 64-byte lines (4 KiB a way, indexed within the page): a stride
// of a multiple of 4 KiB puts every row's block in the same sets.
HWY_INLINE bool BlockFitsL1dSets(size_t rows, size_t stride, size_t bytes,
                                  bool line_aligned = false) {
  constexpr size_t kSets = 64;
  const size_t most = HWY_MAX(size_t{1}, GetCacheSizes().l1d / (kSets * kLine) * 3 / 4);
  // One more line unless each block starts on a line: any alignment.
  const size_t lines = (bytes + kLine - 1) / kLine + (line_aligned ? 0 : 1);
  uint32_t count[kSets] = {};
  for (size_t r = 0; r < rows; ++r) {
    const size_t first = r * stride / kLine;
    for (size_t j = 0; j < lines; ++j) {
      if (++count[(first + j) % kSets] > most) return false;
    }
  }
  return true;
}

// Positions per block of an NCHW item whose rows are too long for the
// registers: the most whole vectors (up to kMaxRegVectors) whose positions
// of every channel fit half the L1d (BlockFitsL1dSets), so that the output
// pass reads the block the sums just read from the L1d; 0 where that is
// fewer than `min_bytes` of each row.
HWY_INLINE size_t BlockPositions(size_t channels, size_t spatial, size_t min_bytes) {
  const size_t N = hn::Lanes(DF());
  const size_t vector_bytes = N * sizeof(float);
  const size_t fewest = HWY_MAX(size_t{1}, (min_bytes + vector_bytes - 1) / vector_bytes);
  for (size_t v = HWY_MIN(kMaxRegVectors, GetCacheSizes().l1d / 2 / (channels * vector_bytes));
       v >= fewest; --v) {
    if (BlockFitsL1dSets(channels, spatial * sizeof(float), v * vector_bytes)) return v * N;
  }
  return 0;
}

// Where FewPositionsBlock's last resort for V1, blocks the registers hold,
// would not stay in the L1d between their two passes (a block's part of
// every row beyond 3/4 of it) and the item is at most kChunk positions,
// V1Nchw runs it as one chunk instead: each pass reads the item from
// the L2 in memory order, not every block's part of each row, whose lines
// the neighbouring blocks share. Zen 5 (AMD EPYC family 26 model 2, 48 KiB
// L1d), AVX2, normalize_bench NCHW, best of 4 alternating rounds, blocks
// -> one chunk: V1 256 x 14x14 (blocks of 56 positions, 56 KiB) 6.47 ->
// 5.35 us (NHWC 4.51), 256 x 16x16 (64, 64 KiB) 7.15 -> 5.61, 256 x 12x12
// (48, 48 KiB) 3.46 -> 3.25; 128 x 14x14 (56, 28 KiB, kept in blocks)
// 2.62 -> 2.68 in one chunk. (V2's three passes in one chunk: 256 x 14x14 and 16x16 0.98-0.99
// of the time in blocks, 256 x 12x12 1.12.)
HWY_INLINE bool WholeItemChunk(size_t channels, size_t spatial, size_t block) {
  return spatial <= kChunk && channels * block * sizeof(float) > GetCacheSizes().l1d / 4 * 3;
}

// Whether every row of `spatial` floats of src and dst starts at a 64-byte
// cache line boundary (items too: an item is whole rows).
HWY_INLINE bool LineRows(const float* src, const float* dst, size_t spatial) {
  return spatial * sizeof(float) % kLine == 0 && reinterpret_cast<uintptr_t>(src) % kLine == 0 &&
         reinterpret_cast<uintptr_t>(dst) % kLine == 0;
}

// The positions per call of FewPositions for NCHW items of V1 (v2 false)
// or V2 (the same for every item of a batch): with AVX-512, V1's rows of
// whole lines (line_rows: LineRows) in blocks of one line; all of them
// where they are few, else BlockPositions, else blocks of at most
// kMaxRegVectors vectors;
// 0 where FewPositions does not run (items of RereadStreamingMinBytes and
// more, which V1Nchw and V2Nchw stream).
HWY_INLINE size_t FewPositionsBlock(size_t channels, size_t spatial, bool v2,
                                   bool line_rows = false) {
  const size_t N = hn::Lanes(DF());
  if (spatial == 0 || channels * spatial * sizeof(float) >= RereadStreamingMinBytes()) return 0;
#if HWY_TARGET == HWY_AVX3
  // V1 on rows of whole cache lines with src and dst at line boundaries
  // (LineRows), for an item beyond the L1d: blocks of one line of every
  // row while such a block fits half the L1d, so that the output pass
  // reads the block the sums just read from the L1d, and no line is shared
  // with the next block. Zen 5 (AMD EPYC family 26 model 2, 48 KiB L1d),
  // normalize_bench V1 NCHW AVX-512, 10 alternating rounds, best / median
  // time against the blocks below: 256 x 12x12 (one block of 9 vectors)
  // 0.85 / 0.85, 64 x 28x28 (blocks of 96 positions) 0.78 / 0.79; blocks
  // of 2 or 3 lines, and rows that are not whole lines (128 and 256 x
  // 14x14: blocks of 16 positions on 784-byte rows), ran slower than the
  // blocks below. AVX2's two-vector blocks were 0.87 at 256 x 12x12 but
  // 1.06 at 64 x 28x28, V2's 0.90 and 0.97: both keep the blocks below.
  // (Not measured on Intel cores.)
  if (!v2 && line_rows) {
    const size_t l1d = GetCacheSizes().l1d;
    if (channels * spatial * sizeof(float) > l1d && channels * kLine <= l1d / 2 &&
        BlockFitsL1dSets(channels, spatial * sizeof(float), kLine, /*line_aligned=*/true)) {
      return kLine / sizeof(float);
    }
  }
#endif
  if (spatial <= kMaxRegVectors * N) return spatial;
  // Emerald Rapids, normalize_bench NCHW, best of 8 alternating rounds,
  // ns, chunks -> blocks: 64 x 28x28 V1 AVX-512 9530 -> 7911, AVX2
  // 11364 -> 8164, V2 13673 -> 9545 / 16319 -> 11583; 64 x 56x56 V2
  // AVX2 60574 -> 52521, V1 within noise (AVX2 -5%); 128 x 14x14 V2
  // 9696 -> 7132 / 10851 -> 7403. But a block's part of a row is read
  // from the L2 (its lines shared with the neighbouring blocks where the
  // rows are not line-aligned): short parts cost more than the chunks'
  // passes over the L2 save, the one pass of V1 sooner than the two of
  // V2 (best of 10: V1 128 x 14x14 with 192 bytes a row AVX-512 4940 ->
  // 5901, AVX2 5144 -> 5522, 256 x 14x14 AVX2 with 96 bytes 10358 ->
  // 14322; V2 at 96 bytes 20082 -> 17044 in one run, 21439 -> 22641 in
  // another): V1 takes blocks of at least 256 bytes a row, V2 128.
  const size_t b = BlockPositions(channels, spatial, v2 ? 128 : 256);
  if (b != 0) return b;
  // Else as few blocks as the registers allow, of equal whole vectors:
  // each block's passes read it from the L2 as the chunks' do, its sums in
  // registers (the chunks load and store them for every four channels)
  // and its last vector masked (the chunks take each row's last partial
  // vector element by element). Emerald Rapids, normalize_bench NCHW,
  // best of 4 alternating rounds, ns, chunks -> blocks, AVX-512 / AVX2:
  // V2 256 x 14x14 18532 -> 12801 / 20531 -> 13316, 256 x 12x12 7975 ->
  // 7391 / 8979 -> 7784, 256 x 16x16 14437 -> 13046 / 15333 -> 15109; V1
  // 256 x 14x14 10418 -> 9760 / 10949 -> 9903, 256 x 12x12 6606 -> 5674
  // / 7253 -> 5731, 128 x 14x14 4999 -> 4822 / 5144 -> 4797. (Blocks of
  // 8 vectors and a short last one, or of 2 to 4 vectors, ran slower at
  // 256 x 14x14.)
  const size_t most = kMaxRegVectors * N;
  const size_t blocks = (spatial + most - 1) / most;
  const size_t block = ((spatial + blocks - 1) / blocks + N - 1) / N * N;
  return !v2 && WholeItemChunk(channels, spatial, block) ? 0 : block;
}

// Runs V1 (shift == nullptr) or V2 of one NCHW item in the L2 in calls of
// `block` positions (FewPositionsBlock, not 0): with few positions all of
// them, else with few channels blocks of positions (BlockPositions: each
// block's sums over the channels in registers, then its outputs, instead
// of V1Nchw's and V2Nchw's chunks, whose outputs read each chunk again
// from the L2), else blocks the registers hold (each pass reads them from
// the L2 as it reads the chunks, but the sums stay in registers and each
// row's last vector is masked).
HWY_INLINE void FewPositions(const float* x, size_t channels, size_t spatial, size_t block,
                             const float* HWY_RESTRICT scale, const float* HWY_RESTRICT shift,
                             float eps, float* y) {
  const size_t N = hn::Lanes(DF());
  // Flat where rows are not whole vectors, with AVX-512 (and for V1 with
  // AVX2), for an item beyond the L1d (the output pass then reads it from
  // L2): within the L1d the fixed work of the flat passes costs more than
  // the split vectors do. V2 on AVX2 (two permutes per vector: its scale
  // and shift, against half the vectors split) stays in rows: slower flat
  // on Sapphire Rapids, faster on Emerald Rapids, not measured elsewhere.
  // Sapphire Rapids, normalize_bench 7x7 NCHW, rows -> flat, ns: V1 64ch
  // 384 -> 474, 128ch 901 -> 872, 256ch 2204 -> 1890, 512ch 4503 -> 3534;
  // V2 64ch 544 -> 755, 128ch 1140 -> 1269, 256ch 3036 -> 2781, 512ch 6147
  // -> 4641; AVX2 V1 256ch 2300 -> 2127, V2 2992 -> 4273. Emerald Rapids,
  // AVX2, best of 6 alternating rounds: V1 256ch 2845 -> 2266, 512ch 5459
  // -> 4521 (64 and 128 channels fit the L1d: rows); V2 256ch 3824 ->
  // 3475, 512ch 7947 -> 7150.
  // Not on AMD cores (normalize_internal::FlatPeriods): on Zen 5 (AMD EPYC
  // family 26 model 2) the rows ran faster, normalize_bench 7x7 NCHW, best
  // of 6 alternating rounds, ns, flat -> rows: AVX-512 V1 256ch 1027 ->
  // 1045, 512ch 2093 -> 1950, V2 256ch 1520 -> 1369, 512ch 3108 -> 2586;
  // AVX2 V1 256ch 1245 -> 1076, 512ch 2532 -> 2075.
  const bool flat = FlatOnTarget(shift == nullptr) && N <= kMaxLanes &&
                    block == spatial && spatial % N != 0 && spatial <= kMaxFlatPositions &&
                    channels * spatial * sizeof(float) > GetCacheSizes().l1d &&
                    normalize_internal::FlatPeriods();
  const size_t periods = flat ? channels / N : 0;
  // The output pass's rows from the last channel back where the item fits
  // the L1d (OutputPositions): Zen 5, normalize_bench NCHW 7x7, ns, two
  // rounds, AVX-512 / AVX2: V1 64 channels 192-193 -> 164-169 / 227 ->
  // 204-207, V2 64 channels 284-290 -> 262-263 / 385-392 -> 329-331, V2
  // 128 channels 535-541 -> 517-522 / 735-747 -> 656-657. Beyond it the
  // rows (read from the L2) ran slower backwards (AVX2 V1 512 x 7x7
  // 1744-1755 -> 2107-2161, AVX-512 V1 256 x 8x8 0.91 -> 1.01-1.06 us).
  // Each direction a function of its own (HWY_NOINLINE): both inlined here
  // made the AVX-512 V2 rows 6-16% slower in either direction.
  const bool backward = channels * block * sizeof(float) <= GetCacheSizes().l1d;
  for (size_t s = 0; s < spatial; s += block) {
    const size_t len = HWY_MIN(block, spatial - s);
    switch ((len + N - 1) / N) {
#define SYNOPS_FEW_RUN(kV, kBack)                                                            \
  if (shift != nullptr) {                                                                    \
    V2FewPositions<kV, kBack>(x + s, channels, spatial, len, scale, shift, eps, periods,     \
                              y + s);                                                        \
  } else {                                                                                   \
    V1FewPositions<kV, kBack>(x + s, channels, spatial, len, scale, eps, periods, y + s);    \
  }                                                                                          \
  break;
#define SYNOPS_FEW_CASE(kV)       \
  case kV:                        \
    if (backward) {               \
      SYNOPS_FEW_RUN(kV, true)    \
    } else {                      \
      SYNOPS_FEW_RUN(kV, false)   \
    }
      SYNOPS_FEW_CASE(1)
      SYNOPS_FEW_CASE(2)
      SYNOPS_FEW_CASE(3)
      SYNOPS_FEW_CASE(4)
      SYNOPS_FEW_CASE(5)
      SYNOPS_FEW_CASE(6)
      SYNOPS_FEW_CASE(7)
#if HWY_TARGET <= HWY_AVX3
      SYNOPS_FEW_CASE(8)
      SYNOPS_FEW_CASE(9)
      SYNOPS_FEW_CASE(10)
      SYNOPS_FEW_CASE(11)
      SYNOPS_FEW_CASE(12)
      SYNOPS_FEW_CASE(13)
      SYNOPS_FEW_CASE(14)
      SYNOPS_FEW_CASE(15)
      default:  // 16 (block <= kMaxRegVectors * N)
        SYNOPS_FEW_CASE(16)
#else
      default:  // 8 (block <= kMaxRegVectors * N)
        SYNOPS_FEW_CASE(8)
#endif
#undef SYNOPS_FEW_CASE
#undef SYNOPS_FEW_RUN
    }
  }
}
#endif  // HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2

// The positions per chunk of V1Nchw: ChunkPositions, or the whole item
// where FewPositionsBlock left an item in the L2 to it (WholeItemChunk).
HWY_INLINE size_t V1NchwChunk(size_t channels, size_t spatial) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2  // as FewPositions
  if (spatial <= kChunk && channels * spatial * sizeof(float) < RereadStreamingMinBytes()) {
    return spatial;
  }
#endif
  return ChunkPositions(channels, sizeof(float), 16);
}

// ---- V2 / 16bV2: mean and variance over the channels of a position ----

// BF16 rows up to this many channels are widened once, into a stack row,
// for the three passes of V2Row (the same values and sums).
constexpr size_t kMaxStagedChannels = 2048;

// 1 / sqrt(variance + eps) of a row with this mean.
template <class T>
HWY_INLINE float V2Norm(const T* HWY_RESTRICT x, size_t channels, float mean, float eps) {
  return IeeeDiv(1.0f, std::sqrt(RowSqDev(x, channels, mean) / static_cast<float>(channels) + eps));
}

// NHWC: the outputs of one contiguous row of `channels`; `x` and `y` may be
// the same row.
template <class T, class TY>
HWY_INLINE void V2RowOutput(const T* HWY_RESTRICT x, size_t channels, VF m, VF k,
                            const float* HWY_RESTRICT scale, const float* HWY_RESTRICT shift,
                            TY* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  size_t c = 0;
  for (; c + 2 * N <= channels; c += 2 * N) {
    const VF t0 = hn::Mul(hn::Sub(LoadT(d, x + c), m), k);
    const VF t1 = hn::Mul(hn::Sub(LoadT(d, x + c + N), m), k);
    StoreT2(d, hn::MulAdd(t0, hn::LoadU(d, scale + c), hn::LoadU(d, shift + c)),
            hn::MulAdd(t1, hn::LoadU(d, scale + c + N), hn::LoadU(d, shift + c + N)), y + c);
  }
  for (; c + N <= channels; c += N) {
    const VF t = hn::Mul(hn::Sub(LoadT(d, x + c), m), k);
    StoreT(d, hn::MulAdd(t, hn::LoadU(d, scale + c), hn::LoadU(d, shift + c)), y + c);
  }
  if (c < channels) {
    const float mean = hn::GetLane(m), norm = hn::GetLane(k);
    for (; c < channels; ++c) FromF((ToF(x[c]) - mean) * norm * scale[c] + shift[c], y + c);
  }
}

template <class T, class TY>
HWY_INLINE void V2RowOf(const T* HWY_RESTRICT x, size_t channels, float mean,
                        const float* HWY_RESTRICT scale, const float* HWY_RESTRICT shift, float eps,
                        TY* y) {
  const DF d;
  V2RowOutput(x, channels, hn::Set(d, mean), hn::Set(d, V2Norm(x, channels, mean, eps)), scale,
              shift, y);
}

// ---- NHWC on AVX-512: the reductions of several positions at once ----
// A position's reductions (sums, a horizontal sum, a division, a square
// root) are a chain of dependent steps, and on 16 lanes each horizontal sum
// is four shuffle-and-add levels. A block of up to 16 positions reduces
// its rows side by side, adds each row's lanes to each other for all of
// them at once (Reduce16: about three operations a row) and takes one
// vector division and square root for the block. Zen 5 (AMD EPYC family
// 26 model 2), normalize_bench NHWC 7x7 to 56x56, best of 4 alternating
// rounds, time against one position at a time (V1) and four (V2,
// V2Rows4): 64 channels 0.86-0.87 (V1; 1.04 at 56x56), 0.78-0.84 (V2),
// 0.72-0.75 (16bV2); 128 channels 0.85-1.01, 0.83-0.95 and 0.90-0.97.
// With 8 lanes (AVX2) and 4 (SSE4) the same blocks ran 0.90-1.28 and
// 0.90-1.25 of the old time, slower on rows of 64 channels: those stay
// one or four positions at a time.
#if HWY_TARGET == HWY_AVX3
// Lane p = the sum of the 16 lanes of v[p].
HWY_INLINE VF LaneSums(const VF* v) {
  __m512 rows[16];
  hmath::Unroll<16>([&](size_t p) HWY_ATTR { rows[p] = v[p].raw; });
  return VF{hmath::Reduce16(rows, [](__m512 a, __m512 b) HWY_ATTR { return _mm512_add_ps(a, b); })};
}

// Lane p of v in every lane.
HWY_INLINE VF LaneOf(VF v, size_t p) {
  const DF d;
  const hn::RebindToSigned<DF> di;
  return hn::TableLookupLanes(v, hn::IndicesFromVec(d, hn::Set(di, static_cast<int32_t>(p))));
}

// The terms x (kSum) or (x - m)^2 (kSqDev; m: the mean in every lane) of a
// row of n, in RowSum's and RowSqDev's accumulators, not added to each
// other across lanes: the vector sum of the whole vectors' terms, and in
// *tail the sum of the elements past them. With `stage`, the row is also
// stored there as FP32 (as RowSum).
template <RowTerm kT, class T>
HWY_INLINE VF RowTermsVec(const T* HWY_RESTRICT x, size_t n, VF m, float* HWY_RESTRICT tail,
                          float* HWY_RESTRICT stage = nullptr) {
  static_assert(kT == kSum || kT == kSqDev, "x or (x - mean)^2");
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto add = [&](VF acc, size_t i) HWY_ATTR __attribute__((always_inline)) {
    const VF v = LoadT(d, x + i);
    if (stage != nullptr) hn::StoreU(v, d, stage + i);
    if (kT == kSum) return hn::Add(acc, v);
    const VF t = hn::Sub(v, m);
    return hn::MulAdd(t, t, acc);
  };
  VF a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    a0 = add(a0, i);
    a1 = add(a1, i + N);
    a2 = add(a2, i + 2 * N);
    a3 = add(a3, i + 3 * N);
  }
  for (; i + N <= n; i += N) a0 = add(a0, i);
  float t = 0.0f;
  if (i < n) {
    const float mean = hn::GetLane(m);
    for (; i < n; ++i) {
      const float v = ToF(x[i]);
      if (stage != nullptr) stage[i] = v;
      t += kT == kSum ? v : (v - mean) * (v - mean);
    }
  }
  *tail = t;
  return hn::Add(hn::Add(a0, a1), hn::Add(a2, a3));
}

// Lane p = the sum of row p's terms (RowTermsVec) for p < P, from rows
// `stride` elements apart; the other lanes 0. kSqDev: lane p of `mean` is
// row p's mean.
template <RowTerm kT, class T>
HWY_INLINE VF BlockSums(const T* HWY_RESTRICT x, size_t stride, size_t n, size_t P, VF mean,
                        float* HWY_RESTRICT stage = nullptr) {
  const DF d;
  VF v[hn::MaxLanes(DF())];
  HWY_ALIGN float tail[hn::MaxLanes(DF())];
  // Unrolled: the rows' vectors stay in registers (AVX-512: 16 and 4
  // accumulators of 32).
  hmath::Unroll<hn::MaxLanes(DF())>([&](size_t p) HWY_ATTR __attribute__((always_inline)) {
    tail[p] = 0.0f;
    v[p] = p < P ? RowTermsVec<kT>(x + p * stride, n, kT == kSqDev ? LaneOf(mean, p) : mean,
                                   &tail[p], stage != nullptr ? stage + p * n : nullptr)
                 : hn::Zero(d);
  });
  return hn::Add(LaneSums(v), hn::Load(d, tail));
}

// Rows of at most this many elements (8 vectors: NHWC positions of up to
// 128 channels, V3's NCHW channels of up to 128 positions) are reduced in
// blocks: with longer rows, each row's own work hides its chain (Zen 5,
// NHWC, 256 and 512 channels: V1 1.07-1.16, V2 and 16bV2 0.99-1.08 of the
// time one or four positions at a time took).
constexpr size_t kMaxBlockRow = 128;

// Positions per NHWC block: up to 16, as many rows as half the L1d holds
// (the block's rows are read again from there); 0 for wider rows or fewer
// than two positions (V1 then takes one position at a time, V2 four:
// V2Rows4).
HWY_INLINE size_t NhwcBlockPositions(size_t channels) {
  if (channels == 0 || channels > kMaxBlockRow) return 0;
  const size_t P = HWY_MIN(hn::Lanes(DF()), GetCacheSizes().l1d / 2 / (channels * sizeof(float)));
  return P >= 2 ? P : 0;
}

// V2 on P consecutive NHWC rows (P = NhwcBlockPositions): the same
// operations per row as V2Row but the sums' order within a row.
template <class T>
HWY_INLINE void V2NhwcBlock(const T* HWY_RESTRICT x, size_t channels, size_t P,
                            const float* HWY_RESTRICT scale, const float* HWY_RESTRICT shift,
                            float eps, T* y) {
  const DF d;
  const VF n = hn::Set(d, static_cast<float>(channels));
  // BF16 rows widened once, as V2Row.
  HWY_ALIGN float staged[sizeof(T) == 2 ? 16 * kMaxBlockRow : 1];
  float* stage = sizeof(T) == 2 ? staged : nullptr;
  const VF mean = hn::Div(BlockSums<kSum>(x, channels, channels, P, hn::Zero(d), stage), n);
  const VF var = sizeof(T) == 2 ? BlockSums<kSqDev>(staged, channels, channels, P, mean)
                                : BlockSums<kSqDev>(x, channels, channels, P, mean);
  const VF norm = hn::Div(hn::Set(d, 1.0f), hn::Sqrt(hn::Add(hn::Div(var, n), hn::Set(d, eps))));
  for (size_t p = 0; p < P; ++p) {
    if constexpr (sizeof(T) == 2) {
      V2RowOutput(staged + p * channels, channels, LaneOf(mean, p), LaneOf(norm, p), scale, shift,
                  y + p * channels);
    } else {
      V2RowOutput(x + p * channels, channels, LaneOf(mean, p), LaneOf(norm, p), scale, shift,
                  y + p * channels);
    }
  }
}
#endif  // HWY_TARGET == HWY_AVX3

// Rows of at most this many channels run four at a time (V2Rows4).
constexpr size_t kMaxRows4Channels = 512;

// Four consecutive NHWC rows of at most kMaxRows4Channels: each row's
// mean, variance and norm are a chain of dependent steps (two horizontal
// sums, a division, a square root); the four rows' chains side by side
// overlap (one row at a time, 64 channels took 1.6x the NCHW time on a Zen
// 5 core). The same operations per row as V2Row.
template <class T>
HWY_INLINE void V2Rows4(const T* HWY_RESTRICT x, size_t channels, const float* HWY_RESTRICT scale,
                        const float* HWY_RESTRICT shift, float eps, T* y) {
  const float n = static_cast<float>(channels);
  // BF16 rows widened once, as V2Row.
  HWY_ALIGN float staged[sizeof(T) == 2 ? 4 : 1][sizeof(T) == 2 ? kMaxRows4Channels : 1];
  float mean[4], norm[4];
#pragma GCC unroll 4
  for (size_t r = 0; r < 4; ++r) {
    if constexpr (sizeof(T) == 2) {
      mean[r] = RowSum(x + r * channels, channels, staged[r]) / n;
    } else {
      mean[r] = RowSum(x + r * channels, channels) / n;
    }
  }
#pragma GCC unroll 4
  for (size_t r = 0; r < 4; ++r) {
    if constexpr (sizeof(T) == 2) {
      norm[r] = V2Norm(staged[r], channels, mean[r], eps);
    } else {
      norm[r] = V2Norm(x + r * channels, channels, mean[r], eps);
    }
  }
#pragma GCC unroll 4
  for (size_t r = 0; r < 4; ++r) {
    if constexpr (sizeof(T) == 2) {
      V2RowOutput(staged[r], channels, hn::Set(DF(), mean[r]), hn::Set(DF(), norm[r]), scale, shift,
                  y + r * channels);
    } else {
      V2RowOutput(x + r * channels, channels, hn::Set(DF(), mean[r]), hn::Set(DF(), norm[r]), scale,
                  shift, y + r * channels);
    }
  }
}

template <class T>
HWY_INLINE void V2Row(const T* HWY_RESTRICT x, size_t channels, const float* HWY_RESTRICT scale,
                      const float* HWY_RESTRICT shift, float eps, T* y) {
  const float n = static_cast<float>(channels);
  if constexpr (sizeof(T) == 2) {
    if (channels <= kMaxStagedChannels) {
      HWY_ALIGN float row[kMaxStagedChannels];
      const float mean = RowSum(x, channels, row) / n;
      return V2RowOf(row, channels, mean, scale, shift, eps, y);
    }
  }
  V2RowOf(x, channels, RowSum(x, channels) / n, scale, shift, eps, y);
}

// NCHW: positions in chunks; per-position sums in stack arrays.
// Software-pipelined over chunks (as V1Nchw): for each group of four
// channels, the sums of chunk i (read from L3 or memory), the squared
// deviations of chunk i - 1 and the outputs of chunk i - 2 (both from L2)
// are interleaved, so the streams overlap instead of taking turns. Chunk
// i - 2's outputs are written only after all its terms were read.
template <class T>
HWY_INLINE void V2Nchw(const T* x, size_t channels, size_t spatial, const float* HWY_RESTRICT scale,
                       const float* HWY_RESTRICT shift, float eps, bool stream, T* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const size_t kC = ChunkPositions(channels, sizeof(T), 8);
  HWY_ALIGN float mean[3][kChunk];
  HWY_ALIGN float norm[3][kChunk];
  const VF n = hn::Set(d, static_cast<float>(channels));
  const VF e = hn::Set(d, eps), one = hn::Set(d, 1.0f);
  const size_t chunks = (spatial + kC - 1) / kC;
  // Positions of chunk i (0 if there is none).
  const auto length = [&](size_t i) {
    return i < chunks ? HWY_MIN(kC, spatial - i * kC) : 0;
  };
  for (size_t i = 0; i < chunks + 2; ++i) {
    const size_t l1 = length(i);                   // sums
    const size_t l2 = i >= 1 ? length(i - 1) : 0;  // squared deviations
    const size_t l3 = i >= 2 ? length(i - 2) : 0;  // outputs
    float* HWY_RESTRICT m1 = mean[i % 3];
    const float* HWY_RESTRICT m2 = mean[(i + 2) % 3];
    float* HWY_RESTRICT k2 = norm[(i + 2) % 3];
    const float* HWY_RESTRICT m3 = mean[(i + 1) % 3];
    const float* HWY_RESTRICT k3 = norm[(i + 1) % 3];
    const size_t p1 = (l1 + N - 1) / N * N, p2 = (l2 + N - 1) / N * N;  // <= kC
    for (size_t j = 0; j < p1; ++j) m1[j] = 0.0f;
    for (size_t j = 0; j < p2; ++j) k2[j] = 0.0f;
    for (size_t c0 = 0; c0 < channels; c0 += 4) {
      const size_t rows = HWY_MIN(size_t{4}, channels - c0);
      if (l1 != 0)
        RowsAccumulate<kSum>(x + c0 * spatial + i * kC, l1, rows, spatial, nullptr, m1);
      if (l2 != 0) {
        RowsAccumulate<kSqDev>(x + c0 * spatial + (i - 1) * kC, l2, rows, spatial, m2, k2);
      }
      for (size_t c = c0; c < c0 + rows && l3 != 0; ++c) {
        const T* xr = x + c * spatial + (i - 2) * kC;
        T* yr = y + c * spatial + (i - 2) * kC;
        const VF sc = hn::Set(d, scale[c]), sh = hn::Set(d, shift[c]);
        if constexpr (sizeof(T) == 4) {
          if (stream) {
            const float scc = scale[c], shc = shift[c];
            OutputRow(
                yr, l3, true,
                [&](size_t j) HWY_ATTR {
                  // m3 + j, k3 + j are unaligned after a head.
                  const VF t = hn::Mul(hn::Sub(hn::LoadU(d, xr + j), hn::LoadU(d, m3 + j)),
                                       hn::LoadU(d, k3 + j));
                  return hn::MulAdd(t, sc, sh);
                },
                [&](size_t j) HWY_ATTR { return (xr[j] - m3[j]) * k3[j] * scc + shc; });
            continue;
          }
        }
        size_t j = 0;
        for (; j + 2 * N <= l3; j += 2 * N) {
          const VF t0 = hn::Mul(hn::Sub(LoadT(d, xr + j), hn::Load(d, m3 + j)), hn::Load(d, k3 + j));
          const VF t1 = hn::Mul(hn::Sub(LoadT(d, xr + j + N), hn::Load(d, m3 + j + N)),
                                hn::Load(d, k3 + j + N));
          StoreT2(d, hn::MulAdd(t0, sc, sh), hn::MulAdd(t1, sc, sh), yr + j);
        }
        for (; j + N <= l3; j += N) {
          const VF t = hn::Mul(hn::Sub(LoadT(d, xr + j), hn::Load(d, m3 + j)), hn::Load(d, k3 + j));
          StoreT(d, hn::MulAdd(t, sc, sh), yr + j);
        }
        for (; j < l3; ++j) FromF((ToF(xr[j]) - m3[j]) * k3[j] * scale[c] + shift[c], yr + j);
      }
    }
    for (size_t j = 0; j < p1; j += N) hn::Store(hn::Div(hn::Load(d, m1 + j), n), d, m1 + j);
    for (size_t j = 0; j < p2; j += N) {
      hn::Store(hn::Div(one, hn::Sqrt(hn::Add(hn::Div(hn::Load(d, k2 + j), n), e))), d, k2 + j);
    }
  }
}

template <class T>
void V2Any(const T* src, size_t batch, size_t channels, size_t spatial, const float* scale,
           const float* shift, float eps, TensorFormat format, T* dst) {
  const size_t item = channels * spatial;
  // NCHW reads src again (from L2) after the sums: FP32 outputs are
  // streamed past it (core/streaming.h). BF16 keeps its paired stores.
  const bool stream = sizeof(T) == 4 && format == TensorFormat::kNchw && src != dst &&
                      item * sizeof(T) >= RereadStreamingMinBytes();
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2  // as FewPositions
  const size_t few = sizeof(T) == 4 && format == TensorFormat::kNchw
                         ? FewPositionsBlock(channels, spatial, /*v2=*/true)
                         : 0;
#endif
#if HWY_TARGET == HWY_AVX3
  const size_t block = format == TensorFormat::kNhwc ? NhwcBlockPositions(channels) : 0;
#endif
  for (size_t b = 0; b < batch; ++b) {
    const T* x = src + b * item;
    T* y = dst + b * item;
    if (format == TensorFormat::kNhwc) {
      size_t s = 0;
#if HWY_TARGET == HWY_AVX3
      for (; block != 0 && s < spatial; s += block) {
        V2NhwcBlock(x + s * channels, channels, HWY_MIN(block, spatial - s), scale, shift, eps,
                    y + s * channels);
      }
#endif
      if (channels <= kMaxRows4Channels) {
        for (; s + 4 <= spatial; s += 4) {
          V2Rows4(x + s * channels, channels, scale, shift, eps, y + s * channels);
        }
      }
      for (; s < spatial; ++s) {
        V2Row(x + s * channels, channels, scale, shift, eps, y + s * channels);
      }
      continue;
    }
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2  // as FewPositions
    if constexpr (sizeof(T) == 4) {
      if (few != 0) {
        FewPositions(x, channels, spatial, few, scale, shift, eps, y);
        continue;
      }
    }
#endif
    V2Nchw(x, channels, spatial, scale, shift, eps, stream, y);
  }
  if (stream) hwy::FlushStream();
}

void NormalizeV2Hwy(const float* src, size_t batch, size_t channels, size_t spatial,
                    const float* scale, const float* shift, float eps, TensorFormat format,
                    float* /*buf*/, float* dst) {
  V2Any(src, batch, channels, spatial, scale, shift, eps, format, dst);
}

void Normalize16bV2Hwy(const uint16_t* src, size_t batch, size_t channels, size_t spatial,
                       const float* scale, const float* shift, float eps, TensorFormat format,
                       float* /*buf*/, uint16_t* dst) {
  V2Any(src, batch, channels, spatial, scale, shift, eps, format, dst);
}

// ---- V1: L2 norm ----

// NCHW, per position: positions in chunks, sums of squares in a stack array.
// Software-pipelined over chunks: for each group of four channels the sums
// of chunk i (read from L3 or memory) and the outputs of chunk i - 1 (read
// from L2) are interleaved, so the two streams overlap instead of taking
// turns. Chunk i - 1's outputs are written only after all its sums were read.
HWY_INLINE void V1Nchw(const float* x, size_t channels, size_t spatial,
                       const float* HWY_RESTRICT scale, float eps, bool stream, float* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  HWY_ALIGN float k[2][kChunk];
  const VF e = hn::Set(d, eps), one = hn::Set(d, 1.0f);
  const size_t chunk = V1NchwChunk(channels, spatial);
  const size_t chunks = (spatial + chunk - 1) / chunk;
  for (size_t i = 0; i <= chunks; ++i) {
    // Accumulate chunk i (if any) into ka, output chunk i - 1 (if any) with ko.
    const size_t sa = i * chunk, so = (i - 1) * chunk;
    const size_t la = i < chunks ? HWY_MIN(chunk, spatial - sa) : 0;
    const size_t lo = i > 0 ? HWY_MIN(chunk, spatial - so) : 0;
    float* HWY_RESTRICT ka = k[i % 2];
    const float* HWY_RESTRICT ko = k[(i + 1) % 2];
    const size_t padded = (la + N - 1) / N * N;
    for (size_t j = 0; j < padded; ++j) ka[j] = 0.0f;
    for (size_t c0 = 0; c0 < channels; c0 += 4) {
      const size_t rows = HWY_MIN(size_t{4}, channels - c0);
      if (la != 0) RowsAccumulate<kSq>(x + c0 * spatial + sa, la, rows, spatial, nullptr, ka);
      for (size_t c = c0; c < c0 + rows && lo != 0; ++c) {
        const float* xr = x + c * spatial + so;
        float* yr = y + c * spatial + so;
        const float scc = scale[c];
        const VF sc = hn::Set(d, scc);
        OutputRow(
            yr, lo, stream,
            // ko + j is unaligned after a head.
            [&](size_t j) HWY_ATTR {
              return hn::Mul(hn::Mul(hn::LoadU(d, xr + j), sc), hn::LoadU(d, ko + j));
            },
            [&](size_t j) HWY_ATTR { return xr[j] * scc * ko[j]; });
      }
    }
    for (size_t j = 0; j < padded; j += N) {
      hn::Store(hn::Div(one, hn::Sqrt(hn::Add(e, hn::Load(d, ka + j)))), d, ka + j);
    }
  }
}

void NormalizeV1Hwy(const float* src, size_t batch, size_t channels, size_t spatial,
                    const float* scale, float eps, bool across_spatial, TensorFormat format,
                    float* /*buf*/, float* dst) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const size_t item = channels * spatial;
  const bool stream = src != dst && item * sizeof(float) >= RereadStreamingMinBytes();
#if HWY_TARGET == HWY_AVX3
  const size_t block =
      format == TensorFormat::kNhwc && !across_spatial ? NhwcBlockPositions(channels) : 0;
#endif
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2  // as FewPositions
  const size_t few = format == TensorFormat::kNchw && !across_spatial
                         ? FewPositionsBlock(channels, spatial, /*v2=*/false,
                                             LineRows(src, dst, spatial))
                         : 0;
#endif
  for (size_t b = 0; b < batch; ++b) {
    const float* x = src + b * item;
    float* y = dst + b * item;
    if (across_spatial) {
      const float k = IeeeDiv(1.0f, std::sqrt(eps + RowSqDev(x, item, 0.0f)));
      const VF kv = hn::Set(d, k);
      // The output pass runs backwards (as V4's) where the item fits two
      // L1d or lies beyond the L2: the end of the item, read last by the
      // sum, is still cached. In between, forwards: the rest of the item
      // comes from the L2 in memory order, faster than in descending rows
      // (Zen 5, 48 KiB L1d, 1 MiB L2, normalize_bench, one binary, 4
      // alternating rounds, best time forward / backward, AVX-512 and AVX2:
      // NCHW 128 x 14x14 and 256 x 12x12 to 16x16 0.83-0.94 and 0.73-0.84,
      // 64 x 28x28 0.86 and 0.76; NHWC the same 0.79-0.96 and 0.81-0.89,
      // 0.89 and 0.94, 512 x 7x7 0.93 and 0.86; but NCHW 64 to 256 x 7x7,
      // at most 1.04 L1d, 1.07-1.16 and 1.01-1.12).
      const size_t bytes = item * sizeof(float);
      const bool fwd = 2 * GetCacheSizes().l1d < bytes && bytes <= GetCacheSizes().l2;
      if (format == TensorFormat::kNchw) {
        for (size_t i = 0; i < channels; ++i) {
          const size_t c = fwd ? i : channels - 1 - i;
          const float* xr = x + c * spatial;
          float* yr = y + c * spatial;
          const VF sc = hn::Set(d, scale[c]);
          size_t s = 0;
          for (; s + N <= spatial; s += N) {
            hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(d, xr + s), sc), kv), d, yr + s);
          }
          for (; s < spatial; ++s) yr[s] = xr[s] * scale[c] * k;
        }
      } else {
        for (size_t i = 0; i < spatial; ++i) {
          const size_t s = fwd ? i : spatial - 1 - i;
          const float* xr = x + s * channels;
          float* yr = y + s * channels;
          size_t c = 0;
          for (; c + N <= channels; c += N) {
            hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(d, xr + c), hn::LoadU(d, scale + c)), kv), d,
                       yr + c);
          }
          for (; c < channels; ++c) yr[c] = xr[c] * scale[c] * k;
        }
      }
      continue;
    }
    if (format == TensorFormat::kNhwc) {
      // Row s with its norm (in every lane of kv).
      const auto output = [&](size_t s, VF kv) HWY_ATTR __attribute__((always_inline)) {
        const float* xr = x + s * channels;
        float* yr = y + s * channels;
        size_t c = 0;
        for (; c + N <= channels; c += N) {
          hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(d, xr + c), hn::LoadU(d, scale + c)), kv), d,
                     yr + c);
        }
        if (c < channels) {
          const float k = hn::GetLane(kv);
          for (; c < channels; ++c) yr[c] = xr[c] * scale[c] * k;
        }
      };
      size_t s = 0;
#if HWY_TARGET == HWY_AVX3
      for (; block != 0 && s < spatial; s += block) {  // as V2NhwcBlock
        const size_t P = HWY_MIN(block, spatial - s);
        const VF sums = BlockSums<kSqDev>(x + s * channels, channels, channels, P, hn::Zero(d));
        const VF k = hn::Div(hn::Set(d, 1.0f), hn::Sqrt(hn::Add(hn::Set(d, eps), sums)));
        for (size_t p = 0; p < P; ++p) output(s + p, LaneOf(k, p));
      }
#endif
      for (; s < spatial; ++s) {
        const float k = IeeeDiv(1.0f, std::sqrt(eps + RowSqDev(x + s * channels, channels, 0.0f)));
        output(s, hn::Set(d, k));
      }
      continue;
    }
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2  // as FewPositions
    if (few != 0) {
      FewPositions(x, channels, spatial, few, scale, nullptr, eps, y);
      continue;
    }
#endif
    V1Nchw(x, channels, spatial, scale, eps, stream, y);
  }
  if (stream) hwy::FlushStream();
}

// ---- V3: mean and variance over the positions of a channel ----

// NHWC: K vectors of adjacent channels at x (position stride `stride`).
template <size_t K>
HWY_INLINE void V3Columns(const float* x, size_t spatial, size_t stride,
                          const float* HWY_RESTRICT scale, const float* HWY_RESTRICT shift,
                          float eps, float* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const VF n = hn::Set(d, static_cast<float>(spatial));
  VF acc[K], mean[K];
  for (size_t i = 0; i < K; ++i) acc[i] = hn::Zero(d);
  for (size_t s = 0; s < spatial; ++s) {
    for (size_t i = 0; i < K; ++i) acc[i] = hn::Add(acc[i], hn::LoadU(d, x + s * stride + i * N));
  }
  for (size_t i = 0; i < K; ++i) mean[i] = hn::Div(acc[i], n), acc[i] = hn::Zero(d);
  for (size_t s = 0; s < spatial; ++s) {
    for (size_t i = 0; i < K; ++i) {
      const VF v = hn::Sub(hn::LoadU(d, x + s * stride + i * N), mean[i]);
      acc[i] = hn::MulAdd(v, v, acc[i]);
    }
  }
  const VF e = hn::Set(d, eps), one = hn::Set(d, 1.0f);
  for (size_t i = 0; i < K; ++i) acc[i] = hn::Div(one, hn::Sqrt(hn::Add(hn::Div(acc[i], n), e)));
  VF sc[K], sh[K];
  for (size_t i = 0; i < K; ++i) {
    sc[i] = hn::LoadU(d, scale + i * N);
    sh[i] = hn::LoadU(d, shift + i * N);
  }
  for (size_t s = 0; s < spatial; ++s) {
    for (size_t i = 0; i < K; ++i) {
      const VF t = hn::Mul(hn::Sub(hn::LoadU(d, x + s * stride + i * N), mean[i]), acc[i]);
      hn::StoreU(hn::MulAdd(t, sc[i], sh[i]), d, y + s * stride + i * N);
    }
  }
}

// Channels up to which the NHWC reductions over positions run row by row
// with per-channel accumulators on the stack: contiguous passes over the
// tensor. Column blocks of a row whose length is a power of two map to a
// fraction of the cache sets, so they do not stay cached between passes.
constexpr size_t kMaxRowChannels = 2048;

void V3RowsNhwc(const float* x, size_t channels, size_t spatial, const float* HWY_RESTRICT scale,
                const float* HWY_RESTRICT shift, float eps, float* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  HWY_ALIGN float mean[kMaxRowChannels];
  HWY_ALIGN float norm[kMaxRowChannels];
  const float n = static_cast<float>(spatial);
  for (size_t c = 0; c < channels; ++c) mean[c] = 0.0f, norm[c] = 0.0f;
  RowsAccumulate<kSum>(x, channels, spatial, channels, nullptr, mean);
  for (size_t c = 0; c < channels; ++c) mean[c] = mean[c] / n;
  // Backwards: starts on the positions the sums pass left in L2; the output
  // pass then starts on those this pass read last.
  RowsAccumulate<kSqDev, /*kBackward=*/true>(x, channels, spatial, channels, mean, norm);
  for (size_t c = 0; c < channels; ++c) norm[c] = IeeeDiv(1.0f, std::sqrt(norm[c] / n + eps));
  for (size_t s = 0; s < spatial; ++s) {
    const float* xr = x + s * channels;
    float* yr = y + s * channels;
    size_t c = 0;
    for (; c + N <= channels; c += N) {
      const VF t = hn::Mul(hn::Sub(hn::LoadU(d, xr + c), hn::Load(d, mean + c)), hn::Load(d, norm + c));
      hn::StoreU(hn::MulAdd(t, hn::LoadU(d, scale + c), hn::LoadU(d, shift + c)), d, yr + c);
    }
    for (; c < channels; ++c) yr[c] = (xr[c] - mean[c]) * norm[c] * scale[c] + shift[c];
  }
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2  // masked loads and stores never fault
// acc[0] + .. + acc[kN - 1] as a tree of adds (acc is overwritten).
template <size_t kN>
HWY_INLINE VF TreeSum(VF* acc) {
  if constexpr (kN == 1) {
    return acc[0];
  } else {
    hmath::Unroll<kN / 2>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
      acc[k] = hn::Add(acc[k], acc[k + (kN + 1) / 2]);
    });
    return TreeSum<(kN + 1) / 2>(acc);
  }
}

// f(std::integral_constant<size_t, kV>()) for rows of kV = `vectors` (1 to
// kMax) vectors; false (f not called) for more.
template <size_t kMax, class F>
HWY_INLINE bool ForRowVectors(size_t vectors, F&& f) {
  bool done = false;
  hmath::Unroll<kMax>([&](auto i) HWY_ATTR __attribute__((always_inline)) {
    constexpr size_t kV = decltype(i)::value + 1;
    if (vectors == kV) {
      f(std::integral_constant<size_t, kV>());
      done = true;
    }
  });
  return done;
}

// V3 on NCHW rows of kV vectors (up to kMaxV3Vectors), the last one
// masked: each row read once into registers, its mean, variance and
// outputs from there, instead of RowSum, RowSqDev and an output loop
// reading it three times with a scalar last element. Zen 5 (AMD EPYC
// family 26 model 2), normalize_bench NCHW 7x7, 64 to 512 channels, best
// of 6 alternating rounds, time against the loops: AVX-512 0.69-0.78,
// AVX2 0.76-0.84.
constexpr size_t kMaxV3Vectors = 8;

template <size_t kV>
HWY_NOINLINE void V3NchwRows(const float* x, size_t channels, size_t spatial,
                             const float* HWY_RESTRICT scale, const float* HWY_RESTRICT shift,
                             float eps, float* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto last = hn::FirstN(d, spatial - (kV - 1) * N);
  const VF n = hn::Set(d, static_cast<float>(spatial));
  const VF e = hn::Set(d, eps), one = hn::Set(d, 1.0f);
  for (size_t c = 0; c < channels; ++c) {
    const float* HWY_RESTRICT r = x + c * spatial;
    float* w = y + c * spatial;  // may be r: the row is read before it is written
    VF v[kV], t[kV];
    hmath::Unroll<kV>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
      v[k] = k + 1 < kV ? hn::LoadU(d, r + k * N) : hn::MaskedLoad(last, d, r + k * N);
      t[k] = v[k];
    });
    const VF mean = hn::Div(hn::SumOfLanes(d, TreeSum<kV>(t)), n);
    hmath::Unroll<kV>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
      const VF dev = hn::Sub(v[k], mean);
      t[k] = k + 1 < kV ? hn::Mul(dev, dev) : hn::IfThenElseZero(last, hn::Mul(dev, dev));
    });
    const VF var = hn::Div(hn::SumOfLanes(d, TreeSum<kV>(t)), n);
    const VF norm = hn::Div(one, hn::Sqrt(hn::Add(var, e)));
    const VF sc = hn::Set(d, scale[c]), sh = hn::Set(d, shift[c]);
    hmath::Unroll<kV>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
      const VF out = hn::MulAdd(hn::Mul(hn::Sub(v[k], mean), norm), sc, sh);
      if (k + 1 < kV) {
        hn::StoreU(out, d, w + k * N);
      } else {
        hn::BlendedStore(out, last, d, w + k * N);
      }
    });
  }
}

#endif

#if HWY_TARGET == HWY_AVX3
// V3 on P <= 16 NCHW rows (channels) of at most kMaxBlockRow positions, as
// V2NhwcBlock: the rows' means and variances side by side, one Reduce16
// and one vector division and square root for the block, then each row's
// outputs (the last vector masked). Zen 5, normalize_bench NCHW 7x7, best
// of 6 alternating rounds, time against V3NchwRows: 64 and 128 channels
// 0.77-0.82, 256 and 512 0.90-0.91.
HWY_INLINE void V3NchwBlock(const float* x, size_t spatial, size_t P,
                            const float* HWY_RESTRICT scale, const float* HWY_RESTRICT shift,
                            float eps, float* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const VF n = hn::Set(d, static_cast<float>(spatial));
  const VF mean = hn::Div(BlockSums<kSum>(x, spatial, spatial, P, hn::Zero(d)), n);
  const VF var = hn::Div(BlockSums<kSqDev>(x, spatial, spatial, P, mean), n);
  const VF norm = hn::Div(hn::Set(d, 1.0f), hn::Sqrt(hn::Add(var, hn::Set(d, eps))));
  const size_t whole = spatial / N * N;
  const auto last = hn::FirstN(d, spatial - whole);
  for (size_t p = 0; p < P; ++p) {
    const float* HWY_RESTRICT r = x + p * spatial;
    float* w = y + p * spatial;  // may be r: each vector is read before it is written
    const VF m = LaneOf(mean, p), k = LaneOf(norm, p);
    const VF sc = hn::Set(d, scale[p]), sh = hn::Set(d, shift[p]);
    for (size_t s = 0; s < whole; s += N) {
      hn::StoreU(hn::MulAdd(hn::Mul(hn::Sub(hn::LoadU(d, r + s), m), k), sc, sh), d, w + s);
    }
    if (whole < spatial) {
      const VF v = hn::MaskedLoad(last, d, r + whole);
      hn::BlendedStore(hn::MulAdd(hn::Mul(hn::Sub(v, m), k), sc, sh), last, d, w + whole);
    }
  }
}
#endif

void NormalizeV3Hwy(const float* src, size_t batch, size_t channels, size_t spatial,
                    const float* scale, const float* shift, float eps, TensorFormat format,
                    float* /*buf*/, float* dst) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const size_t item = channels * spatial;
  const float n = static_cast<float>(spatial);
  for (size_t b = 0; b < batch; ++b) {
    const float* x = src + b * item;
    float* y = dst + b * item;
    if (format == TensorFormat::kNchw) {
#if HWY_TARGET == HWY_AVX3
      if (spatial <= kMaxBlockRow) {
        for (size_t c = 0; c < channels; c += 16) {
          V3NchwBlock(x + c * spatial, spatial, HWY_MIN(size_t{16}, channels - c), scale + c,
                      shift + c, eps, y + c * spatial);
        }
        continue;
      }
#endif
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
      if (ForRowVectors<kMaxV3Vectors>((spatial + N - 1) / N, [&](auto v) HWY_ATTR {
            V3NchwRows<decltype(v)::value>(x, channels, spatial, scale, shift, eps, y);
          })) {
        continue;
      }
#endif
      for (size_t c = 0; c < channels; ++c) {
        const float* xr = x + c * spatial;
        float* yr = y + c * spatial;
        const float mean = RowSum(xr, spatial) / n;
        const float norm = IeeeDiv(1.0f, std::sqrt(RowSqDev(xr, spatial, mean) / n + eps));
        const VF m = hn::Set(d, mean), k = hn::Set(d, norm);
        const VF sc = hn::Set(d, scale[c]), sh = hn::Set(d, shift[c]);
        size_t s = 0;
        for (; s + N <= spatial; s += N) {
          hn::StoreU(hn::MulAdd(hn::Mul(hn::Sub(hn::LoadU(d, xr + s), m), k), sc, sh), d, yr + s);
        }
        for (; s < spatial; ++s) yr[s] = (xr[s] - mean) * norm * scale[c] + shift[c];
      }
      continue;
    }
    if (channels <= kMaxRowChannels) {
      V3RowsNhwc(x, channels, spatial, scale, shift, eps, y);
      continue;
    }
    size_t c = 0;
    for (; c + 4 * N <= channels; c += 4 * N) {
      V3Columns<4>(x + c, spatial, channels, scale + c, shift + c, eps, y + c);
    }
    for (; c + N <= channels; c += N) {
      V3Columns<1>(x + c, spatial, channels, scale + c, shift + c, eps, y + c);
    }
    for (; c < channels; ++c) {  // leftover channels: scalar, stride `channels`
      float sum = 0.0f;
      for (size_t s = 0; s < spatial; ++s) sum += x[s * channels + c];
      const float mean = sum / n;
      float sq = 0.0f;
      for (size_t s = 0; s < spatial; ++s) {
        const float v = x[s * channels + c] - mean;
        sq += v * v;
      }
      const float norm = IeeeDiv(1.0f, std::sqrt(sq / n + eps));
      for (size_t s = 0; s < spatial; ++s) {
        y[s * channels + c] = (x[s * channels + c] - mean) * norm * scale[c] + shift[c];
      }
    }
  }
}

// ---- V4: global response norm; buf holds `channels` floats ----

// NHWC output pass of V4 over a tensor in the cache: y[s, c] = x[s, c] *
// factor[c] + shift[c] in memory order, one load and one store stream. Rows
// of at most kOutputRegVectors vectors keep their factor and shift in
// registers (one load per output vector instead of three). Loading them
// once for two or four positions instead made 256 and 512 channels x 7x7
// 1.2x slower on a Zen 5 core (likely 4 KiB aliasing of the later rows'
// loads with the earlier rows' stores: there dst - src was one row plus
// 64 bytes modulo 4 KiB).
// x == y works (no restrict: each output is stored after its input is read).
#if HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_AVX2
constexpr size_t kOutputRegVectors = 4;  // 16 vector registers
#else
constexpr size_t kOutputRegVectors = 8;
#endif

// `kV` vectors of channels at x, y of each of `spatial` rows `stride`
// floats apart. Wider than kOutputRegVectors (AVX-512 V4 rows of up to 16
// vectors, V4NhwcOutputInRegisters) only the factor stays in registers and
// the shift is loaded with each vector.
template <size_t kV>
HWY_INLINE void OutputPositionsInRegisters(const float* x, size_t spatial, size_t stride,
                                           const float* factor, const float* shift, float* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  constexpr bool kShiftInRegisters = kV <= kOutputRegVectors;
  VF m[kV], sh[kShiftInRegisters ? kV : 1];
#pragma GCC unroll 16
  for (size_t k = 0; k < kV; ++k) {
    m[k] = hn::LoadU(d, factor + k * N);
    if constexpr (kShiftInRegisters) sh[k] = hn::LoadU(d, shift + k * N);
  }
  for (size_t s = 0; s < spatial; ++s, x += stride, y += stride) {
#pragma GCC unroll 16
    for (size_t k = 0; k < kV; ++k) {
      const VF shk = kShiftInRegisters ? sh[k] : hn::LoadU(d, shift + k * N);
      hn::StoreU(hn::MulAdd(hn::LoadU(d, x + k * N), m[k], shk), d, y + k * N);
    }
  }
}

// OutputPositionsInRegisters<vectors> (1 <= vectors <= kOutputRegVectors).
HWY_NOINLINE void OutputColumns(const float* x, size_t spatial, size_t stride, size_t vectors,
                              const float* factor, const float* shift, float* y) {
  switch (vectors) {
    case 1:
      return OutputPositionsInRegisters<1>(x, spatial, stride, factor, shift, y);
    case 2:
      return OutputPositionsInRegisters<2>(x, spatial, stride, factor, shift, y);
    case 3:
      return OutputPositionsInRegisters<3>(x, spatial, stride, factor, shift, y);
#if !(HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_AVX2)
    case 4:
      return OutputPositionsInRegisters<4>(x, spatial, stride, factor, shift, y);
    case 5:
      return OutputPositionsInRegisters<5>(x, spatial, stride, factor, shift, y);
    case 6:
      return OutputPositionsInRegisters<6>(x, spatial, stride, factor, shift, y);
    case 7:
      return OutputPositionsInRegisters<7>(x, spatial, stride, factor, shift, y);
    default:
      return OutputPositionsInRegisters<8>(x, spatial, stride, factor, shift, y);
#else
    default:
      return OutputPositionsInRegisters<4>(x, spatial, stride, factor, shift, y);
#endif
  }
}

HWY_INLINE void OutputPositionsForward(const float* x, size_t channels, size_t spatial,
                                       const float* factor, const float* shift, float* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const size_t vectors = channels / N;
  if (channels % N == 0 &&
      (vectors <= kOutputRegVectors || channels * spatial * sizeof(float) <= GetCacheSizes().l1d)) {
    // Wider rows in column blocks of kOutputRegVectors vectors, one pass
    // over the positions each, while the item is in the L1 (Zen 5 core, 7x7:
    // AVX2 64 channels 257 -> 200 ns, 128 500 -> 370; from the L2, 256
    // channels with AVX-512 882 -> 1143).
    for (size_t v = 0; v < vectors; v += kOutputRegVectors) {
      OutputColumns(x + v * N, spatial, channels, HWY_MIN(kOutputRegVectors, vectors - v),
                    factor + v * N, shift + v * N, y + v * N);
    }
    return;
  }
  for (size_t s = 0; s < spatial; ++s) {
    const float* xr = x + s * channels;
    OutputRow(
        y + s * channels, channels, /*stream=*/false,
        [&](size_t c) HWY_ATTR {
          return hn::MulAdd(hn::LoadU(d, xr + c), hn::LoadU(d, factor + c), hn::LoadU(d, shift + c));
        },
        [&](size_t c) HWY_ATTR { return xr[c] * factor[c] + shift[c]; });
  }
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2  // masked loads and stores never fault
// V4 on NCHW rows of kV vectors (up to kMaxV4Vectors), the last one
// masked, unrolled: buf[c] = the sum of squares of row c (norms), or y =
// x * buf[c] + shift[c] (!norms; in an item that fits the L1d the last
// channel first: its rows are the ones the norms pass left there), instead
// of loops over each row's vectors and a scalar last element. Zen 5 (AMD
// EPYC family 26 model 2), normalize_bench NCHW 7x7, best of 4
// alternating rounds, time against the loops: 64 and 128 channels
// 0.83-0.87 (AVX-512 and AVX2), 256 and 512 0.96-1.04. Rows of 9 to 16
// AVX-512 vectors (12x12 to 16x16) ran 1.03-1.09: they keep the loops.
constexpr size_t kMaxV4Vectors = 8;
template <size_t kV>
HWY_NOINLINE void V4NchwRows(const float* x, size_t channels, size_t spatial, bool norms,
                             const float* HWY_RESTRICT shift, float* HWY_RESTRICT buf, float* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const auto last = hn::FirstN(d, spatial - (kV - 1) * N);
  if (norms) {
    for (size_t c = 0; c < channels; ++c) {
      const float* HWY_RESTRICT r = x + c * spatial;
      VF acc[kV];
      hmath::Unroll<kV>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
        const VF v = k + 1 < kV ? hn::LoadU(d, r + k * N) : hn::MaskedLoad(last, d, r + k * N);
        acc[k] = hn::Mul(v, v);
      });
      buf[c] = hn::GetLane(hn::SumOfLanes(d, TreeSum<kV>(acc)));
    }
    return;
  }
  // The last channel first where the item fits the L1d, else in memory
  // order, as V1's and V2's rows (FewPositions): Zen 5, one binary, 5
  // alternating rounds, best time forward / backward, AVX-512 and AVX2:
  // 512 x 7x7 0.89 and 0.87, 256 x 7x7 (1.04 L1d) 0.99 and 0.93.
  const bool forward = channels * spatial * sizeof(float) > GetCacheSizes().l1d;
  for (size_t i = 0; i < channels; ++i) {
    const size_t c = forward ? i : channels - 1 - i;
    const float* HWY_RESTRICT r = x + c * spatial;
    float* w = y + c * spatial;  // may be r: each vector is read before it is written
    const VF m = hn::Set(d, buf[c]), sh = hn::Set(d, shift[c]);
    hmath::Unroll<kV>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
      if (k + 1 < kV) {
        hn::StoreU(hn::MulAdd(hn::LoadU(d, r + k * N), m, sh), d, w + k * N);
      } else {
        hn::BlendedStore(hn::MulAdd(hn::MaskedLoad(last, d, r + k * N), m, sh), last, d, w + k * N);
      }
    });
  }
}

// V4NchwRows for rows of up to kMaxV4Vectors vectors; false otherwise.
HWY_INLINE bool V4NchwRowsOf(const float* x, size_t channels, size_t spatial, bool norms,
                             const float* shift, float* buf, float* y) {
  const size_t N = hn::Lanes(DF());
  return ForRowVectors<kMaxV4Vectors>((spatial + N - 1) / N, [&](auto v) HWY_ATTR {
    V4NchwRows<decltype(v)::value>(x, channels, spatial, norms, shift, buf, y);
  });
}
#endif

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// V4's output pass on NCHW rows of more than kMaxV4Vectors vectors in an
// item that fits the L2: y = x * buf[c] + shift[c] with cached stores, in
// memory order, each row's last vector masked (OutputRow's last elements
// went one by one). Backwards, the rows the norms pass left in the L1d came
// first, but the rest of the item came from the L2 in descending rows,
// slower than in memory order: Zen 5 (AMD EPYC family 26 model 2), 1 MiB L2,
// normalize_bench NCHW, one binary, 4 alternating rounds, best time
// against the backward pass: 256 x 14x14 0.79 (AVX-512) and 0.79 (AVX2),
// 256 x 12x12 0.84 and 0.83, 256 x 16x16 0.79 and 0.78, 128 x 14x14 0.86
// and 0.84, 64 x 28x28 0.89 and 0.82, 64 x 56x56 (784 KiB) 0.90 and 0.97.
HWY_NOINLINE void V4NchwOutputForward(const float* x, size_t channels, size_t spatial,
                                      const float* HWY_RESTRICT buf,
                                      const float* HWY_RESTRICT shift, float* y) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const size_t whole = spatial / N * N;
  const auto last = hn::FirstN(d, spatial - whole);
  for (size_t c = 0; c < channels; ++c) {
    const float* HWY_RESTRICT r = x + c * spatial;
    float* w = y + c * spatial;  // may be r: each vector is read before it is written
    const VF m = hn::Set(d, buf[c]), sh = hn::Set(d, shift[c]);
    for (size_t s = 0; s < whole; s += N) {
      hn::StoreU(hn::MulAdd(hn::LoadU(d, r + s), m, sh), d, w + s);
    }
    if (whole < spatial) {
      hn::BlendedStore(hn::MulAdd(hn::MaskedLoad(last, d, r + whole), m, sh), last, d, w + whole);
    }
  }
}
#endif

#if HWY_TARGET == HWY_AVX3
// V4's norms pass on NCHW rows with AVX-512: buf[c] = the sum of squares
// of row c, 16 rows at a time, each row's vectors (the last one masked)
// into two accumulators and the 16 rows' lanes added side by side
// (LaneSums: Reduce16), instead of a horizontal sum per row and, for rows
// of more than kMaxV4Vectors vectors, a scalar last part. Zen 5,
// normalize_bench NCHW, same method, best time against V4NchwRows'
// and RowSqDev's sums: 7x7 with 64 to 256 channels 0.89-0.96, 512
// 0.94 and 1.02 in two runs; 256 x 14x14 0.94 and 64 x 28x28 0.96 (both
// with the forward output pass); 56x56 0.94-1.03. With AVX2 (Reduce8Sum)
// the same ran 1.04-1.15 on the long rows: AVX2 keeps the row sums.
HWY_NOINLINE void V4NchwNormsGrouped(const float* x, size_t channels, size_t spatial,
                                     float* HWY_RESTRICT buf) {
  const DF d;
  constexpr size_t kN = hn::MaxLanes(DF());
  const size_t N = hn::Lanes(d);
  const size_t whole = spatial / N * N;
  const auto last = hn::FirstN(d, spatial - whole);
  size_t c = 0;
  for (; c + kN <= channels; c += kN) {
    VF v[kN];
    hmath::Unroll<kN>([&](size_t p) HWY_ATTR __attribute__((always_inline)) {
      const float* HWY_RESTRICT r = x + (c + p) * spatial;
      VF a0 = hn::Zero(d), a1 = hn::Zero(d);
      size_t s = 0;
      for (; s + 2 * N <= whole; s += 2 * N) {
        const VF u0 = hn::LoadU(d, r + s), u1 = hn::LoadU(d, r + s + N);
        a0 = hn::MulAdd(u0, u0, a0);
        a1 = hn::MulAdd(u1, u1, a1);
      }
      if (s < whole) {
        const VF u = hn::LoadU(d, r + s);
        a0 = hn::MulAdd(u, u, a0);
      }
      if (whole < spatial) {
        const VF u = hn::MaskedLoad(last, d, r + whole);
        a1 = hn::MulAdd(u, u, a1);
      }
      v[p] = hn::Add(a0, a1);
    });
    hn::StoreU(LaneSums(v), d, buf + c);
  }
  for (; c < channels; ++c) buf[c] = RowSqDev(x + c * spatial, spatial, 0.0f);
}
#endif

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
// AVX-512 (32 registers), NHWC rows of kMinV4RegVectors to
// kMaxV4RegVectors whole vectors (80 to 256 FP32 channels): each pass
// keeps its per-channel vectors in registers for the whole item, one
// position at a time in memory order (or backwards), so the norms pass is
// one load and one FMA per vector (RowsAccumulate loaded and stored the
// sums every four positions, and GCC spilled its row pointers) and the
// output pass two loads (x and shift; the factor stays in a register)
// instead of three. At fewer than 5 vectors each position's FMAs would
// wait on the previous position's (4 cycles of latency), slower than
// RowsAccumulateInRegisters' four-position sums; rows of at most
// kOutputRegVectors keep the shift in registers too (OutputColumns).
// Zen 5 (AMD EPYC family 26 model 2), normalize_bench V4 NHWC, best of 6
// alternating rounds, us: 256 x 14x14 4.09 -> 3.48 (V1 2.76), 256 x 16x16
// 4.98 -> 3.88 (V1 3.66), 256 x 12x12 2.80 -> 2.58, 256 x 7x7 0.87 ->
// 0.80, 128 x 7x7 0.31 -> 0.27.
constexpr size_t kMinV4RegVectors = 5;
constexpr size_t kMaxV4RegVectors = 16;

// buf[c] = sum over the `spatial` rows of x[s, c]^2, rows of kV vectors.
template <size_t kV, bool kBackward>
HWY_NOINLINE void V4NhwcNormsInRegisters(const float* HWY_RESTRICT x, size_t spatial,
                                         float* HWY_RESTRICT buf) {
  const DF d;
  const size_t N = hn::Lanes(d);
  VF a[kV];
#pragma GCC unroll 16
  for (size_t k = 0; k < kV; ++k) a[k] = hn::Zero(d);
  for (size_t i = 0; i < spatial; ++i) {
    const float* HWY_RESTRICT r = x + (kBackward ? spatial - 1 - i : i) * kV * N;
#pragma GCC unroll 16
    for (size_t k = 0; k < kV; ++k) {
      const VF v = hn::LoadU(d, r + k * N);
      a[k] = hn::MulAdd(v, v, a[k]);
    }
  }
#pragma GCC unroll 16
  for (size_t k = 0; k < kV; ++k) hn::StoreU(a[k], d, buf + k * N);
}

// y[s, c] = x[s, c] * factor[c] + shift[c] in memory order, rows of kV
// vectors (OutputPositionsInRegisters over whole rows). x == y works.
template <size_t kV>
HWY_NOINLINE void V4NhwcOutputInRegisters(const float* x, size_t spatial, const float* factor,
                                          const float* shift, float* y) {
  OutputPositionsInRegisters<kV>(x, spatial, kV * hn::Lanes(DF()), factor, shift, y);
}

// f(std::integral_constant<size_t, kV>()) for rows of kV =
// `vectors` vectors, kMinV4RegVectors <= kV <= kMaxV4RegVectors; false
// (f not called) otherwise.
template <class F>
HWY_INLINE bool ForV4RegVectors(size_t vectors, F&& f) {
  if (vectors < kMinV4RegVectors) return false;
  return ForRowVectors<kMaxV4RegVectors>(vectors, [&](auto v) HWY_ATTR {
    if constexpr (decltype(v)::value >= kMinV4RegVectors) f(v);
  });
}
#endif

void NormalizeV4Hwy(const float* src, size_t batch, size_t channels, size_t spatial,
                    const float* scale, const float* shift, float eps, TensorFormat format,
                    float* buf, float* dst) {
  const DF d;
  const size_t item = channels * spatial;
  // The output pass reads src a second time: stores that allocate dst in
  // cache would evict the part of src the norms pass left there, unless
  // both fit an L3 that takes cached stores faster than memory takes
  // streaming ones (SecondPassStreams, core/streaming.h). NHWC items that
  // fit the L2 are read forward with cached stores
  // (OutputPositionsForward; on a Zen 5 core, 1 MiB L2, 64 channels x
  // 56x56 (784 KiB) took 17.1-17.8 us against 21.4-21.6 streamed
  // backwards).
  const size_t bytes = item * sizeof(float);
  const bool in_l2 = bytes <= GetCacheSizes().l2;
  const bool forward = format == TensorFormat::kNhwc && in_l2;
  const bool stream = src != dst && !forward && SecondPassStreams(bytes, bytes);
  // Such an item of at most 4 L1d sizes has its norms summed backwards, so
  // that the output pass starts on the rows the norms pass read last, still
  // in the L1 (Zen 5 core, 48 KiB L1d, AVX-512, ns: 256 channels x 7x7
  // 915-927 -> 746-759, 512 x 7x7 1762-1771 -> 1634-1674, 128 x 14x14
  // 1783-1793 -> 1621-1631; at 200 KiB it was a wash, 256 x 14x14 3%
  // faster and 64 x 28x28 3% slower, and at 784 KiB, 64 x 56x56, the
  // backward rows 5% slower).
  const bool backward_norms = forward && bytes <= 4 * GetCacheSizes().l1d;
  const size_t N = hn::Lanes(d);
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  // Rows of whole vectors in registers (V4NhwcNormsInRegisters), forward
  // beyond 1.5 L1d: backwards, their norms pass was slower than the L1d
  // hits it left the output pass were worth (Zen 5, 48 KiB L1d, 256
  // channels, best of 6 alternating rounds, backward / forward time: 7x7
  // (50 KiB) 0.89, 8x8 0.93, 9x9 1.01, 10x10 1.02, 11x11 1.05, 12x12 1.06).
  const bool in_registers = forward && channels % N == 0 && channels / N >= kMinV4RegVectors &&
                            channels / N <= kMaxV4RegVectors;
  const bool backward_registers = bytes <= GetCacheSizes().l1d + GetCacheSizes().l1d / 2;
#endif
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  // Rows of at most kMaxV4Vectors vectors with cached stores (V4NchwRows).
  const bool short_rows = spatial <= kMaxV4Vectors * hn::Lanes(d) && !stream;
#endif
  for (size_t b = 0; b < batch; ++b) {
    const float* x = src + b * item;
    float* y = dst + b * item;
    if (format == TensorFormat::kNchw) {
#if HWY_TARGET == HWY_AVX3
      V4NchwNormsGrouped(x, channels, spatial, buf);
#else
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
      if (!short_rows || !V4NchwRowsOf(x, channels, spatial, true, shift, buf, y))
#endif
        for (size_t c = 0; c < channels; ++c) buf[c] = RowSqDev(x + c * spatial, spatial, 0.0f);
#endif
    } else {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
      if (in_registers) {
        ForV4RegVectors(channels / N, [&](auto v) HWY_ATTR {
          if (backward_registers) {
            V4NhwcNormsInRegisters<decltype(v)::value, true>(x, spatial, buf);
          } else {
            V4NhwcNormsInRegisters<decltype(v)::value, false>(x, spatial, buf);
          }
        });
      } else  // NOLINT(readability/braces)
#endif
      {
        for (size_t c = 0; c < channels; ++c) buf[c] = 0.0f;
        // Contiguous, in memory order or its reverse.
        if (backward_norms) {
          RowsAccumulate<kSq, true>(x, channels, spatial, channels, nullptr, buf);
        } else {
          RowsAccumulate<kSq>(x, channels, spatial, channels, nullptr, buf);
        }
      }
    }
    // The per-channel steps in vectors: a scalar sqrt per channel (its
    // latency, and errno's check) was a quarter of V4's time at 7x7.
    const VF one = hn::Set(d, 1.0f);
    size_t c = 0;
    for (; c + N <= channels; c += N) hn::StoreU(hn::Sqrt(hn::LoadU(d, buf + c)), d, buf + c);
    for (; c < channels; ++c) buf[c] = std::sqrt(buf[c]);
    const float norm = IeeeDiv(1.0f, RowSum(buf, channels) / static_cast<float>(channels) + eps);
    const VF vnorm = hn::Set(d, norm);
    for (c = 0; c + N <= channels; c += N) {
      // 1 + (scale * n) * norm, rounded step by step as the scalar tail.
      const VF t = hn::Mul(hn::Mul(hn::LoadU(d, scale + c), hn::LoadU(d, buf + c)), vnorm);
      hn::StoreU(hn::Add(one, t), d, buf + c);
    }
    for (; c < channels; ++c) buf[c] = 1.0f + scale[c] * buf[c] * norm;
    // Otherwise the output pass runs backwards: the end of the tensor, read
    // last by the norms pass, is still cached.
    if (forward) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
      // Wider than OutputColumns' rows in registers.
      if (!in_registers || channels / N <= kOutputRegVectors ||
          !ForV4RegVectors(channels / N, [&](auto v) HWY_ATTR {
            V4NhwcOutputInRegisters<decltype(v)::value>(x, spatial, buf, shift, y);
          }))
#endif
        OutputPositionsForward(x, channels, spatial, buf, shift, y);
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
    } else if (format == TensorFormat::kNchw && short_rows) {
      V4NchwRowsOf(x, channels, spatial, false, shift, buf, y);
    } else if (format == TensorFormat::kNchw && !stream && in_l2) {
      V4NchwOutputForward(x, channels, spatial, buf, shift, y);
#endif
    } else if (format == TensorFormat::kNchw) {
      for (size_t c = channels; c-- > 0;) {
        const float* xr = x + c * spatial;
        const float mc = buf[c], shc = shift[c];
        const VF m = hn::Set(d, mc), sh = hn::Set(d, shc);
        OutputRow(
            y + c * spatial, spatial, stream,
            [&](size_t s) HWY_ATTR { return hn::MulAdd(hn::LoadU(d, xr + s), m, sh); },
            [&](size_t s) HWY_ATTR { return xr[s] * mc + shc; });
      }
    } else {
      for (size_t s = spatial; s-- > 0;) {
        const float* xr = x + s * channels;
        OutputRow(
            y + s * channels, channels, stream,
            [&](size_t c) HWY_ATTR {
              return hn::MulAdd(hn::LoadU(d, xr + c), hn::LoadU(d, buf + c), hn::LoadU(d, shift + c));
            },
            [&](size_t c) HWY_ATTR { return xr[c] * buf[c] + shift[c]; });
      }
    }
  }
  if (stream) hwy::FlushStream();
}

#endif  // HWY_TARGET != HWY_SCALAR
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/hwy_kernels.h"

namespace synops {
namespace normalize_internal {

std::vector<Kernel<NormalizeV1Fn>> NormalizeV1HwyKernels() {
  return {SYNOPS_HWY_KERNELS(NormalizeV1Hwy)};
}
std::vector<Kernel<NormalizeFn>> NormalizeV2HwyKernels() {
  return {SYNOPS_HWY_KERNELS(NormalizeV2Hwy)};
}
std::vector<Kernel<NormalizeFn>> NormalizeV3HwyKernels() {
  return {SYNOPS_HWY_KERNELS(NormalizeV3Hwy)};
}
std::vector<Kernel<NormalizeFn>> NormalizeV4HwyKernels() {
  return {SYNOPS_HWY_KERNELS(NormalizeV4Hwy)};
}
std::vector<Kernel<Normalize16bV2Fn>> Normalize16bV2HwyKernels() {
  return {SYNOPS_HWY_KERNELS(Normalize16bV2Hwy)};
}

}  // namespace normalize_internal
}  // namespace synops
#endif  // HWY_ONCE
