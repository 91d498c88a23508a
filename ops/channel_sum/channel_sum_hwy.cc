// Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/channel_sum/channel_sum_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <algorithm>

#include "bf16/bf16.h"
#include "bf16/bf16_hwy-inl.h"
#include "core/cpu.h"
#include "core/hwy_math-inl.h"
#include "core/strided_addresses.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "ops/channel_sum/channel_sum_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR

// acc + v, rounded once either way. Where FMA is native, as v * 1 + acc:
// the odd halves of the widened words then go to the FMA pipes and the even
// halves to the adders (on a Zen 5 core vaddps issues to two pipes and
// vfmadd231ps to two others: BM_WidenSum 1.43x faster than with two adds;
// on Sapphire Rapids both share the same two ports).
template <class D>
HWY_INLINE hn::Vec<D> AddOnFmaPipes(D d, hn::Vec<D> acc, hn::Vec<D> v) {
#if HWY_NATIVE_FMA
  return hn::MulAdd(v, hn::Set(d, 1.0f), acc);
#else
  (void)d;
  return hn::Add(acc, v);
#endif
}

// Sum of one contiguous BF16 row. Widening with ZipLower/ZipUpper (BF16 bits
// into the upper half of a zeroed 32-bit lane) changes the lane order, which
// does not matter for a sum.
HWY_INLINE float SumRow(const uint16_t* HWY_RESTRICT src, size_t n) {
  const hn::ScalableTag<uint16_t> d16;
  const hn::RepartitionToWide<decltype(d16)> d32;
  const hn::RebindToFloat<decltype(d32)> df;
  const size_t lanes = hn::Lanes(d16);
  float s = 0.0f;
  size_t i = 0;
  if (n >= 2 * lanes) {  // short rows skip the full-width reduction
    const auto zero = hn::Zero(d16);
    auto acc0 = hn::Zero(df), acc1 = hn::Zero(df), acc2 = hn::Zero(df), acc3 = hn::Zero(df);
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
      hwy::Prefetch(src + i + 1024);  // 2 KiB ahead (a hint; never faults)
      const auto a = hn::LoadU(d16, src + i);
      const auto b = hn::LoadU(d16, src + i + lanes);
      acc0 = hn::Add(acc0, hn::BitCast(df, hn::ZipLower(d32, zero, a)));
      acc1 = AddOnFmaPipes(df, acc1, hn::BitCast(df, hn::ZipUpper(d32, zero, a)));
      acc2 = hn::Add(acc2, hn::BitCast(df, hn::ZipLower(d32, zero, b)));
      acc3 = AddOnFmaPipes(df, acc3, hn::BitCast(df, hn::ZipUpper(d32, zero, b)));
    }
    if (i + lanes <= n) {
      const auto a = hn::LoadU(d16, src + i);
      acc0 = hn::Add(acc0, hn::BitCast(df, hn::ZipLower(d32, zero, a)));
      acc1 = hn::Add(acc1, hn::BitCast(df, hn::ZipUpper(d32, zero, a)));
      i += lanes;
    }
    s = hn::GetLane(hn::SumOfLanes(df, hn::Add(hn::Add(acc0, acc1), hn::Add(acc2, acc3))));
  }
  // Tail in 8- then 4-lane steps (short rows, e.g. 7x7 spatial, are mostly tail).
  const hn::CappedTag<float, 8> d8;  // 4 lanes on 128-bit targets
  const size_t lanes8 = hn::Lanes(d8);
  if (i + lanes8 <= n) {
    auto acc = hn::Zero(d8);
    for (; i + lanes8 <= n; i += lanes8) acc = hn::Add(acc, LoadBf16(d8, src + i));
    s += hn::GetLane(hn::SumOfLanes(d8, acc));
  }
  const hn::CappedTag<float, 4> d4;
  if (i + 4 <= n) {
    s += hn::GetLane(hn::SumOfLanes(d4, LoadBf16(d4, src + i)));
    i += 4;
  }
  for (; i < n; ++i) s += Bf16ToFp32(src[i]);
  return s;
}

