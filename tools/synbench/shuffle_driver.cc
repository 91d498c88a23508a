// synbench driver for shuffle: shuffle:split|interleave,ca<channels0>,cb<channels1>,s<spatial>,nchw|nhwc
// (split = type 0, interleave = type 1).
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/aligned.h"
#include "ops/shuffle/shuffle_kernels.h"
#include "testing/tolerance.h"
#include "tools/synbench/driver.h"

namespace synops {
namespace synbench {
namespace {

class ShuffleDriver : public OpDriver {
 public:
  absl::Status Setup(const Problem& p) override {
    SYNOPS_RETURN_IF_ERROR(p.OnlyUses({"ca", "cb", "s"}, {"split", "interleave", "nchw", "nhwc"}));
    if (p.Has("split") == p.Has("interleave")) {
      return absl::InvalidArgumentError("shuffle needs one of split, interleave");
    }
    SYNOPS_ASSIGN_OR_RETURN(const size_t ca, p.Size("ca"));
    SYNOPS_ASSIGN_OR_RETURN(const size_t cb, p.Size("cb"));
    SYNOPS_ASSIGN_OR_RETURN(const size_t s, p.Size("s"));
    if (ca % 2 != 0 || cb % 2 != 0) {
      return absl::InvalidArgumentError("shuffle needs even ca and cb");
    }
    c0_ = ca, c1_ = cb, spatial_ = s;
    type_ = p.Has("split") ? 0 : 1;
    format_ = p.Has("nhwc") ? TensorFormat::kNhwc : TensorFormat::kNchw;
    const size_t half = (c0_ + c1_) / 2;
    src0_.resize((type_ == 0 ? c0_ : half) * spatial_);
    src1_.resize((type_ == 0 ? c1_ : half) * spatial_);
    std::mt19937 rng(1);
    for (auto* v : {&src0_, &src1_}) {
      for (float& x : *v) {
        const uint32_t bits = rng();
        std::memcpy(&x, &bits, sizeof(x));
      }
    }
    want0_.resize((type_ == 0 ? half : c0_) * spatial_);
    want1_.resize((type_ == 0 ? half : c1_) * spatial_);
    shuffle_internal::ShuffleRef(src0_.data(), src1_.data(), c0_, c1_, spatial_, want0_.data(),
                                 want1_.data(), format_, type_);
    got0_.resize(want0_.size());
    got1_.resize(want1_.size());
    return absl::OkStatus();
  }

  std::vector<KernelInfo> Kernels() const override { return KernelInfos(ShuffleKernels()); }

  void Run(const std::string& kernel) override {
    if (spatial_ == 0 || c0_ + c1_ == 0) return;  // kernels get non-empty problems only
    ShuffleKernels().Find(kernel)->fn(src0_.data(), src1_.data(), c0_, c1_, spatial_,
                                      got0_.data(), got1_.data(), format_, type_);
  }

  CheckResult Check(const std::string& kernel) override {
    Run(kernel);
    CheckResult r;
    auto m = testing::CompareBitExact(got0_, want0_);
    if (!m) m = testing::CompareBitExact(got1_, want1_);
    if (m) {
      r.ok = false;
      r.bound_fraction = HUGE_VAL;  // bit-exact contract
      r.detail = m->ToString();
    }
    return r;
  }

  double Bytes() const override {
    return static_cast<double>((src0_.size() + src1_.size() + want0_.size() + want1_.size()) *
                               sizeof(float));
  }

 private:
  size_t c0_ = 0, c1_ = 0, spatial_ = 0;
  int type_ = 0;
  TensorFormat format_ = TensorFormat::kNchw;
  AlignedVector<float> src0_, src1_, want0_, want1_, got0_, got1_;
};

const bool kRegistered = RegisterOp(
    "shuffle", [] { return std::make_unique<ShuffleDriver>(); },
    {"shuffle:split,ca116,cb116,s784,nhwc", "shuffle:interleave,ca116,cb116,s784,nhwc",
     "shuffle:split,ca58,cb58,s3136,nchw", "shuffle:interleave,ca232,cb232,s196,nchw",
     "shuffle:split,ca6,cb10,s1000,nhwc", "shuffle:interleave,ca256,cb256,s16384,nhwc"});

}  // namespace
}  // namespace synbench
}  // namespace synops
