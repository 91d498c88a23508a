#include "ops/normalize/normalize.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "bf16/bf16.h"
#include "core/cpu.h"
#include "core/streaming.h"
#include "gtest/gtest.h"
#include "ops/normalize/normalize_accuracy.h"
#include "ops/normalize/normalize_kernels.h"
#include "testing/layout.h"
#include "testing/test_util.h"

namespace synops {
namespace {

using ::synops::testing::GuardedBuffer;

const TensorFormat kFormats[] = {TensorFormat::kNchw, TensorFormat::kNhwc};
const size_t kChannels[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65};
// Up to 129: NCHW with at most 8 vectors of positions keeps their sums in
// registers (64 positions with AVX2, 128 with AVX-512).
const size_t kSpatial[] = {1,  2,  3,  4,  5,  7,  8,  9,   15,  16, 17,
                           31, 32, 33, 49, 56, 65, 67, 100, 128, 129};

// One problem: inputs, and the variant to run (0 = V1, 1 = V1 across
// spatial, 2 = V2, 3 = V3, 4 = V4, 5 = 16bV2).
struct Problem {
  int variant;
  size_t batch, c, s;
  float eps;
  std::vector<float> src, scale, shift;
  std::vector<uint16_t> src16;

  Problem(int v, size_t b, size_t c_, size_t s_, uint32_t seed, float offset = 3.0f,
          bool edge = false)
      : variant(v), batch(b), c(c_), s(s_), eps(v == 4 ? 1e-6f : 1e-5f) {
    src = edge ? testing::EdgeFloats(size(), seed) : testing::RandomFloats(size(), -4, 4, seed);
    if (!edge) {
      for (float& x : src) x += offset;  // a mean far from 0: cancellation in x - mean
    }
    scale = testing::RandomFloats(c, -2, 2, seed + 1);
    shift = testing::RandomFloats(c, -1, 1, seed + 2);
    src16.resize(size());
    for (size_t i = 0; i < size(); ++i) {
      src16[i] = Fp32ToBf16(src[i]);
      if (variant == 5) src[i] = Bf16ToFp32(src16[i]);  // the FP32 view of the BF16 input
    }
  }
  size_t size() const { return batch * c * s; }
  std::string Name(TensorFormat f) const {
    return "v" + std::to_string(variant) + " " + FormatName(f) + " b=" + std::to_string(batch) +
           " c=" + std::to_string(c) + " s=" + std::to_string(s);
  }
  // The FP32 reference (16bV2: V2 on the BF16 input's FP32 values).
  std::vector<float> Want(TensorFormat f) const {
    std::vector<float> want(size()), buf(c);
    using namespace normalize_internal;  // NOLINT
    switch (variant) {
      case 0:
      case 1:
        NormalizeV1Ref(src.data(), batch, c, s, scale.data(), eps, variant == 1, f, buf.data(),
                       want.data());
        break;
      case 2:
      case 5:
        NormalizeV2Ref(src.data(), batch, c, s, scale.data(), shift.data(), eps, f, buf.data(),
                       want.data());
        break;
      case 3:
        NormalizeV3Ref(src.data(), batch, c, s, scale.data(), shift.data(), eps, f, buf.data(),
                       want.data());
        break;
      default:
        NormalizeV4Ref(src.data(), batch, c, s, scale.data(), shift.data(), eps, f, buf.data(),
                       want.data());
    }
    return want;
  }
  std::vector<double> Bounds(TensorFormat f) const {
    using namespace normalize_internal;  // NOLINT
    switch (variant) {
      case 0:
      case 1:
        return NormalizeV1Bounds(src.data(), batch, c, s, scale.data(), eps, variant == 1, f);
      case 2:
      case 5:
        return NormalizeV2Bounds(src.data(), batch, c, s, scale.data(), shift.data(), eps, f);
      case 3:
        return NormalizeV3Bounds(src.data(), batch, c, s, scale.data(), shift.data(), eps, f);
      default:
        return NormalizeV4Bounds(src.data(), batch, c, s, scale.data(), shift.data(), eps, f);
    }
  }
};

// `misalign` for src and dst both at 64-byte (cache line) boundaries.
constexpr size_t kLineAligned = ~size_t{0};

// The first element of `v` at a 64-byte boundary (v has 15 elements of
// slack; its allocation is at least 4-byte aligned).
template <class T>
T* LineAlignedIn(T* v) {
  const size_t off = (64 - reinterpret_cast<uintptr_t>(v) % 64) % 64;
  return v + off / sizeof(T);
}

// Runs kernel `name` of the problem's variant; in place if `in_place`;
// dst `misalign` elements past the buffer's start, or (kLineAligned, FP32
// variants) src and dst at 64-byte boundaries.
void RunKernel(const Problem& p, const std::string& name, TensorFormat f, bool in_place,
               size_t misalign, std::vector<float>* got32, std::vector<uint16_t>* got16,
               bool* guards_ok) {
  const bool aligned = misalign == kLineAligned;
  std::vector<float> buf(p.c + 1);
  if (p.variant == 5) {
    ASSERT_FALSE(aligned) << "FP32 variants only";
    GuardedBuffer<uint16_t> out(p.size() + misalign);
    uint16_t* dst = out.data() + misalign;
    const uint16_t* src = p.src16.data();
    if (in_place) std::memcpy(dst, src, p.size() * 2), src = dst;
    Normalize16bV2Kernels().Find(name)->fn(src, p.batch, p.c, p.s, p.scale.data(), p.shift.data(),
                                            p.eps, f, buf.data(), dst);
    *guards_ok = out.GuardsIntact();
    got16->assign(dst, dst + p.size());
    return;
  }
  GuardedBuffer<float> out(p.size() + (aligned ? 15 : misalign));
  float* dst = aligned ? LineAlignedIn(out.data()) : out.data() + misalign;
  std::vector<float> line_src(aligned ? p.size() + 15 : 0);
  const float* src = p.src.data();
  if (in_place) {
    std::memcpy(dst, src, p.size() * 4), src = dst;
  } else if (aligned) {
    float* at = LineAlignedIn(line_src.data());
    std::memcpy(at, src, p.size() * 4), src = at;
  }
  if (p.variant <= 1) {
    NormalizeV1Kernels().Find(name)->fn(src, p.batch, p.c, p.s, p.scale.data(), p.eps,
                                        p.variant == 1, f, buf.data(), dst);
  } else {
    const auto& table = p.variant == 2 ? NormalizeV2Kernels()
                        : p.variant == 3 ? NormalizeV3Kernels()
                                         : NormalizeV4Kernels();
    table.Find(name)->fn(src, p.batch, p.c, p.s, p.scale.data(), p.shift.data(), p.eps, f,
                         buf.data(), dst);
  }
  *guards_ok = out.GuardsIntact();
  got32->assign(dst, dst + p.size());
}

void CheckProblem(const Problem& p, const std::string& name, TensorFormat f, bool in_place,
                  size_t misalign) {
  std::vector<float> got32;
  std::vector<uint16_t> got16;
  bool guards_ok = false;
  RunKernel(p, name, f, in_place, misalign, &got32, &got16, &guards_ok);
  ASSERT_TRUE(guards_ok) << p.Name(f);
  const auto want = p.Want(f);
  const auto bounds = p.Bounds(f);
  const auto m = p.variant == 5 ? normalize_internal::CheckBf16(got16, want, bounds)
                                : normalize_internal::CheckFp32(got32, want, bounds);
  ASSERT_FALSE(m) << name << " " << p.Name(f) << (in_place ? " in place" : "")
                  << (misalign == kLineAligned ? " line-aligned"
                                               : " misalign=" + std::to_string(misalign))
                  << ": " << m->ToString();
}

// Kernel names of a variant's table, and whether the CPU runs it.
std::vector<std::pair<std::string, Isa>> Kernels(int variant) {
  std::vector<std::pair<std::string, Isa>> out;
  auto add = [&](const auto& table) {
    for (const auto& k : table.all()) out.push_back({k.name, k.isa});
  };
  if (variant <= 1) add(NormalizeV1Kernels());
  else if (variant == 2) add(NormalizeV2Kernels());
  else if (variant == 3) add(NormalizeV3Kernels());
  else if (variant == 4) add(NormalizeV4Kernels());
  else add(Normalize16bV2Kernels());
  return out;
}

class NormalizeVariant : public ::testing::TestWithParam<int> {
 protected:
  // Every supported kernel of the variant (skipped ones are reported).
  std::vector<std::string> Supported() {
    std::vector<std::string> names;
    for (const auto& [name, isa] : Kernels(GetParam())) {
      if (CpuSupports(isa)) {
        names.push_back(name);
      } else {
        std::cout << "[ SKIPPED  ] kernel " << name << " needs " << IsaName(isa) << "\n";
      }
    }
    return names;
  }