// sum[0..channels) += the `rows` (1..4) consecutive NHWC rows at `src`.
// Adding the rows in registers first cuts the load/store traffic on `sum`.
template <size_t kRows>
HWY_INLINE void AccumulateRows(const uint16_t* HWY_RESTRICT src, size_t channels,
                               float* HWY_RESTRICT sum) {
  const hn::ScalableTag<float> df;
  const size_t lanes = hn::Lanes(df);
  size_t c = 0;
  for (; c + lanes <= channels; c += lanes) {
    // Four interleaved row streams defeat the L2 streamer: prefetch the rows
    // two groups ahead (a hint; never faults). One row is one stream in
    // memory order, which the hardware prefetchers follow.
    if (kRows > 1) {
      hwy::Prefetch(src + 8 * channels + c);
      hwy::Prefetch(src + 9 * channels + c);
    }
    if (kRows > 2) hwy::Prefetch(src + 10 * channels + c);
    if (kRows > 3) hwy::Prefetch(src + 11 * channels + c);
    auto rows = LoadBf16(df, src + c);
    if (kRows > 1) rows = hn::Add(rows, LoadBf16(df, src + channels + c));
    if (kRows > 2) rows = hn::Add(rows, LoadBf16(df, src + 2 * channels + c));
    if (kRows > 3) rows = hn::Add(rows, LoadBf16(df, src + 3 * channels + c));
    hn::StoreU(hn::Add(hn::LoadU(df, sum + c), rows), df, sum + c);
  }
  for (; c < channels; ++c) {
    float rows = Bf16ToFp32(src[c]);
    for (size_t r = 1; r < kRows; ++r) rows += Bf16ToFp32(src[r * channels + c]);
    sum[c] += rows;
  }
}

// lo, hi = the lanes of `even` (channels 0, 2, 4, ...) and `odd` (1, 3, 5,
// ...) in channel order: two shuffles per vector, in registers (through
// arrays in 4-lane pieces it was a third of the time at 512 channels x 7x7).
template <class D, class V>
HWY_INLINE void InterleaveEvenOdd(D d, V even, V odd, V& lo, V& hi) {
#if HWY_TARGET == HWY_AVX3
  (void)d;
  const __m512i lo_idx = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi_idx = _mm512_add_epi32(lo_idx, _mm512_set1_epi32(8));
  lo = V{_mm512_permutex2var_ps(even.raw, lo_idx, odd.raw)};
  hi = V{_mm512_permutex2var_ps(even.raw, hi_idx, odd.raw)};
#else
  // Per 128-bit block: the even and odd lanes of its first (l) and second
  // (h) half.
  const V l = hn::InterleaveLower(d, even, odd), h = hn::InterleaveUpper(d, even, odd);
#if HWY_TARGET == HWY_AVX2
  lo = hn::ConcatLowerLower(d, h, l);
  hi = hn::ConcatUpperUpper(d, h, l);
#else
  static_assert(hn::MaxLanes(D()) == 4, "one 128-bit block");
  lo = l;
  hi = h;
#endif
#endif
}

