// Shared pieces of every differential fuzzer.
//
// A fuzzer turns its input into a problem (shape, parameters, data) with
// DataProvider, runs the reference and every kernel the CPU supports, and on
// a mismatch calls Fail() with the synbench problem string that reproduces it.
#ifndef SYNOPS_FUZZ_HARNESS_H_
#define SYNOPS_FUZZ_HARNESS_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace synops {
namespace fuzz {

// Tensor sizes, in bytes. Most inputs describe small problems (every tail,
// every small shape, well over 1,000 inputs a second under ASan); the few
// that DataProvider::Large() picks go up to kMaxTensorBytes, past every block,
// chunk and table size of the kernels (the largest is 4096 elements).
inline constexpr size_t kSmallTensorBytes = 16 << 10;
inline constexpr size_t kMaxTensorBytes = 256 << 10;

// Bulk data generator (SplitMix64): a UniformRandomBitGenerator that is
// cheap under ASan and coverage instrumentation. std::mt19937_64 with
// std::uniform_real_distribution was a third of some fuzzers' time
// (libstdc++'s generate_canonical calls logl for every value).
class Rng {
 public:
  using result_type = uint64_t;
  explicit Rng(uint64_t seed) : state_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) (n > 0), by multiply-shift.
  uint32_t Below(uint32_t n) {
    return static_cast<uint32_t>(((*this)() >> 32) * n >> 32);
  }
  // Uniform in [lo, hi] with 24 random bits.
  float Uniform(float lo, float hi) {
    const float u = static_cast<float>((*this)() >> 40) * 0x1p-24f;
    const float x = lo + (hi - lo) * u;
    return x < hi ? x : hi;
  }

 private:
  uint64_t state_;
};

// Reads typed values from the fuzzer's bytes (like LLVM's FuzzedDataProvider,
// written here so the replay tests build with gcc). When the bytes run out,
// every read returns its minimum. Bulk data comes from Rng(), seeded from the
// input, so small inputs still describe large tensors.
class DataProvider {
 public:
  DataProvider(const uint8_t* data, size_t size) : data_(data), size_(size) {
    for (size_t i = 0; i < size; ++i) hash_ = (hash_ ^ data[i]) * 0x100000001b3u;  // FNV-1a
  }

  // Uniform-ish integer in [lo, hi].
  template <typename T>
  T Integral(T lo, T hi) {
    static_assert(std::is_integral_v<T>, "integral types only");
    if (hi <= lo) return lo;
    const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    uint64_t v = 0;
    for (uint64_t r = range; r != 0 && pos_ < size_; r >>= 8) v = (v << 8) | data_[pos_++];
    if (range != ~uint64_t{0}) v %= range + 1;
    return static_cast<T>(static_cast<uint64_t>(lo) + v);
  }
  bool Bool() { return Integral<uint8_t>(0, 1) == 1; }
  // Whether this input describes a large problem: true for one input in 32.
  // It reads one byte but mixes it with a hash of the whole input, so any
  // mutation re-rolls it. (libFuzzer keeps large inputs for the counter
  // features their long loops reach, and when the byte alone decided, their
  // mutations stayed large: 30% of conv16b's seeds were, at ~3x the cost of a
  // small input, holding it below 1,000 inputs/s.)
  bool Large() {
    uint64_t z = hash_ + Integral<uint8_t>(0, 255) + (uint64_t{++large_calls_} << 8);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;  // SplitMix64's finalizer
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return ((z ^ (z >> 31)) & 31) == 0;
  }
  // The size cap of this input's tensors: kMaxTensorBytes if Large(), else
  // kSmallTensorBytes.
  size_t MaxTensorBytes() { return Large() ? kMaxTensorBytes : kSmallTensorBytes; }
  // One of the `n` values of an enum-like range [0, n).
  int Pick(int n) { return Integral<int>(0, n - 1); }
  // A float from the raw bytes (any bit pattern: NaN, Inf, denormals).
  float AnyFloat();
  // A float in [lo, hi].
  float FloatIn(float lo, float hi);

  // A generator seeded from the next 8 bytes.
  fuzz::Rng Rng() { return fuzz::Rng(Integral<uint64_t>(0, ~uint64_t{0})); }

  // `n` floats: uniform in [lo, hi], mixed with special values (±0, the ends
  // of the range, and, if `specials`, ±Inf, NaN, denormals and huge values)
  // as the input chooses.
  std::vector<float> Floats(size_t n, float lo, float hi, bool specials);

  size_t remaining() const { return size_ - pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  uint64_t hash_ = 0xcbf29ce484222325u;  // of the whole input (Large())
  uint32_t large_calls_ = 0;
};

// For a third of the inputs (as `in` chooses), the detected L1d and L2 are
// overridden with small sizes (1 to 64 KiB each) until destruction, so the
// choices kernels derive from them (chunks of blocks, passes, merged rows,
// flat or row passes) take their small-cache branches on the small
// problems fuzzers make. Fail() names the sizes while they apply (synbench
// runs with the detected caches: replay the input).
class SmallCaches {
 public:
  explicit SmallCaches(DataProvider& in);
  ~SmallCaches();
  SmallCaches(const SmallCaches&) = delete;
  SmallCaches& operator=(const SmallCaches&) = delete;

 private:
  bool active_ = false;
};

// Prints the mismatch and the reproduction, then aborts (libFuzzer saves the
// input as a crash; the replay test fails).
[[noreturn]] void Fail(const std::string& problem, const std::string& kernel,
                       const std::string& detail);

}  // namespace fuzz
}  // namespace synops

// Every fuzzer defines this (libFuzzer's entry point).
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif  // SYNOPS_FUZZ_HARNESS_H_
