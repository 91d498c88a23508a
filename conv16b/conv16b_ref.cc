// ref::direct — the plain loops of SPEC.md §4, the oracle for every other
// algorithm. Products of BF16 values are exact in FP32 and are accumulated in
// the seed's order (input channel, then ky, then kx), then bias, activation.
#include <vector>

#include "bf16/bf16.h"
#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_pack.h"

namespace synops {
namespace conv16b_internal {
namespace {

class RefDirect : public Algorithm {
 public:
  using Algorithm::Algorithm;

  // One image of the source as BF16-rounded FP32, in the source's layout
  // (64-byte aligned).
  size_t ExternalBufferSize() const override {
    const ConvParams& p = geo_.p;
    return 64 + p.srcC * p.srcH * p.srcW * sizeof(float);
  }
  size_t WeightBytes() const override { return weight_.size() * sizeof(float); }

  // weight_[((oc * icg + ic) * kernelY + ky) * kernelX + kx], rounded to BF16.
  void SetWeights(const float* weight) override {
    const ConvParams& p = geo_.p;
    weight_.resize(geo_.weight_count);
    size_t i = 0;
    for (size_t oc = 0; oc < p.dstC; ++oc)
      for (size_t ic = 0; ic < geo_.icg; ++ic)
        for (size_t ky = 0; ky < p.kernelY; ++ky)
          for (size_t kx = 0; kx < p.kernelX; ++kx)
            weight_[i++] = Bf16ToFp32(Fp32ToBf16(WeightAt(weight, geo_, oc, ic, ky, kx)));
  }

  void Forward(const uint8_t* src, uint8_t* buf, uint8_t* dst,
               const Epilogue& e) const override {
    const ConvParams& p = geo_.p;
    const bool nhwc = p.srcF == TensorFormat::kNhwc;
    const size_t image = p.srcC * p.srcH * p.srcW;
    float* s = reinterpret_cast<float*>(Align64(buf));
    // The kernel taps [begin, end) whose source coordinate is inside [0, size).
    auto taps = [](size_t o, size_t stride, size_t dilation, size_t pad, size_t kernel,
                   size_t size, size_t* begin, size_t* end) {
      size_t k = 0;
      while (k < kernel && o * stride + k * dilation < pad) ++k;
      *begin = k;
      while (k < kernel && o * stride + k * dilation - pad < size) ++k;
      *end = k;
    };
    for (size_t n = 0; n < geo_.batch; ++n) {
      for (size_t i = 0; i < image; ++i) {
        s[i] = p.srcT == DataType::k16b
                   ? Bf16ToFp32(reinterpret_cast<const uint16_t*>(src)[n * image + i])
                   : Bf16ToFp32(Fp32ToBf16(reinterpret_cast<const float*>(src)[n * image + i]));
      }
      auto read = [&](size_t c, size_t y, size_t x) {
        return s[nhwc ? (y * p.srcW + x) * p.srcC + c : (c * p.srcH + y) * p.srcW + x];
      };
      for (size_t oy = 0; oy < p.dstH; ++oy) {
        size_t ky0, ky1;
        taps(oy, p.strideY, p.dilationY, p.padY, p.kernelY, p.srcH, &ky0, &ky1);
        for (size_t ox = 0; ox < p.dstW; ++ox) {
          size_t kx0, kx1;
          taps(ox, p.strideX, p.dilationX, p.padX, p.kernelX, p.srcW, &kx0, &kx1);
          for (size_t oc = 0; oc < p.dstC; ++oc) {
            const size_t g = oc / geo_.ocg;
            float sum = 0.0f;
            for (size_t ic = 0; ic < geo_.icg; ++ic) {
              const float* w = &weight_[(oc * geo_.icg + ic) * p.kernelY * p.kernelX];
              for (size_t ky = ky0; ky < ky1; ++ky) {
                const size_t iy = oy * p.strideY + ky * p.dilationY - p.padY;
                for (size_t kx = kx0; kx < kx1; ++kx) {
                  const size_t ix = ox * p.strideX + kx * p.dilationX - p.padX;
                  sum += read(g * geo_.icg + ic, iy, ix) * w[ky * p.kernelX + kx];
                }
              }
            }
            StoreOutput(geo_, e, &sum, 1, n, oy, ox, 1, oc, 1, dst);
          }
        }
      }
    }
  }

 private:
  std::vector<float> weight_;
};

bool SupportsAll(const Geometry&) { return true; }
std::unique_ptr<Algorithm> MakeRef(const Geometry& g) { return std::make_unique<RefDirect>(g); }

}  // namespace

AlgorithmSpec RefAlgorithm() { return {"ref::direct", Isa::kRef, SupportsAll, MakeRef}; }

}  // namespace conv16b_internal
}  // namespace synops
