// synbench driver for channel_sum: channel_sum:c<C>,s<S>,nchw|nhwc
#include <cmath>
#include <random>
#include <vector>

#include "bf16/bf16.h"
#include "core/aligned.h"
#include "ops/channel_sum/channel_sum_check.h"
#include "ops/channel_sum/channel_sum_kernels.h"
#include "testing/tolerance.h"
#include "tools/synbench/driver.h"

namespace synops {
namespace synbench {
namespace {

class ChannelSumDriver : public OpDriver {
 public:
  absl::Status Setup(const Problem& p) override {
    SYNOPS_RETURN_IF_ERROR(p.OnlyUses({"c", "s"}, {"nchw", "nhwc"}));
    SYNOPS_ASSIGN_OR_RETURN(const size_t c, p.Size("c"));
    SYNOPS_ASSIGN_OR_RETURN(const size_t s, p.Size("s"));
    channels_ = c;
    spatial_ = s;
    format_ = p.Has("nhwc") ? TensorFormat::kNhwc : TensorFormat::kNchw;
    src_.resize(channels_ * spatial_);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
    for (uint16_t& v : src_) v = Fp32ToBf16(dist(rng));
    want_.resize(channels_);
    got_.resize(channels_);
    channel_sum_internal::ChannelSum16bRef(src_.data(), channels_, spatial_, format_, want_.data());
    bound_ = channel_sum_check::Bounds(src_.data(), channels_, spatial_, format_);
    return absl::OkStatus();
  }

  std::vector<KernelInfo> Kernels() const override { return KernelInfos(ChannelSum16bKernels()); }

  void Run(const std::string& kernel) override {
    ChannelSum16bKernels().Find(kernel)->fn(src_.data(), channels_, spatial_, format_, got_.data());
  }

  CheckResult Check(const std::string& kernel) override {
    Run(kernel);
    CheckResult r;
    r.bound_fraction = testing::BoundFraction(got_, want_, bound_);
    if (auto m = testing::CompareWithin(got_, want_, bound_)) {
      r.ok = false;
      r.detail = m->ToString();
    }
    return r;
  }

  double Bytes() const override { return static_cast<double>(src_.size() * 2 + channels_ * 4); }
  double Flops() const override { return static_cast<double>(src_.size()); }

 private:
  size_t channels_ = 0, spatial_ = 0;
  TensorFormat format_ = TensorFormat::kNchw;
  AlignedVector<uint16_t> src_;
  AlignedVector<float> want_, got_;
  std::vector<double> bound_;
};

const bool kRegistered = RegisterOp(
    "channel_sum", [] { return std::make_unique<ChannelSumDriver>(); },
    {"channel_sum:c256,s3136,nchw", "channel_sum:c256,s3136,nhwc", "channel_sum:c3,s50176,nhwc",
     "channel_sum:c1000,s49,nchw"});

}  // namespace
}  // namespace synbench
}  // namespace synops
