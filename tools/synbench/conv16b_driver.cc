// synbench driver for conv16b, e.g.
//   conv16b:mb1,ic64,ih56,iw56,oc64,k3,p1,nhwc,bf16bf16,relu
// Keys: mb (batch, 1), ic ih iw oc (required), k or kh/kw (kernel, 1),
// s or sh/sw (stride, 1), d or dh/dw (dilation, 1), p or pt/pl/pb/pr (padding
// top/left/bottom/right, 0), g (group, 1); pairs may be glued (ic64ih56iw56).
// Words: nchw|nhwc (nchw), the types srcdst as f32f32|f32bf16|bf16f32|bf16bf16
// (f32f32), an activation name (identity) — activations with params get the
// conv16b_check defaults. Kernels are the conv16b algorithms supporting the
// geometry; Check compares with the double-precision oracle at the SPEC bound.
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "conv16b/conv16b.h"
#include "conv16b/conv16b_check.h"
#include "conv16b/conv16b_internal.h"
#include "core/aligned.h"
#include "tools/synbench/driver.h"

namespace synops {
namespace synbench {
namespace {

class Conv16bDriver : public OpDriver {
 public:
  absl::Status Setup(const Problem& problem) override {
    std::set<std::string> flags = {"nchw", "nhwc", "f32f32", "f32bf16", "bf16f32", "bf16bf16"};
    for (int a = 0; a < kActivationCount; ++a) flags.insert(ActivationName(static_cast<Activation>(a)));
    // The type words also parse as pairs (bf16 -> bf=16, f32 -> f=32).
    SYNOPS_RETURN_IF_ERROR(
        problem.OnlyUses({"mb", "ic", "ih", "iw", "oc", "k",  "kh", "kw", "s", "sh", "sw",
                          "d",  "dh", "dw", "p",  "pt", "pl", "pb", "pr", "g", "bf", "f"},
                         flags));
    ConvParams& p = pr_.p;
    for (auto [key, field] : std::vector<std::pair<const char*, size_t*>>{
             {"ic", &p.srcC}, {"ih", &p.srcH}, {"iw", &p.srcW}, {"oc", &p.dstC}}) {
      SYNOPS_ASSIGN_OR_RETURN(*field, problem.Size(key));
    }
    auto get = [&](const char* key, int64_t fallback) -> size_t {
      const int64_t v = problem.Get(key, fallback);
      return v < 0 ? 0 : static_cast<size_t>(v);
    };
    pr_.batch = get("mb", 1);
    p.kernelY = get("kh", get("k", 1));
    p.kernelX = get("kw", get("k", 1));
    p.strideY = get("sh", get("s", 1));
    p.strideX = get("sw", get("s", 1));
    p.dilationY = get("dh", get("d", 1));
    p.dilationX = get("dw", get("d", 1));
    p.padY = get("pt", get("p", 0));
    p.padX = get("pl", get("p", 0));
    p.padH = get("pb", get("p", 0));
    p.padW = get("pr", get("p", 0));
    p.group = get("g", 1);
    p.srcF = p.dstF = problem.Has("nhwc") ? TensorFormat::kNhwc : TensorFormat::kNchw;
    p.srcT = p.dstT = DataType::k32f;
    const std::string& text = problem.text();
    for (absl::string_view token : absl::StrSplit(text.substr(text.find(':') + 1), ',')) {
      if (token == "bf16bf16" || token == "bf16f32") p.srcT = DataType::k16b;
      if (token == "bf16bf16" || token == "f32bf16") p.dstT = DataType::k16b;
    }
    p.activation = Activation::kIdentity;
    for (int a = 0; a < kActivationCount; ++a) {
      if (problem.Has(ActivationName(static_cast<Activation>(a)))) p.activation = static_cast<Activation>(a);
    }
    conv16b_check::SetOutputSize(&p);
    SYNOPS_ASSIGN_OR_RETURN(const conv16b_internal::Geometry geometry,
                            conv16b_internal::Validate(pr_.batch, p));
    std::mt19937 rng(1);
    conv16b_check::FillRandom(&pr_, false, &rng);
    for (const auto& spec : conv16b_internal::Algorithms()) {
      if (!spec.supports(geometry)) continue;
      kernels_.push_back({spec.name, spec.isa, spec.test_only});
      if (!CpuSupports(spec.isa)) continue;
      SYNOPS_ASSIGN_OR_RETURN(std::unique_ptr<Convolution16b> conv,
                              conv16b_internal::CreateWithAlgorithm(pr_.batch, p, 0, spec.name));
      SYNOPS_RETURN_IF_ERROR(conv->SetParams(pr_.weight.data(), pr_.bias.data(),
                                             pr_.params.empty() ? nullptr : pr_.params.data()));
      convs_[spec.name] = std::move(conv);
    }
    // 64-byte aligned, as conv16b_bench's (conv16b_check::Run's, misalign 0).
    src_.assign(pr_.src.begin(), pr_.src.end());
    dst_.resize(geometry.dst_bytes);
    macs_ = conv16b_check::Macs(pr_);
    bytes_ =
        static_cast<double>(geometry.src_bytes + geometry.dst_bytes + geometry.weight_count * 2);
    return absl::OkStatus();
  }

  std::vector<KernelInfo> Kernels() const override { return kernels_; }

  void Run(const std::string& kernel) override {
    Convolution16b& conv = *convs_.at(kernel);
    buf_.resize(conv.ExternalBufferSize());
    (void)conv.Forward(src_.data(), buf_.data(), dst_.data());
  }

  CheckResult Check(const std::string& kernel) override {
    CheckResult r;
    auto got = conv16b_check::Run(pr_, kernel);
    if (!got.ok()) {
      r.ok = false;
      r.detail = std::string(got.status().message());
      return r;
    }
    if (oracle_.want.empty()) oracle_ = conv16b_check::ComputeOracle(pr_);
    for (size_t i = 0; i < got->size(); ++i) {
      const double err = std::fabs((*got)[i] - oracle_.want[i]);
      if (err > 0) r.bound_fraction = std::fmax(r.bound_fraction, err / oracle_.bound[i]);
    }
    if (auto m = conv16b_check::CompareToOracle(*got, oracle_)) {
      r.ok = false;
      r.detail = m->ToString();
    }
    return r;
  }

  double Bytes() const override { return bytes_; }
  double Flops() const override { return 2 * macs_; }

 private:
  conv16b_check::Problem pr_;
  conv16b_check::Oracle oracle_;
  std::vector<KernelInfo> kernels_;
  std::map<std::string, std::unique_ptr<Convolution16b>> convs_;
  AlignedVector<uint8_t> src_, dst_;
  std::vector<uint8_t> buf_;
  double macs_ = 0, bytes_ = 0;
};

const bool kRegistered = RegisterOp(
    "conv16b", [] { return std::make_unique<Conv16bDriver>(); },
    {"conv16b:mb1,ic64,ih28,iw28,oc64,k3,p1,nhwc,bf16bf16,relu",
     "conv16b:mb1,ic256,ih14,iw14,oc64,k1,nhwc,f32f32,identity",
     "conv16b:mb1,ic32,ih56,iw56,oc32,g32,k3,p1,nhwc,bf16bf16,relu",
     "conv16b:mb1,ic3,ih112,iw112,oc32,k3,s2,p1,nchw,f32bf16,hswish",
     "conv16b:mb2,ic24ih17iw19,oc40,k5,p2,nchw,bf16f32,gelu"});

}  // namespace
}  // namespace synbench
}  // namespace synops
