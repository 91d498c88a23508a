// conv16b next to oneDNN on the shapes of conv16b_bench (conv16b_bench_shapes.h),
// so one run gives same-machine, same-run ratios (issue 6).
//
// Both sides: batch 1, NHWC BF16 source and destination (Conv16b/, OneDnn/)
// or FP32 destination (Conv16bF32/, OneDnnF32/: BF16 in, FP32 out), FP32
// bias, Relu, one thread. oneDNN (Debian's libdnnl-dev, OpenMP runtime) chooses its
// weights format (format_tag::any); the weights are reordered once, outside
// the timed loop, as SetParams packs ours outside it. Depthwise shapes are
// grouped convolutions with groups == channels. Each side's output is checked
// once against conv16b_check's double-precision oracle at the SPEC bound
// before timing. The label is conv16b's Info() or oneDNN's impl_info_str().
//
// Optional and manual: sudo apt-get install libdnnl-dev &&
//   ./bazelw run //conv16b:conv16b_onednn_bench
#include <omp.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "bf16/bf16.h"
#include "conv16b/conv16b.h"
#include "conv16b/conv16b_bench_shapes.h"
#include "conv16b/conv16b_check.h"
#include "conv16b/conv16b_kernels.h"
#include "core/aligned.h"
#include "core/dispatch.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "testing/bench_util.h"

namespace synops {
namespace {

using conv16b_bench::kShapes;
using conv16b_bench::Shape;

using conv16b_bench::Flops;
using conv16b_bench::MakeProblem;

// The shape's problem with a BF16 or an FP32 destination (the source BF16).
conv16b_check::Problem MakeBenchProblem(const Shape& shape, DataType dst) {
  conv16b_check::Problem pr = MakeProblem(shape);
  pr.p.dstT = dst;
  return pr;
}

size_t DstBytes(const conv16b_check::Problem& pr) {
  const ConvParams& p = pr.p;
  return pr.batch * p.dstC * p.dstH * p.dstW * (p.dstT == DataType::k16b ? 2 : 4);
}

std::vector<float> ToFloat(const AlignedVector<uint8_t>& v, DataType type) {
  std::vector<float> out(v.size() / (type == DataType::k16b ? 2 : 4));
  for (size_t i = 0; i < out.size(); ++i) {
    if (type == DataType::k16b) {
      uint16_t h;
      std::memcpy(&h, &v[2 * i], sizeof(h));
      out[i] = Bf16ToFp32(h);
    } else {
      std::memcpy(&out[i], &v[4 * i], sizeof(float));
    }
  }
  return out;
}

// "" if `got` (NHWC, of pr's dst type) is within the oracle's bound, else
// the first mismatch. The oracle is computed once per shape and dst type.
std::string CheckOutput(const Shape& shape, const conv16b_check::Problem& pr,
                        const AlignedVector<uint8_t>& got) {
  static auto* oracles = new std::map<std::pair<std::string, DataType>, conv16b_check::Oracle>;
  const auto key = std::make_pair(std::string(shape.label), pr.p.dstT);
  auto it = oracles->find(key);
  if (it == oracles->end()) it = oracles->emplace(key, conv16b_check::ComputeOracle(pr)).first;
  const auto mismatch = conv16b_check::CompareToOracle(ToFloat(got, pr.p.dstT), it->second);
  if (!mismatch) return "";
  return "output outside the SPEC bound: " + mismatch->ToString();
}

void BM_Conv16b(benchmark::State& state, Shape shape, DataType dst_type) {
  const conv16b_check::Problem pr = MakeBenchProblem(shape, dst_type);
  auto conv = Convolution16b::Create(pr.batch, pr.p);
  if (!conv.ok()) {
    state.SkipWithError(std::string(conv.status().message()).c_str());
    return;
  }
  if (!(*conv)->SetParams(pr.weight.data(), pr.bias.data(), nullptr).ok()) {
    state.SkipWithError("SetParams failed");
    return;
  }
  // 64-byte aligned tensors for both libraries, as inference engines
  // allocate them.
  const AlignedVector<uint8_t> src(pr.src.begin(), pr.src.end());
  AlignedVector<uint8_t> buf((*conv)->ExternalBufferSize());
  AlignedVector<uint8_t> dst(DstBytes(pr));
  if (!(*conv)->Forward(src.data(), buf.data(), dst.data()).ok()) {
    state.SkipWithError("Forward failed");
    return;
  }
  const std::string error = CheckOutput(shape, pr, dst);
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  conv16b_bench::TimeForward(state, **conv, pr, src.data(), buf.data(), dst.data());
}

void BM_OneDnn(benchmark::State& state, Shape shape, DataType dst_type) {
  using dnnl::memory;
  using dt = memory::data_type;
  using tag = memory::format_tag;
  const conv16b_check::Problem pr = MakeBenchProblem(shape, dst_type);
  const ConvParams& p = pr.p;
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(*engine);

  const memory::dim n = static_cast<memory::dim>(pr.batch);
  const memory::dim g = static_cast<memory::dim>(p.group);
  const memory::dim ic = static_cast<memory::dim>(p.srcC);
  const memory::dim oc = static_cast<memory::dim>(p.dstC);
  const memory::dim kh = static_cast<memory::dim>(p.kernelY);
  const memory::dim kw = static_cast<memory::dim>(p.kernelX);
  const memory::desc src_md({n, ic, static_cast<memory::dim>(p.srcH),
                             static_cast<memory::dim>(p.srcW)},
                            dt::bf16, tag::nhwc);
  const memory::desc dst_md({n, oc, static_cast<memory::dim>(p.dstH),
                             static_cast<memory::dim>(p.dstW)},
                            p.dstT == DataType::k16b ? dt::bf16 : dt::f32, tag::nhwc);
  const memory::desc bias_md({oc}, dt::f32, tag::a);
  // Our weights: FP32 [kernelY][kernelX][srcC/group][dstC], i.e. hwio, or
  // hwigo (dstC = group x dstC/group) when grouped.
  const memory::dims w_dims = g > 1 ? memory::dims{g, oc / g, ic / g, kh, kw}
                                    : memory::dims{oc, ic, kh, kw};
  const memory::desc user_w_md(w_dims, dt::f32, g > 1 ? tag::hwigo : tag::hwio);
  const memory::desc any_w_md(w_dims, dt::bf16, tag::any);

  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md, any_w_md,
      bias_md, dst_md,
      {static_cast<memory::dim>(p.strideY), static_cast<memory::dim>(p.strideX)},
      {static_cast<memory::dim>(p.padY), static_cast<memory::dim>(p.padX)},
      {static_cast<memory::dim>(p.padH), static_cast<memory::dim>(p.padW)});
  dnnl::post_ops ops;
  ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  dnnl::convolution_forward::primitive_desc pd;
  try {
    pd = dnnl::convolution_forward::primitive_desc(desc, attr, *engine);
  } catch (const dnnl::error& e) {
    state.SkipWithError((std::string("oneDNN: ") + e.what()).c_str());
    return;
  }
  const dnnl::convolution_forward conv(pd);

