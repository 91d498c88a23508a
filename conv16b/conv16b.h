// BF16 convolution (SPEC.md §4; the Simd Library's SimdSynetConvolution16b*).
//
// FP32 or BF16 source and destination, NCHW or NHWC, any kernel, stride,
// dilation, asymmetric padding and group count. Sources and weights are
// rounded to BF16, products are accumulated in FP32, then bias and the
// activation are applied in FP32 and the result is written as FP32 or BF16.
#ifndef SYNOPS_CONV16B_CONV16B_H_
#define SYNOPS_CONV16B_CONV16B_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/types.h"

namespace synops {

// The seed's SimdConvolutionActivationType, same values.
enum class Activation : int {
  kIdentity = 0,
  kRelu = 1,
  kLeakyRelu = 2,      // params: slope
  kRestrictRange = 3,  // params: lower, upper
  kPrelu = 4,          // params: dstC slopes
  kElu = 5,            // params: alpha
  kHswish = 6,         // params: shift, scale
  kMish = 7,           // params: threshold
  kHardSigmoid = 8,    // params: scale, shift
  kSwish = 9,          // params: slope
  kGelu = 10,
};
inline constexpr int kActivationCount = 11;

// "identity", "relu", ...; "unknown" out of range.
const char* ActivationName(Activation a);
// Number of float params the activation reads (Prelu: dstC).
size_t ActivationParamCount(Activation a, size_t dst_channels);

// The seed's SimdConvolutionParameters: same fields, same order.
struct ConvParams {
  size_t srcC = 0, srcH = 0, srcW = 0;
  DataType srcT = DataType::k32f;
  TensorFormat srcF = TensorFormat::kNhwc;
  size_t dstC = 0, dstH = 0, dstW = 0;
  DataType dstT = DataType::k32f;
  TensorFormat dstF = TensorFormat::kNhwc;
  size_t kernelY = 1, kernelX = 1;
  size_t dilationY = 1, dilationX = 1;
  size_t strideY = 1, strideX = 1;
  size_t padY = 0;  // top
  size_t padX = 0;  // left
  size_t padH = 0;  // bottom
  size_t padW = 0;  // right
  size_t group = 1;
  Activation activation = Activation::kIdentity;
};

namespace conv16b_internal {
class Algorithm;
}

class Convolution16b {
 public:
  // Validates every rule of SPEC.md §4 (InvalidArgument naming the parameter)
  // and chooses the fastest algorithm this CPU supports (within SYNOPS_MAX_ISA).
  // `compatibility` flags are stored and reported by Info().
  static absl::StatusOr<std::unique_ptr<Convolution16b>> Create(size_t batch,
                                                                const ConvParams& params,
                                                                uint32_t compatibility = 0);

  ~Convolution16b();
  Convolution16b(const Convolution16b&) = delete;
  Convolution16b& operator=(const Convolution16b&) = delete;

  // Bytes of the `buf` Forward may be given (0 if it needs none).
  size_t ExternalBufferSize() const;
  // Bytes held by the context: packed weights, bias, activation params.
  size_t InternalBufferSize() const;
  // "<isa>::<algorithm> compatibility=0x<flags>", e.g.
  // "avx512bf16::nhwc_gemm compatibility=0x0".
  const std::string& Info() const { return info_; }
  // The flags given to Create.
  uint32_t compatibility() const { return compatibility_; }

  // FP32 weights in the SPEC layout (NHWC [kernelY][kernelX][srcC/group][dstC],
  // NCHW [dstC][srcC/group][kernelY][kernelX]); `bias` dstC values or nullptr
  // (zeros); `params` per the activation, nullptr only for Identity, Relu, Gelu.
  // Weights are rounded to BF16 and packed for the chosen algorithm.
  absl::Status SetParams(const float* weight, const float* bias, const float* params);

  // `src`: batch x srcC x srcH x srcW of srcT in srcF; `dst` likewise for the
  // output. `buf`: ExternalBufferSize() bytes or nullptr (then scratch is
  // allocated per thread). Safe to call concurrently on one context, each call
  // with its own buf. FailedPrecondition before SetParams; InvalidArgument for
  // null src/dst or any overlap between dst, src and buf.
  absl::Status Forward(const void* src, void* buf, void* dst) const;

  size_t batch() const { return batch_; }
  const ConvParams& params() const { return params_; }

 private:
  friend struct Conv16bFactory;
  Convolution16b(size_t batch, const ConvParams& params, uint32_t compatibility,
                 std::unique_ptr<conv16b_internal::Algorithm> algorithm);

  size_t batch_;
  ConvParams params_;
  uint32_t compatibility_;
  std::unique_ptr<conv16b_internal::Algorithm> algorithm_;
  std::string info_;
  std::vector<float> bias_params_;  // dstC bias values, then the activation params
  bool ready_ = false;
};

}  // namespace synops

#endif  // SYNOPS_CONV16B_CONV16B_H_
