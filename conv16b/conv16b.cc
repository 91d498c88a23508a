#include "conv16b/conv16b.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bf16/bf16.h"
#include "bf16/bf16_kernels.h"
#include "conv16b/conv16b_internal.h"
#include "core/status.h"

namespace synops {

const char* ActivationName(Activation a) {
  static const char* const kNames[kActivationCount] = {
      "identity", "relu", "leakyrelu", "restrictrange", "prelu", "elu",
      "hswish",   "mish", "hardsigmoid", "swish",       "gelu"};
  const int i = static_cast<int>(a);
  return i >= 0 && i < kActivationCount ? kNames[i] : "unknown";
}

size_t ActivationParamCount(Activation a, size_t dst_channels) {
  switch (a) {
    case Activation::kIdentity:
    case Activation::kRelu:
    case Activation::kGelu:
      return 0;
    case Activation::kLeakyRelu:
    case Activation::kElu:
    case Activation::kMish:
    case Activation::kSwish:
      return 1;
    case Activation::kRestrictRange:
    case Activation::kHswish:
    case Activation::kHardSigmoid:
      return 2;
    case Activation::kPrelu:
      return dst_channels;
  }
  return 0;
}

namespace conv16b_internal {
namespace {

bool CheckedAdd(size_t a, size_t b, size_t* out) { return !__builtin_add_overflow(a, b, out); }
bool CheckedMul(size_t a, size_t b, size_t* out) { return !__builtin_mul_overflow(a, b, out); }

absl::Status Positive(size_t v, absl::string_view name) {
  return v >= 1 ? absl::OkStatus() : InvalidArg(name, "must be >= 1");
}

// dst = (src + pad0 + pad1 - (dilation*(kernel-1)+1)) / stride + 1.
absl::Status CheckOutputSize(size_t src, size_t pad0, size_t pad1, size_t kernel, size_t dilation,
                             size_t stride, size_t dst, absl::string_view dst_name) {
  size_t padded, span;
  if (!CheckedAdd(src, pad0, &padded) || !CheckedAdd(padded, pad1, &padded)) {
    return InvalidArg(dst_name, "source size plus padding overflows");
  }
  if (!CheckedMul(dilation, kernel - 1, &span) || !CheckedAdd(span, 1, &span)) {
    return InvalidArg(dst_name, "dilated kernel size overflows");
  }
  if (padded < span) {
    return InvalidArg(dst_name, "the dilated kernel is larger than the padded source");
  }
  const size_t want = (padded - span) / stride + 1;
  if (dst != want) {
    return InvalidArg(dst_name, absl::StrCat("is ", dst, ", the geometry gives ", want));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Geometry> Validate(size_t batch, const ConvParams& p) {
  SYNOPS_RETURN_IF_ERROR(Positive(batch, "batch"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.srcC, "srcC"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.srcH, "srcH"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.srcW, "srcW"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.dstC, "dstC"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.dstH, "dstH"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.dstW, "dstW"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.kernelY, "kernelY"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.kernelX, "kernelX"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.dilationY, "dilationY"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.dilationX, "dilationX"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.strideY, "strideY"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.strideX, "strideX"));
  SYNOPS_RETURN_IF_ERROR(Positive(p.group, "group"));
  if (p.srcC % p.group != 0) return InvalidArg("group", "must divide srcC");
  if (p.dstC % p.group != 0) return InvalidArg("group", "must divide dstC");
  SYNOPS_RETURN_IF_ERROR(CheckFormat(p.srcF, "srcF"));
  SYNOPS_RETURN_IF_ERROR(CheckFormat(p.dstF, "dstF"));
  if (p.srcF != p.dstF) return InvalidArg("dstF", "must equal srcF");
  if (p.srcT != DataType::k32f && p.srcT != DataType::k16b) {
    return InvalidArg("srcT", "must be 32f or 16b");
  }
  if (p.dstT != DataType::k32f && p.dstT != DataType::k16b) {
    return InvalidArg("dstT", "must be 32f or 16b");
  }
  const int act = static_cast<int>(p.activation);
  if (act < 0 || act >= kActivationCount) return InvalidArg("activation", "out of range");
  SYNOPS_RETURN_IF_ERROR(
      CheckOutputSize(p.srcH, p.padY, p.padH, p.kernelY, p.dilationY, p.strideY, p.dstH, "dstH"));
  SYNOPS_RETURN_IF_ERROR(
      CheckOutputSize(p.srcW, p.padX, p.padW, p.kernelX, p.dilationX, p.strideX, p.dstW, "dstW"));

  Geometry g;
  g.batch = batch;
  g.p = p;
  g.icg = p.srcC / p.group;
  g.ocg = p.dstC / p.group;
  size_t bytes;
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({batch, p.srcC, p.srcH, p.srcW, ElementSize(p.srcT)},
                                      "src size", &g.src_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({batch, p.dstC, p.dstH, p.dstW, ElementSize(p.dstT)},
                                      "dst size", &g.dst_bytes));
  SYNOPS_RETURN_IF_ERROR(
      CheckedBytes({p.kernelY, p.kernelX, g.icg, p.dstC, sizeof(float)}, "weight size", &bytes));
  g.weight_count = bytes / sizeof(float);
  // Scratch the algorithms may allocate: a padded BF16 copy of one source
  // image with even channel groups, and rows of FP32 sums.
  size_t ph = p.srcH + p.padY + p.padH, pw = p.srcW + p.padX + p.padW;
  SYNOPS_RETURN_IF_ERROR(
      CheckedBytes({ph, pw, p.group, g.icg + 1, 2 * sizeof(uint16_t)}, "padded src size", &bytes));
  SYNOPS_RETURN_IF_ERROR(
      CheckedBytes({p.dstW + 32, p.dstC + 32, 2 * sizeof(float)}, "dst row size", &bytes));
  g.src_image = p.srcC * p.srcH * p.srcW;
  g.dst_image = p.dstC * p.dstH * p.dstW;
  return g;
}

float ActivateAny(float v, Activation a, const float* p, size_t c) {
  switch (a) {
    case Activation::kIdentity: return Activate<Activation::kIdentity>(v, p, c);
    case Activation::kRelu: return Activate<Activation::kRelu>(v, p, c);
    case Activation::kLeakyRelu: return Activate<Activation::kLeakyRelu>(v, p, c);
    case Activation::kRestrictRange: return Activate<Activation::kRestrictRange>(v, p, c);
    case Activation::kPrelu: return Activate<Activation::kPrelu>(v, p, c);
    case Activation::kElu: return Activate<Activation::kElu>(v, p, c);
    case Activation::kHswish: return Activate<Activation::kHswish>(v, p, c);
    case Activation::kMish: return Activate<Activation::kMish>(v, p, c);
    case Activation::kHardSigmoid: return Activate<Activation::kHardSigmoid>(v, p, c);
    case Activation::kSwish: return Activate<Activation::kSwish>(v, p, c);
    case Activation::kGelu: return Activate<Activation::kGelu>(v, p, c);
  }
  return v;
}

namespace {

template <Activation A, bool kNhwc, bool kBf16>
void StoreT(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
            size_t oy, size_t x0, size_t nx, size_t c0, size_t nc, uint8_t* dst) {
  const ConvParams& p = g.p;
  const float* bias = e.bias + c0;
  for (size_t x = 0; x < nx; ++x) {
    const float* s = sums + x * ld;
    if (kNhwc) {
      const size_t base = ((n * p.dstH + oy) * p.dstW + x0 + x) * p.dstC + c0;
      if (kBf16) {
        uint16_t* d = reinterpret_cast<uint16_t*>(dst) + base;
        for (size_t j = 0; j < nc; ++j) d[j] = Fp32ToBf16(Activate<A>(s[j] + bias[j], e.params, c0 + j));
      } else {
        float* d = reinterpret_cast<float*>(dst) + base;
        for (size_t j = 0; j < nc; ++j) d[j] = Activate<A>(s[j] + bias[j], e.params, c0 + j);
      }
    } else {
      const size_t plane = p.dstH * p.dstW;
      const size_t base = (n * p.dstC + c0) * plane + oy * p.dstW + x0 + x;
      for (size_t j = 0; j < nc; ++j) {
        const float v = Activate<A>(s[j] + bias[j], e.params, c0 + j);
        if (kBf16) {
          reinterpret_cast<uint16_t*>(dst)[base + j * plane] = Fp32ToBf16(v);
        } else {
          reinterpret_cast<float*>(dst)[base + j * plane] = v;
        }
      }
    }
  }
}

template <Activation A>
void StoreA(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
            size_t oy, size_t x0, size_t nx, size_t c0, size_t nc, uint8_t* dst) {
  const bool nhwc = g.p.dstF == TensorFormat::kNhwc, bf16 = g.p.dstT == DataType::k16b;
  if (nhwc && bf16) StoreT<A, true, true>(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
  if (nhwc && !bf16) StoreT<A, true, false>(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
  if (!nhwc && bf16) StoreT<A, false, true>(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
  if (!nhwc && !bf16) StoreT<A, false, false>(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
}

}  // namespace

void StoreOutput(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                 size_t oy, size_t x0, size_t nx, size_t c0, size_t nc, uint8_t* dst) {
#define SYNOPS_STORE_CASE(A) \
  case A:                    \
    return StoreA<A>(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
  switch (e.activation) {
    SYNOPS_STORE_CASE(Activation::kIdentity)
    SYNOPS_STORE_CASE(Activation::kRelu)
    SYNOPS_STORE_CASE(Activation::kLeakyRelu)
    SYNOPS_STORE_CASE(Activation::kRestrictRange)
    SYNOPS_STORE_CASE(Activation::kPrelu)
    SYNOPS_STORE_CASE(Activation::kElu)
    SYNOPS_STORE_CASE(Activation::kHswish)
    SYNOPS_STORE_CASE(Activation::kMish)
    SYNOPS_STORE_CASE(Activation::kHardSigmoid)
    SYNOPS_STORE_CASE(Activation::kSwish)
    SYNOPS_STORE_CASE(Activation::kGelu)
  }
#undef SYNOPS_STORE_CASE
}

void StoreOutputVector(const Geometry& g, const Epilogue& e, const float* sums, size_t ld,
                       size_t n, size_t oy, size_t x0, size_t nx, size_t c0, size_t nc,
                       uint8_t* dst) {
  if (!IsTranscendental(e.activation)) {
    return StoreOutput(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
  }
  const ConvParams& p = g.p;
  const ActivateFn activate = ActivateKernels().Best().fn;
  const Fp32ToBf16Fn round = Fp32ToBf16Kernels().Best().fn;
  const bool nhwc = p.dstF == TensorFormat::kNhwc, bf16 = p.dstT == DataType::k16b;
  const size_t plane = p.dstH * p.dstW;
  // Whole pixels per batch of up to kChunk values (one call of the kernel
  // for many vectors: independent chains overlap), or chunks of one pixel.
  constexpr size_t kChunk = 1024;
  alignas(64) float v[kChunk];
  alignas(64) uint16_t h[kChunk];
  const size_t step = std::min(kChunk, nc);
  const size_t px = std::max<size_t>(1, kChunk / nc);
  for (size_t x = 0; x < nx; x += px) {
    const size_t npx = std::min(px, nx - x);
    for (size_t j0 = 0; j0 < nc; j0 += step) {
      const size_t k = std::min(step, nc - j0);
      for (size_t i = 0; i < npx; ++i) {
        const float* s = sums + (x + i) * ld + j0;
        const float* bias = e.bias + c0 + j0;
        for (size_t j = 0; j < k; ++j) v[i * k + j] = s[j] + bias[j];
      }
      activate(e.activation, e.params, v, npx * k);
      if (bf16) round(v, npx * k, h);
      for (size_t i = 0; i < npx; ++i) {
        if (nhwc) {
          const size_t base = ((n * p.dstH + oy) * p.dstW + x0 + x + i) * p.dstC + c0 + j0;
          if (bf16) {
            std::memcpy(reinterpret_cast<uint16_t*>(dst) + base, h + i * k, k * sizeof(uint16_t));
          } else {
            std::memcpy(reinterpret_cast<float*>(dst) + base, v + i * k, k * sizeof(float));
          }
        } else {
          const size_t base = (n * p.dstC + c0 + j0) * plane + oy * p.dstW + x0 + x + i;
          for (size_t j = 0; j < k; ++j) {
            if (bf16) {
              reinterpret_cast<uint16_t*>(dst)[base + j * plane] = h[i * k + j];
            } else {
              reinterpret_cast<float*>(dst)[base + j * plane] = v[i * k + j];
            }
          }
        }
      }
    }
  }
}

}  // namespace conv16b_internal

// Builds contexts (a friend of Convolution16b).
struct Conv16bFactory {
  static std::unique_ptr<Convolution16b> Make(
      const conv16b_internal::Geometry& g, uint32_t compatibility,
      const conv16b_internal::AlgorithmSpec& spec) {
    auto conv = std::unique_ptr<Convolution16b>(
        new Convolution16b(g.batch, g.p, compatibility, spec.make(g)));
    conv->info_ = absl::StrFormat("%s compatibility=0x%x", spec.name, compatibility);
    return conv;
  }
};

namespace conv16b_internal {

absl::StatusOr<std::unique_ptr<Convolution16b>> CreateWithAlgorithm(size_t batch,
                                                                    const ConvParams& params,
                                                                    uint32_t compatibility,
                                                                    absl::string_view name) {
  SYNOPS_ASSIGN_OR_RETURN(const Geometry g, Validate(batch, params));
  const AlgorithmSpec* spec = FindAlgorithm(name);
  if (spec == nullptr) return absl::NotFoundError(absl::StrCat("no conv16b algorithm ", name));
  if (!CpuSupports(spec->isa)) {
    return absl::FailedPreconditionError(absl::StrCat(name, ": this CPU lacks ", IsaName(spec->isa)));
  }
  if (!spec->supports(g)) {
    return absl::FailedPreconditionError(absl::StrCat(name, " does not support this geometry"));
  }
  return Conv16bFactory::Make(g, compatibility, *spec);
}

}  // namespace conv16b_internal

Convolution16b::Convolution16b(size_t batch, const ConvParams& params, uint32_t compatibility,
                               std::unique_ptr<conv16b_internal::Algorithm> algorithm)
    : batch_(batch), params_(params), compatibility_(compatibility),
      algorithm_(std::move(algorithm)) {}

Convolution16b::~Convolution16b() = default;

absl::StatusOr<std::unique_ptr<Convolution16b>> Convolution16b::Create(size_t batch,
                                                                      const ConvParams& params,
                                                                      uint32_t compatibility) {
  using namespace conv16b_internal;  // NOLINT
  SYNOPS_ASSIGN_OR_RETURN(const Geometry g, Validate(batch, params));
  return Conv16bFactory::Make(g, compatibility, SelectAlgorithm(g, IsaAllowed));
}

size_t Convolution16b::ExternalBufferSize() const { return algorithm_->ExternalBufferSize(); }

size_t Convolution16b::InternalBufferSize() const {
  return algorithm_->WeightBytes() + params_.dstC * sizeof(float) +
         bias_params_.size() * sizeof(float);
}

absl::Status Convolution16b::SetParams(const float* weight, const float* bias,
                                       const float* params) {
  const conv16b_internal::Geometry& g = algorithm_->geometry();
  SYNOPS_RETURN_IF_ERROR(CheckPointer(weight, g.weight_count * sizeof(float), "weight"));
  const size_t count = ActivationParamCount(params_.activation, params_.dstC);
  if (count != 0 && params == nullptr) {
    return InvalidArg("params", absl::StrCat(ActivationName(params_.activation),
                                             " needs ", count, " params"));
  }
  // bias_params_: dstC bias values, then the activation params.
  bias_params_.assign(params_.dstC + count, 0.0f);
  if (bias != nullptr) std::memcpy(bias_params_.data(), bias, params_.dstC * sizeof(float));
  if (count != 0) std::memcpy(bias_params_.data() + params_.dstC, params, count * sizeof(float));
  algorithm_->SetWeights(weight);
  ready_ = true;
  return absl::OkStatus();
}

namespace {
// Per-thread scratch for Forward calls without a buffer.
uint8_t* ThreadScratch(size_t bytes) {
  thread_local std::vector<uint8_t> scratch;
  if (scratch.size() < bytes) scratch.resize(bytes);
  return scratch.data();
}
}  // namespace

absl::Status Convolution16b::Forward(const void* src, void* buf, void* dst) const {
  if (!ready_) return absl::FailedPreconditionError("conv16b: SetParams must precede Forward");
  const conv16b_internal::Geometry& g = algorithm_->geometry();
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src, g.src_bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(dst, g.dst_bytes, "dst"));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(dst, g.dst_bytes, "dst", src, g.src_bytes, "src"));
  const size_t buf_bytes = algorithm_->ExternalBufferSize();
  if (buf != nullptr) {
    SYNOPS_RETURN_IF_ERROR(CheckDisjoint(buf, buf_bytes, "buf", src, g.src_bytes, "src"));
    SYNOPS_RETURN_IF_ERROR(CheckDisjoint(buf, buf_bytes, "buf", dst, g.dst_bytes, "dst"));
  } else if (buf_bytes != 0) {
    buf = ThreadScratch(buf_bytes);
  }
  conv16b_internal::Epilogue e;
  e.bias = bias_params_.data();
  e.activation = params_.activation;
  e.params = bias_params_.data() + params_.dstC;
  algorithm_->Forward(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(buf),
                      static_cast<uint8_t*>(dst), e);
  return absl::OkStatus();
}

}  // namespace synops
