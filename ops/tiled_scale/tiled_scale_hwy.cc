// Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
//
// Everything is a "span" over contiguous memory: o[i] = (s[i] * a(i)) * h(i),
// where each factor is one broadcast value or an array (h possibly periodic):
// * NCHW: one span per row, a = the channel's ver row, h = the row's hor
//   value. Rows narrower than a vector use two overlapping partial vectors
//   each; width 1 is one span per channel with the factors' roles swapped.
// * NHWC: one span per image row y: ver[x*C + c] is contiguous over the row,
//   hor[y*C + c] repeats with period C (hor's row itself if C is a multiple
//   of the vector length, else a table of lcm(C, lanes) + lanes values); with
//   many channels of an awkward count, one span per pixel.
// Long spans align their stores (see Span); when the tensor is large and
// every row starts on a cache line, rows are written with streaming stores.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/tiled_scale/tiled_scale_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "ops/tiled_scale/tiled_scale_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// NHWC: the largest periodic table of hor values (16 KiB on the stack).
constexpr size_t kMaxTable = 4096;
// Pads a table for a vector access starting at its last element.
constexpr size_t kPad = HWY_MAX_BYTES / sizeof(float);

// A factor that is one value.
struct Broadcast {
  float v;
  HWY_INLINE V Load(D d, size_t) const { return hn::Set(d, v); }
  HWY_INLINE float Scalar(size_t) const { return v; }
};

// A factor that is an array, indexed by i or, for a periodic h, i mod period.
struct Array {
  const float* p;
  HWY_INLINE V Load(D d, size_t k) const { return hn::LoadU(d, p + k); }
  HWY_INLINE float Scalar(size_t k) const { return p[k]; }
};

template <bool kStream>
HWY_INLINE void Put(D d, V v, float* p) {
  if constexpr (kStream) {
    hn::Stream(v, d, p);
  } else {
    hn::StoreU(v, d, p);
  }
}

// o[i] = (s[i] * a(i)) * h(k(i)) for i < n, where k(i) = i or, with
// kPeriodic, i mod `period` (a multiple of the vector length; k_last =
// (n - lanes) mod period). h must be readable a vector beyond every k below
// `period`, and with kAlign beyond k = lanes - 1 too: then the main loop
// starts at the first vector-aligned element of o, because a store
// straddling two cache lines costs two (half the L2 bandwidth with AVX-512);
// worth it for long spans only (kAlignSpan), short ones want the least
// per-span work. The first and last vectors, which may overlap the others,
// are computed before anything is stored and stored last, so o == s works.
// With kStream, o is aligned and n a multiple of the vector length.
constexpr size_t kAlignSpan = 64;

template <bool kStream, bool kPeriodic, bool kAlign, class A, class H>
HWY_INLINE void Span(D d, const float* s, const A& a, const H& h, size_t period, size_t k_last,
                     float* o, size_t n) {
  const size_t lanes = hn::Lanes(d);
  if (n < lanes) {  // every i < n <= period
    for (size_t i = 0; i < n; ++i) o[i] = s[i] * a.Scalar(i) * h.Scalar(i);
    return;
  }
  size_t first = 0;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(o);
  if (kAlign && !kStream && addr % sizeof(float) == 0) {
    const size_t align = lanes * sizeof(float);
    first = (align - addr % align) % align / sizeof(float);
  }
  const size_t last = n - lanes;
  const bool head = first != 0;
  const bool tail = (n - first) % lanes != 0;
  V head_v = hn::Zero(d), tail_v = hn::Zero(d);
  if (head) head_v = hn::Mul(hn::Mul(hn::LoadU(d, s), a.Load(d, 0)), h.Load(d, 0));
  if (tail) {
    tail_v = hn::Mul(hn::Mul(hn::LoadU(d, s + last), a.Load(d, last)),
                     h.Load(d, kPeriodic ? k_last : last));
  }
  size_t i = first, k = first;  // first < lanes <= period
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const V h0 = h.Load(d, k);
    k += lanes;
    if (kPeriodic && k >= period) k -= period;
    const V h1 = h.Load(d, k);
    k += lanes;
    if (kPeriodic && k >= period) k -= period;
    const V x0 = hn::Mul(hn::Mul(hn::LoadU(d, s + i), a.Load(d, i)), h0);
    const V x1 = hn::Mul(hn::Mul(hn::LoadU(d, s + i + lanes), a.Load(d, i + lanes)), h1);
    Put<kStream>(d, x0, o + i);
    Put<kStream>(d, x1, o + i + lanes);
  }
  if (i + lanes <= n) {
    Put<kStream>(d, hn::Mul(hn::Mul(hn::LoadU(d, s + i), a.Load(d, i)), h.Load(d, k)), o + i);
  }
  if (head) hn::StoreU(head_v, d, o);
  if (tail) hn::StoreU(tail_v, d, o + last);
}

