// Differential fuzzer: random variant (V1, V1 across spatial, V2, V3, V4,
// 16bV2), batch, shape, format, eps, in-place choice, dst alignment, data
// (special values included), for a third, small detected caches, and flat
// periods or row passes for few positions (FlatPeriods); every
// supported kernel against the reference within the propagated sum bounds
// (normalize_accuracy.h).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bf16/bf16.h"
#include "core/aligned.h"
#include "fuzz/harness.h"
#include "ops/normalize/normalize.h"
#include "ops/normalize/normalize_accuracy.h"
#include "ops/normalize/normalize_kernels.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace synops;            // NOLINT
  using namespace normalize_internal;  // NOLINT
  fuzz::DataProvider in(data, size);
  const int variant = in.Pick(6);  // 0 V1, 1 V1 across, 2 V2, 3 V3, 4 V4, 5 16bV2
  const TensorFormat format = in.Bool() ? TensorFormat::kNhwc : TensorFormat::kNchw;
  const bool in_place = in.Bool();
  const size_t misalign = in.Integral<size_t>(0, 15);
  const bool large = in.Large();
  const size_t batch = in.Integral<size_t>(1, 3);
  const size_t max_n = (large ? fuzz::kMaxTensorBytes : fuzz::kSmallTensorBytes) / 4;
  // Large: past the kernels' 2048-channel staging limit.
  const size_t c = in.Integral<size_t>(1, large ? 2100 : 70);
  const size_t s = in.Integral<size_t>(1, std::max<size_t>(1, std::min<size_t>(large ? 4000 : 80, max_n / (batch * c))));
  const size_t n = batch * c * s;
  const float eps = in.Bool() ? in.FloatIn(1e-7f, 1e-3f) : in.FloatIn(0.0f, 2.0f);
  const float range = in.FloatIn(0.1f, 1000.0f);
  const float offset = in.FloatIn(-100.0f, 100.0f);
  std::vector<float> src = in.Floats(n, offset - range, offset + range, /*specials=*/true);
  const std::vector<float> scale = in.Floats(c, -3.0f, 3.0f, /*specials=*/false);
  const std::vector<float> shift = in.Floats(c, -3.0f, 3.0f, /*specials=*/false);
  std::vector<uint16_t> src16(n);
  if (variant == 5) {
    for (size_t i = 0; i < n; ++i) src16[i] = Fp32ToBf16(src[i]), src[i] = Bf16ToFp32(src16[i]);
  }

  std::vector<float> want(n), buf(c);
  std::vector<double> bounds;
  if (variant <= 1) {
    NormalizeV1Ref(src.data(), batch, c, s, scale.data(), eps, variant == 1, format, buf.data(), want.data());
    bounds = NormalizeV1Bounds(src.data(), batch, c, s, scale.data(), eps, variant == 1, format);
  } else if (variant == 3) {
    NormalizeV3Ref(src.data(), batch, c, s, scale.data(), shift.data(), eps, format, buf.data(), want.data());
    bounds = NormalizeV3Bounds(src.data(), batch, c, s, scale.data(), shift.data(), eps, format);
  } else if (variant == 4) {
    NormalizeV4Ref(src.data(), batch, c, s, scale.data(), shift.data(), eps, format, buf.data(), want.data());
    bounds = NormalizeV4Bounds(src.data(), batch, c, s, scale.data(), shift.data(), eps, format);
  } else {
    NormalizeV2Ref(src.data(), batch, c, s, scale.data(), shift.data(), eps, format, buf.data(), want.data());
    bounds = NormalizeV2Bounds(src.data(), batch, c, s, scale.data(), shift.data(), eps, format);
  }
  const fuzz::SmallCaches caches(in);
  // Flat periods or row passes for NCHW items with few positions
  // (FlatPeriods: the CPU's choice, or either forced), whatever the CPU.
  struct FlatChoice {
    explicit FlatChoice(int flat) { SetFlatPeriodsForTesting(flat); }
    ~FlatChoice() { SetFlatPeriodsForTesting(-1); }
  } const flat_choice(in.Pick(3) - 1);
  const char* names[] = {"v1", "v1across", "v2", "v3", "v4", "v2_16b"};
  const std::string problem = absl::StrCat("normalize:", names[variant], ",b", batch, ",c", c, ",s", s,
                                           ",", FormatName(format), in_place ? ",inplace" : "",
                                           " eps=", eps);
  // dst `misalign` elements past a 64-byte (cache line) boundary; src
  // (where not in place) at one: with misalign 0 both are line-aligned, as
  // frameworks allocate (V1's NCHW line blocks, FewPositionsBlock).
  AlignedVector<float> out(n + misalign), src_line(src.begin(), src.end());
  AlignedVector<uint16_t> out16(n + misalign), src16_line(src16.begin(), src16.end());
  float* dst = out.data() + misalign;
  uint16_t* dst16 = out16.data() + misalign;
  const float* src_at = src_line.data();
  const uint16_t* src16_at = src16_line.data();
  auto check = [&](const char* kernel) {
    const auto m = variant == 5 ? CheckBf16(absl::MakeConstSpan(dst16, n), want, bounds)
                                : CheckFp32(absl::MakeConstSpan(dst, n), want, bounds);
    if (m) fuzz::Fail(problem, kernel, m->ToString());
  };
  auto prepare = [&]() {
    std::memcpy(dst, src.data(), n * 4);
    std::memcpy(dst16, src16.data(), n * 2);
  };
  auto run_all = [&](const auto& table, auto call) {
    for (const auto& k : table.all()) {
      if (!CpuSupports(k.isa)) continue;
      prepare();
      call(k.fn);
      check(k.name);
    }
  };
  const float* s32 = in_place ? dst : src_at;
  const uint16_t* s16 = in_place ? dst16 : src16_at;
  switch (variant) {
    case 0:
    case 1:
      run_all(NormalizeV1Kernels(), [&](NormalizeV1Fn fn) {
        fn(s32, batch, c, s, scale.data(), eps, variant == 1, format, buf.data(), dst);
      });
      break;
    case 5:
      run_all(Normalize16bV2Kernels(), [&](Normalize16bV2Fn fn) {
        fn(s16, batch, c, s, scale.data(), shift.data(), eps, format, buf.data(), dst16);
      });
      break;
    default: {
      const auto& table = variant == 2 ? NormalizeV2Kernels()
                          : variant == 3 ? NormalizeV3Kernels()
                                         : NormalizeV4Kernels();
      run_all(table, [&](NormalizeFn fn) {
        fn(s32, batch, c, s, scale.data(), shift.data(), eps, format, buf.data(), dst);
      });
    }
  }
  // The public entry point accepts the problem (buf = nullptr) and agrees.
  prepare();
  absl::Status st;
  switch (variant) {
    case 0:
    case 1:
      st = NormalizeLayerForward(s32, batch, c, s, scale.data(), &eps, variant == 1, format, nullptr, dst);
      break;
    case 2:
      st = NormalizeLayerForwardV2(s32, batch, c, s, scale.data(), shift.data(), &eps, format, nullptr, dst);
      break;
    case 3:
      st = NormalizeLayerForwardV3(s32, batch, c, s, scale.data(), shift.data(), &eps, format, nullptr, dst);
      break;
    case 4:
      st = NormalizeLayerForwardV4(s32, batch, c, s, scale.data(), shift.data(), &eps, format, nullptr, dst);
      break;
    default:
      st = NormalizeLayerForward16bV2(s16, batch, c, s, scale.data(), shift.data(), &eps, format, nullptr, dst16);
  }
  if (!st.ok()) fuzz::Fail(problem, "api", st.ToString());
  check("api");
  return 0;
}
