// Whether the upper halves of the vector registers are in use (dirty) after
// a kernel returns. A kernel compiled for AVX that returns without
// VZEROUPPER leaves them dirty, and every legacy-SSE instruction its caller
// runs afterwards (x86-64 baseline code: scalar float math, SSE4.1
// kernels) may then run several times slower (4x on AMD Zen 5, measured).
// XGETBV with ECX = 1 (XINUSE) reports the state: bit 2 the upper halves
// of YMM0-15, bit 6 those of ZMM0-15 (ZMM16-31 are not reachable from SSE
// code and do not count).
#ifndef SYNOPS_TESTING_AVX_STATE_H_
#define SYNOPS_TESTING_AVX_STATE_H_

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace synops {
namespace testing {

// True where the CPU reports XINUSE (XGETBV with ECX = 1; CPUID leaf 0xD,
// sub-leaf 1, EAX bit 2) and has AVX: elsewhere there is no state to test.
inline bool AvxStateObservable() {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool avx_os = (c & (1u << 28)) != 0 && (c & (1u << 27)) != 0;  // AVX, OSXSAVE
  if (!avx_os || !__get_cpuid_count(0xD, 1, &a, &b, &c, &d)) return false;
  return (a & (1u << 2)) != 0;
#else
  return false;
#endif
}

// The upper halves of YMM0-15 or ZMM0-15 are in use (AvxStateObservable()
// must hold).
inline bool AvxUpperStateDirty() {
#if defined(__x86_64__)
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  return (lo & ((1u << 2) | (1u << 6))) != 0;
#else
  return false;
#endif
}

// Clears them (VZEROUPPER; AvxStateObservable() must hold), so that a test
// sees what the code it calls next leaves.
inline void ClearAvxUpperState() {
#if defined(__x86_64__)
  __asm__ volatile("vzeroupper" ::: "memory");
#endif
}

}  // namespace testing
}  // namespace synops

#endif  // SYNOPS_TESTING_AVX_STATE_H_