// NCHW rows of 1 < width < lanes: per row, vectors of kCap <= width lanes at
// 0 and at width - kCap (width < 2 * kCap), both computed before either is
// stored.
template <size_t kCap>
HWY_NOINLINE void NarrowRows(const float* src, size_t channels, size_t height, size_t width,
                             const float* ver, const float* hor, float* dst) {
  const hn::CappedTag<float, kCap> d;
  const size_t second = width - kCap;
  for (size_t c = 0; c < channels; ++c) {
    const float* vr = ver + c * width;
    const auto v0 = hn::LoadU(d, vr);
    const auto v1 = hn::LoadU(d, vr + second);
    for (size_t y = 0; y < height; ++y) {
      const size_t g = c * height + y;
      const float* s = src + g * width;
      float* o = dst + g * width;
      const auto h = hn::Set(d, hor[g]);
      const auto x0 = hn::Mul(hn::Mul(hn::LoadU(d, s), v0), h);
      const auto x1 = hn::Mul(hn::Mul(hn::LoadU(d, s + second), v1), h);
      hn::StoreU(x0, d, o);
      hn::StoreU(x1, d, o + second);
    }
  }
}

// NCHW rows that are whole vectors starting on vector boundaries: two rows
// at a time, sharing the loads of the ver row.
template <bool kStream>
HWY_NOINLINE void WholeVectorRows(const float* src, size_t channels, size_t height, size_t width,
                                  const float* ver, const float* hor, float* dst) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  for (size_t c = 0; c < channels; ++c) {
    const float* vr = ver + c * width;
    size_t y = 0;
    for (; y + 2 <= height; y += 2) {
      const size_t g = c * height + y;
      const float* s = src + g * width;
      float* o = dst + g * width;
      const V h0 = hn::Set(d, hor[g]);
      const V h1 = hn::Set(d, hor[g + 1]);
      for (size_t i = 0; i < width; i += lanes) {
        const V v = hn::LoadU(d, vr + i);
        const V x0 = hn::Mul(hn::Mul(hn::LoadU(d, s + i), v), h0);
        const V x1 = hn::Mul(hn::Mul(hn::LoadU(d, s + width + i), v), h1);
        Put<kStream>(d, x0, o + i);
        Put<kStream>(d, x1, o + width + i);
      }
    }
    if (y < height) {
      const size_t g = c * height + y;
      const V h = hn::Set(d, hor[g]);
      for (size_t i = 0; i < width; i += lanes) {
        Put<kStream>(d, hn::Mul(hn::Mul(hn::LoadU(d, src + g * width + i), hn::LoadU(d, vr + i)), h),
                     dst + g * width + i);
      }
    }
  }
}

// NCHW rows of at least lanes elements: a span per row.
template <bool kStream, bool kAlign>
HWY_NOINLINE void RowsOf(const float* src, size_t channels, size_t height, size_t width,
                         const float* ver, const float* hor, float* dst) {
  const D d;
  for (size_t c = 0; c < channels; ++c) {
    const Array vrow{ver + c * width};
    for (size_t y = 0; y < height; ++y) {
      const size_t g = c * height + y;
      Span<kStream, false, kAlign>(d, src + g * width, vrow, Broadcast{hor[g]}, 0, 0,
                                   dst + g * width, width);
    }
  }
}

// Least common multiple of a and b (b a power of two).
HWY_INLINE size_t LcmPow2(size_t a, size_t b) {
  size_t g = b;
  while (a % g != 0) g /= 2;
  return a / g * b;
}

