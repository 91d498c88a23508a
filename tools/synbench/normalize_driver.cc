// synbench driver for normalize:
//   normalize:v<1..4>,b<B>,c<C>,s<S>,nchw|nhwc[,across][,bfloat][,inplace]
// (v defaults to 2, b to 1; `across`: V1 across spatial; `bfloat`: 16bV2, with
// v2; `inplace`: dst is src).
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "bf16/bf16.h"
#include "core/aligned.h"
#include "ops/normalize/normalize_accuracy.h"
#include "ops/normalize/normalize_kernels.h"
#include "testing/tolerance.h"
#include "tools/synbench/driver.h"

namespace synops {
namespace synbench {
namespace {

using namespace normalize_internal;  // NOLINT

class NormalizeDriver : public OpDriver {
 public:
  absl::Status Setup(const Problem& p) override {
    SYNOPS_RETURN_IF_ERROR(
        p.OnlyUses({"v", "b", "c", "s"}, {"across", "bfloat", "nchw", "nhwc", "inplace"}));
    SYNOPS_ASSIGN_OR_RETURN(const size_t c, p.Size("c"));
    SYNOPS_ASSIGN_OR_RETURN(const size_t s, p.Size("s"));
    c_ = c, s_ = s, b_ = static_cast<size_t>(p.Get("b", 1));
    const int64_t v = p.Get("v", 2);
    if (v < 1 || v > 4) return absl::InvalidArgumentError("v: 1, 2, 3 or 4");
    if (p.Has("across") && v != 1) return absl::InvalidArgumentError("across: only with v1");
    if (p.Has("bfloat") && v != 2) return absl::InvalidArgumentError("bfloat: only with v2");
    variant_ = v == 1 ? (p.Has("across") ? 1 : 0) : p.Has("bfloat") ? 5 : static_cast<int>(v);
    format_ = p.Has("nhwc") ? TensorFormat::kNhwc : TensorFormat::kNchw;
    in_place_ = p.Has("inplace");
    const size_t n = b_ * c_ * s_;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-4.0f, 6.0f);
    src_.resize(n);
    src16_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      src16_[i] = Fp32ToBf16(dist(rng));
      src_[i] = variant_ == 5 ? Bf16ToFp32(src16_[i]) : dist(rng);
    }
    scale_.resize(c_);
    shift_.resize(c_);
    for (size_t i = 0; i < c_; ++i) scale_[i] = dist(rng) * 0.3f, shift_[i] = dist(rng) * 0.1f;
    buf_.resize(c_);
    want_.resize(n);
    got_.resize(n);
    got16_.resize(n);
    switch (variant_) {
      case 0:
      case 1:
        NormalizeV1Ref(src_.data(), b_, c_, s_, scale_.data(), eps_, variant_ == 1, format_,
                       buf_.data(), want_.data());
        bounds_ = NormalizeV1Bounds(src_.data(), b_, c_, s_, scale_.data(), eps_, variant_ == 1,
                                    format_);
        break;
      case 3:
        NormalizeV3Ref(src_.data(), b_, c_, s_, scale_.data(), shift_.data(), eps_, format_,
                       buf_.data(), want_.data());
        bounds_ = NormalizeV3Bounds(src_.data(), b_, c_, s_, scale_.data(), shift_.data(), eps_,
                                    format_);
        break;
      case 4:
        NormalizeV4Ref(src_.data(), b_, c_, s_, scale_.data(), shift_.data(), eps_, format_,
                       buf_.data(), want_.data());
        bounds_ = NormalizeV4Bounds(src_.data(), b_, c_, s_, scale_.data(), shift_.data(), eps_,
                                    format_);
        break;
      default:
        NormalizeV2Ref(src_.data(), b_, c_, s_, scale_.data(), shift_.data(), eps_, format_,
                       buf_.data(), want_.data());
        bounds_ = NormalizeV2Bounds(src_.data(), b_, c_, s_, scale_.data(), shift_.data(), eps_,
                                    format_);
    }
    return absl::OkStatus();
  }

