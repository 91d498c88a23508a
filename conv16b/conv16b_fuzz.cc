// Differential fuzzer: random geometry (mostly at most 10k multiply-adds,
// one input in 32 up to 100k), formats,
// types, activations, data and, for a third, small detected caches; every
// algorithm the CPU supports (and Create's own choice) against the
// double-precision oracle at the SPEC.md §4 bound.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bf16/bf16.h"
#include "conv16b/conv16b_check.h"
#include "conv16b/conv16b_internal.h"
#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace synops;  // NOLINT
  fuzz::DataProvider in(data, size);
  // Mostly small problems (fast); rarely large ones.
  const double max_macs = in.Large() ? 1e5 : 1e4;
  conv16b_check::Problem pr;
  ConvParams& p = pr.p;
  pr.batch = in.Integral<size_t>(1, 3);
  p.srcF = p.dstF = in.Bool() ? TensorFormat::kNhwc : TensorFormat::kNchw;
  p.srcT = in.Bool() ? DataType::k16b : DataType::k32f;
  p.dstT = in.Bool() ? DataType::k16b : DataType::k32f;
  p.activation = static_cast<Activation>(in.Pick(kActivationCount));
  const int kind = in.Pick(4);  // dense, grouped, depthwise, depthwise with multiplier
  // Half the dense/grouped cases have whole 32-channel chunks (AMX nhwc_gemm).
  const size_t icg = kind >= 2 ? 1
                     : in.Bool() ? 32 * in.Integral<size_t>(1, 3)
                                 : in.Integral<size_t>(1, 70);
  // A quarter of the dense/grouped cases have whole 16-channel blocks (the
  // AVX512-BF16 GEMM's fused epilogue; 64 and 128 its pixel lists).
  const size_t ocg = kind == 2   ? 1
                     : kind == 3 ? in.Integral<size_t>(1, 4)
                     : in.Pick(4) == 0 ? 16 * in.Integral<size_t>(1, 8)
                                       : in.Integral<size_t>(1, 70);
  p.group = kind == 0 ? 1 : in.Integral<size_t>(1, 40);
  p.srcC = icg * p.group;
  p.dstC = ocg * p.group;
  p.srcH = in.Integral<size_t>(1, 24);
  p.srcW = in.Integral<size_t>(1, 40);
  p.kernelY = in.Integral<size_t>(1, 7);
  p.kernelX = in.Integral<size_t>(1, 7);
  p.strideY = in.Integral<size_t>(1, 3);
  p.strideX = in.Integral<size_t>(1, 3);
  p.dilationY = in.Integral<size_t>(1, 3);
  p.dilationX = in.Integral<size_t>(1, 3);
  // A quarter without padding (the in-place source paths).
  const size_t max_pad = in.Pick(4) == 0 ? 0 : 4;
  p.padY = in.Integral<size_t>(0, max_pad);
  p.padX = in.Integral<size_t>(0, max_pad);
  p.padH = in.Integral<size_t>(0, max_pad);
  p.padW = in.Integral<size_t>(0, max_pad);
  // A kernel larger than the padded source gets enough bottom/right padding.
  conv16b_check::SetOutputSize(&p);
  if (p.dstH == 0) p.padH += p.dilationY * (p.kernelY - 1) + 1;
  if (p.dstW == 0) p.padW += p.dilationX * (p.kernelX - 1) + 1;
  conv16b_check::SetOutputSize(&p);
  // At most max_macs multiply-adds: shrink the source.
  auto macs = [&] {
    return static_cast<double>(pr.batch) * p.dstC * p.dstH * p.dstW * p.kernelY * p.kernelX * icg;
  };
  while (macs() > max_macs && (p.srcH > 1 || p.srcW > 1)) {
    if (p.srcH >= p.srcW) {
      p.srcH = (p.srcH + 1) / 2;
    } else {
      p.srcW = (p.srcW + 1) / 2;
    }
    conv16b_check::SetOutputSize(&p);
    if (p.dstH == 0) p.padH += p.dilationY * (p.kernelY - 1) + 1;
    if (p.dstW == 0) p.padW += p.dilationX * (p.kernelX - 1) + 1;
    conv16b_check::SetOutputSize(&p);
  }
  if (macs() > max_macs) return 0;

  std::mt19937 rng(in.Integral<uint32_t>(0, ~0u));
  conv16b_check::FillRandom(&pr, false, &rng);
  // Rescale the source by a power of two (exact) chosen by the input.
  const float scale = std::ldexp(1.0f, in.Integral<int>(-12, 12));
  if (p.srcT == DataType::k32f) {
    float* s = reinterpret_cast<float*>(pr.src.data());
    for (size_t i = 0; i < pr.src.size() / 4; ++i) s[i] *= scale;
  } else {
    uint16_t* s = reinterpret_cast<uint16_t*>(pr.src.data());
    for (size_t i = 0; i < pr.src.size() / 2; ++i) s[i] = Fp32ToBf16(Bf16ToFp32(s[i]) * scale);
  }
  for (float& v : pr.params) v = in.Bool() ? v : in.FloatIn(-3.0f, 3.0f);
  if (p.activation == Activation::kRestrictRange && pr.params[0] > pr.params[1]) {
    std::swap(pr.params[0], pr.params[1]);
  }
  if (in.Bool()) pr.bias.clear();  // nullptr bias: zeros
  // src and dst this many bytes past a 64-byte boundary (the AVX2 3x3
  // stride-2 depthwise tiles choose by their alignment).
  constexpr size_t kMisalign[] = {0, 4, 16, 32};
  pr.misalign = kMisalign[in.Pick(4)];

  // The algorithms below are built under these caches (their chunks,
  // merged rows and bands are chosen at construction).
  const fuzz::SmallCaches caches(in);
  const std::string problem =
      conv16b_check::ProblemString(pr) + " misalign " + std::to_string(pr.misalign);
  const conv16b_check::Oracle oracle = conv16b_check::ComputeOracle(pr);
  auto geometry = conv16b_internal::Validate(pr.batch, p);
  if (!geometry.ok()) fuzz::Fail(problem, "validate", std::string(geometry.status().message()));
  auto check = [&](const std::string& name) {
    auto got = conv16b_check::Run(pr, name, in.Bool());
    if (!got.ok()) fuzz::Fail(problem, name, std::string(got.status().message()));
    if (auto m = conv16b_check::CompareToOracle(*got, oracle)) fuzz::Fail(problem, name, m->ToString());
  };
  std::vector<std::string> checked;
  for (const auto& spec : conv16b_internal::Algorithms()) {
    if (CpuSupports(spec.isa) && spec.supports(*geometry)) {
      check(spec.name);
      checked.push_back(spec.name);
    }
  }
  // Convolution16b::Create's choice: one of the algorithms just checked (its
  // forward pass would repeat one of them).
  auto conv = Convolution16b::Create(pr.batch, p);
  if (!conv.ok()) fuzz::Fail(problem, "create", std::string(conv.status().message()));
  const std::string& info = (*conv)->Info();
  bool known = false;
  for (const std::string& name : checked) known = known || info.rfind(name + " ", 0) == 0;
  if (!known) fuzz::Fail(problem, "create", "chose an algorithm not checked: " + info);
  return 0;
}
