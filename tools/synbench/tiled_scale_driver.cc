// synbench driver for tiled_scale: tiled_scale:c<C>,h<H>,w<W>,nchw|nhwc[,inplace]
// (`inplace`: dst is src).
#include <cmath>
#include <random>
#include <vector>

#include "core/aligned.h"
#include "ops/tiled_scale/tiled_scale_kernels.h"
#include "testing/tolerance.h"
#include "tools/synbench/driver.h"

namespace synops {
namespace synbench {
namespace {

class TiledScaleDriver : public OpDriver {
 public:
  absl::Status Setup(const Problem& p) override {
    SYNOPS_RETURN_IF_ERROR(p.OnlyUses({"c", "h", "w"}, {"nchw", "nhwc", "inplace"}));
    SYNOPS_ASSIGN_OR_RETURN(const size_t c, p.Size("c"));
    SYNOPS_ASSIGN_OR_RETURN(const size_t h, p.Size("h"));
    SYNOPS_ASSIGN_OR_RETURN(const size_t w, p.Size("w"));
    c_ = c, h_ = h, w_ = w;
    format_ = p.Has("nhwc") ? TensorFormat::kNhwc : TensorFormat::kNchw;
    in_place_ = p.Has("inplace");
    std::mt19937 rng(1);
    // Factors near 1 keep repeated in-place runs finite and normal.
    std::uniform_real_distribution<float> dist(0.999f, 1.001f);
    src_.resize(c_ * h_ * w_);
    for (float& x : src_) x = dist(rng) * 3.0f;
    ver_.resize(c_ * w_);
    for (float& x : ver_) x = dist(rng);
    hor_.resize(c_ * h_);
    for (float& x : hor_) x = dist(rng);
    want_.resize(src_.size());
    tiled_scale_internal::TiledScale2D32fRef(src_.data(), c_, h_, w_, format_, ver_.data(),
                                             hor_.data(), want_.data());
    work_ = src_;
    got_.resize(src_.size());
    return absl::OkStatus();
  }

  std::vector<KernelInfo> Kernels() const override {
    return KernelInfos(TiledScale2D32fKernels());
  }

  // In place, repeated runs keep scaling the same tensor (timing only; Check
  // restores it).
  void Run(const std::string& kernel) override {
    const float* src = in_place_ ? work_.data() : src_.data();
    float* dst = in_place_ ? work_.data() : got_.data();
    TiledScale2D32fKernels().Find(kernel)->fn(src, c_, h_, w_, format_, ver_.data(), hor_.data(),
                                              dst);
  }

  CheckResult Check(const std::string& kernel) override {
    work_ = src_;
    Run(kernel);
    const AlignedVector<float>& got = in_place_ ? work_ : got_;
    CheckResult r;
    if (auto m = testing::CompareBitExactOrNan(got, want_)) {
      r.ok = false;
      r.bound_fraction = HUGE_VAL;  // bit-exact contract
      r.detail = m->ToString();
    }
    work_ = src_;
    return r;
  }

  double Bytes() const override {
    return static_cast<double>((2 * src_.size() + ver_.size() + hor_.size()) * sizeof(float));
  }
  double Flops() const override { return static_cast<double>(2 * src_.size()); }

 private:
  size_t c_ = 0, h_ = 0, w_ = 0;
  TensorFormat format_ = TensorFormat::kNchw;
  bool in_place_ = false;
  AlignedVector<float> src_, ver_, hor_, want_, work_, got_;
};

const bool kRegistered = RegisterOp(
    "tiled_scale", [] { return std::make_unique<TiledScaleDriver>(); },
    {"tiled_scale:c64,h56,w56,nchw", "tiled_scale:c64,h56,w56,nhwc",
     "tiled_scale:c512,h7,w7,nchw", "tiled_scale:c3,h224,w224,nhwc,inplace",
     "tiled_scale:c1025,h5,w9,nhwc", "tiled_scale:c256,h128,w128,nchw,inplace"});

}  // namespace
}  // namespace synbench
}  // namespace synops
