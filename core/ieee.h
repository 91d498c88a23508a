// IEEE 754 division where the divisor may be zero.
//
// SPEC.md relies on IEEE results there (Rcp(±0) = ±Inf, a zero norm in
// normalize gives Inf or NaN), and every target we build for gives them; but
// ISO C++ leaves x / 0 undefined, and UBSan's float-divide-by-zero check
// (which OSS-Fuzz enables) stops the program on it. Scalar divisions whose
// divisor may be zero go through IeeeDiv; vector divisions are not checked.
#ifndef SYNOPS_CORE_IEEE_H_
#define SYNOPS_CORE_IEEE_H_

namespace synops {

#if defined(__clang__) || defined(__GNUC__)
#define SYNOPS_NO_SANITIZE_FLOAT_DIVIDE __attribute__((no_sanitize("float-divide-by-zero")))
#else
#define SYNOPS_NO_SANITIZE_FLOAT_DIVIDE
#endif

SYNOPS_NO_SANITIZE_FLOAT_DIVIDE inline float IeeeDiv(float a, float b) { return a / b; }
SYNOPS_NO_SANITIZE_FLOAT_DIVIDE inline double IeeeDiv(double a, double b) { return a / b; }

}  // namespace synops

#endif  // SYNOPS_CORE_IEEE_H_
