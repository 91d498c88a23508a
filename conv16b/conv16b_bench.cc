// Every conv16b algorithm on the ResNet-50 / MobileNet shapes of the issue,
// NHWC BF16 -> BF16 with Relu, reporting FLOP/s (2 per multiply-add), next to
// the compute peak of each ISA measured in this binary: an FMA loop
// (AVX-512) and a vdpbf16ps loop (AVX512-BF16).
#include <memory>
#include <random>
#include <cstring>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "conv16b/conv16b_bench_shapes.h"
#include "conv16b/conv16b_check.h"
#include "conv16b/conv16b_kernels.h"
#include "conv16b/conv16b_internal.h"
#include "core/aligned.h"
#include "testing/bench_util.h"

namespace synops {
namespace {

using conv16b_bench::kShapes;
using conv16b_bench::Shape;

// Source/destination layout and type of a benchmark problem.
struct Variant {
  const char* label;
  TensorFormat format;
  DataType type;
  Activation activation = Activation::kRelu;
};
constexpr Variant kNhwcBf16 = {"nhwc_bf16", TensorFormat::kNhwc, DataType::k16b};
// The selected algorithm also runs these (issue 6: FP32 source/destination
// and the NCHW path).
constexpr Variant kOtherVariants[] = {{"nhwc_fp32", TensorFormat::kNhwc, DataType::k32f},
                                      {"nchw_bf16", TensorFormat::kNchw, DataType::k16b},
                                      {"nchw_fp32", TensorFormat::kNchw, DataType::k32f},
                                      {"nhwc_bf16_swish", TensorFormat::kNhwc, DataType::k16b,
                                       Activation::kSwish},
                                      {"nhwc_bf16_gelu", TensorFormat::kNhwc, DataType::k16b,
                                       Activation::kGelu}};

conv16b_check::Problem MakeVariant(const Shape& s, const Variant& v) {
  return conv16b_bench::MakeProblem(s, v.format, v.type, v.activation);
}

// Times Forward of `shape` in `variant` with algorithm `name` (nullptr: the
// one Create selects): FLOP/s and bytes/s (source read + destination
// written, the copy baseline's accounting).
void Register(const std::string& label, const Shape& shape, const Variant& variant,
              const char* name, Isa isa) {
  benchmark::RegisterBenchmark(label.c_str(), [shape, variant, name, isa](
                                                  benchmark::State& state) {
    if (!testing::SkipUnlessSupported(state, isa)) return;
    const conv16b_check::Problem pr = MakeVariant(shape, variant);
    auto conv = name != nullptr ? conv16b_internal::CreateWithAlgorithm(pr.batch, pr.p, 0, name)
                                : Convolution16b::Create(pr.batch, pr.p);
    if (!conv.ok()) {
      state.SkipWithError(std::string(conv.status().message()).c_str());
      return;
    }
    if (!(*conv)->SetParams(pr.weight.data(), pr.bias.data(),
                            pr.params.empty() ? nullptr : pr.params.data())
             .ok()) {
      state.SkipWithError("SetParams failed");
      return;
    }
    // 64-byte aligned tensors, as an inference engine allocates them (an
    // AMX tile row that straddles two cache lines is slower).
    const ConvParams& p = pr.p;
    const size_t dst_bytes = p.dstC * p.dstH * p.dstW * (p.dstT == DataType::k16b ? 2 : 4);
    const AlignedVector<uint8_t> src(pr.src.begin(), pr.src.end());
    AlignedVector<uint8_t> buf((*conv)->ExternalBufferSize());
    AlignedVector<uint8_t> dst(dst_bytes);
    if (!conv16b_bench::TimeForward(state, **conv, pr, src.data(), buf.data(), dst.data())) {
      return;
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(src.size() + dst_bytes));
  })->Unit(benchmark::kMillisecond);
}

void RegisterAll() {
#if defined(__x86_64__)
  using testing::RegisterPeak;
  RegisterPeak("Peak/sse41/mul_add", Isa::kSse41, conv16b_internal::PeakSse41, 1 << 16);
  RegisterPeak("Peak/avx2/fma", Isa::kAvx2, conv16b_internal::PeakAvx2, 1 << 16);
  RegisterPeak("Peak/avx512/fma", Isa::kAvx512, conv16b_internal::PeakAvx512, 1 << 16);
  RegisterPeak("Peak/avx512bf16/vdpbf16ps", Isa::kAvx512Bf16, conv16b_internal::PeakAvx512Bf16,
               1 << 16);
  RegisterPeak("Peak/amx_bf16/tdpbf16ps", Isa::kAmxBf16, conv16b_internal::amx_bf16::Peak, 1 << 14);
  // One 32 x 32 output block per iteration (tiles zeroed, loaded,
  // multiplied and stored) with K = 32 * chunks: the bound of the kernel's
  // tile loop at the K of the layers (1x1 64->256: 2 chunks, 1x1
  // 256->x: 8, 3x3 64->64: 18, 3x3 128->128: 36) and when B streams from L2.
  for (size_t chunks : {2, 8, 18, 36, 128}) {
    const std::string label = std::string("Peak/amx_bf16/tdpbf16ps_with_loads/B_") +
                              std::to_string(chunks * 2) + "KiB";
    benchmark::RegisterBenchmark(label.c_str(), [chunks](benchmark::State& state) {
      if (!testing::SkipUnlessSupported(state, Isa::kAmxBf16)) return;
      const AlignedVector<uint16_t> a(32 * 256, 0x3C00), b(2 * chunks * 512, 0x3C00);
      double flops = 0;
      for (auto _ : state) {
        flops += static_cast<double>(
            conv16b_internal::amx_bf16::PeakLoads(4608 / chunks, a.data(), b.data(), chunks));
      }
      state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsRate);
    });
  }
#endif
  for (const Shape& shape : kShapes) {
    for (const auto& spec : conv16b_internal::Algorithms()) {
      // Only the algorithms whose selection rule accepts the shape.
      auto geometry = conv16b_internal::Validate(1, conv16b_bench::MakeProblem(shape).p);
      if (!geometry.ok() || spec.test_only || !spec.supports(*geometry)) continue;
      if (!shape.time_ref && std::string(spec.name) == "ref::direct") continue;
      Register(std::string("Conv16b/") + spec.name + "/" + shape.label, shape, kNhwcBf16,
               spec.name, spec.isa);
    }
    for (const Variant& v : kOtherVariants) {
      Register(std::string("Conv16b/selected/") + shape.label + "/" + v.label, shape, v, nullptr,
               Isa::kRef);
    }
  }
  // The transcendental activations of the epilogues on 1024 values in L1:
  // values per second (items) for every kernel of ActivateKernels().
  for (const auto& k : conv16b_internal::ActivateKernels().all()) {
    for (Activation a :
         {Activation::kElu, Activation::kMish, Activation::kSwish, Activation::kGelu}) {
      const std::string label = std::string("Activate/") + k.name + "/" + ActivationName(a);
      benchmark::RegisterBenchmark(label.c_str(), [k, a](benchmark::State& state) {
        if (!testing::SkipUnlessSupported(state, k.isa)) return;
        // The values are reset every iteration (a 4 KB copy): applied in
        // place again and again they would shrink into denormals.
        AlignedVector<float> src(1024), v(1024);
        for (size_t i = 0; i < src.size(); ++i) {
          src[i] = static_cast<float>(static_cast<int>(i % 97) - 48) / 8;  // -6 .. 6
        }
        const float params[2] = {1.0f, 0.0f};
        for (auto _ : state) {
          std::memcpy(v.data(), src.data(), v.size() * sizeof(float));
          k.fn(a, params, v.data(), v.size());
          benchmark::DoNotOptimize(v.data());
        }
        state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * v.size()));
      });
    }
  }
  // Memory-bound comparisons (depthwise, NCHW): copying the BF16 NHWC
  // source and destination of the depthwise shapes.
  testing::RegisterCopyBaseline("dw3x3_32_112", 112 * 112 * 32 * 2);
  testing::RegisterCopyBaseline("dw7x7_256_14", 14 * 14 * 256 * 2);
  // FP32 sources of the 1x1 layers (nhwc_fp32): reading them is a bound
  // the tile work cannot hide (3.2 MB at 56x56 x 256 channels).
  testing::RegisterCopyBaseline("fp32_src_256ch_56x56", 56 * 56 * 256 * 4);
  testing::RegisterCopyBaseline("fp32_src_1024ch_14x14", 14 * 14 * 1024 * 4);
  // The BF16 output of 1x1 x->256 at 56x56 (1.6 MB): with the source it
  // does not stay in L2, so every line written is also written back.
  testing::RegisterCopyBaseline("bf16_dst_256ch_56x56", 56 * 56 * 256 * 2);
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
