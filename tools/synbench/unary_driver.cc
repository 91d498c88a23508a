// synbench driver for unary: unary:<op>,n<N>   (op: abs, ceil, cos, ..., zero)
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/aligned.h"
#include "ops/unary/unary.h"
#include "ops/unary/unary_accuracy.h"
#include "ops/unary/unary_kernels.h"
#include "testing/tolerance.h"
#include "tools/synbench/driver.h"

namespace synops {
namespace synbench {
namespace {

class UnaryDriver : public OpDriver {
 public:
  absl::Status Setup(const Problem& p) override {
    std::set<std::string> names;
    for (int i = 0; i < kNumUnaryOps; ++i) names.insert(UnaryOpName(static_cast<UnaryOp>(i)));
    SYNOPS_RETURN_IF_ERROR(p.OnlyUses({"n"}, names));
    int found = 0;
    for (const std::string& name : names) {
      if (p.Has(name)) op_ = *ParseUnaryOp(name), ++found;
    }
    if (found != 1) return absl::InvalidArgumentError("unary problem needs exactly one op name");
    SYNOPS_ASSIGN_OR_RETURN(const size_t n, p.Size("n"));
    n_ = n;
    // Values where the op is defined and interesting, with a few specials.
    float lo = -10.0f, hi = 10.0f;
    if (op_ == UnaryOp::kLog || op_ == UnaryOp::kSqrt || op_ == UnaryOp::kRsqrt) lo = 1e-3f, hi = 1e3f;
    if (op_ == UnaryOp::kSin || op_ == UnaryOp::kCos) lo = -1000.0f, hi = 1000.0f;
    if (op_ == UnaryOp::kExp) lo = -87.0f, hi = 88.0f;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(lo, hi);
    src_.resize(n_);
    for (float& x : src_) x = dist(rng);
    const float specials[] = {0.0f, -0.0f, 0.5f, -2.5f, 1e-40f, HUGE_VALF};
    for (size_t i = 0; i < n_; i += 97) src_[i] = specials[(i / 97) % 6];
    ref_.resize(n_);
    got_.resize(n_);
    unary_internal::UnaryOperation32fRef(src_.data(), n_, op_, ref_.data());
    return absl::OkStatus();
  }

  std::vector<KernelInfo> Kernels() const override {
    return KernelInfos(UnaryOperation32fKernels());
  }

  void Run(const std::string& kernel) override {
    UnaryOperation32fKernels().Find(kernel)->fn(src_.data(), n_, op_, got_.data());
  }

  CheckResult Check(const std::string& kernel) override {
    Run(kernel);
    CheckResult r;
    r.bound_fraction = unary_internal::SpecFraction(op_, src_, got_, ref_);
    if (auto m = unary_internal::CheckUnary(op_, src_, got_, ref_)) {
      r.ok = false;
      r.detail = m->ToString();
    }
    return r;
  }

  double Bytes() const override { return static_cast<double>(n_) * 8; }
  double Flops() const override { return static_cast<double>(n_); }

 private:
  UnaryOp op_ = UnaryOp::kAbs;
  size_t n_ = 0;
  AlignedVector<float> src_, ref_, got_;
};

const bool kRegistered = RegisterOp(
    "unary", [] { return std::make_unique<UnaryDriver>(); },
    {"unary:abs,n1048576", "unary:round,n1048576", "unary:sqrt,n1048576", "unary:exp,n16384",
     "unary:log,n16384", "unary:sin,n16384", "unary:tanh,n16384", "unary:erf,n16384",
     "unary:rsqrt,n1048576"});

}  // namespace
}  // namespace synbench
}  // namespace synops
