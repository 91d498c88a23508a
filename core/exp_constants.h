// Constants of the Cody-Waite exp shared by core/hwy_math-inl.h (Highway
// kernels) and the plain-intrinsics epilogues of conv16b (which cannot
// include a Highway -inl header: they are compiled with their own -m flags).
#ifndef SYNOPS_CORE_EXP_CONSTANTS_H_
#define SYNOPS_CORE_EXP_CONSTANTS_H_

namespace synops {
namespace exp_constants {

// Cody-Waite reduction x = n ln2 + r: kLn2Hi has 12 significant bits, so
// n * kLn2Hi and x - n * kLn2Hi are exact for |n| < 2^12.
inline constexpr float kLn2Hi = 0.693145751953125f;
inline constexpr float kLn2Lo = 1.42860677e-06f;
inline constexpr float kLog2e = 1.44269502f;
// 1.5 * 2^23: x + kMagic rounds x to an integer, held in the low mantissa bits.
inline constexpr float kExpMagic = 12582912.0f;

// e^r for |r| <= ln2/2 (a little beyond is fine): degree-6 polynomial,
// relative error 3.3e-9 before the rounding of its Horner evaluation.
// p(0) = 1 exactly. The coefficients, highest degree first.
inline constexpr float kExpPoly[7] = {1.3813142431899905e-03f, 8.369418792426586e-03f,
                                      4.166845604777336e-02f,  1.6666515171527863e-01f,
                                      4.999999403953552e-01f,  1.0f,
                                      1.0f};

}  // namespace exp_constants
}  // namespace synops

#endif  // SYNOPS_CORE_EXP_CONSTANTS_H_