  std::vector<KernelInfo> Kernels() const override {
    switch (variant_) {
      case 0:
      case 1:
        return KernelInfos(NormalizeV1Kernels());
      case 3:
        return KernelInfos(NormalizeV3Kernels());
      case 4:
        return KernelInfos(NormalizeV4Kernels());
      case 5:
        return KernelInfos(Normalize16bV2Kernels());
      default:
        return KernelInfos(NormalizeV2Kernels());
    }
  }

  // In place, repeated runs normalize the already normalized tensor (timing
  // only; Check starts from the input).
  void Run(const std::string& kernel) override {
    const float* src = in_place_ ? got_.data() : src_.data();
    const uint16_t* src16 = in_place_ ? got16_.data() : src16_.data();
    switch (variant_) {
      case 0:
      case 1:
        NormalizeV1Kernels().Find(kernel)->fn(src, b_, c_, s_, scale_.data(), eps_, variant_ == 1,
                                              format_, buf_.data(), got_.data());
        break;
      case 5:
        Normalize16bV2Kernels().Find(kernel)->fn(src16, b_, c_, s_, scale_.data(), shift_.data(),
                                                 eps_, format_, buf_.data(), got16_.data());
        break;
      default: {
        const auto& table = variant_ == 2 ? NormalizeV2Kernels()
                            : variant_ == 3 ? NormalizeV3Kernels()
                                            : NormalizeV4Kernels();
        table.Find(kernel)->fn(src, b_, c_, s_, scale_.data(), shift_.data(), eps_, format_,
                               buf_.data(), got_.data());
      }
    }
  }

  CheckResult Check(const std::string& kernel) override {
    got_ = src_;
    got16_ = src16_;
    Run(kernel);
    CheckResult r;
    std::optional<testing::Mismatch> m;
    if (variant_ == 5) {
      std::vector<float> got(got16_.size());
      for (size_t i = 0; i < got.size(); ++i) got[i] = Bf16ToFp32(got16_[i]);
      // CheckBf16's bound: the FP32 bound plus one BF16 ULP of the result.
      std::vector<double> bounds(bounds_);
      for (size_t i = 0; i < bounds.size(); ++i) bounds[i] += testing::Bf16Ulp(want_[i]);
      r.bound_fraction = testing::BoundFraction(got, want_, bounds);
      m = CheckBf16(got16_, want_, bounds_);
    } else {
      r.bound_fraction = testing::BoundFraction(got_, want_, bounds_);
      m = CheckFp32(got_, want_, bounds_);
    }
    if (m) {
      r.ok = false;
      r.detail = m->ToString();
    }
    return r;
  }

  double Bytes() const override {
    return static_cast<double>(2 * src_.size() * (variant_ == 5 ? 2 : 4));
  }

 private:
  size_t b_ = 1, c_ = 0, s_ = 0;
  int variant_ = 2;
  TensorFormat format_ = TensorFormat::kNchw;
  bool in_place_ = false;
  float eps_ = 1e-5f;
  AlignedVector<float> src_, scale_, shift_, buf_, want_, got_;
  AlignedVector<uint16_t> src16_, got16_;
  std::vector<double> bounds_;
};

const bool kRegistered = RegisterOp(
    "normalize", [] { return std::make_unique<NormalizeDriver>(); },
    {"normalize:v2,c256,s3136,nhwc", "normalize:v2,c256,s3136,nchw",
     "normalize:v1,c256,s3136,nhwc", "normalize:v1,b2,c64,s3136,nchw,across",
     "normalize:v3,c256,s3136,nhwc", "normalize:v3,c256,s3136,nchw",
     "normalize:v4,c256,s3136,nhwc", "normalize:v4,c512,s49,nchw",
     "normalize:v2,c256,s3136,nhwc,bfloat", "normalize:v2,b2,c33,s49,nchw,bfloat,inplace"});

}  // namespace
}  // namespace synbench
}  // namespace synops