  // Weights reordered (FP32 -> BF16, oneDNN's blocking) once, untimed.
  memory user_w(user_w_md, *engine, const_cast<float*>(pr.weight.data()));
  memory w(pd.weights_desc(), *engine);
  dnnl::reorder(user_w, w).execute(stream, user_w, w);
  memory bias(bias_md, *engine, const_cast<float*>(pr.bias.data()));
  AlignedVector<uint8_t> src_data(pr.src.begin(), pr.src.end());
  memory src(src_md, *engine, src_data.data());
  AlignedVector<uint8_t> dst_data(DstBytes(pr));
  memory dst(dst_md, *engine, dst_data.data());
  const std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}};
  conv.execute(stream, args);
  stream.wait();
  const std::string error = CheckOutput(shape, pr, dst_data);
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  for (auto _ : state) {
    conv.execute(stream, args);
    stream.wait();
    benchmark::ClobberMemory();
  }
  state.counters["FLOPS"] =
      benchmark::Counter(Flops(pr) * state.iterations(), benchmark::Counter::kIsRate);
  state.SetLabel(pd.impl_info_str());
}

void RegisterAll() {
#if defined(__x86_64__)
  // The compute peaks of this binary: each run's ratios of both libraries
  // to the bound of the path they ran. FLOPS count the taps inside the
  // image (conv16b_check::Macs), as benchdnn does.
  testing::RegisterPeak("Peak/avx512/fma", Isa::kAvx512, conv16b_internal::PeakAvx512, 1 << 16);
  testing::RegisterPeak("Peak/avx512bf16/vdpbf16ps", Isa::kAvx512Bf16,
                        conv16b_internal::PeakAvx512Bf16, 1 << 16);
  testing::RegisterPeak("Peak/amx_bf16/tdpbf16ps", Isa::kAmxBf16, conv16b_internal::amx_bf16::Peak,
                        1 << 14);
#endif
  for (const DataType dst : {DataType::k16b, DataType::k32f}) {
    const std::string suffix = dst == DataType::k16b ? "/" : "F32/";
    for (const Shape& shape : kShapes) {
      benchmark::RegisterBenchmark(("Conv16b" + suffix + shape.label).c_str(), BM_Conv16b, shape,
                                   dst)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("OneDnn" + suffix + shape.label).c_str(), BM_OneDnn, shape,
                                   dst)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace
}  // namespace synops

int main(int argc, char** argv) {
  // libgomp read OMP_NUM_THREADS when it was loaded; this overrides it for
  // the main thread, which runs every benchmark: oneDNN uses one core, like conv16b.
  omp_set_num_threads(1);
  benchmark::AddCustomContext("omp_max_threads", std::to_string(omp_get_max_threads()));
  benchmark::AddCustomContext(
      "onednn_version", std::to_string(dnnl::version()->major) + "." +
                            std::to_string(dnnl::version()->minor) + "." +
                            std::to_string(dnnl::version()->patch));
  synops::RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
