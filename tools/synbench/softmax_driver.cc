// synbench driver for softmax: softmax:outer<O>,count<C>,inner<I>[,bf16]
// (bf16: Softmax16b, else Softmax32f).
#include <random>
#include <vector>

#include "bf16/bf16.h"
#include "core/aligned.h"
#include "ops/softmax/softmax_check.h"
#include "ops/softmax/softmax_kernels.h"
#include "testing/tolerance.h"
#include "tools/synbench/driver.h"

namespace synops {
namespace synbench {
namespace {

class SoftmaxDriver : public OpDriver {
 public:
  absl::Status Setup(const Problem& p) override {
    // The word "bf16" parses as the pair bf=16.
    SYNOPS_RETURN_IF_ERROR(p.OnlyUses({"outer", "count", "inner", "bf"}, {"bf16"}));
    if (p.HasValue("bf") && p.Get("bf", 0) != 16) {
      return absl::InvalidArgumentError("softmax: the only data-type word is bf16");
    }
    SYNOPS_ASSIGN_OR_RETURN(const size_t o, p.Size("outer"));
    SYNOPS_ASSIGN_OR_RETURN(const size_t c, p.Size("count"));
    SYNOPS_ASSIGN_OR_RETURN(const size_t i, p.Size("inner"));
    outer_ = o;
    count_ = c;
    inner_ = i;
    bf16_ = p.Has("bf16") || p.HasValue("bf");
    const size_t n = outer_ * count_ * inner_;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
    src_.resize(n);
    for (float& v : src_) v = dist(rng);
    if (bf16_) {
      src16_.resize(n);
      for (size_t j = 0; j < n; ++j) {
        src16_[j] = Fp32ToBf16(src_[j]);
        src_[j] = Bf16ToFp32(src16_[j]);
      }
      got16_.resize(n);
    }
    want_.resize(n);
    got_.resize(n);
    if (n != 0) softmax_internal::Softmax32fRef(src_.data(), outer_, count_, inner_, want_.data());
    bound_ = softmax_check::Bounds(want_, count_);
    return absl::OkStatus();
  }

  std::vector<KernelInfo> Kernels() const override {
    return bf16_ ? KernelInfos(Softmax16bKernels()) : KernelInfos(Softmax32fKernels());
  }

  void Run(const std::string& kernel) override {
    if (want_.empty()) return;
    if (bf16_) {
      Softmax16bKernels().Find(kernel)->fn(src16_.data(), outer_, count_, inner_, got16_.data());
    } else {
      Softmax32fKernels().Find(kernel)->fn(src_.data(), outer_, count_, inner_, got_.data());
    }
  }

  CheckResult Check(const std::string& kernel) override {
    Run(kernel);
    CheckResult r;
    if (bf16_) {
      r.bound_fraction = testing::Bf16UlpFraction(got16_, want_);
      if (auto m = testing::CompareWithinOneBf16Ulp(got16_, want_)) {
        r.ok = false;
        r.detail = m->ToString();
      }
      return r;
    }
    r.bound_fraction = testing::BoundFraction(got_, want_, bound_);
    if (auto m = testing::CompareWithin(got_, want_, bound_)) {
      r.ok = false;
      r.detail = m->ToString();
    }
    return r;
  }

  double Bytes() const override {
    return static_cast<double>(2 * want_.size() * (bf16_ ? 2 : 4));
  }

 private:
  size_t outer_ = 0, count_ = 0, inner_ = 0;
  bool bf16_ = false;
  AlignedVector<float> src_, want_, got_;
  AlignedVector<uint16_t> src16_, got16_;
  std::vector<double> bound_;
};

const bool kRegistered = RegisterOp(
    "softmax", [] { return std::make_unique<SoftmaxDriver>(); },
    {"softmax:outer1000,count1000,inner1", "softmax:outer392,count49,inner1",
     "softmax:outer21825,count2,inner1", "softmax:outer13666,count3,inner1",
     "softmax:outer50,count10,inner100", "softmax:outer1000,count1000,inner1,bf16"});

}  // namespace
}  // namespace synbench
}  // namespace synops
