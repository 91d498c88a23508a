#include "conv16b/conv16b_check.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "bf16/bf16.h"
#include "conv16b/conv16b_internal.h"
#include "core/aligned.h"
#include "core/status.h"

namespace synops {
namespace conv16b_check {

double Macs(const Problem& problem) {
  const ConvParams& p = problem.p;
  // The kernel rows inside summed over the output rows, times the same for
  // the columns (the taps skipped are those of conv16b_internal::TapRange).
  double rows = 0, cols = 0;
  for (size_t oy = 0; oy < p.dstH; ++oy) {
    size_t b, e;
    conv16b_internal::TapRows(p, oy, &b, &e);
    rows += static_cast<double>(e - b);
  }
  for (size_t ox = 0; ox < p.dstW; ++ox) {
    size_t b, e;
    conv16b_internal::TapCols(p, ox, &b, &e);
    cols += static_cast<double>(e - b);
  }
  return static_cast<double>(problem.batch) * p.dstC * (p.srcC / p.group) * rows * cols;
}

void SetOutputSize(ConvParams* p) {
  auto out = [](size_t src, size_t pad0, size_t pad1, size_t k, size_t d, size_t s) -> size_t {
    const size_t span = d * (k - 1) + 1;
    if (src + pad0 + pad1 < span || s == 0) return 0;
    return (src + pad0 + pad1 - span) / s + 1;
  };
  p->dstH = out(p->srcH, p->padY, p->padH, p->kernelY, p->dilationY, p->strideY);
  p->dstW = out(p->srcW, p->padX, p->padW, p->kernelX, p->dilationX, p->strideX);
}

void FillRandom(Problem* pr, bool integers, std::mt19937* rng) {
  const ConvParams& p = pr->p;
  // Plain arithmetic on the generator's bits: libstdc++'s
  // uniform_real_distribution calls logl for every value, most of a small
  // fuzz input's time.
  auto real = [&]() { return static_cast<float>((*rng)() >> 8) * 0x1p-23f - 1.0f; };  // [-1, 1)
  auto integer = [&]() { return static_cast<int>((*rng)() % 9) - 4; };                // [-4, 4]
  auto value = [&]() { return integers ? static_cast<float>(integer()) : real(); };
  pr->weight.resize(p.kernelY * p.kernelX * (p.srcC / p.group) * p.dstC);
  for (float& w : pr->weight) w = value();
  pr->bias.resize(p.dstC);
  for (float& b : pr->bias) b = value();
  const size_t src_count = pr->batch * p.srcC * p.srcH * p.srcW;
  if (p.srcT == DataType::k16b) {
    pr->src.resize(src_count * 2);
    uint16_t* s = reinterpret_cast<uint16_t*>(pr->src.data());
    for (size_t i = 0; i < src_count; ++i) s[i] = Fp32ToBf16(value());
  } else {
    pr->src.resize(src_count * 4);
    float* s = reinterpret_cast<float*>(pr->src.data());
    for (size_t i = 0; i < src_count; ++i) s[i] = value();
  }
  switch (p.activation) {
    case Activation::kLeakyRelu:
      pr->params = {integers ? 2.0f : 0.1f};
      break;
    case Activation::kRestrictRange:
      pr->params = integers ? std::vector<float>{-20.0f, 30.0f} : std::vector<float>{-0.5f, 0.7f};
      break;
    case Activation::kPrelu:
      pr->params.resize(p.dstC);
      for (float& v : pr->params) v = integers ? static_cast<float>(integer() % 3) : real();
      break;
    case Activation::kElu:
      pr->params = {0.7f};
      break;
    case Activation::kHswish:
      pr->params = {3.0f, 1.0f / 6.0f};
      break;
    case Activation::kMish:
      pr->params = {20.0f};
      break;
    case Activation::kHardSigmoid:
      pr->params = {1.0f / 6.0f, 0.5f};
      break;
    case Activation::kSwish:
      pr->params = {1.3f};
      break;
    default:
      pr->params.clear();
  }
}

double ActivateDouble(double v, Activation a, const float* p, size_t c) {
  switch (a) {
    case Activation::kIdentity: return v;
    case Activation::kRelu: return std::fmax(0.0, v);
    case Activation::kLeakyRelu: return std::fmax(0.0, v) + p[0] * std::fmin(0.0, v);
    case Activation::kRestrictRange: return std::fmin(std::fmax(double{p[0]}, v), double{p[1]});
    case Activation::kPrelu: return std::fmax(0.0, v) + p[c] * std::fmin(0.0, v);
    case Activation::kElu: return v >= 0 ? v : p[0] * (std::exp(v) - 1.0);
    case Activation::kHswish: return std::fmax(std::fmin(v, double{p[0]}) + p[0], 0.0) * p[1] * v;
    case Activation::kMish: return v > p[0] ? v : v * std::tanh(std::log1p(std::exp(v)));
    case Activation::kHardSigmoid: return std::fmax(0.0, std::fmin(v * p[0] + p[1], 1.0));
    case Activation::kSwish: return v / (1.0 + std::exp(-v * p[0]));
    case Activation::kGelu: return v * (1.0 + std::erf(v / std::sqrt(2.0))) / 2.0;
  }
  return v;
}

// The taps k in [0, kernel) whose source coordinate o * stride + k * dilation
// - pad lies in [0, src): a contiguous range, as the coordinate grows with k.
static void ValidTaps(size_t o, size_t stride, size_t dilation, size_t pad, size_t kernel,
                      size_t src, size_t* begin, size_t* end) {
  const long base = static_cast<long>(o * stride) - static_cast<long>(pad);
  size_t k = 0;
  while (k < kernel && base + static_cast<long>(k * dilation) < 0) ++k;
  *begin = k;
  while (k < kernel && base + static_cast<long>(k * dilation) < static_cast<long>(src)) ++k;
  *end = k;
}

Oracle ComputeOracle(const Problem& pr) {
  const ConvParams& p = pr.p;
  const size_t icg = p.srcC / p.group, ocg = p.dstC / p.group;
  const size_t k = p.kernelY * p.kernelX * icg;
  const bool nhwc = p.srcF == TensorFormat::kNhwc;
  // The BF16-rounded operands in double, once: the source as
  // s[((n * srcC + c) * srcH + y) * srcW + x], the weights as
  // w[((oc * icg + ic) * kernelY + ky) * kernelX + kx].
  const size_t plane = p.srcH * p.srcW;
  std::vector<double> s(pr.batch * p.srcC * plane);
  for (size_t n = 0; n < pr.batch; ++n)
    for (size_t c = 0; c < p.srcC; ++c)
      for (size_t yx = 0; yx < plane; ++yx) {
        const size_t i = nhwc ? (n * plane + yx) * p.srcC + c : (n * p.srcC + c) * plane + yx;
        s[(n * p.srcC + c) * plane + yx] =
            p.srcT == DataType::k16b
                ? Bf16ToFp32(reinterpret_cast<const uint16_t*>(pr.src.data())[i])
                : Bf16ToFp32(Fp32ToBf16(reinterpret_cast<const float*>(pr.src.data())[i]));
      }
  std::vector<double> w(p.dstC * k);
  for (size_t oc = 0, o = 0; oc < p.dstC; ++oc)
    for (size_t ic = 0; ic < icg; ++ic)
      for (size_t ky = 0; ky < p.kernelY; ++ky)
        for (size_t kx = 0; kx < p.kernelX; ++kx) {
          const size_t i = nhwc ? ((ky * p.kernelX + kx) * icg + ic) * p.dstC + oc
                                : ((oc * icg + ic) * p.kernelY + ky) * p.kernelX + kx;
          w[o++] = Bf16ToFp32(Fp32ToBf16(pr.weight[i]));
        }
  Oracle o;
  const size_t count = pr.batch * p.dstC * p.dstH * p.dstW;
  o.want.resize(count);
  o.bound.resize(count);
  const float* params = pr.params.data();
  for (size_t oy = 0; oy < p.dstH; ++oy) {
    size_t ky0, ky1;
    ValidTaps(oy, p.strideY, p.dilationY, p.padY, p.kernelY, p.srcH, &ky0, &ky1);
    for (size_t ox = 0; ox < p.dstW; ++ox) {
      size_t kx0, kx1;
      ValidTaps(ox, p.strideX, p.dilationX, p.padX, p.kernelX, p.srcW, &kx0, &kx1);
      // The offset of tap (0, 0) in a source plane; it may lie in the padding
      // (negative), but every valid tap's offset is inside the plane.
      const long origin =
          (static_cast<long>(oy * p.strideY) - static_cast<long>(p.padY)) * static_cast<long>(p.srcW) +
          static_cast<long>(ox * p.strideX) - static_cast<long>(p.padX);
      for (size_t n = 0; n < pr.batch; ++n)
        for (size_t oc = 0; oc < p.dstC; ++oc) {
          const size_t g = oc / ocg;
          double sum = 0, sum_abs = 0;
          for (size_t ic = 0; ic < icg; ++ic) {
            const long si = static_cast<long>((n * p.srcC + g * icg + ic) * plane) + origin;
            const double* wi = w.data() + (oc * icg + ic) * p.kernelY * p.kernelX;
            for (size_t ky = ky0; ky < ky1; ++ky)
              for (size_t kx = kx0; kx < kx1; ++kx) {
                const double t = s[si + static_cast<long>(ky * p.dilationY * p.srcW + kx * p.dilationX)] *
                                 wi[ky * p.kernelX + kx];
                sum += t;
                sum_abs += std::fabs(t);
              }
          }
          const double bias = pr.bias.empty() ? 0.0 : pr.bias[oc];
          const double v = sum + bias;
          // The bias is one more term of the sum (its addition rounds once).
          const double e = testing::Conv16bSumBound(k, sum_abs + std::fabs(bias));
          const double f = ActivateDouble(v, p.activation, params, oc);
          double bound = std::fmax(std::fabs(ActivateDouble(v + e, p.activation, params, oc) - f),
                                   std::fabs(ActivateDouble(v - e, p.activation, params, oc) - f));
          bound += testing::ActivationErrorBound(f);
          if (p.dstT == DataType::k16b) bound += testing::Bf16Ulp(f);
          const size_t i = nhwc ? ((n * p.dstH + oy) * p.dstW + ox) * p.dstC + oc
                                : ((n * p.dstC + oc) * p.dstH + oy) * p.dstW + ox;
          o.want[i] = f;
          o.bound[i] = bound;
        }
    }
  }
  return o;
}

absl::StatusOr<std::vector<float>> Run(const Problem& pr, absl::string_view name, bool with_buf) {
  SYNOPS_ASSIGN_OR_RETURN(const std::unique_ptr<Convolution16b> conv,
                          name.empty()
                              ? Convolution16b::Create(pr.batch, pr.p)
                              : conv16b_internal::CreateWithAlgorithm(pr.batch, pr.p, 0, name));
  SYNOPS_RETURN_IF_ERROR(conv->SetParams(pr.weight.data(),
                                         pr.bias.empty() ? nullptr : pr.bias.data(),
                                         pr.params.empty() ? nullptr : pr.params.data()));
  const size_t count = pr.batch * pr.p.dstC * pr.p.dstH * pr.p.dstW;
  const size_t bytes = count * (pr.p.dstT == DataType::k16b ? 2 : 4);
  AlignedVector<uint8_t> src(pr.misalign + pr.src.size());
  std::copy(pr.src.begin(), pr.src.end(), src.begin() + pr.misalign);
  AlignedVector<uint8_t> dst_store(pr.misalign + bytes + 64, 0xA5);
  uint8_t* dst = dst_store.data() + pr.misalign;
  std::vector<uint8_t> buf(with_buf ? conv->ExternalBufferSize() : 0, 0xFF);
  SYNOPS_RETURN_IF_ERROR(
      conv->Forward(src.data() + pr.misalign, with_buf ? buf.data() : nullptr, dst));
  for (size_t i = 0; i < dst_store.size(); ++i) {
    if (dst_store[i] != 0xA5 && (i < pr.misalign || i >= pr.misalign + bytes)) {
      return absl::InternalError("wrote outside dst");
    }
  }
  std::vector<float> out(count);
  if (pr.p.dstT == DataType::k16b) {
    for (size_t i = 0; i < count; ++i) {
      uint16_t h;
      std::memcpy(&h, dst + 2 * i, 2);
      out[i] = Bf16ToFp32(h);
    }
  } else {
    std::memcpy(out.data(), dst, count * 4);
  }
  return out;
}

std::optional<testing::Mismatch> CompareToOracle(const std::vector<float>& got,
                                                 const Oracle& o) {
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - o.want[i]);
    if (!(d <= o.bound[i])) {
      testing::Mismatch m;
      m.index = i;
      m.got = got[i];
      m.want = o.want[i];
      m.bound = o.bound[i];
      return m;
    }
  }
  return std::nullopt;
}

std::string ProblemString(const Problem& pr) {
  const ConvParams& p = pr.p;
  auto type = [](DataType t) { return t == DataType::k16b ? "bf16" : "f32"; };
  return absl::StrCat("conv16b:mb", pr.batch, ",ic", p.srcC, ",ih", p.srcH, ",iw", p.srcW, ",oc",
                      p.dstC, ",kh", p.kernelY, ",kw", p.kernelX, ",sh", p.strideY, ",sw",
                      p.strideX, ",dh", p.dilationY, ",dw", p.dilationX, ",pt", p.padY, ",pl",
                      p.padX, ",pb", p.padH, ",pr", p.padW, ",g", p.group, ",",
                      FormatName(p.srcF), ",", type(p.srcT), type(p.dstT), ",",
                      ActivationName(p.activation));
}

}  // namespace conv16b_check
}  // namespace synops