// NHWC, `kBlocks` blocks of 2 * lanes channels from `c`, over `rows` rows:
// each block is read as 32-bit words, the even channel of a word widened by a
// shift and the odd one by a mask, into separate accumulators (one load and
// two ALU ops per 2 * lanes elements, where widening whole vectors costs a
// shuffle more); the even and odd sums are interleaved once at the end.
// `add`: add to `sum` instead of overwriting it.
template <size_t kBlocks>
HWY_INLINE void SumChannelBlocks(const uint16_t* HWY_RESTRICT src, size_t channels, size_t rows,
                                 size_t c, bool add, float* HWY_RESTRICT sum) {
  const hn::ScalableTag<uint16_t> d16;
  const hn::RepartitionToWide<decltype(d16)> d32;
  const hn::RebindToFloat<decltype(d32)> df;
  const size_t lanes = hn::Lanes(df);
  const auto high = hn::Set(d32, 0xFFFF0000u);
  // kSets rows at a time into separate accumulators: at least 8 independent
  // add chains (2 ports x 4 cycles of latency) however few the blocks.
  constexpr size_t kSets = kBlocks >= 4 ? 1 : 4 / kBlocks;
  hn::Vec<decltype(df)> even[kSets][kBlocks], odd[kSets][kBlocks];
  hmath::Unroll<kSets * kBlocks>([&](size_t i) HWY_ATTR __attribute__((always_inline)) {
    even[i / kBlocks][i % kBlocks] = odd[i / kBlocks][i % kBlocks] = hn::Zero(df);
  });
  const auto accumulate = [&](const uint16_t* row, size_t set) HWY_ATTR
      __attribute__((always_inline)) {
    hmath::Unroll<kBlocks>([&](size_t b) HWY_ATTR __attribute__((always_inline)) {
      const auto w = hn::BitCast(d32, hn::LoadU(d16, row + 2 * lanes * b));
      even[set][b] = hn::Add(even[set][b], hn::BitCast(df, hn::ShiftLeft<16>(w)));
      odd[set][b] = AddOnFmaPipes(df, odd[set][b], hn::BitCast(df, hn::And(w, high)));
    });
  };
  const uint16_t* row = src + c;
  size_t r = 0;
  for (; r + kSets <= rows; r += kSets, row += kSets * channels) {
    hmath::Unroll<kSets>([&](size_t set) HWY_ATTR
                         __attribute__((always_inline)) { accumulate(row + set * channels, set); });
  }
  for (; r < rows; ++r, row += channels) accumulate(row, 0);
  for (size_t set = 1; set < kSets; ++set) {
    hmath::Unroll<kBlocks>([&](size_t b) HWY_ATTR __attribute__((always_inline)) {
      even[0][b] = hn::Add(even[0][b], even[set][b]);
      odd[0][b] = hn::Add(odd[0][b], odd[set][b]);
    });
  }
  float* out = sum + c;
  hmath::Unroll<kBlocks>([&](size_t b) HWY_ATTR __attribute__((always_inline)) {
    auto lo = hn::Zero(df), hi = hn::Zero(df);
    InterleaveEvenOdd(df, even[0][b], odd[0][b], lo, hi);
    if (add) {
      lo = hn::Add(lo, hn::LoadU(df, out + 2 * lanes * b));
      hi = hn::Add(hi, hn::LoadU(df, out + 2 * lanes * b + lanes));
    }
    hn::StoreU(lo, df, out + 2 * lanes * b);
    hn::StoreU(hi, df, out + 2 * lanes * b + lanes);
  });
}

// NHWC, channels >= 2 * lanes, a tensor in the L2, in chunks of rows (half
// the L1): every column block of a chunk, then the next chunk, so that a
// chunk is read from the L2 once and its other blocks from the L1. Channels
// past the last whole block are added row by row. At least 16 rows per
// chunk: each chunk reads and writes `sum`, which for rows wider than half
// the L1 would otherwise be as much traffic as the rows themselves.
HWY_INLINE void SumNhwcBlocks(const uint16_t* HWY_RESTRICT src, size_t channels, size_t spatial,
                              float* HWY_RESTRICT sum) {
  const size_t block = 2 * hn::Lanes(hn::ScalableTag<float>());
  const size_t blocks = channels / block, done = blocks * block;
  const size_t chunk_bytes = GetCacheSizes().l1d / 2;
  const size_t chunk = std::max<size_t>(16, chunk_bytes / (channels * sizeof(uint16_t)));
  if (spatial == 0) std::fill(sum, sum + channels, 0.0f);
  for (size_t s = 0; s < spatial; s += chunk) {
    const size_t rows = std::min(chunk, spatial - s);
    const uint16_t* part = src + s * channels;
    const bool add = s != 0;
    size_t b = 0;
    for (; b + 4 <= blocks; b += 4)
      SumChannelBlocks<4>(part, channels, rows, b * block, add, sum);
    if (b + 2 <= blocks) {
      SumChannelBlocks<2>(part, channels, rows, b * block, add, sum);
      b += 2;
    }
    if (b < blocks) SumChannelBlocks<1>(part, channels, rows, b * block, add, sum);
    for (size_t c = done; c < channels; ++c) {
      float t = add ? sum[c] : 0.0f;
      for (size_t r = 0; r < rows; ++r) t += Bf16ToFp32(part[r * channels + c]);
      sum[c] = t;
    }
  }
}

