// Internals of conv16b shared by the algorithms, tests, benchmarks, fuzzer
// and synbench: geometry, the algorithm interface and registry, the
// activation and the output epilogue.
#ifndef SYNOPS_CONV16B_CONV16B_INTERNAL_H_
#define SYNOPS_CONV16B_CONV16B_INTERNAL_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "conv16b/conv16b.h"
#include "core/dispatch.h"

namespace synops {
namespace conv16b_internal {

// A validated problem.
struct Geometry {
  size_t batch = 1;
  ConvParams p;
  size_t icg = 0;  // srcC / group
  size_t ocg = 0;  // dstC / group
  size_t src_image = 0;  // elements of one batch item
  size_t dst_image = 0;
  size_t src_bytes = 0;  // whole tensors
  size_t dst_bytes = 0;
  size_t weight_count = 0;  // kernelY * kernelX * icg * dstC
};

inline size_t ElementSize(DataType t) { return t == DataType::k16b ? 2 : 4; }

// Bias (dstC values) and activation params as the context stores them.
struct Epilogue {
  const float* bias = nullptr;
  Activation activation = Activation::kIdentity;
  const float* params = nullptr;
};

// One convolution algorithm for one geometry.
class Algorithm {
 public:
  explicit Algorithm(const Geometry& geometry) : geo_(geometry) {}
  virtual ~Algorithm() = default;
  // Scratch bytes Forward needs in `buf`.
  virtual size_t ExternalBufferSize() const = 0;
  // Bytes of the packed weights.
  virtual size_t WeightBytes() const = 0;
  // Rounds the FP32 weights (SPEC layout) to BF16 and packs them.
  virtual void SetWeights(const float* weight) = 0;
  // `buf` has ExternalBufferSize() bytes.
  virtual void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
                       const Epilogue& epilogue) const = 0;
  const Geometry& geometry() const { return geo_; }

