// The convolution shapes of issues 6 and 12 (ResNet-50, MobileNet, stems, a
// grouped layer), shared by conv16b_bench and conv16b_onednn_bench so both
// time the same list.
#ifndef SYNOPS_CONV16B_CONV16B_BENCH_SHAPES_H_
#define SYNOPS_CONV16B_CONV16B_BENCH_SHAPES_H_

#include <cstddef>
#include <random>

#include "benchmark/benchmark.h"
#include "conv16b/conv16b.h"
#include "conv16b/conv16b_check.h"

namespace synops {
namespace conv16b_bench {

// Square input and kernel, batch 1; ic and oc are divisible by group
// (group == ic == oc: depthwise).
struct Shape {
  const char* label;
  size_t ic, ih, iw, oc, k, stride, pad, group;
  bool time_ref = true;  // conv16b_bench times ref::direct too (slow under qemu)
};

inline constexpr Shape kShapes[] = {
    {"resnet_3x3_64_64_56", 64, 56, 56, 64, 3, 1, 1, 1},
    {"resnet_1x1_256_64_56", 256, 56, 56, 64, 1, 1, 0, 1},
    {"resnet_1x1_64_256_56", 64, 56, 56, 256, 1, 1, 0, 1},
    {"resnet_1x1_256_256_56", 256, 56, 56, 256, 1, 1, 0, 1},
    {"resnet_3x3_128_128_28", 128, 28, 28, 128, 3, 1, 1, 1},
    {"resnet_3x3_256_256_14", 256, 14, 14, 256, 3, 1, 1, 1},
    {"resnet_1x1_512_512_14", 512, 14, 14, 512, 1, 1, 0, 1},
    {"resnet_1x1_1024_256_14", 1024, 14, 14, 256, 1, 1, 0, 1},
    {"mobilenet_dw3x3_32_112", 32, 112, 112, 32, 3, 1, 1, 32},
    {"mobilenet_dw7x7_256_14", 256, 14, 14, 256, 7, 1, 3, 256},
    {"stem_3_32_224_s2", 3, 224, 224, 32, 3, 2, 1, 1},
    // The shapes users run that issue 12 added.
    {"resnet_3x3_s2_128_256_28", 128, 28, 28, 256, 3, 2, 1, 1, false},
    {"stem_7x7_3_64_224_s2", 3, 224, 224, 64, 7, 2, 3, 1, false},
    {"mobilenet_dw3x3_144_56", 144, 56, 56, 144, 3, 1, 1, 144, false},
    {"mobilenet_dw3x3_s2_96_112", 96, 112, 112, 96, 3, 2, 1, 96, false},
    {"mobilenet_dw3x3_512_14", 512, 14, 14, 512, 3, 1, 1, 512, false},
    {"group4_3x3_64_64_28", 64, 28, 28, 64, 3, 1, 1, 4, false},
    // MobileNetV2's stride-2 depthwise over 14x14: no middle segment in a row.
    {"mobilenet_dw3x3_s2_576_14", 576, 14, 14, 576, 3, 2, 1, 576, false},
    // ResNet-50's last 3x3 (4.7 MB of BF16 weights, beyond any L2) and a
    // downsampling shortcut (1x1 stride 2).
    {"resnet_3x3_512_512_7", 512, 7, 7, 512, 3, 1, 1, 1, false},
    {"resnet_1x1_s2_512_1024_28", 512, 28, 28, 1024, 1, 2, 0, 1, false},
};

// `s` as a problem (batch 1) in the given layout, types and activation,
// with the same seeded data in every binary.
inline conv16b_check::Problem MakeProblem(const Shape& s,
                                          TensorFormat format = TensorFormat::kNhwc,
                                          DataType type = DataType::k16b,
                                          Activation activation = Activation::kRelu) {
  conv16b_check::Problem pr;
  ConvParams& p = pr.p;
  p.srcC = s.ic;
  p.srcH = s.ih;
  p.srcW = s.iw;
  p.dstC = s.oc;
  p.kernelY = p.kernelX = s.k;
  p.strideY = p.strideX = s.stride;
  p.padY = p.padX = p.padH = p.padW = s.pad;
  p.group = s.group;
  p.srcF = p.dstF = format;
  p.srcT = p.dstT = type;
  p.activation = activation;
  conv16b_check::SetOutputSize(&p);
  std::mt19937 rng(1);
  conv16b_check::FillRandom(&pr, false, &rng);
  return pr;
}

// 2 FLOPs per multiply-add of conv16b_check::Macs.
inline double Flops(const conv16b_check::Problem& pr) { return 2.0 * conv16b_check::Macs(pr); }

// The timed loop of both benchmarks: conv.Forward(src, buf, dst) per
// iteration, FLOP/s and the selected algorithm as label. False (the
// benchmark marked as failed) if a Forward fails.
inline bool TimeForward(benchmark::State& state, const Convolution16b& conv,
                        const conv16b_check::Problem& pr, const void* src, void* buf, void* dst) {
  for (auto _ : state) {
    if (!conv.Forward(src, buf, dst).ok()) {
      state.SkipWithError("Forward failed");
      return false;
    }
    benchmark::ClobberMemory();
  }
  state.counters["FLOPS"] =
      benchmark::Counter(Flops(pr) * state.iterations(), benchmark::Counter::kIsRate);
  state.SetLabel(conv.Info());
  return true;
}

}  // namespace conv16b_bench
}  // namespace synops

#endif  // SYNOPS_CONV16B_CONV16B_BENCH_SHAPES_H_