// NHWC with fewer channels than lanes: the tensor is a flat array whose
// element i belongs to channel i % channels. Step by m = channels *
// (lanes / channels) elements so that lane j always holds channel j % channels,
// masking lanes >= m; fold the lanes into `sum` at the end.
HWY_INLINE void SumFewChannelsNhwc(const uint16_t* HWY_RESTRICT src, size_t channels,
                                   size_t total, float* HWY_RESTRICT sum) {
  const hn::ScalableTag<float> df;
  const size_t lanes = hn::Lanes(df);
  const size_t m = channels * (lanes / channels);
  const auto mask = hn::FirstN(df, m);
  auto acc0 = hn::Zero(df), acc1 = hn::Zero(df);
  size_t i = 0;
  for (; i + m + lanes <= total; i += 2 * m) {
    acc0 = hn::Add(acc0, hn::IfThenElseZero(mask, LoadBf16(df, src + i)));
    acc1 = hn::Add(acc1, hn::IfThenElseZero(mask, LoadBf16(df, src + i + m)));
  }
  HWY_ALIGN float lane_sums[hn::MaxLanes(df)];
  hn::Store(hn::Add(acc0, acc1), df, lane_sums);
  for (size_t c = 0; c < channels; ++c) sum[c] = 0.0f;
  for (size_t j = 0; j < m; ++j) sum[j % channels] += lane_sums[j];
  for (; i < total; ++i) sum[i % channels] += Bf16ToFp32(src[i]);
}

