// Differential fuzzer for the bf16 package: every supported kernel of every
// function against the reference, bit-exact.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bf16/bf16.h"
#include "bf16/bf16_kernels.h"
#include "fuzz/harness.h"

namespace synops {
namespace {

void FuzzConvert(fuzz::DataProvider& in) {
  const size_t n = in.Integral<size_t>(0, 4096);
  std::vector<float> src = in.Floats(n, -1e6f, 1e6f, /*specials=*/true);
  // Raw bit patterns too: the exhaustive test covers them all, but not mixed
  // with every tail position.
  for (size_t i = 0; i < n && in.remaining() >= 4; i += 1 + in.Integral<size_t>(0, 15)) {
    src[i] = in.AnyFloat();
  }
  std::vector<uint16_t> want(n), got(n);
  bf16_internal::Fp32ToBf16Ref(src.data(), n, want.data());
  for (const auto& k : Fp32ToBf16Kernels().all()) {
    if (!CpuSupports(k.isa)) continue;
    k.fn(src.data(), n, got.data());
    for (size_t i = 0; i < n; ++i) {
      if (got[i] != want[i]) {
        uint32_t bits;
        std::memcpy(&bits, &src[i], 4);
        fuzz::Fail(absl::StrCat("bf16:fp32_to_bf16,n", n), k.name,
                   absl::StrCat("element ", i, " input 0x", absl::Hex(bits), " got 0x",
                                absl::Hex(got[i]), " want 0x", absl::Hex(want[i])));
      }
    }
  }
  std::vector<float> back_want(n), back_got(n);
  bf16_internal::Bf16ToFp32Ref(want.data(), n, back_want.data());
  for (const auto& k : Bf16ToFp32Kernels().all()) {
    if (!CpuSupports(k.isa)) continue;
    k.fn(want.data(), n, back_got.data());
    if (n != 0 && std::memcmp(back_got.data(), back_want.data(), n * sizeof(float)) != 0) {
      fuzz::Fail(absl::StrCat("bf16:bf16_to_fp32,n", n), k.name, "mismatch");
    }
  }
}

void FuzzTranspose(fuzz::DataProvider& in) {
  const size_t e = size_t{1} << in.Integral<int>(0, 2);
  const size_t w = in.Bool() ? 16 / e : in.Integral<size_t>(1, 40);
  const size_t height = in.Integral<size_t>(0, 64);
  const size_t width = in.Integral<size_t>(0, 200);
  std::vector<uint8_t> src(height * width * e);
  auto rng = in.Rng();
  for (uint8_t& b : src) b = static_cast<uint8_t>(rng());
  const size_t out_bytes = Transpose1xWSize(height, width, e, w);
  std::vector<uint8_t> want(out_bytes, 0xAB), got(out_bytes);
  bf16_internal::Transpose1xWRef(src.data(), height, width, e, w, want.data());
  for (const auto& k : Transpose1xWKernels().all()) {
    if (!CpuSupports(k.isa)) continue;
    std::fill(got.begin(), got.end(), uint8_t{0xCD});
    k.fn(src.data(), height, width, e, w, got.data());
    if (got != want) {
      fuzz::Fail(absl::StrCat("bf16:transpose1xw,h", height, ",w", width, ",e", e, ",chunk", w),
                 k.name, "output differs from ref");
    }
  }
}

void FuzzPairs(fuzz::DataProvider& in) {
  const size_t w = in.Integral<size_t>(1, 40);
  const size_t k_rows = in.Integral<size_t>(0, 64);
  const size_t n = in.Integral<size_t>(0, 200);
  std::vector<uint16_t> src(k_rows * n);
  auto rng = in.Rng();
  for (uint16_t& v : src) v = static_cast<uint16_t>(rng());
  const size_t out = PackPairInterleavedSize(k_rows, n, w);
  std::vector<uint16_t> want(out), got(out);
  bf16_internal::PackPairInterleavedRef(src.data(), k_rows, n, w, want.data());
  for (const auto& k : PackPairInterleavedKernels().all()) {
    if (!CpuSupports(k.isa)) continue;
    std::fill(got.begin(), got.end(), 0xBEEF);
    k.fn(src.data(), k_rows, n, w, got.data());
    if (got != want) {
      fuzz::Fail(absl::StrCat("bf16:pack_pairs,k", k_rows, ",n", n, ",chunk", w), k.name,
                 "output differs from ref");
    }
  }
}

}  // namespace
}  // namespace synops

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  synops::fuzz::DataProvider in(data, size);
  switch (in.Pick(3)) {
    case 0:
      synops::FuzzConvert(in);
      break;
    case 1:
      synops::FuzzTranspose(in);
      break;
    default:
      synops::FuzzPairs(in);
      break;
  }
  return 0;
}
