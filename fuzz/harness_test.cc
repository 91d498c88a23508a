// DataProvider::Large(): one input in 32, re-rolled by any mutation, one byte
// read (the layout of the fields after it does not depend on the rule).
#include "fuzz/harness.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace synops {
namespace fuzz {
namespace {

bool IsLarge(const std::vector<uint8_t>& bytes) {
  DataProvider in(bytes.data(), bytes.size());
  return in.Large();
}

std::vector<uint8_t> RandomBytes(Rng* rng, size_t n) {
  std::vector<uint8_t> b(n);
  for (uint8_t& v : b) v = static_cast<uint8_t>((*rng)());
  return b;
}

TEST(DataProviderTest, LargeIsOneInputIn32) {
  Rng rng(1);
  int large = 0;
  const int kInputs = 32 * 2000;
  for (int i = 0; i < kInputs; ++i) large += IsLarge(RandomBytes(&rng, 1 + i % 40));
  // Binomial(64000, 1/32): mean 2000, sd 44; 6 sd either side.
  EXPECT_GT(large, 2000 - 270);
  EXPECT_LT(large, 2000 + 270);
}

TEST(DataProviderTest, AMutationOfALargeInputIsRarelyLarge) {
  Rng rng(2);
  int large_inputs = 0, large_mutants = 0, mutants = 0;
  while (large_inputs < 200) {
    std::vector<uint8_t> b = RandomBytes(&rng, 24);
    if (!IsLarge(b)) continue;
    ++large_inputs;
    EXPECT_TRUE(IsLarge(b)) << "not deterministic";
    // One byte changed anywhere but the first (the byte Large() reads).
    for (size_t i = 1; i < b.size(); ++i) {
      std::vector<uint8_t> m = b;
      m[i] ^= static_cast<uint8_t>(1 + rng() % 255);
      large_mutants += IsLarge(m);
      ++mutants;
    }
  }
  // 4600 mutants: 144 expected at 1/32; the byte alone deciding gave 100%.
  EXPECT_LT(large_mutants, mutants / 16);
}

TEST(DataProviderTest, LargeReadsOneByte) {
  const std::vector<uint8_t> b = {7, 1, 2, 3};
  DataProvider in(b.data(), b.size());
  in.Large();
  EXPECT_EQ(in.remaining(), 3u);
  EXPECT_EQ(in.Integral<uint8_t>(0, 255), 1);
  in.Large();  // bytes left: still one read
  EXPECT_EQ(in.remaining(), 1u);
  DataProvider empty(nullptr, 0);
  empty.Large();  // no bytes: no read past the end
  EXPECT_EQ(empty.remaining(), 0u);
}

}  // namespace
}  // namespace fuzz
}  // namespace synops