#if HWY_TARGET == HWY_AVX3
// NCHW short rows (below 1024 elements, see ChannelSum16bHwy), 16 rows at
// a time (8 on AVX2 and SSE4, below), not
// inlined (inlined, its 16 sums and row pointers spilled in the caller):
// SumRow's per-row horizontal sum and 8-lane steps were most of their time.
// Each row is read as 32-bit words, 32 elements per load (the last load
// masked: absent elements read as +0), the even elements widened by a shift
// and the odd ones by a mask (which element is even does not matter for a
// sum), the two added to each other on the FMA pipes, the 16 rows
// interleaved (16 independent sums: row after row, each row's chain of
// dependent adds was the bound), and the 16 row vectors are reduced
// together by Reduce16. One call takes every group of 16 rows, so the
// set-up (the tail mask, the rows' offsets, the saved registers and the
// stack realignment) runs once, not per group (Zen 5, channel_sum_bench,
// best of 4 alternating rounds, ns: 512 x 7x7 584 -> 493, AVX2's
// SumShortRows8 755 -> 670; 256 x 128 2% less). (The last 32 elements of
// each row loaded whole and the summed ones masked off by an AND, as
// SumShortRows8 does, timed the same as the masked tail loads.) Not kept
// (Zen 5 guest, one binary, variants switched per benchmark): the 16 rows
// read one after another, each row's vectors by a loop (memory order):
// 256 x 128 (64 KiB) 596-611 -> 523-527 ns in one run, but 719 -> 813
// in a run 10 minutes later, and always slower at 64 x 128 (87 -> 119-122)
// and 512 x 7x7 (497 -> 528); the same memory order fully unrolled read
// 609 at 256 x 128 against the interleaved order's 611, so the order of
// the loads is not what the loop changed.
HWY_NOINLINE void SumShortRows16(const uint16_t* HWY_RESTRICT src, size_t n, size_t groups,
                                 float* HWY_RESTRICT sum) {
  const size_t full = n / 32;
  const __mmask32 tail = static_cast<__mmask32>((uint64_t{1} << (n % 32)) - 1);
  const __m512i high = _mm512_set1_epi32(static_cast<int>(0xFFFF0000u));
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 v[16];
  // Both BF16 halves of each 32-bit word, widened and added to each other
  // first (odd * 1 + even: exact, and on the FMA pipes), so each load adds
  // to its row's sum once: a chain of one add per load instead of two, and
  // the first load sets the sum instead of adding to zero (Zen 4,
  // channel_sum_bench, best of 6 alternating rounds, ns: 64 x 128 204 ->
  // 178, 256 x 128 830 -> 747, 512 x 7x7 988 -> 942; AVX2 2-5% less).
  const auto words = [&](__m512i w) HWY_ATTR __attribute__((always_inline)) {
    return _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_and_si512(w, high)), one,
                           _mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));
  };
  // Row r of the group at rows.At<r> (16 row offsets in 6 registers).
  const StridedAddresses rows(n * sizeof(uint16_t));
  // The 32 elements from element 32 * k of every row (the last load
  // masked: absent elements read as +0), set or added to the sums.
  const uint16_t* HWY_RESTRICT group = src;
  const auto step = [&](size_t k, bool masked, bool first) HWY_ATTR __attribute__((always_inline)) {
    const StridedAddresses::Bases at = rows.From(group + 32 * k);
    hmath::Unroll<16>([&](auto r) HWY_ATTR __attribute__((always_inline)) {
      const char* p = rows.At<decltype(r)::value>(at);
      __m512i w;
      if (masked) {
        w = _mm512_maskz_loadu_epi16(tail, p);
      } else {
        w = _mm512_loadu_si512(p);
        asm("" : "+v"(w));  // one load for both halves (not folded into each)
      }
      v[r] = first ? words(w) : _mm512_add_ps(v[r], words(w));
    });
  };
  const auto add = [](__m512 a, __m512 b) HWY_ATTR __attribute__((always_inline)) {
    return _mm512_add_ps(a, b);
  };
  for (size_t g = 0; g < groups; ++g, group += 16 * n) {
    if (full == 0) {
      step(0, true, true);  // (n == 0: a mask of none, the sums +0)
    } else {
      step(0, false, true);
      for (size_t k = 1; k < full; ++k) step(k, false, false);
      if (tail != 0) step(full, true, false);
    }
    _mm512_storeu_ps(sum + 16 * g, hmath::Reduce16(v, add));
  }
}
#endif  // HWY_TARGET == HWY_AVX3

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4
// Words p[0], p[n], .., p[7n]: one element of each of 8 rows n apart.
HWY_INLINE __m128i TailWords(const uint16_t* HWY_RESTRICT p, size_t n) {
  __m128i w = _mm_cvtsi32_si128(p[0]);
  hmath::Unroll<7>([&](auto r) HWY_ATTR __attribute__((always_inline)) {
    constexpr int kRow = static_cast<int>(decltype(r)::value) + 1;
    w = _mm_insert_epi16(w, p[kRow * n], kRow);
  });
  return w;
}

