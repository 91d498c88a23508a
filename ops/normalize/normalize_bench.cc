// Every normalize kernel (V1, V1 across spatial, V2, V3, V4, 16bV2), both
// formats, on 64..512 channels x 112x112 to 7x7 positions, batch 1, next to
// BM_Copy of one FP32 tensor of the same size. 256 channels at 12x12, 14x14
// and 16x16: NCHW rows of 9, 12.25 and 16 cache lines (14x14's rows start
// mid-line).
//
// Bytes processed = src read + dst written (2 * C * H * W * element size),
// as BM_Copy counts them, so bytes/s over BM_Copy's is the fraction of copy
// bandwidth (16bV2 moves half the bytes of the FP32 variants). The reference
// runs on the same shapes: time(ref) / time(kernel) is the speed-up.
//
// Per shape, the bounds of one pass over src and dst on one core, next to
// BM_Copy (memcpy): BM_CopyStream (the same copy with non-temporal stores),
// BM_ReadOnly (src read once, bytes = src) and BM_WriteOnly (dst written
// once, bytes = dst). A single-pass kernel (NHWC V1, V2) cannot beat the
// fastest copy; V4 needs every position's terms before its first output, so
// it reads src twice, and so do NCHW V1 and V2 (every channel of a
// position before its first output): their bound is BM_ReadThenCopy (a
// read of src, then the copy; beyond the L1d the copy's read comes from
// L2, where BM_ReadOnly alone reads from L1). If BM_ReadOnly +
// BM_WriteOnly is close to BM_Copy, reads and writes do not overlap at
// that size either.
#include <cstring>
#include <memory>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "benchmark/benchmark.h"
#include "bf16/bf16.h"
#include "core/types.h"
#include "ops/normalize/normalize_kernels.h"
#include "testing/bench_util.h"