// One NCHW channel plane as one span, for lanes <= W: o[i] = (s[i] * vt[k(i)])
// * hc[i / W] for i < H*W, where vt is the ver row repeated (period `period`,
// a multiple of W and lanes; readable a vector beyond every k < period) and
// k_last = (H*W - lanes) mod period. Stores are aligned whatever W is: a
// vector that straddles two rows blends their hor values.
template <bool kStream>
HWY_INLINE void Plane(D d, const float* s, const float* vt, size_t period, size_t k_last,
                      const float* hc, size_t height, size_t width, float* o) {
  const size_t lanes = hn::Lanes(d);
  const size_t n = height * width;
  size_t first = 0;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(o);
  if (!kStream && addr % sizeof(float) == 0) {
    const size_t align = lanes * sizeof(float);
    first = (align - addr % align) % align / sizeof(float);
  }
  const size_t last = n - lanes;
  const bool head = first != 0;
  const bool tail = (n - first) % lanes != 0;
  V head_v = hn::Zero(d), tail_v = hn::Zero(d);
  if (head) head_v = hn::Mul(hn::Mul(hn::LoadU(d, s), hn::LoadU(d, vt)), hn::Set(d, hc[0]));
  if (tail) {
    tail_v = hn::Mul(hn::Mul(hn::LoadU(d, s + last), hn::LoadU(d, vt + k_last)),
                     hn::Set(d, hc[height - 1]));
  }
  size_t i = first, k = first, y = 0, boundary = width;
  V hv = hn::Set(d, hc[0]);
  for (; i + lanes <= n; i += lanes) {
    const size_t e = i + lanes;
    V h = hv;
    if (e >= boundary) {
      if (e > boundary) {
        const V next = hn::Set(d, hc[y + 1]);
        h = hn::IfThenElse(hn::FirstN(d, boundary - i), hv, next);
        hv = next;
      } else if (y + 1 < height) {
        hv = hn::Set(d, hc[y + 1]);
      }
      ++y;
      boundary += width;
    }
    Put<kStream>(d, hn::Mul(hn::Mul(hn::LoadU(d, s + i), hn::LoadU(d, vt + k)), h), o + i);
    k += lanes;
    if (k >= period) k -= period;
  }
  if (head) hn::StoreU(head_v, d, o);
  if (tail) hn::StoreU(tail_v, d, o + last);
}

// NCHW planes (lanes <= W, small ver tables): one Plane span per channel.
template <bool kStream>
HWY_NOINLINE void Planes(const float* src, size_t channels, size_t height, size_t width,
                         const float* ver, const float* hor, float* dst) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  const size_t n = height * width;
  const size_t period = LcmPow2(width, lanes);
  const size_t k_last = (n - lanes) % period;
  HWY_ALIGN float table[kMaxTable + kPad];
  const size_t table_len = std::min(period + lanes, n);
  for (size_t c = 0; c < channels; ++c) {
    std::memcpy(table, ver + c * width, width * sizeof(float));
    // Each vector repeats the one W values earlier (W > lanes: already written).
    for (size_t k = width; k < table_len; k += lanes) {
      hn::StoreU(hn::LoadU(d, table + k - width), d, table + k);
    }
    Plane<kStream>(d, src + c * n, table, period, k_last, hor + c * height, height, width,
                   dst + c * n);
  }
}

template <bool kStream>
void Nchw(const float* src, size_t channels, size_t height, size_t width, const float* ver,
          const float* hor, float* dst) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  if (width == 1) {  // dst[c, y] = (src[c, y] * ver[c]) * hor[c*H + y]
    for (size_t c = 0; c < channels; ++c) {
      const size_t at = c * height;
      Span<false, false, false>(d, src + at, Broadcast{ver[c]}, Array{hor + at}, 0, 0, dst + at,
                                height);
    }
    return;
  }
  if (width < lanes) {
    if (width >= 8) return NarrowRows<8>(src, channels, height, width, ver, hor, dst);
    if (width >= 4) return NarrowRows<4>(src, channels, height, width, ver, hor, dst);
    return NarrowRows<2>(src, channels, height, width, ver, hor, dst);
  }
  // Rows of whole aligned vectors: the simplest loop. Rows too short to be
  // worth the blends of a plane span: a span per row. Otherwise a span per
  // plane if the table of ver is small next to the plane.
  const bool aligned_rows = width % lanes == 0 &&
                            reinterpret_cast<uintptr_t>(dst) % (lanes * sizeof(float)) == 0;
  const size_t table_len = LcmPow2(width, lanes) + lanes;
  if (aligned_rows) {
    WholeVectorRows<kStream>(src, channels, height, width, ver, hor, dst);
  } else if (width >= 2 * lanes && table_len <= kMaxTable && 4 * table_len <= height * width) {
    Planes<kStream>(src, channels, height, width, ver, hor, dst);
  } else if (width < kAlignSpan) {
    RowsOf<kStream, false>(src, channels, height, width, ver, hor, dst);
  } else {
    RowsOf<kStream, true>(src, channels, height, width, ver, hor, dst);
  }
}