// The same for AVX2 and SSE4, 8 rows at a time, rows of n >= W::kElems
// elements (16 on AVX2, 8 on SSE4): W::kElems elements per load; the tail
// is the row's last W::kElems elements (in the row, as n >= W::kElems)
// with the lanes already summed masked off. SSE4, which ran SumRow before
// (a horizontal sum and 4-lane steps per row), on Zen 4, channel_sum_bench,
// best of 4 alternating rounds, ns: 512 channels x 7x7 2438 -> 1806, 256 x
// 128 2559 -> 1743, 64 x 128 592 -> 449. A tail of t <= kGatherTail
// elements is gathered instead (TailWords: word r of TailWords(src + n - t
// + j, n) is row r's element n - t + j) and added after the reduction
// (W::Store8Tail): a masked load per row for one element was a quarter of
// a 7x7 row's loads (49 = 3 * 16 + 1). 512 x 7x7, Zen 4, best of 8
// alternating rounds, ns: AVX2 1143 -> 913, SSE4 1669 -> 1582.
constexpr size_t kGatherTail = 2;
template <class W>
HWY_NOINLINE void SumShortRows8(const uint16_t* HWY_RESTRICT src, size_t n, size_t groups,
                                float* HWY_RESTRICT sum) {
  constexpr size_t kElems = W::kElems;
  const size_t full = n / kElems, t = n % kElems;
  const auto tail = W::TailMask(t);
  typename W::F v[8];
  const StridedAddresses rows(n * sizeof(uint16_t));
  const uint16_t* HWY_RESTRICT group = src;
  // The halves of each word added to each other first, as SumShortRows16.
  const auto step = [&](size_t k, bool first) HWY_ATTR __attribute__((always_inline)) {
    const StridedAddresses::Bases at = rows.From(group + kElems * k);
    hmath::Unroll<8>([&](auto r) HWY_ATTR __attribute__((always_inline)) {
      auto w = W::Load(rows.At<decltype(r)::value>(at));
      asm("" : "+x"(w));
      v[r] = first ? W::Words(w) : W::Add(v[r], W::Words(w));
    });
  };
  for (size_t g = 0; g < groups; ++g, group += 8 * n) {
    float* HWY_RESTRICT out = sum + 8 * g;
    step(0, true);  // (full >= 1)
    for (size_t k = 1; k < full; ++k) step(k, false);
    if (t != 0 && t <= kGatherTail) {
      const __m128i w0 = TailWords(group + n - t, n);
      W::Store8Tail(out, v, w0, t == 2 ? TailWords(group + n - 1, n) : _mm_setzero_si128());
      continue;
    }
    if (t != 0) {
      const StridedAddresses::Bases at = rows.From(group + n - kElems);
      hmath::Unroll<8>([&](auto r) HWY_ATTR __attribute__((always_inline)) {
        v[r] = W::Add(v[r], W::Words(W::And(W::Load(rows.At<decltype(r)::value>(at)), tail)));
      });
    }
    W::Store8(out, v);
  }
}
#endif  // HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4

#if HWY_TARGET == HWY_AVX2
struct ShortRowsAvx2 {
  using F = __m256;
  static constexpr size_t kElems = 16;
  // 16-bit lanes j >= 16 - t.
  static __m256i TailMask(size_t t) {
    const __m256i iota = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm256_cmpgt_epi16(iota, _mm256_set1_epi16(static_cast<short>(15 - t)));
  }
  static __m256i Load(const char* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static __m256i And(__m256i a, __m256i b) { return _mm256_and_si256(a, b); }
  // odd * 1 + even: exact, and on the FMA pipes.
  static F Words(__m256i w) {
    return _mm256_fmadd_ps(
        _mm256_castsi256_ps(_mm256_and_si256(w, _mm256_set1_epi32(static_cast<int>(0xFFFF0000u)))),
        _mm256_set1_ps(1.0f), _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)));
  }
  static F Add(F a, F b) { return _mm256_add_ps(a, b); }
  static void Store8(float* sum, const F (&v)[8]) { _mm256_storeu_ps(sum, hmath::Reduce8Sum(v)); }
  // Store8 plus the BF16 words w0 and w1 (lane r: row r), widened.
  static void Store8Tail(float* sum, const F (&v)[8], __m128i w0, __m128i w1) {
    const F t = _mm256_add_ps(Widen(w0), Widen(w1));
    _mm256_storeu_ps(sum, _mm256_add_ps(hmath::Reduce8Sum(v), t));
  }
  static F Widen(__m128i w) { return WidenBf16(hn::Full256<float>(), hn::Vec128<uint16_t>{w}).raw; }
};
#endif  // HWY_TARGET == HWY_AVX2

