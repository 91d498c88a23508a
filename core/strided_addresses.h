// Addresses b + i * step (bytes) for i < 17 in unrolled loops: a register
// tile that reads 8 to 17 rows or columns a fixed step apart.
#ifndef SYNOPS_CORE_STRIDED_ADDRESSES_H_
#define SYNOPS_CORE_STRIDED_ADDRESSES_H_

#include <cstddef>

namespace synops {

// Address i as base + index * {1, 2, 4, 8} from two bases (b and b8 = b +
// 8 * step) and four index registers (step, 3, 5 and 7 times it), held
// over the whole loop: per group of addresses two base pointers instead of
// one pointer per address. The empty asm keeps the indexes and bases
// opaque, or GCC folds them back into a pointer per address (address
// arithmetic on the ALU ports the vector work needs, and spills: with 16
// rows, every other row's offset in a vector register or on the stack).
// Measured: the AVX2 3x3 stride-2 depthwise tile of conv16b (columns),
// alone over L1 on Sapphire Rapids, 46-50 -> 57-62 GFLOP/s; channel_sum's
// NCHW short rows (16 rows, one load per vector), Zen 5, channel_sum_bench,
// 512 channels x 7x7 623-627 -> 541 ns.
class StridedAddresses {
 public:
  // (Each index from the step by a different operation and its own empty
  // asm: as 3, 5 and 7 times the step GCC computed them in one vector
  // multiply, and in a 16-row loop then kept them on the stack.)
  explicit StridedAddresses(size_t step) : i1_(step) {
    asm("" : "+r"(i1_));
    i3_ = i1_ + 2 * i1_;
    asm("" : "+r"(i3_));
    i5_ = i1_ + 4 * i1_;
    asm("" : "+r"(i5_));
    i7_ = 8 * i1_ - i1_;
    asm("" : "+r"(i7_));
  }
  struct Bases {
    const char* b0;
    const char* b8;
  };
  Bases From(const void* address0) const {
    Bases r{static_cast<const char*>(address0), static_cast<const char*>(address0) + 8 * i1_};
    asm("" : "+r"(r.b0), "+r"(r.b8));
    return r;
  }
  template <int kI>
  __attribute__((always_inline)) const char* At(const Bases& r) const {
    static_assert(kI >= 0 && kI <= 16, "addresses 0..16");
    const char* b = kI < 8 ? r.b0 : r.b8;
    constexpr int kJ = kI < 8 ? kI : kI - 8;
    switch (kJ) {
      case 0:
        return b;
      case 1:
        return b + i1_;
      case 2:
        return b + 2 * i1_;
      case 3:
        return b + i3_;
      case 4:
        return b + 4 * i1_;
      case 5:
        return b + i5_;
      case 6:
        return b + 2 * i3_;
      case 7:
        return b + i7_;
      default:
        return b + 8 * i1_;
    }
  }

 private:
  size_t i1_, i3_ = 0, i5_ = 0, i7_ = 0;
};

}  // namespace synops

#endif  // SYNOPS_CORE_STRIDED_ADDRESSES_H_