template <bool kStream>
void Nhwc(const float* src, size_t channels, size_t height, size_t width, const float* ver,
          const float* hor, float* dst) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  const size_t row = width * channels;
  const size_t k_last = row >= lanes ? (row - lanes) % LcmPow2(channels, lanes) : 0;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(dst);
  if (channels % lanes == 0 && addr % (lanes * sizeof(float)) == 0) {
    // hor's row is the table: every span starts aligned, so k stays a
    // multiple of lanes below C.
    for (size_t y = 0; y < height; ++y) {
      Span<kStream, true, false>(d, src + y * row, Array{ver}, Array{hor + y * channels},
                                 channels, k_last, dst + y * row, row);
    }
    return;
  }
  const size_t period = LcmPow2(channels, lanes);
  if (period + lanes > kMaxTable) {
    // Many channels, not a multiple of the vector length: one span per pixel.
    for (size_t y = 0; y < height; ++y) {
      for (size_t x = 0; x < width; ++x) {
        const size_t at = (y * width + x) * channels;
        Span<false, false, true>(d, src + at, Array{ver + x * channels},
                                 Array{hor + y * channels}, 0, 0, dst + at, channels);
      }
    }
    return;
  }
  // table[k] = hor[y*C + k % C] for k < period + lanes (or the row, if shorter).
  HWY_ALIGN float table[kMaxTable + kPad];
  HWY_ALIGN float hpad[kPad] = {};
  const size_t table_len = std::min(period + lanes, row);
  for (size_t y = 0; y < height; ++y) {
    const float* hrow = hor + y * channels;
    if (channels < lanes) {
      // One vector store per period of C; the next overwrites the excess.
      std::memcpy(hpad, hrow, channels * sizeof(float));
      const V h = hn::Load(d, hpad);
      for (size_t k = 0; k < table_len; k += channels) hn::StoreU(h, d, table + k);
    } else {
      std::memcpy(table, hrow, std::min(channels, table_len) * sizeof(float));
      // Each vector repeats the one C values earlier (C >= lanes: already written).
      for (size_t k = channels; k < table_len; k += lanes) {
        hn::StoreU(hn::LoadU(d, table + k - channels), d, table + k);
      }
    }
    if (row >= kAlignSpan) {
      Span<kStream, true, true>(d, src + y * row, Array{ver}, Array{table}, period, k_last,
                                dst + y * row, row);
    } else {
      Span<kStream, true, false>(d, src + y * row, Array{ver}, Array{table}, period, k_last,
                                 dst + y * row, row);
    }
  }
}

void TiledScale2D32fHwy(const float* src, size_t channels, size_t height, size_t width,
                        TensorFormat format, const float* ver, const float* hor, float* dst) {
  const size_t row = format == TensorFormat::kNchw ? width : width * channels;
  // Streaming only where every row is whole cache lines starting on a line
  // (so every vector store is aligned and there are no tails), and not in
  // place (as unary and eltwise): there every dst line has just been read,
  // so a non-temporal store saves no read-for-ownership and only evicts
  // the line. Zen 4 (EPYC family 25 model 17, 32 MiB L3): a standalone x
  // *= 1 in place over a buffer just written, AVX-512, best of 12, us,
  // cached -> streamed stores: 8 MiB 86 -> 593, 16 MiB 362 -> 1189, 48 MiB
  // 2110 -> 2578 (out of place streaming won from 8 MiB: 412 -> 340).
  // synbench, NCHW 128x128 planes in place, best of 6 alternating rounds,
  // us, streamed -> cached, AVX-512 / AVX2 / SSE4.1: 128 channels (8 MiB)
  // 713 -> 137 / 722 -> 139 / 922 -> 207, though in some runs (and at 10
  // and 16 MiB) the streamed stores were as fast; the cached never slow.
  const bool stream =
      src != dst && channels * height * width * sizeof(float) >= StreamingStoreMinBytes() &&
      reinterpret_cast<uintptr_t>(dst) % 64 == 0 && row % 16 == 0 &&
      (format == TensorFormat::kNchw ? width >= hn::Lanes(D())
                                     : channels % hn::Lanes(D()) == 0 || channels < hn::Lanes(D()));
  if (format == TensorFormat::kNchw) {
    if (stream) {
      Nchw<true>(src, channels, height, width, ver, hor, dst);
    } else {
      Nchw<false>(src, channels, height, width, ver, hor, dst);
    }
  } else {
    if (stream) {
      Nhwc<true>(src, channels, height, width, ver, hor, dst);
    } else {
      Nhwc<false>(src, channels, height, width, ver, hor, dst);
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
namespace tiled_scale_internal {

std::vector<Kernel<TiledScale2D32fFn>> TiledScale2D32fHwyKernels() {
  return {SYNOPS_HWY_KERNELS(TiledScale2D32fHwy)};
}

}  // namespace tiled_scale_internal
}  // namespace synops
#endif  // HWY_ONCE