#if HWY_TARGET == HWY_SSE4
struct ShortRowsSse4 {
  using F = __m128;
  static constexpr size_t kElems = 8;
  static __m128i TailMask(size_t t) {
    const __m128i iota = _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm_cmpgt_epi16(iota, _mm_set1_epi16(static_cast<short>(7 - t)));
  }
  static __m128i Load(const char* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  }
  static __m128i And(__m128i a, __m128i b) { return _mm_and_si128(a, b); }
  // (ADDPS: no FMA here.)
  static F Words(__m128i w) {
    return _mm_add_ps(
        _mm_castsi128_ps(_mm_slli_epi32(w, 16)),
        _mm_castsi128_ps(_mm_and_si128(w, _mm_set1_epi32(static_cast<int>(0xFFFF0000u)))));
  }
  static F Add(F a, F b) { return _mm_add_ps(a, b); }
  // The 8 row vectors reduced as hmath::Reduce8Sum does (blends and
  // shuffles; with six HADDPS, 1.05x the time at 512 x 7x7 and 1.08x at
  // 256 x 128 on Zen 5, best of 6 alternating rounds): rows 0-3 in lo, 4-7
  // in hi.
  static void Reduce8(const F (&v)[8], F* lo, F* hi) {
    // [p0 + p2, p1 + p3, q2 + q0, q3 + q1], then [u0 + u1, u2 + u3, w0 + w1, w2 + w3].
    const auto pairs = [](F p, F q) {
      return _mm_add_ps(_mm_blend_ps(p, q, 0xC), _mm_shuffle_ps(p, q, 0x4E));
    };
    const auto rows = [](F u, F w) {
      return _mm_add_ps(_mm_shuffle_ps(u, w, 0x88), _mm_shuffle_ps(u, w, 0xDD));
    };
    *lo = rows(pairs(v[0], v[1]), pairs(v[2], v[3]));
    *hi = rows(pairs(v[4], v[5]), pairs(v[6], v[7]));
  }
  static void Store8(float* sum, const F (&v)[8]) {
    F lo, hi;
    Reduce8(v, &lo, &hi);
    _mm_storeu_ps(sum, lo);
    _mm_storeu_ps(sum + 4, hi);
  }
  // Store8 plus the BF16 words w0 and w1 (lane r: row r), widened.
  static void Store8Tail(float* sum, const F (&v)[8], __m128i w0, __m128i w1) {
    F lo, hi;
    Reduce8(v, &lo, &hi);
    const F tlo = _mm_add_ps(Widen(w0), Widen(w1));
    const F thi = _mm_add_ps(Widen(_mm_srli_si128(w0, 8)), Widen(_mm_srli_si128(w1, 8)));
    _mm_storeu_ps(sum, _mm_add_ps(lo, tlo));
    _mm_storeu_ps(sum + 4, _mm_add_ps(hi, thi));
  }
  // Words 0-3 of w widened.
  static F Widen(__m128i w) {
    return WidenBf16(hn::Full128<float>(), hn::LowerHalf(hn::Vec128<uint16_t>{w})).raw;
  }
};
#endif  // HWY_TARGET == HWY_SSE4

