// synbench driver for lrn: lrn:c<C>,s<S>[,half<H>][,halfmax],nchw|nhwc
// (half defaults to 2; `halfmax` is a window wider than any tensor).
#include <limits>
#include <random>
#include <vector>

#include "core/aligned.h"
#include "ops/lrn/lrn_accuracy.h"
#include "ops/lrn/lrn_kernels.h"
#include "testing/tolerance.h"
#include "tools/synbench/driver.h"

namespace synops {
namespace synbench {
namespace {

class LrnDriver : public OpDriver {
 public:
  absl::Status Setup(const Problem& p) override {
    SYNOPS_RETURN_IF_ERROR(p.OnlyUses({"c", "s", "half"}, {"nchw", "nhwc", "halfmax"}));
    SYNOPS_ASSIGN_OR_RETURN(const size_t c, p.Size("c"));
    SYNOPS_ASSIGN_OR_RETURN(const size_t s, p.Size("s"));
    channels_ = c;
    spatial_ = s;
    half_ = p.Has("halfmax") ? std::numeric_limits<size_t>::max()
                             : static_cast<size_t>(p.Get("half", 2));
    format_ = p.Has("nhwc") ? TensorFormat::kNhwc : TensorFormat::kNchw;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-30.0f, 30.0f);
    src_.resize(channels_ * spatial_);
    for (float& x : src_) x = dist(rng);
    want_.resize(src_.size());
    got_.resize(src_.size());
    lrn_internal::LrnRef(src_.data(), half_, channels_, spatial_, k_, want_.data(), format_);
    bounds_ = lrn_internal::LrnBounds(src_.data(), half_, channels_, spatial_, k_, format_);
    return absl::OkStatus();
  }

  std::vector<KernelInfo> Kernels() const override { return KernelInfos(LrnKernels()); }

  void Run(const std::string& kernel) override {
    LrnKernels().Find(kernel)->fn(src_.data(), half_, channels_, spatial_, k_, got_.data(),
                                  format_);
  }

  CheckResult Check(const std::string& kernel) override {
    Run(kernel);
    CheckResult r;
    r.bound_fraction = testing::BoundFraction(got_, want_, bounds_);
    if (auto m = lrn_internal::CheckLrn(got_, want_, bounds_)) {
      r.ok = false;
      r.detail = m->ToString();
    }
    return r;
  }

  double Bytes() const override { return static_cast<double>(2 * src_.size() * sizeof(float)); }

 private:
  size_t channels_ = 0, spatial_ = 0, half_ = 2;
  TensorFormat format_ = TensorFormat::kNchw;
  const float k_[3] = {1.0f, 2e-5f, -0.75f};
  AlignedVector<float> src_, want_, got_;
  std::vector<double> bounds_;
};

const bool kRegistered = RegisterOp(
    "lrn", [] { return std::make_unique<LrnDriver>(); },
    {"lrn:c256,s3136,half2,nchw", "lrn:c256,s3136,half2,nhwc", "lrn:c96,s3025,half2,nchw",
     "lrn:c512,s49,half2,nhwc", "lrn:c17,s33,halfmax,nchw", "lrn:c64,s100,half7,nhwc"});

}  // namespace
}  // namespace synbench
}  // namespace synops
