// synbench driver for eltwise: eltwise:product|sum|max|min,count<K>,n<N>[,inplace]
// (`inplace`: dst is src[0]).
#include <random>
#include <vector>

#include "core/aligned.h"
#include "ops/eltwise/eltwise_check.h"
#include "ops/eltwise/eltwise_kernels.h"
#include "testing/tolerance.h"
#include "tools/synbench/driver.h"

namespace synops {
namespace synbench {
namespace {

class EltwiseDriver : public OpDriver {
 public:
  absl::Status Setup(const Problem& p) override {
    SYNOPS_RETURN_IF_ERROR(p.OnlyUses({"count", "n"}, {"product", "sum", "max", "min", "inplace"}));
    int ops = 0;
    for (EltwiseOp op : {EltwiseOp::kProduct, EltwiseOp::kSum, EltwiseOp::kMax, EltwiseOp::kMin}) {
      if (p.Has(EltwiseOpName(op))) op_ = op, ++ops;
    }
    if (ops != 1) return absl::InvalidArgumentError("eltwise needs one of product, sum, max, min");
    SYNOPS_ASSIGN_OR_RETURN(const size_t count, p.Size("count"));
    SYNOPS_ASSIGN_OR_RETURN(const size_t n, p.Size("n"));
    if (count < 2) return absl::InvalidArgumentError("eltwise needs count >= 2");
    count_ = count;
    n_ = n;
    in_place_ = p.Has("inplace");
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(0.5f, 2.0f);
    inputs_.assign(count_, AlignedVector<float>(n_));
    for (auto& v : inputs_) {
      for (float& x : v) x = dist(rng);
    }
    weight_.resize(count_);
    for (float& w : weight_) w = dist(rng) - 1.25f;
    work_ = inputs_;
    work_ptrs_ = Pointers(work_);  // work_[i] keep their storage: assignments below keep the size
    want_.resize(n_);
    eltwise_internal::EltwiseRef(Pointers(inputs_).data(), weight_.data(), count_, n_, op_,
                                 want_.data());
    got_.resize(n_);
    return absl::OkStatus();
  }

  std::vector<KernelInfo> Kernels() const override { return KernelInfos(EltwiseKernels()); }

  // In place, repeated runs keep updating src[0] (timing only; Check restores it).
  void Run(const std::string& kernel) override {
    float* dst = in_place_ ? work_[0].data() : got_.data();
    EltwiseKernels().Find(kernel)->fn(work_ptrs_.data(), weight_.data(), count_, n_, op_, dst);
  }

  CheckResult Check(const std::string& kernel) override {
    work_[0] = inputs_[0];
    Run(kernel);
    const AlignedVector<float>& got = in_place_ ? work_[0] : got_;
    CheckResult r;
    r.bound_fraction = eltwise_check::BoundFraction(op_, got, want_);
    const std::optional<testing::Mismatch> m = eltwise_check::Check(op_, got, want_);
    if (m) {
      r.ok = false;
      r.detail = m->ToString();
    }
    work_[0] = inputs_[0];
    return r;
  }

  double Bytes() const override { return static_cast<double>((count_ + 1) * n_ * sizeof(float)); }
  double Flops() const override {
    return static_cast<double>(n_ * (op_ == EltwiseOp::kSum ? 2 * count_ - 1 : count_ - 1));
  }

 private:
  static std::vector<const float*> Pointers(const std::vector<AlignedVector<float>>& v) {
    std::vector<const float*> p;
    for (const auto& x : v) p.push_back(x.data());
    return p;
  }

  EltwiseOp op_ = EltwiseOp::kSum;
  size_t count_ = 0, n_ = 0;
  bool in_place_ = false;
  std::vector<AlignedVector<float>> inputs_, work_;
  std::vector<const float*> work_ptrs_;
  AlignedVector<float> weight_, want_, got_;
};

const bool kRegistered = RegisterOp(
    "eltwise", [] { return std::make_unique<EltwiseDriver>(); },
    {"eltwise:sum,count2,n1048576", "eltwise:product,count3,n100000", "eltwise:max,count2,n4099",
     "eltwise:min,count9,n65536,inplace", "eltwise:sum,count6,n802816"});

}  // namespace
}  // namespace synbench
}  // namespace synops
