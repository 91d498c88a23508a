// std::vector with 64-byte aligned storage: packed weights and tile operands
// whose rows must not straddle cache lines (an AMX tile row that does loads
// two lines; measured 24-34% slower on Sapphire Rapids).
#ifndef SYNOPS_CORE_ALIGNED_H_
#define SYNOPS_CORE_ALIGNED_H_

#include <cstddef>
#include <new>
#include <vector>

namespace synops {

template <class T, size_t kAlign = 64>
struct AlignedAllocator {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = AlignedAllocator<U, kAlign>;
  };
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U, kAlign>&) {}  // NOLINT(runtime/explicit)
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(kAlign)));
  }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(kAlign)); }
  template <class U>
  bool operator==(const AlignedAllocator<U, kAlign>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const AlignedAllocator<U, kAlign>&) const {
    return false;
  }
};

template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace synops

#endif  // SYNOPS_CORE_ALIGNED_H_