 protected:
  Geometry geo_;
};

struct AlgorithmSpec {
  const char* name;  // "<isa>::<algorithm>"
  Isa isa;
  bool (*supports)(const Geometry&);
  std::unique_ptr<Algorithm> (*make)(const Geometry&);
  // Where this returns false Create does not select it for the geometry: a
  // property of the hardware that SYNOPS_MAX_ISA does not change (nullptr:
  // none). Tests, the fuzzer and synbench run it wherever its ISA runs.
  bool (*chosen_on_this_cpu)(const Geometry&) = nullptr;
  // Registered by a test library (RegisterTestAlgorithms): run by tests,
  // the fuzzer and synbench, never selected by Create.
  bool test_only = false;
};

// Every algorithm compiled in, in selection order (the list and its rules:
// conv16b_algorithms.cc), then the test-only ones registered so far.
const std::vector<AlgorithmSpec>& Algorithms();
const AlgorithmSpec* FindAlgorithm(absl::string_view name);

// Whether Create may take avx512bf16::nhwc_depthwise_dot for `g` on a CPU
// whose vdpbf16ps runs at half rate or not (CpuFeatures::
// bf16_dot_half_rate; with the detected cache sizes).
bool DotDepthwiseChosen(const Geometry& g, bool half_rate);

// The algorithm Create picks for `g` when `available` says which ISAs may
// run: the first one that is not test-only, is available, is chosen on
// this CPU and supports `g` (ref::direct supports every geometry).
const AlgorithmSpec& SelectAlgorithm(const Geometry& g, const std::function<bool(Isa)>& available);

// Appends test-only algorithms to Algorithms() (from a static initializer
// of a test library, e.g. //conv16b:amx_emu); returns true.
bool RegisterTestAlgorithms(const std::vector<AlgorithmSpec>& specs);

// Validates `params` exactly like Convolution16b::Create.
absl::StatusOr<Geometry> Validate(size_t batch, const ConvParams& params);

// Create with a forced algorithm (tests, benchmarks, fuzzer, synbench):
// NotFound for an unknown name, FailedPrecondition if this CPU cannot run it
// or it does not support the geometry.
absl::StatusOr<std::unique_ptr<Convolution16b>> CreateWithAlgorithm(size_t batch,
                                                                    const ConvParams& params,
                                                                    uint32_t compatibility,
                                                                    absl::string_view name);

// The FP32 weight for output channel `oc` (0..dstC), input channel `ic` of
// its group (0..icg), tap (ky, kx), from the SPEC layout.
inline float WeightAt(const float* w, const Geometry& g, size_t oc, size_t ic, size_t ky,
                      size_t kx) {
  const ConvParams& p = g.p;
  if (p.srcF == TensorFormat::kNhwc) {
    return w[((ky * p.kernelX + kx) * g.icg + ic) * p.dstC + oc];
  }
  return w[((oc * g.icg + ic) * p.kernelY + ky) * p.kernelX + kx];
}

// The activation of SPEC.md §4 on v = sum + bias for channel c. The
// transcendental ones are evaluated in double and rounded once.
template <Activation A>
inline float Activate(float v, const float* p, size_t c) {
  if constexpr (A == Activation::kIdentity) {
    return v;
  } else if constexpr (A == Activation::kRelu) {
    return std::max(0.0f, v);
  } else if constexpr (A == Activation::kLeakyRelu) {
    return std::max(0.0f, v) + p[0] * std::min(0.0f, v);
  } else if constexpr (A == Activation::kRestrictRange) {
    return std::min(std::max(p[0], v), p[1]);
  } else if constexpr (A == Activation::kPrelu) {
    return std::max(0.0f, v) + p[c] * std::min(0.0f, v);
  } else if constexpr (A == Activation::kElu) {
    return v >= 0.0f ? v : static_cast<float>(static_cast<double>(p[0]) * std::expm1(double{v}));
  } else if constexpr (A == Activation::kHswish) {
    return std::max(std::min(v, p[0]) + p[0], 0.0f) * p[1] * v;
  } else if constexpr (A == Activation::kMish) {
    if (v > p[0]) return v;
    const double d = v;
    return static_cast<float>(d * std::tanh(std::log1p(std::exp(d))));
  } else if constexpr (A == Activation::kHardSigmoid) {
    return std::max(0.0f, std::min(v * p[0] + p[1], 1.0f));
  } else if constexpr (A == Activation::kSwish) {
    const double d = v;
    return static_cast<float>(d / (1.0 + std::exp(-d * static_cast<double>(p[0]))));
  } else {
    static_assert(A == Activation::kGelu, "activation");
    const double d = v;
    return static_cast<float>(d * (1.0 + std::erf(d * 0.70710678118654752440)) * 0.5);
  }
}

// Calls f(std::integral_constant<Activation, A>()) and returns true when
// `a` is one of the activations that are a few FP32 operations (the vector
// epilogues compute those in registers: x86 ActivateV, NEON ActivateQ);
// false for the transcendental ones.
template <class F>
inline bool WithVectorActivation(Activation a, F&& f) {
  switch (a) {
#define SYNOPS_VECTOR_CASE(A)                     \
  case A:                                         \
    f(std::integral_constant<Activation, A>()); \
    return true;
    SYNOPS_VECTOR_CASE(Activation::kIdentity)
    SYNOPS_VECTOR_CASE(Activation::kRelu)
    SYNOPS_VECTOR_CASE(Activation::kLeakyRelu)
    SYNOPS_VECTOR_CASE(Activation::kRestrictRange)
    SYNOPS_VECTOR_CASE(Activation::kPrelu)
    SYNOPS_VECTOR_CASE(Activation::kHswish)
    SYNOPS_VECTOR_CASE(Activation::kHardSigmoid)
#undef SYNOPS_VECTOR_CASE
    default:
      return false;
  }
}

// The kernel taps [*begin, *end) along one axis (output position o,
// `size` source positions) whose source position lies inside the image:
// the others read only padding (zeros), and skipping them is exact (a sum
// is unchanged by adding +-0 products, and +0 stays +0).
inline void TapRange(size_t o, size_t stride, size_t pad, size_t dilation, size_t kernel,
                     size_t size, size_t* begin, size_t* end) {
  const ptrdiff_t first = static_cast<ptrdiff_t>(o * stride) - static_cast<ptrdiff_t>(pad);
  size_t b = 0, e = kernel;
  while (b < e && first + static_cast<ptrdiff_t>(b * dilation) < 0) ++b;
  while (e > b && first + static_cast<ptrdiff_t>((e - 1) * dilation) >= static_cast<ptrdiff_t>(size)) {
    --e;
  }
  *begin = b;
  *end = e;
}

// TapRange of the kernel rows for output row oy. A 3x3 over 14x14 with
// padding 1 skips 4.8% of its taps.
inline void TapRows(const ConvParams& p, size_t oy, size_t* ky_begin, size_t* ky_end) {
  TapRange(oy, p.strideY, p.padY, p.dilationY, p.kernelY, p.srcH, ky_begin, ky_end);
}

// TapRange of the kernel columns for output column ox.
inline void TapCols(const ConvParams& p, size_t ox, size_t* kx_begin, size_t* kx_end) {
  TapRange(ox, p.strideX, p.padX, p.dilationX, p.kernelX, p.srcW, kx_begin, kx_end);
}

// WithVectorActivation plus Swish, Mish and Gelu: the activations the x86
// epilogues (AVX-512, AVX2, SSE4.1) compute in registers with
// conv16b_act_hwy.cc's formulas and the Cody-Waite exp of
// core/exp_constants.h; Elu (expm1) goes through ActivateKernels().
template <class F>
inline bool WithFusedActivation(Activation a, F&& f) {
  switch (a) {
    case Activation::kSwish:
      f(std::integral_constant<Activation, Activation::kSwish>());
      return true;
    case Activation::kMish:
      f(std::integral_constant<Activation, Activation::kMish>());
      return true;
    case Activation::kGelu:
      f(std::integral_constant<Activation, Activation::kGelu>());
      return true;
    default:
      return WithVectorActivation(a, f);
  }
}

// Gelu's erfc(x) = t exp(-x^2 + P(t)), t = 1 / (1 + x / 2), for x >= 0
// (Numerical Recipes' Chebyshev fit, relative error < 1.2e-7): P's
// coefficients, highest degree first.
inline constexpr float kGeluErfcPoly[10] = {0.17087277f,  -0.82215223f, 1.48851587f, -1.13520398f,
                                            0.27886807f,  -0.18628806f, 0.09678418f, 0.37409196f,
                                            1.00002368f, -1.26551223f};

// Runtime-dispatched Activate (for the reference and tests).
float ActivateAny(float v, Activation a, const float* params, size_t c);

// The transcendental activations (Elu, Mish, Swish, Gelu; others: no-op)
// in place on n values, within SPEC's activation error (conv16b_act_hwy.cc).
using ActivateFn = void (*)(Activation a, const float* params, float* v, size_t n);
const KernelTable<ActivateFn>& ActivateKernels();

// True for Elu, Mish, Swish and Gelu.
inline bool IsTranscendental(Activation a) {
  return a == Activation::kElu || a == Activation::kMish || a == Activation::kSwish ||
         a == Activation::kGelu;
}

// Writes output pixels [x0, x0 + nx) of row (n, oy), channels [c0, c0 + nc):
// value = Activate(sums[x * ld + j] + bias[c0 + j]) in dst's type and format.
void StoreOutput(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                 size_t oy, size_t x0, size_t nx, size_t c0, size_t nc, uint8_t* dst);
// StoreOutput for the vector algorithms: the transcendental activations
// through ActivateKernels() (StoreOutput, used by ref::direct, evaluates
// them in double), the others like StoreOutput.
void StoreOutputVector(const Geometry& g, const Epilogue& e, const float* sums, size_t ld,
                       size_t n, size_t oy, size_t x0, size_t nx, size_t c0, size_t nc,
                       uint8_t* dst);

// ref::direct (conv16b_ref.cc).
AlgorithmSpec RefAlgorithm();

}  // namespace conv16b_internal
}  // namespace synops

#endif  // SYNOPS_CONV16B_CONV16B_INTERNAL_H_