namespace synops {
namespace {

struct Shape {
  size_t c, s;
  const char* hw;
};

const Shape kShapes[] = {{64, 112 * 112, "112x112"}, {64, 56 * 56, "56x56"},   {128, 56 * 56, "56x56"},
                         {256, 56 * 56, "56x56"},    {512, 56 * 56, "56x56"},   {64, 28 * 28, "28x28"},
                         {128, 14 * 14, "14x14"},    {256, 14 * 14, "14x14"},   {256, 16 * 16, "16x16"},
                         {256, 12 * 12, "12x12"},    {64, 7 * 7, "7x7"},        {128, 7 * 7, "7x7"},
                         {256, 7 * 7, "7x7"},        {512, 7 * 7, "7x7"}};

// Registers one benchmark; `run` calls the kernel once.
template <typename Run>
void Register(const std::string& name, Isa isa, size_t bytes, Run run) {
  benchmark::RegisterBenchmark(name.c_str(), [isa, bytes, run](benchmark::State& state) {
    if (!testing::SkipUnlessSupported(state, isa)) return;
    for (auto _ : state) {
      run();
      benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
  });
}

struct Data {
  size_t c, s, n;
  testing::AlignedFloats src, dst, scale, shift, buf;
  // BF16 tensors, 64-byte aligned like the FP32 ones (as frameworks
  // allocate tensors; std::vector's 16-byte alignment splits vector loads).
  testing::AlignedFloats src16_storage, dst16_storage;
  uint16_t* src16() { return reinterpret_cast<uint16_t*>(src16_storage.data()); }
  uint16_t* dst16() { return reinterpret_cast<uint16_t*>(dst16_storage.data()); }
  explicit Data(const Shape& sh)
      : c(sh.c), s(sh.s), n(sh.c * sh.s), src(n), dst(n), scale(c), shift(c), buf(c),
        src16_storage((n + 1) / 2), dst16_storage((n + 1) / 2) {
    for (size_t i = 0; i < n; ++i) {
      src[i] = static_cast<float>(i % 61) * 0.25f - 7.0f;
      src16()[i] = Fp32ToBf16(src[i]);
    }
    for (size_t i = 0; i < c; ++i) scale[i] = 1.0f + 0.01f * (i % 7), shift[i] = 0.1f * (i % 5);
  }
};

// BM_CopyStream, BM_ReadOnly (widest vector loads), BM_WriteOnly of `bytes`
// (a multiple of 64) between 64-byte aligned buffers.
void RegisterBounds(const std::string& label, size_t bytes) {
  const auto reg = [&](const char* name, int64_t counted, auto body) {
    benchmark::RegisterBenchmark((std::string(name) + label).c_str(), [=](benchmark::State& state) {
      testing::AlignedFloats src(bytes / 4), dst(bytes / 4);
      std::memset(src.data(), 1, bytes);
      for (auto _ : state) {
        body(src.data(), dst.data());
        benchmark::ClobberMemory();
      }
      state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * counted);
    });
  };
  const int64_t b = static_cast<int64_t>(bytes);
#if defined(__SSE2__)
  reg("BM_CopyStream/", 2 * b, [bytes](const float* src, float* dst) {
    const auto* s = reinterpret_cast<const __m128i*>(src);
    auto* o = reinterpret_cast<__m128i*>(dst);
    for (size_t i = 0; i < bytes / 16; i += 4) {
      const __m128i a = _mm_load_si128(s + i), c = _mm_load_si128(s + i + 1);
      const __m128i e = _mm_load_si128(s + i + 2), f = _mm_load_si128(s + i + 3);
      _mm_stream_si128(o + i, a);
      _mm_stream_si128(o + i + 1, c);
      _mm_stream_si128(o + i + 2, e);
      _mm_stream_si128(o + i + 3, f);
    }
    _mm_sfence();
  });
#endif
  testing::RegisterReadOnlyBaseline(label, bytes);
  testing::RegisterReadThenCopyBaseline(label, bytes);
  reg("BM_WriteOnly/", b, [bytes](const float*, float* dst) {
    std::memset(dst, 2, bytes);
    benchmark::DoNotOptimize(dst);
  });
}

void RegisterAll() {
  for (const Shape& sh : kShapes) {
    const size_t n = sh.c * sh.s;
    const std::string label = "c" + std::to_string(sh.c) + "_" + sh.hw;
    testing::RegisterCopyBaseline(label, n * sizeof(float));
    RegisterBounds(label, n * sizeof(float));
    auto data = std::make_shared<Data>(sh);
    const float eps = 1e-5f;
    for (TensorFormat f : {TensorFormat::kNchw, TensorFormat::kNhwc}) {
      const std::string tail = std::string("/") + FormatName(f) + "/" + label;
      for (bool across : {false, true}) {
        for (const auto& k : NormalizeV1Kernels().all()) {
          Register(std::string(across ? "NormalizeV1Across/" : "NormalizeV1/") + k.name + tail,
                   k.isa, 2 * n * 4, [=] {
                     k.fn(data->src.data(), 1, data->c, data->s, data->scale.data(), eps, across, f,
                          nullptr, data->dst.data());
                   });
        }
      }
      const struct {
        const char* name;
        const KernelTable<NormalizeFn>* table;
      } variants[] = {{"NormalizeV2/", &NormalizeV2Kernels()},
                      {"NormalizeV3/", &NormalizeV3Kernels()},
                      {"NormalizeV4/", &NormalizeV4Kernels()}};
      for (const auto& v : variants) {
        for (const auto& k : v.table->all()) {
          Register(std::string(v.name) + k.name + tail, k.isa, 2 * n * 4, [=] {
            k.fn(data->src.data(), 1, data->c, data->s, data->scale.data(), data->shift.data(), eps,
                 f, data->buf.data(), data->dst.data());
          });
        }
      }
      for (const auto& k : Normalize16bV2Kernels().all()) {
        Register(std::string("Normalize16bV2/") + k.name + tail, k.isa, 2 * n * 2, [=] {
          k.fn(data->src16(), 1, data->c, data->s, data->scale.data(), data->shift.data(), eps, f,
               nullptr, data->dst16());
        });
      }
    }
  }
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