  // CheckProblem of every supported kernel on NCHW items of each channel
  // count c and row length s (batch 1 or 2, seed seed_c * c + s), in
  // place too; dst misaligned by (c + s) % 16, or src and dst at line
  // boundaries (line_aligned).
  void CheckNchwGrid(const std::vector<size_t>& cs, const std::vector<size_t>& ss,
                     uint32_t seed_c, bool line_aligned = false) {
    for (const std::string& name : Supported()) {
      for (size_t c : cs) {
        for (size_t s : ss) {
          const Problem p(GetParam(), 1 + (c + s) % 2, c, s, static_cast<uint32_t>(seed_c * c + s));
          for (bool in_place : {false, true}) {
            CheckProblem(p, name, TensorFormat::kNchw, in_place,
                         line_aligned ? kLineAligned : (c + s) % 16);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
};

// Every kernel vs the reference on every tail of channels and positions,
// both formats, batch 1..3, misaligned dst.
TEST_P(NormalizeVariant, MatchesReferenceOnAllTails) {
  for (const std::string& name : Supported()) {
    for (TensorFormat f : kFormats) {
      for (size_t c : kChannels) {
        for (size_t s : kSpatial) {
          const Problem p(GetParam(), 1 + (c + s) % 3, c, s, static_cast<uint32_t>(c * 100 + s));
          CheckProblem(p, name, f, false, (c + s) % 16);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST_P(NormalizeVariant, InPlace) {
  for (const std::string& name : Supported()) {
    for (TensorFormat f : kFormats) {
      for (const auto& sh : std::vector<std::array<size_t, 3>>{
               {1, 1, 1}, {2, 17, 33}, {3, 64, 49}, {1, 5, 100}, {2, 100, 5},
               // Several NCHW chunks (pipelined: one chunk's outputs are
               // written while later chunks are still being read).
               {1, 9, 1000}, {2, 6, 777}}) {
        const Problem p(GetParam(), sh[0], sh[1], sh[2], 5);
        CheckProblem(p, name, f, true, 1);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// The detected cache sizes choose the NCHW chunk (down to one vector of
// positions), the few-positions path, streaming (V4's output pass: cached
// beyond the L2 where src and dst fit an L3 that beats streaming) and the
// direction of V4's NHWC norms pass: every choice within the bound, in
// place too.
TEST_P(NormalizeVariant, AnyCacheSizes) {
  const CacheSizes tiny = {size_t{4} << 10, size_t{16} << 10, 0};
  const CacheSizes tiny_l2 = {size_t{4} << 10, size_t{16} << 10, size_t{1} << 30, true};
  const CacheSizes huge = {size_t{1} << 30, size_t{1} << 30, 0};
  for (const CacheSizes* sizes : {&tiny, &tiny_l2, &huge}) {
    SetCacheSizesForTesting(sizes);
    for (const std::string& name : Supported()) {
      for (TensorFormat f : kFormats) {
        for (const auto& sh :
             std::vector<std::array<size_t, 3>>{{1, 64, 49}, {2, 33, 300}, {1, 200, 67}}) {
          const Problem p(GetParam(), sh[0], sh[1], sh[2], 13);
          for (bool in_place : {false, true}) {
            CheckProblem(p, name, f, in_place, 3);
            if (HasFatalFailure()) break;
          }
          if (HasFatalFailure()) break;
        }
      }
    }
    SetCacheSizesForTesting(nullptr);
    if (HasFatalFailure()) return;
  }
}

// NHWC rows of whole vectors keep V4's per-channel factor and shift in
// registers in the output pass (OutputPositionsForward), up to eight
// vectors at a time (wider rows in the L1 in column blocks); with AVX-512,
// rows of 5 to 16 vectors keep their sums, then their factors, in
// registers for the whole item (V4NhwcNormsInRegisters, summed backwards
// in an item of up to 1.5 L1d, else forwards: both, with the detected L1d
// and a 1 KiB one): every multiple of 4 channels up to 292 (AVX-512: up
// to 18 vectors, three blocks), in place too.
TEST_P(NormalizeVariant, NhwcWholeVectorRows) {
  const CacheSizes small_l1d = {size_t{1} << 10, size_t{1} << 30, 0};
  for (const CacheSizes* sizes : {static_cast<const CacheSizes*>(nullptr), &small_l1d}) {
    SetCacheSizesForTesting(sizes);
    for (const std::string& name : Supported()) {
      for (size_t c = 4; c <= 292 && !HasFatalFailure(); c += 4) {
        const Problem p(GetParam(), 1 + c % 2, c, 1 + c % 13, static_cast<uint32_t>(c));
        for (bool in_place : {false, true}) {
          CheckProblem(p, name, TensorFormat::kNhwc, in_place, c % 16);
          if (HasFatalFailure()) break;
        }
      }
    }
    SetCacheSizesForTesting(nullptr);
    if (HasFatalFailure()) return;
  }
}

// NCHW items beyond the L1d whose rows of up to 64 positions are not whole
// vectors run as flat periods of N rows with AVX-512 (FewPositions) on
// Intel cores, as rows on AMD's (normalize_internal::FlatPeriods): both
// forced, with a 1 KiB L1d every item of the tails does (flat: its whole
// periods flat and the channels after them as rows), in place too.
TEST_P(NormalizeVariant, FewPositionsFlatAndRows) {
  const CacheSizes small_l1d = {size_t{1} << 10, size_t{1} << 30, 0};
  SetCacheSizesForTesting(&small_l1d);
  std::vector<size_t> rows;  // the row lengths of kSpatial up to 64
  for (size_t s : kSpatial) {
    if (s <= 64) rows.push_back(s);
  }
  for (int flat : {1, 0}) {
    SCOPED_TRACE(flat ? "flat periods" : "rows");
    normalize_internal::SetFlatPeriodsForTesting(flat);
    CheckNchwGrid(std::vector<size_t>(std::begin(kChannels), std::end(kChannels)), rows, 7);
  }
  normalize_internal::SetFlatPeriodsForTesting(-1);
  SetCacheSizesForTesting(nullptr);
}

// NCHW items in the L2 with rows longer than the registers hold run V1
// and V2 in blocks of positions (FewPositions): sized from the L1d with few
// channels (BlockPositions), else as many vectors as the registers hold.
// Several L1d sizes (L1d blocks of 2 to 8 vectors, or none), a last block
// of any length, row strides of a multiple of 4 KiB (1024 positions: every
// row in the same L1d sets, no L1d blocks), in place too.
TEST_P(NormalizeVariant, NchwPositionBlocks) {
  const CacheSizes l1d_8k = {size_t{8} << 10, size_t{2} << 20, 0};
  const CacheSizes l1d_64k = {size_t{64} << 10, size_t{2} << 20, 0};
  for (const CacheSizes* sizes : {static_cast<const CacheSizes*>(nullptr), &l1d_8k, &l1d_64k}) {
    SetCacheSizesForTesting(sizes);
    CheckNchwGrid({1, 5, 16, 33, 64}, {130, 200, 257, 300, 784, 1000, 1024}, 31);
    SetCacheSizesForTesting(nullptr);
    if (HasFatalFailure()) return;
  }
}

// NCHW items in the L2 of up to 256 positions run as one block with
// AVX-512 (16 vectors of sums in registers; AVX2 and SSE4 up to 8): every
// block of 9 to 16 vectors, whole and with a partial last vector, up to
// 256 channels, in place too.
TEST_P(NormalizeVariant, NchwRegisterBlocks) {
  CheckNchwGrid({1, 5, 16, 33, 256},
                {136, 144, 145, 160, 176, 191, 196, 208, 224, 225, 240, 255, 256}, 37);
}

// NHWC rows of up to 128 channels run in blocks of up to 16 positions
// with AVX-512 (NhwcBlockPositions: as many rows as half the L1d holds):
// with the detected L1d, an 8 KiB and a 2 KiB one, blocks of 2 to 16
// positions and last blocks of every length, rows of 127, 128 and 129
// channels (none), in place too.
TEST_P(NormalizeVariant, NhwcPositionBlocks) {
  const CacheSizes l1d_8k = {size_t{8} << 10, size_t{2} << 20, 0};
  const CacheSizes l1d_2k = {size_t{2} << 10, size_t{2} << 20, 0};
  for (const CacheSizes* sizes : {static_cast<const CacheSizes*>(nullptr), &l1d_8k, &l1d_2k}) {
    SetCacheSizesForTesting(sizes);
    for (const std::string& name : Supported()) {
      for (size_t c : {17, 64, 100, 127, 128, 129}) {
        for (size_t s : {1, 2, 15, 16, 17, 33, 47}) {
          const Problem p(GetParam(), 1 + s % 2, c, s, static_cast<uint32_t>(c * 7 + s));
          for (bool in_place : {false, true}) {
            CheckProblem(p, name, TensorFormat::kNhwc, in_place, s % 16);
            if (HasFatalFailure()) break;
          }
          if (HasFatalFailure()) break;
        }
        if (HasFatalFailure()) break;
      }
      if (HasFatalFailure()) break;
    }
    SetCacheSizesForTesting(nullptr);
    if (HasFatalFailure()) return;
  }
}

// NCHW items beyond the L1d whose rows are whole cache lines, with src and
// dst at line boundaries: with AVX-512, V1 runs them in blocks of one line
// of every row while that block fits half the L1d (FewPositionsBlock).
// With the detected caches and with an 8 KiB L1d (blocks of up to 64
// channels), 1 to 385 channels (385: a block just past half of a 48 KiB
// L1d), rows of 1 to 196 lines (12x12, 20x20, 28x28, 56x56) and of
// 1024 positions (every row in the same L1d sets: no line blocks), a
// batch of 2, in place too.
TEST_P(NormalizeVariant, NchwLineBlocks) {
  if (GetParam() == 5) GTEST_SKIP() << "FP32 variants only";
  const CacheSizes l1d_8k = {size_t{8} << 10, size_t{1} << 20, 0};
  for (const CacheSizes* sizes : {static_cast<const CacheSizes*>(nullptr), &l1d_8k}) {
    SetCacheSizesForTesting(sizes);
    CheckNchwGrid({1, 5, 33, 64, 100}, {16, 144, 400, 784, 1024, 3136}, 5, /*line_aligned=*/true);
    CheckNchwGrid({256, 385}, {16, 144, 400, 1024}, 5, /*line_aligned=*/true);
    SetCacheSizesForTesting(nullptr);
    if (HasFatalFailure()) return;
  }
}

// CNN shapes: 56x56 and 7x7 positions, wide channel counts.
TEST_P(NormalizeVariant, LargeShapes) {
  for (const std::string& name : Supported()) {
    for (TensorFormat f : kFormats) {
      for (const auto& sh : std::vector<std::array<size_t, 3>>{
               {1, 64, 3136}, {2, 512, 49}, {1, 1000, 7}, {1, 3, 3000}, {1, 2100, 5}}) {
        const Problem p(GetParam(), sh[0], sh[1], sh[2], 9, 0.5f);
        CheckProblem(p, name, f, false, 0);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Items of at least RereadStreamingMinBytes() (core/streaming.h), where
// outputs may be streamed: odd row lengths (a head before the first aligned
// vector, a tail), misaligned dst, batch 2, and in place (never streamed).
TEST_P(NormalizeVariant, StreamedSizes) {
  ASSERT_LT(RereadStreamingMinBytes() / sizeof(float), 67u * 4001u) << "grow the shapes";
  for (const std::string& name : Supported()) {
    for (TensorFormat f : kFormats) {
      for (const auto& sh : std::vector<std::array<size_t, 3>>{{2, 67, 4001}, {1, 4001, 67}}) {
        const Problem p(GetParam(), sh[0], sh[1], sh[2], 11, 0.5f);
        CheckProblem(p, name, f, false, 3);
        if (HasFatalFailure()) return;
        CheckProblem(p, name, f, true, 5);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Huge, tiny, denormal, zero and infinite inputs; constant rows (zero
// variance), offsets that cancel badly.
TEST_P(NormalizeVariant, EdgeValues) {
  for (const std::string& name : Supported()) {
    for (TensorFormat f : kFormats) {
      for (size_t c : {3, 16, 37}) {
        CheckProblem(Problem(GetParam(), 2, c, 21, static_cast<uint32_t>(c), 0, true), name, f,
                     false, 0);
        if (HasFatalFailure()) return;
        CheckProblem(Problem(GetParam(), 1, c, 19, 3, 1e4f), name, f, false, 0);
        if (HasFatalFailure()) return;
        Problem big(GetParam(), 1, c, 19, 4);
        for (float& x : big.src) x *= 1e15f;
        if (GetParam() == 5) {
          for (size_t i = 0; i < big.size(); ++i) {
            big.src16[i] = Fp32ToBf16(big.src[i]);
            big.src[i] = Bf16ToFp32(big.src16[i]);
          }
        }
        CheckProblem(big, name, f, false, 0);
        if (HasFatalFailure()) return;
        Problem flat(GetParam(), 1, c, 17, 5);
        for (size_t i = 0; i < flat.size(); ++i) {
          flat.src[i] = 2.5f;
          flat.src16[i] = Fp32ToBf16(2.5f);
        }
        CheckProblem(flat, name, f, false, 0);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// A NaN input: SPEC bounds none of the outputs it reaches, but each of
// them must stay NaN in every kernel (a BF16 output a quiet NaN, as
// Fp32ToBf16 makes it), as in the reference; the others are checked as
// usual (CheckProblem's bounds are +Inf for the NaN ones).
TEST_P(NormalizeVariant, NanInputsGiveNanOutputs) {
  for (const std::string& name : Supported()) {
    for (TensorFormat f : kFormats) {
      for (size_t c : {16, 37}) {
        for (size_t s : {21, 64}) {
          Problem p(GetParam(), 2, c, s, static_cast<uint32_t>(c * s));
          for (size_t k : {size_t{5}, p.size() / 2 + 3}) {
            p.src16[k] = 0x7FC1;
            p.src[k] = Bf16ToFp32(p.src16[k]);
          }
          // A NaN scale with every payload bit set, which a rounding that
          // ignored NaN would carry out of the exponent (to -0).
          const uint32_t all_ones = 0x7FFFFFFFu;
          std::memcpy(&p.scale[1], &all_ones, sizeof(all_ones));
          const std::vector<float> want = p.Want(f);
          std::vector<float> got32;
          std::vector<uint16_t> got16;
          bool guards_ok = false;
          RunKernel(p, name, f, false, 0, &got32, &got16, &guards_ok);
          ASSERT_TRUE(guards_ok) << name << " " << p.Name(f);
          size_t nans = 0;
          for (size_t i = 0; i < want.size(); ++i) {
            if (!std::isnan(want[i])) continue;
            ++nans;
            if (p.variant == 5) {
              ASSERT_EQ(got16[i] & 0x7FC0, 0x7FC0)
                  << name << " " << p.Name(f) << " at " << i << ": 0x" << std::hex << got16[i];
              ASSERT_NE(got16[i] & 0x7FFF, 0x7F80) << name << " " << p.Name(f) << " at " << i;
            } else {
              ASSERT_TRUE(std::isnan(got32[i])) << name << " " << p.Name(f) << " at " << i;
            }
          }
          ASSERT_GT(nans, 0u) << p.Name(f);
          CheckProblem(p, name, f, false, 0);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

std::string VariantName(const ::testing::TestParamInfo<int>& info) {
  static const char* const kNames[] = {"V1", "V1Across", "V2", "V3", "V4", "V2_16b"};
  return kNames[info.param];
}
INSTANTIATE_TEST_SUITE_P(Variants, NormalizeVariant, ::testing::Range(0, 6), VariantName);

// The references against the SPEC formulas in double, indexed independently.
TEST(NormalizeRef, MatchesFormulas) {
  const size_t b = 2, c = 5, s = 7;
  for (TensorFormat f : kFormats) {
    for (int v : {0, 1, 2, 3, 4}) {
      const Problem p(v, b, c, s, 11);
      const auto got = p.Want(f);
      for (size_t n = 0; n < b; ++n) {
        auto x = [&](size_t ch, size_t sp) {
          return static_cast<double>(p.src[n * c * s + testing::ChannelOffset(f, ch, sp, c, s)]);
        };
        std::vector<double> nc(c);
        double across = 0, gsum = 0;
        for (size_t ch = 0; ch < c; ++ch) {
          for (size_t sp = 0; sp < s; ++sp) nc[ch] += x(ch, sp) * x(ch, sp);
          across += nc[ch];
          nc[ch] = std::sqrt(nc[ch]);
          gsum += nc[ch];
        }
        for (size_t ch = 0; ch < c; ++ch) {
          for (size_t sp = 0; sp < s; ++sp) {
            double want;
            if (v <= 1) {
              double sum = 0;
              for (size_t i = 0; i < c; ++i) sum += x(i, sp) * x(i, sp);
              want = x(ch, sp) * p.scale[ch] / std::sqrt(p.eps + (v == 1 ? across : sum));
            } else if (v == 4) {
              want = x(ch, sp) * (1 + p.scale[ch] * nc[ch] / (gsum / c + p.eps)) + p.shift[ch];
            } else {
              const size_t m = v == 2 ? c : s;
              auto at = [&](size_t i) { return v == 2 ? x(i, sp) : x(ch, i); };
              double mean = 0, var = 0;
              for (size_t i = 0; i < m; ++i) mean += at(i) / m;
              for (size_t i = 0; i < m; ++i) var += (at(i) - mean) * (at(i) - mean) / m;
              want = (x(ch, sp) - mean) / std::sqrt(var + p.eps) * p.scale[ch] + p.shift[ch];
            }
            EXPECT_NEAR(got[n * c * s + testing::ChannelOffset(f, ch, sp, c, s)], want,
                        1e-4 * std::max(1.0, std::fabs(want)))
                << "v" << v << " " << FormatName(f);
          }
        }
      }
    }
  }
}

// The public functions: best kernel, buf given or nullptr (equal results),
// in place, empty tensors.
TEST(NormalizeApi, BufOptionalInPlaceAndEmpty) {
  const size_t b = 2, c = 19, s = 23;
  for (TensorFormat f : kFormats) {
    for (int v = 0; v < 6; ++v) {
      const Problem p(v, b, c, s, 21);
      std::vector<float> buf(std::max(c, s), 7.0f), out1(p.size()), out2(p.size()), io = p.src;
      std::vector<uint16_t> o1(p.size()), o2(p.size()), io16 = p.src16;
      const float* sc = p.scale.data();
      const float* sh = p.shift.data();
      const float* e = &p.eps;
      auto run = [&](const float* src, float* bf, float* dst) {
        switch (v) {
          case 0:
          case 1:
            return NormalizeLayerForward(src, b, c, s, sc, e, v == 1, f, bf, dst);
          case 2:
            return NormalizeLayerForwardV2(src, b, c, s, sc, sh, e, f, bf, dst);
          case 3:
            return NormalizeLayerForwardV3(src, b, c, s, sc, sh, e, f, bf, dst);
          default:
            return NormalizeLayerForwardV4(src, b, c, s, sc, sh, e, f, bf, dst);
        }
      };
      if (v == 5) {
        ASSERT_TRUE(NormalizeLayerForward16bV2(p.src16.data(), b, c, s, sc, sh, e, f, buf.data(),
                                               o1.data()).ok());
        ASSERT_TRUE(NormalizeLayerForward16bV2(p.src16.data(), b, c, s, sc, sh, e, f, nullptr,
                                               o2.data()).ok());
        ASSERT_TRUE(NormalizeLayerForward16bV2(io16.data(), b, c, s, sc, sh, e, f, nullptr,
                                               io16.data()).ok());
        EXPECT_EQ(o1, o2);
        EXPECT_EQ(o1, io16);
        EXPECT_FALSE(normalize_internal::CheckBf16(o1, p.Want(f), p.Bounds(f)));
        continue;
      }
      ASSERT_TRUE(run(p.src.data(), buf.data(), out1.data()).ok());
      ASSERT_TRUE(run(p.src.data(), nullptr, out2.data()).ok());
      ASSERT_TRUE(run(io.data(), nullptr, io.data()).ok());
      EXPECT_FALSE(testing::CompareBitExact(out1, out2)) << v;
      EXPECT_FALSE(testing::CompareBitExact(out1, io)) << v;
      EXPECT_FALSE(normalize_internal::CheckFp32(out1, p.Want(f), p.Bounds(f))) << v;
    }
  }
  const float eps = 1e-5f;
  const auto nchw = TensorFormat::kNchw;
  EXPECT_TRUE(NormalizeLayerForward(nullptr, 0, 3, 3, nullptr, nullptr, false, nchw, nullptr, nullptr).ok());
  EXPECT_TRUE(NormalizeLayerForwardV2(nullptr, 2, 0, 3, nullptr, nullptr, nullptr, nchw, nullptr, nullptr).ok());
  EXPECT_TRUE(NormalizeLayerForwardV3(nullptr, 2, 3, 0, nullptr, nullptr, &eps, nchw, nullptr, nullptr).ok());
  EXPECT_TRUE(NormalizeLayerForwardV4(nullptr, 0, 3, 3, nullptr, nullptr, nullptr, nchw, nullptr, nullptr).ok());
  EXPECT_TRUE(NormalizeLayerForward16bV2(nullptr, 1, 0, 3, nullptr, nullptr, nullptr, nchw, nullptr, nullptr).ok());
}

TEST(NormalizeApi, RejectsBadInputAndWritesNothing) {
  const size_t b = 2, c = 4, s = 8, n = b * c * s;
  const Problem p(2, b, c, s, 2);
  const float* src = p.src.data();
  const float* sc = p.scale.data();
  const float* sh = p.shift.data();
  const float eps = 1e-5f;
  const auto nchw = TensorFormat::kNchw;
  auto expect_bad = [](const absl::Status& st, const char* needle) {
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
    EXPECT_NE(st.message().find(needle), absl::string_view::npos) << needle << ": " << st;
  };
  using V = absl::Status (*)(const float*, size_t, size_t, size_t, const float*, const float*,
                             const float*, TensorFormat, float*, float*);
  const V variants[] = {NormalizeLayerForwardV2, NormalizeLayerForwardV3, NormalizeLayerForwardV4};
  for (V fn : variants) {
    GuardedBuffer<float> dst(n);
    expect_bad(fn(src, b, c, s, sc, sh, &eps, TensorFormat::kUnknown, nullptr, dst.data()), "format");
    expect_bad(fn(src, b, c, s, sc, sh, &eps, static_cast<TensorFormat>(5), nullptr, dst.data()), "format");
    expect_bad(fn(nullptr, b, c, s, sc, sh, &eps, nchw, nullptr, dst.data()), "src");
    expect_bad(fn(src, b, c, s, nullptr, sh, &eps, nchw, nullptr, dst.data()), "scale");
    expect_bad(fn(src, b, c, s, sc, nullptr, &eps, nchw, nullptr, dst.data()), "shift");
    expect_bad(fn(src, b, c, s, sc, sh, nullptr, nchw, nullptr, dst.data()), "eps");
    expect_bad(fn(src, b, c, s, sc, sh, &eps, nchw, nullptr, nullptr), "dst");
    expect_bad(fn(src, size_t{1} << 20, size_t{1} << 20, size_t{1} << 22, sc, sh, &eps, nchw,
                  nullptr, dst.data()), "overflows");
    expect_bad(fn(src, 1, size_t{1} << 62, 1, sc, sh, &eps, nchw, nullptr, dst.data()), "overflows");
    EXPECT_TRUE(dst.Untouched());
    // dst partially overlapping src; dst overlapping scale, shift or eps.
    GuardedBuffer<float> big(2 * n + 2 * c + 1);
    std::memcpy(big.data(), src, n * 4);
    const std::vector<float> before = big.ToVector();
    float* in = big.data();
    expect_bad(fn(in, b, c, s, sc, sh, &eps, nchw, nullptr, in + 1), "dst");
    expect_bad(fn(src, b, c, s, in + n - 1, sh, &eps, nchw, nullptr, in), "scale");
    expect_bad(fn(src, b, c, s, sc, in + 3, &eps, nchw, nullptr, in), "shift");
    expect_bad(fn(src, b, c, s, sc, sh, in + 5, nchw, nullptr, in), "eps");
    EXPECT_EQ(std::memcmp(big.ToVector().data(), before.data(), before.size() * 4), 0);
  }
  // V4's buf overlapping another argument.
  {
    GuardedBuffer<float> big(2 * n);
    std::memcpy(big.data(), src, n * 4);
    const std::vector<float> before = big.ToVector();
    std::vector<float> out(n);
    expect_bad(NormalizeLayerForwardV4(big.data(), b, c, s, sc, sh, &eps, nchw, big.data() + 2,
                                       out.data()), "buf");
    expect_bad(NormalizeLayerForwardV4(src, b, c, s, sc, sh, &eps, nchw, big.data() + n - 1,
                                       big.data()), "buf");
    EXPECT_EQ(std::memcmp(big.ToVector().data(), before.data(), before.size() * 4), 0);
  }
  // V1 and 16bV2.
  GuardedBuffer<float> dst(n);
  expect_bad(NormalizeLayerForward(src, b, c, s, sc, &eps, true, TensorFormat::kUnknown, nullptr, dst.data()), "format");
  expect_bad(NormalizeLayerForward(nullptr, b, c, s, sc, &eps, true, nchw, nullptr, dst.data()), "src");
  expect_bad(NormalizeLayerForward(src, b, c, s, nullptr, &eps, true, nchw, nullptr, dst.data()), "scale");
  expect_bad(NormalizeLayerForward(src, b, c, s, sc, nullptr, true, nchw, nullptr, dst.data()), "eps");
  expect_bad(NormalizeLayerForward(src, b, c, s, sc, &eps, true, nchw, nullptr, nullptr), "dst");
  EXPECT_TRUE(dst.Untouched());
  GuardedBuffer<uint16_t> d16(n);
  const uint16_t* s16 = p.src16.data();
  expect_bad(NormalizeLayerForward16bV2(s16, b, c, s, sc, sh, &eps, TensorFormat::kUnknown, nullptr, d16.data()), "format");
  expect_bad(NormalizeLayerForward16bV2(nullptr, b, c, s, sc, sh, &eps, nchw, nullptr, d16.data()), "src");
  expect_bad(NormalizeLayerForward16bV2(s16, b, c, s, sc, nullptr, &eps, nchw, nullptr, d16.data()), "shift");
  expect_bad(NormalizeLayerForward16bV2(s16, b, c, s, sc, sh, &eps, nchw, nullptr, nullptr), "dst");
  expect_bad(NormalizeLayerForward16bV2(s16, size_t{1} << 31, size_t{1} << 31, 2, sc, sh, &eps, nchw, nullptr, d16.data()), "overflows");
  EXPECT_TRUE(d16.Untouched());
  std::vector<uint16_t> io16 = p.src16;
  expect_bad(NormalizeLayerForward16bV2(io16.data(), b, c, s, sc, sh, &eps, nchw, nullptr, io16.data() + 1), "dst");
  EXPECT_EQ(io16, p.src16);
}

TEST(NormalizeApi, MaxIsaCap) {
  testing::ExpectCapSelects(NormalizeV1Kernels());
  testing::ExpectCapSelects(NormalizeV2Kernels());
  testing::ExpectCapSelects(NormalizeV3Kernels());
  testing::ExpectCapSelects(NormalizeV4Kernels());
  testing::ExpectCapSelects(Normalize16bV2Kernels());
}

}  // namespace
}  // namespace synops