void ChannelSum16bHwy(const uint16_t* src, size_t channels, size_t spatial, TensorFormat format,
                      float* sum) {
  if (format == TensorFormat::kNchw) {
    size_t c = 0;
    // Rows of < 1024 elements, wherever the tensor is: with one load per
    // vector and the rows' addresses in registers (StridedAddresses) the
    // interleaved rows beat SumRow beyond the L1 too (Zen 5, synbench us,
    // AVX-512 / AVX2: 256 channels x 128 0.67 -> 0.57 / 0.82 -> 0.61, 512
    // x 784 (in L2) 6.5-6.8 -> 6.3-6.4 / 8.9 -> 7.1-7.2, 2048 x 784 (L3)
    // 37 -> 30-35 / 40 -> 39-40, 1024 x 1000 21-22 -> 20 / 26 -> 21-22;
    // before, only up to the L1's size or 64 positions).
    [[maybe_unused]] const bool short_rows = spatial < 1024;
#if HWY_TARGET == HWY_AVX3
    if (short_rows) {
      SumShortRows16(src, spatial, channels / 16, sum);
      c = channels / 16 * 16;
    }
#elif HWY_TARGET == HWY_AVX2
    if (spatial >= 16 && short_rows) {
      SumShortRows8<ShortRowsAvx2>(src, spatial, channels / 8, sum);
      c = channels / 8 * 8;
    }
#elif HWY_TARGET == HWY_SSE4
    if (spatial >= 8 && short_rows) {
      SumShortRows8<ShortRowsSse4>(src, spatial, channels / 8, sum);
      c = channels / 8 * 8;
    }
#endif
    for (; c < channels; ++c) sum[c] = SumRow(src + c * spatial, spatial);
    return;
  }
  const size_t lanes = hn::Lanes(hn::ScalableTag<float>());
  if (channels < lanes) {
    SumFewChannelsNhwc(src, channels, channels * spatial, sum);
    return;
  }
  const CacheSizes caches = GetCacheSizes();
  const size_t bytes = channels * spatial * sizeof(uint16_t);
  // Beyond half the L2, the rows in memory order (block-strided reads of
  // chunks, even with prefetches, ran at 53-57% of BM_ReadOnly's rate on a
  // Zen 5 core at 512 channels x 65536; in memory order 72-78%).
  if (channels >= 2 * lanes && bytes <= caches.l2 / 2) {
    SumNhwcBlocks(src, channels, spatial, sum);
    return;
  }
  // Rows in memory order, accumulating in `sum` (L1-resident for any
  // realistic channel count). Four rows at a time in registers, but with
  // vectors of 8 or 16 lanes, rows of 8 vectors or more beyond the
  // last-level cache one at a time, a single stream: four rows a vector at
  // a time (with prefetches) are four streams a row apart in each page,
  // which the prefetchers from memory did not follow. Zen 4 core (AMD EPYC
  // family 25 model 17, 32 MiB L3), synbench, 64 MiB tensors, ms, four rows
  // -> one, AVX-512 / AVX2: 512 channels 6.0-7.4 -> 3.4-3.7 / 7.4-8.4 ->
  // 3.1-4.1 (BM_ReadOnly 2.9), 256 channels 7.2-7.4 -> 2.5-3.5 / 8.5-8.6 ->
  // 3.0-4.2, 128 channels 3.6-4.3 -> 2.8-3.5 / 3.7-4.3 -> 2.8-3.0. One row
  // at a time lost with rows of 4 vectors (64 channels AVX-512 3.0 -> 4.0:
  // a row's adds to `sum` wait on the last row's through store
  // forwarding), in the L3 (512 channels x 2048, AVX-512: 36 -> 57 us) and
  // with 4 lanes (SSE4, 64 channels 3.7 -> 9.2 ms, 128 3.8 -> 5.1).
  for (size_t c = 0; c < channels; ++c) sum[c] = 0.0f;
  size_t s = 0;
  const size_t last_level = caches.l3 != 0 ? caches.l3 : caches.l2;
  const bool one_stream = lanes >= 8 && channels >= 8 * lanes && bytes > last_level;
  if (!one_stream) {
    for (; s + 4 <= spatial; s += 4) AccumulateRows<4>(src + s * channels, channels, sum);
  }
  for (; s < spatial; ++s) AccumulateRows<1>(src + s * channels, channels, sum);
}

#endif  // HWY_TARGET != HWY_SCALAR
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/hwy_kernels.h"

namespace synops {
namespace channel_sum_internal {

std::vector<Kernel<ChannelSum16bFn>> ChannelSum16bHwyKernels() {
  return {SYNOPS_HWY_KERNELS(ChannelSum16bHwy)};
}

}  // namespace channel_sum_internal
}  // namespace synops
#endif  // HWY_ONCE
