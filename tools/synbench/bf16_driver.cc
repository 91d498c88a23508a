// synbench driver for the bf16 package.
//   bf16:fp32_to_bf16,n<N>          bf16:bf16_to_fp32,n<N>
//   bf16:transpose1xw,h<H>,w<W>,e<E>[,chunk<C>]     bf16:pack_pairs,k<K>,n<N>,chunk<C>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bf16/bf16.h"
#include "bf16/bf16_kernels.h"
#include "core/aligned.h"
#include "testing/tolerance.h"
#include "tools/synbench/driver.h"

namespace synops {
namespace synbench {
namespace {

enum class Mode { kToBf16, kToFp32, kTranspose, kPairs };

class Bf16Driver : public OpDriver {
 public:
  absl::Status Setup(const Problem& p) override {
    SYNOPS_RETURN_IF_ERROR(
        p.OnlyUses({"n", "h", "w", "e", "k", "chunk"},
                   {"fp32_to_bf16", "bf16_to_fp32", "transpose1xw", "pack_pairs"}));
    std::mt19937 rng(1);
    if (p.Has("fp32_to_bf16") || p.Has("bf16_to_fp32")) {
      mode_ = p.Has("fp32_to_bf16") ? Mode::kToBf16 : Mode::kToFp32;
      SYNOPS_ASSIGN_OR_RETURN(const size_t n, p.Size("n"));
      n_ = n;
      f32_.resize(n_);
      std::uniform_real_distribution<float> dist(-1e3f, 1e3f);
      for (float& x : f32_) x = dist(rng);
      h16_.resize(n_);
      bf16_internal::Fp32ToBf16Ref(f32_.data(), n_, h16_.data());
      out16_.resize(n_);
      out32_.resize(n_);
      return absl::OkStatus();
    }
    if (p.Has("transpose1xw")) {
      mode_ = Mode::kTranspose;
      SYNOPS_ASSIGN_OR_RETURN(const size_t h, p.Size("h"));
      SYNOPS_ASSIGN_OR_RETURN(const size_t w, p.Size("w"));
      SYNOPS_ASSIGN_OR_RETURN(const size_t e, p.Size("e"));
      height_ = h, width_ = w, elem_ = e;
      if (elem_ != 1 && elem_ != 2 && elem_ != 4) return absl::InvalidArgumentError("e must be 1, 2 or 4");
      chunk_ = static_cast<size_t>(p.Get("chunk", static_cast<int64_t>(16 / elem_)));
      if (chunk_ == 0) return absl::InvalidArgumentError("chunk must be >= 1");
      bytes_in_.resize(height_ * width_ * elem_);
      for (uint8_t& b : bytes_in_) b = static_cast<uint8_t>(rng());
      bytes_want_.resize(Transpose1xWSize(height_, width_, elem_, chunk_));
      bytes_out_.resize(bytes_want_.size());
      bf16_internal::Transpose1xWRef(bytes_in_.data(), height_, width_, elem_, chunk_, bytes_want_.data());
      return absl::OkStatus();
    }
    if (p.Has("pack_pairs")) {
      mode_ = Mode::kPairs;
      SYNOPS_ASSIGN_OR_RETURN(const size_t k, p.Size("k"));
      SYNOPS_ASSIGN_OR_RETURN(const size_t n, p.Size("n"));
      SYNOPS_ASSIGN_OR_RETURN(const size_t c, p.Size("chunk"));
      height_ = k, width_ = n, chunk_ = c;
      if (chunk_ == 0) return absl::InvalidArgumentError("chunk must be >= 1");
      h16_.resize(height_ * width_);
      for (uint16_t& v : h16_) v = static_cast<uint16_t>(rng());
      want16_.resize(PackPairInterleavedSize(height_, width_, chunk_));
      out16_.resize(want16_.size());
      bf16_internal::PackPairInterleavedRef(h16_.data(), height_, width_, chunk_, want16_.data());
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        "bf16 problem needs one of fp32_to_bf16, bf16_to_fp32, transpose1xw, pack_pairs");
  }

  std::vector<KernelInfo> Kernels() const override {
    switch (mode_) {
      case Mode::kToBf16:
        return KernelInfos(Fp32ToBf16Kernels());
      case Mode::kToFp32:
        return KernelInfos(Bf16ToFp32Kernels());
      case Mode::kTranspose:
        return KernelInfos(Transpose1xWKernels());
      case Mode::kPairs:
        return KernelInfos(PackPairInterleavedKernels());
    }
    return {};
  }

  void Run(const std::string& kernel) override {
    switch (mode_) {
      case Mode::kToBf16:
        Fp32ToBf16Kernels().Find(kernel)->fn(f32_.data(), n_, out16_.data());
        break;
      case Mode::kToFp32:
        Bf16ToFp32Kernels().Find(kernel)->fn(h16_.data(), n_, out32_.data());
        break;
      case Mode::kTranspose:
        Transpose1xWKernels().Find(kernel)->fn(bytes_in_.data(), height_, width_, elem_, chunk_,
                                               bytes_out_.data());
        break;
      case Mode::kPairs:
        PackPairInterleavedKernels().Find(kernel)->fn(h16_.data(), height_, width_, chunk_,
                                                      out16_.data());
        break;
    }
  }

  CheckResult Check(const std::string& kernel) override {
    Run(kernel);
    CheckResult r;
    std::optional<testing::Mismatch> m;
    switch (mode_) {
      case Mode::kToBf16:
        m = testing::CompareBitExact(out16_, h16_);
        break;
      case Mode::kToFp32: {
        std::vector<float> want(n_);
        bf16_internal::Bf16ToFp32Ref(h16_.data(), n_, want.data());
        m = testing::CompareBitExact(out32_, want);
        break;
      }
      case Mode::kTranspose:
        if (bytes_out_ != bytes_want_) m = testing::Mismatch{};
        break;
      case Mode::kPairs:
        m = testing::CompareBitExact(out16_, want16_);
        break;
    }
    if (m) {
      r.ok = false;
      r.bound_fraction = HUGE_VAL;  // bit-exact contract
      r.detail = "not bit-exact: " + m->ToString();
    }
    return r;
  }

  double Bytes() const override {
    switch (mode_) {
      case Mode::kToBf16:
      case Mode::kToFp32:
        return static_cast<double>(n_) * 6;
      case Mode::kTranspose:
        return static_cast<double>(bytes_in_.size() + bytes_out_.size());
      case Mode::kPairs:
        return 2.0 * static_cast<double>(h16_.size() + out16_.size());
    }
    return 0;
  }

 private:
  Mode mode_ = Mode::kToBf16;
  size_t n_ = 0, height_ = 0, width_ = 0, elem_ = 0, chunk_ = 0;
  AlignedVector<float> f32_, out32_;
  AlignedVector<uint16_t> h16_, out16_, want16_;
  AlignedVector<uint8_t> bytes_in_, bytes_out_, bytes_want_;
};

const bool kRegistered = RegisterOp(
    "bf16", [] { return std::make_unique<Bf16Driver>(); },
    {"bf16:fp32_to_bf16,n1048576", "bf16:bf16_to_fp32,n1048576",
     "bf16:transpose1xw,h1152,w256,e2", "bf16:pack_pairs,k1152,n256,chunk16"});

}  // namespace
}  // namespace synbench
}  // namespace synops
