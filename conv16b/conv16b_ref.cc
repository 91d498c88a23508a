// ref::direct — the plain loops of SPEC.md §4, the oracle for every other
// algorithm. Products of BF16 values are exact in FP32 and are accumulated in
// the seed's order (input channel, then ky, then kx), then bias, activation.
#include <vector>

#include "bf16/bf16.h"
#include "conv16b/conv16b_internal.h"

namespace synops {
namespace conv16b_internal {
namespace {

class RefDirect : public Algorithm {
 public:
  using Algorithm::Algorithm;

  size_t ExternalBufferSize() const override { return 0; }
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
    const bool src16 = p.srcT == DataType::k16b;
    auto read = [&](size_t n, size_t c, size_t y, size_t x) -> float {
      const size_t i = nhwc ? ((n * p.srcH + y) * p.srcW + x) * p.srcC + c
                            : ((n * p.srcC + c) * p.srcH + y) * p.srcW + x;
      if (src16) return Bf16ToFp32(reinterpret_cast<const uint16_t*>(src)[i]);
      return Bf16ToFp32(Fp32ToBf16(reinterpret_cast<const float*>(src)[i]));
    };
    for (size_t n = 0; n < geo_.batch; ++n) {
      for (size_t oy = 0; oy < p.dstH; ++oy) {
        for (size_t ox = 0; ox < p.dstW; ++ox) {
          for (size_t oc = 0; oc < p.dstC; ++oc) {
            const size_t g = oc / geo_.ocg;
            float sum = 0.0f;
            for (size_t ic = 0; ic < geo_.icg; ++ic) {
              for (size_t ky = 0; ky < p.kernelY; ++ky) {
                // Unsigned wrap-around makes padding positions fail the bound test.
                const size_t iy = oy * p.strideY + ky * p.dilationY - p.padY;
                if (iy >= p.srcH) continue;
                for (size_t kx = 0; kx < p.kernelX; ++kx) {
                  const size_t ix = ox * p.strideX + kx * p.dilationX - p.padX;
                  if (ix >= p.srcW) continue;
                  const float w =
                      weight_[((oc * geo_.icg + ic) * p.kernelY + ky) * p.kernelX + kx];
                  sum += read(n, g * geo_.icg + ic, iy, ix) * w;
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
