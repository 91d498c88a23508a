// Checking conv16b against a double-precision oracle at the SPEC.md §4 bound:
// shared by the test, the fuzzer, the benchmark and synbench (no GoogleTest).
#ifndef SYNOPS_CONV16B_CONV16B_CHECK_H_
#define SYNOPS_CONV16B_CONV16B_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "conv16b/conv16b.h"
#include "testing/tolerance.h"

namespace synops {
namespace conv16b_check {

// One problem with its data. `src` holds the source tensor's bytes (FP32 or
// BF16 per p.srcT).
struct Problem {
  size_t batch = 1;
  ConvParams p;
  std::vector<float> weight, bias, params;
  std::vector<uint8_t> src;
  // Run places src and dst this many bytes past a 64-byte boundary (0:
  // aligned, as the benchmarks; a kernel may choose its tiles by it).
  size_t misalign = 0;
};

// dstH/dstW from the rest of the geometry (0 if the kernel does not fit).
void SetOutputSize(ConvParams* p);

// The multiply-adds of taps whose source lies inside the image, as oneDNN's
// benchdnn counts them (the benchmarks' FLOP/s are twice this per second):
// the products with the padding's zeros are no work a kernel has to do
// (ours skip them), and a rate that counted them ran above the compute
// peak (3x3 over 7x7 with padding 1: 82% of the taps are inside).
double Macs(const Problem& problem);

// Fills weights, bias, activation params and src: uniform in [-1, 1] (src
// and weights), or integers in [-4, 4] with integer-valued params if
// `integers` (every partial sum is then exact in FP32).
void FillRandom(Problem* problem, bool integers, std::mt19937* rng);

// The activation in double (the SPEC formula).
double ActivateDouble(double v, Activation a, const float* params, size_t c);

// Output of the problem evaluated in double and the allowed |got - want| per
// element, in dst order.
struct Oracle {
  std::vector<double> want;
  std::vector<double> bound;
};
Oracle ComputeOracle(const Problem& problem);

// Runs the problem with algorithm `name` ("" = Convolution16b::Create's choice);
// the output converted to FP32 if BF16. `with_buf`: pass an external buffer,
// every byte 0xFF (NaN wherever a kernel reads scratch it has not written).
absl::StatusOr<std::vector<float>> Run(const Problem& problem, absl::string_view name,
                                       bool with_buf = true);

// The first element outside the oracle's bound.
std::optional<testing::Mismatch> CompareToOracle(const std::vector<float>& got,
                                                 const Oracle& oracle);

// synbench problem string, e.g. "conv16b:mb1,ic64,ih56,iw56,oc64,kh3,kw3,...".
std::string ProblemString(const Problem& problem);

}  // namespace conv16b_check
}  // namespace synops

#endif  // SYNOPS_CONV16B_CONV16B_CHECK_H_
