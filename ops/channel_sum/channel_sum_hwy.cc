// Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/channel_sum/channel_sum_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include "bf16/bf16.h"
#include "hwy/highway.h"
#include "ops/channel_sum/channel_sum_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR

// Sum of one contiguous BF16 row. Widening with ZipLower/ZipUpper (BF16 bits
// into the upper half of a zeroed 32-bit lane) changes the lane order, which
// does not matter for a sum.
HWY_INLINE float SumRow(const uint16_t* HWY_RESTRICT src, size_t n) {
  const hn::ScalableTag<uint16_t> d16;
  const hn::RepartitionToWide<decltype(d16)> d32;
  const hn::RebindToFloat<decltype(d32)> df;
  const size_t lanes = hn::Lanes(d16);
  const auto zero = hn::Zero(d16);
  auto acc0 = hn::Zero(df), acc1 = hn::Zero(df), acc2 = hn::Zero(df), acc3 = hn::Zero(df);
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto a = hn::LoadU(d16, src + i);
    const auto b = hn::LoadU(d16, src + i + lanes);
    acc0 = hn::Add(acc0, hn::BitCast(df, hn::ZipLower(d32, zero, a)));
    acc1 = hn::Add(acc1, hn::BitCast(df, hn::ZipUpper(d32, zero, a)));
    acc2 = hn::Add(acc2, hn::BitCast(df, hn::ZipLower(d32, zero, b)));
    acc3 = hn::Add(acc3, hn::BitCast(df, hn::ZipUpper(d32, zero, b)));
  }
  if (i + lanes <= n) {
    const auto a = hn::LoadU(d16, src + i);
    acc0 = hn::Add(acc0, hn::BitCast(df, hn::ZipLower(d32, zero, a)));
    acc1 = hn::Add(acc1, hn::BitCast(df, hn::ZipUpper(d32, zero, a)));
    i += lanes;
  }
  float s = hn::GetLane(hn::SumOfLanes(df, hn::Add(hn::Add(acc0, acc1), hn::Add(acc2, acc3))));
  for (; i < n; ++i) s += Bf16ToFp32(src[i]);
  return s;
}

// Widens lanes of BF16 at p to FP32 (channel order kept).
template <class DF>
HWY_INLINE hn::Vec<DF> Widen(DF df, const uint16_t* HWY_RESTRICT p) {
  const hn::RebindToUnsigned<DF> du;
  const hn::Rebind<uint16_t, DF> d16;
  return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(d16, p))));
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
    auto rows = Widen(df, src + c);
    if (kRows > 1) rows = hn::Add(rows, Widen(df, src + channels + c));
    if (kRows > 2) rows = hn::Add(rows, Widen(df, src + 2 * channels + c));
    if (kRows > 3) rows = hn::Add(rows, Widen(df, src + 3 * channels + c));
    hn::StoreU(hn::Add(hn::LoadU(df, sum + c), rows), df, sum + c);
  }
  for (; c < channels; ++c) {
    float rows = Bf16ToFp32(src[c]);
    for (size_t r = 1; r < kRows; ++r) rows += Bf16ToFp32(src[r * channels + c]);
    sum[c] += rows;
  }
}

void ChannelSum16bHwy(const uint16_t* src, size_t channels, size_t spatial, TensorFormat format,
                      float* sum) {
  if (format == TensorFormat::kNchw) {
    for (size_t c = 0; c < channels; ++c) sum[c] = SumRow(src + c * spatial, spatial);
    return;
  }
  // NHWC: stream the rows in memory order, accumulating in `sum` (L1-resident
  // for any realistic channel count).
  for (size_t c = 0; c < channels; ++c) sum[c] = 0.0f;
  size_t s = 0;
  for (; s + 4 <= spatial; s += 4) AccumulateRows<4>(src + s * channels, channels, sum);
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
