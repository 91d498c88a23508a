// The one ordered list of conv16b algorithms. Create takes the first entry
// whose ISA the CPU has (and SYNOPS_MAX_ISA allows) and that supports the
// geometry:
//
// x86_64:
//   1. avx512bf16::nhwc_depthwise_dot  depthwise, BF16 NHWC source, >= 32 channels;
//                                      chosen where vdpbf16ps runs at full
//                                      rate (no AMX), with AMX only over 2
//                                      with a source image beyond the L2,
//                                      whatever SYNOPS_MAX_ISA says
//   2. avx512bf16::nhwc_depthwise_strided  depthwise, BF16 NHWC source, strideX > 1,
//                                          >= 32 channels, taps <= 4 x strides
//   3. avx512bf16::nhwc_depthwise_slide  depthwise, NHWC source, stride and
//                                        dilation 1 in x, 3, 5 or 7 columns,
//                                        32, 48, 64, ... channels
//   4. avx512bf16::nhwc_depthwise_rows  depthwise, FP32 NHWC source, strideX > 1,
//                                       32, 48, 64, ... channels; a source image
//                                       beyond the L2, >= 256 channels or
//                                       output rows of at most 8 pixels
//   5. avx512bf16::nhwc_depthwise  depthwise (group == srcC == dstC)
//   6. avx512::nhwc_depthwise_strided  as 2
//   7. avx512::nhwc_depthwise_slide  as 3
//   8. avx512::nhwc_depthwise_rows  as 4
//   9. avx512::nhwc_depthwise      depthwise
//  10. avx2::nhwc_depthwise        depthwise (AVX2 + FMA, FP32)
//  11. sse41::nhwc_depthwise       depthwise (FP32)
//  12. amx_bf16::nchw_gemm         NCHW 1x1 stride 1, srcC / group a multiple of 32
//  13. amx_bf16::nhwc_gemm         srcC / group a multiple of 32
//  14. amx_bf16::nhwc_im2row       the other non-depthwise geometries
//  15. avx512bf16::nhwc_im2row     icg < 8, more than one tap, not depthwise
//                                  (stems); chosen where vdpbf16ps runs at
//                                  full rate (Zen 4/5), whatever
//                                  SYNOPS_MAX_ISA says
//  16. avx512bf16::nhwc_gemm       any geometry; chosen as 15
//  17. avx512::nhwc_gemm           any geometry (FP32 FMA)
//  18. avx2::nhwc_gemm             any geometry (AVX2 + FMA, FP32)
//  19. sse41::nhwc_gemm            any geometry (FP32)
//  20. ref::direct                 any geometry
// aarch64:
//   1. neon::nhwc_depthwise        depthwise
//   2. neon_bf16::nhwc_gemm        any geometry (BFDOT)
//   3. neon::nhwc_gemm             any geometry
//   4. ref::direct                 any geometry
//
// The NHWC algorithms run NCHW problems through transposes of src and dst.
// Test libraries append test-only algorithms after these (never selected):
// //conv16b:amx_emu registers amx_emu::nchw_gemm, amx_emu::nhwc_gemm and
// amx_emu::nhwc_im2row, the AMX algorithms on the tile emulator.
#include <memory>
#include <vector>

#include "conv16b/conv16b_drivers.h"
#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_kernels.h"
#include "core/cpu.h"

namespace synops {
namespace conv16b_internal {

bool AnyGeometry(const Geometry&) { return true; }

bool IsDepthwise(const Geometry& g) { return g.p.group == g.p.srcC && g.p.group == g.p.dstC; }

// Where the AVX-512 depthwise reads a BF16 NHWC source in place, widening
// each tap's load (StridedDepthwiseRow*), instead of widening 16-channel
// blocks of whole rows into an FP32 ring: with stride, where each source
// value feeds few taps (kernel taps / strides <= 4; 3x3 s2: 2.25) and a
// pixel has at least two vectors of channels. Measured on Sapphire Rapids
// (SYNOPS_MAX_ISA=avx512bf16, synbench, GFLOP/s ring -> in place): 3x3 s2
// 96ch 112x112 22 -> 32, 48ch 112 29 -> 38, 576ch 14 23 -> 25, 32ch 112
// 38 -> 40; but 16ch 112 38 -> 34, 5x5 s2 240ch 56 (6.25 taps per value)
// 49 -> 37, 3x3 dilation 2 stride 1 64ch 56 50 -> 43.
bool StridedBf16Depthwise(const Geometry& g) {
  const ConvParams& p = g.p;
  return IsDepthwise(g) && p.srcT == DataType::k16b && p.srcF == TensorFormat::kNhwc &&
         p.strideX > 1 && p.srcC >= 32 && p.kernelY * p.kernelX <= 4 * p.strideY * p.strideX;
}

// Where the AVX-512 depthwise widens whole NHWC source rows (every
// channel) into an FP32 ring and runs the sliding tiles of 3, 5 or 7
// columns over all channels of 8 output pixels (the FP32 rows of
// DepthwiseChannels), instead of nhwc_depthwise's ring of 16-channel
// blocks, which pays a row call and a widening pass per block and row:
// stride and dilation 1 in x, whole vectors of at least 32 channels.
// Measured on Sapphire Rapids (synbench, GFLOP/s blocks -> rows): 3x3 BF16
// 512ch 14x14 44 -> 54, 384ch 14 46 -> 60, 960ch 7x7 34 -> 61, 192ch 28
// 52 -> 61, 96ch 112 46 -> 56, 64ch 112 50 -> 57, 64ch 56 63 -> 66, 48ch
// 56 62 -> 74, 32ch 56 65 -> 77, 32ch 28 60 -> 72, 32ch 224 49 -> 54; 5x5
// 240ch 28 89 -> 100, 672ch 14 74 -> 92, 32ch 112 88 -> 106; 7x7 256ch 14
// 83 -> 124, 32ch 56 109 -> 138; FP32 NHWC 512ch 14 39 -> 50, 144ch 56 33
// -> 44; one loss, 3x3 32ch 112x112 70 -> 66 (conv16b_onednn_bench). Not
// below 32 channels (24ch 56 49 -> 43, 8ch 112 33 -> 29), with a partial
// vector (40ch 56 54 -> 51), with NCHW sources (512ch 14 31 -> 27) nor
// dilation 2 (57 -> 51: no sliding tile).
bool SlideDepthwise(const Geometry& g) {
  const ConvParams& p = g.p;
  return IsDepthwise(g) && p.srcF == TensorFormat::kNhwc && p.strideX == 1 &&
         p.dilationX == 1 && (p.kernelX == 3 || p.kernelX == 5 || p.kernelX == 7) &&
         p.srcC >= 32 && p.srcC % 16 == 0;
}

// Where the AVX-512 depthwise rounds whole FP32 NHWC source rows into the
// FP32 ring of nhwc_depthwise_slide and runs the per-tap tiles of
// DepthwiseChannels over them at stride > 1 (a BF16 source takes 1 or 2,
// which read it in place), instead of nhwc_depthwise's ring of 16-channel
// blocks: each block's fill reads one line of every pixel, lines a pixel
// apart, and pays a row call per block and row. Measured on Sapphire
// Rapids (synbench, 3x3 s2 FP32, µs blocks -> rows): beyond the L2 96ch
// 112x112 386 -> 302, 32ch 224 494 -> 406, 64ch 112 272 -> 208, 48ch 112
// 158 -> 141, 192ch 56 213 -> 145, 144ch 56 124 -> 102, 5x5 240ch 56 410
// -> 260, 5x5 672ch 28 261 -> 191; within it, many channels 512ch 28 115 ->
// 94, 256ch 14 11.9 -> 10.4, 576ch 14 27.6 -> 23.6, 1024ch 14 54 -> 43,
// and rows of 7 pixels 64ch 14 3.0 -> 2.4, 128ch 14 5.9 -> 4.7; but not
// the others within it: 32ch 112 93 -> 96, 64ch 56 37 -> 39, 96ch 28 13.9
// -> 14.4, 128ch 28 18.5 -> 19.5 (256ch 28 42.5 -> 42.2).
bool RowsF32Depthwise(const Geometry& g) {
  const ConvParams& p = g.p;
  if (!IsDepthwise(g) || p.srcT != DataType::k32f || p.srcF != TensorFormat::kNhwc ||
      p.strideX == 1 || p.srcC < 32 || p.srcC % 16 != 0) {
    return false;
  }
  return g.src_image * sizeof(float) > GetCacheSizes().l2 || p.srcC >= 256 || p.dstW <= 8;
}

// Where the AVX512-BF16 depthwise multiplies the BF16 source in place by
// vdpbf16ps (DotDepthwiseRowAvx512Bf16, every stride): a BF16 NHWC source
// with at least two vectors of channels; Create takes it as
// DotDepthwiseChosen says. Measured on an AMD Zen 5 core
// (conv16b_bench, one run, medians of 5 interleaved, GFLOP/s
// nhwc_depthwise -> this): 3x3 32ch 112x112 46 -> 58, 7x7 256ch 14x14 70
// -> 96, 3x3 144ch 56x56 46 -> 63, 3x3 512ch 14x14 34 -> 58, 3x3 s2 96ch
// 112x112 29 (nhwc_depthwise_strided 48) -> 53.
bool DotBf16Depthwise(const Geometry& g) {
  const ConvParams& p = g.p;
  return IsDepthwise(g) && p.srcT == DataType::k16b && p.srcF == TensorFormat::kNhwc &&
         p.srcC >= 32;
}

// Every geometry DotBf16Depthwise supports on a CPU where vdpbf16ps runs at
// the FMA rate (no AMX: Zen 4/5, Cooper Lake). CPUs with AMX run it at half
// that rate (Sapphire Rapids: `Peak/avx512bf16/vdpbf16ps` 112 against
// `Peak/avx512/fma` 217 GFLOP/s; oneDNN's brdgmm draws the same line), and
// there it is taken only over nhwc_depthwise_strided with a source image
// larger than the L2: the strided tile slows down when its source streams
// from L3, the dot tile (fewer operations per load) much less. Sapphire
// Rapids (2 MiB L2, synbench, 3x3 s2, GFLOP/s strided -> dot): beyond the L2
// 96ch 112x112 36 -> 44, 144ch 112 33 -> 40, 32ch 224 40 -> 47, 48ch 224
// 37 -> 42, 64ch 128 40 -> 44; within it 96ch 56 47 -> 44, 48ch 112 47 ->
// 44, 192ch 28 42 -> 38, 256ch 56 39 -> 39; at stride 1 nhwc_depthwise_slide
// (54-138 on the shapes below) is ahead of it everywhere measured.
bool DotDepthwiseChosen(const Geometry& g, bool half_rate) {
  if (!half_rate) return true;
  return StridedBf16Depthwise(g) && g.src_image * sizeof(uint16_t) > GetCacheSizes().l2;
}

bool DotDepthwiseChosenHere(const Geometry& g) {
  return DotDepthwiseChosen(g, GetCpuFeatures().bf16_dot_half_rate);
}

// The AVX512-BF16 GEMM and im2row where vdpbf16ps runs at full rate; at
// half rate avx512::nhwc_gemm (FP32 rows, 12 x 32 FMA tiles) is faster on
// every shape measured. Sapphire Rapids (conv16b_bench, one run, GFLOP/s
// avx512bf16::nhwc_gemm or _im2row -> avx512::nhwc_gemm): 3x3 64->64 56x56
// 110 -> 179, 1x1 256->64 56x56 104 -> 153, 64->256 99 -> 146, 256->256
// 104 -> 171, 3x3 128 28x28 112 -> 185, 3x3 256 14x14 114 -> 138, 1x1
// 512->512 14x14 109 -> 179, 1024->256 109 -> 174, 3x3 s2 128->256 112 ->
// 166, group 4 3x3 64->64 28x28 99 -> 139, stem 3x3 s2 3->32 224 85 -> 128,
// stem 7x7 s2 3->64 97 -> 164; synbench 1x1 64->16 56x56 96 -> 101.
bool Bf16DotGemmChosenHere(const Geometry&) { return !GetCpuFeatures().bf16_dot_half_rate; }

bool AmxFits(const Geometry& g) { return g.icg % 32 == 0; }

// With a wider kernel the taps shift the source tiles off 64-byte
// boundaries: 3x3 64->64 56x56 took 0.265 ms this way, 0.239 ms through
// nhwc_gemm's transposes.
bool AmxNchwFits(const Geometry& g) {
  return g.icg % 32 == 0 && g.p.srcF == TensorFormat::kNchw && g.p.dstF == TensorFormat::kNchw &&
         g.p.strideX == 1 && g.p.strideY == 1 && g.p.kernelX == 1 && g.p.kernelY == 1;
}

bool AmxIm2RowFits(const Geometry& g) { return g.icg % 32 != 0 && !IsDepthwise(g); }

bool Im2RowFits(const Geometry& g) {
  return g.icg < 8 && g.p.kernelY * g.p.kernelX > 1 && !IsDepthwise(g);
}

namespace {

template <auto kMake, auto... kArgs>
std::unique_ptr<Algorithm> Make(const Geometry& g) {
  return kMake(g, kArgs...);
}

#if defined(__x86_64__)
constexpr AmxKernels kAmxBf16{amx_bf16::BeginTiles, amx_bf16::EndTiles, amx_bf16::GemmImage,
                               amx_bf16::GemmImageNchw};

std::unique_ptr<Algorithm> AmxNchw(const Geometry& g) { return MakeAmxNchwGemm(g, kAmxBf16); }
std::unique_ptr<Algorithm> AmxNhwc(const Geometry& g) { return MakeAmxGemm(g, kAmxBf16); }
std::unique_ptr<Algorithm> AmxIm2Row(const Geometry& g) { return MakeAmxIm2Row(g, kAmxBf16); }
#endif

std::vector<AlgorithmSpec> SelectionList() {
  return {
#if defined(__x86_64__)
      {"avx512bf16::nhwc_depthwise_dot", Isa::kAvx512Bf16, DotBf16Depthwise,
       Make<MakeNhwcDepthwiseInPlace, DotDepthwiseRowAvx512Bf16, StoreRowAvx512Bf16,
            PlanarRowToF32Avx2, RoundRowF32Avx512>,
       DotDepthwiseChosenHere},
      {"avx512bf16::nhwc_depthwise_strided", Isa::kAvx512Bf16, StridedBf16Depthwise,
       Make<MakeNhwcDepthwiseF32, StridedDepthwiseRowAvx512Bf16, StoreRowAvx512Bf16,
            PlanarRowToF32Avx2, RoundRowF32Avx512>},
      {"avx512bf16::nhwc_depthwise_slide", Isa::kAvx512Bf16, SlideDepthwise,
       Make<MakeNhwcDepthwiseF32, StridedDepthwiseRowAvx512Bf16, StoreRowAvx512Bf16,
            PlanarRowToF32Avx2, RoundRowF32Avx512>},
      {"avx512bf16::nhwc_depthwise_rows", Isa::kAvx512Bf16, RowsF32Depthwise,
       Make<MakeNhwcDepthwiseF32, StridedDepthwiseRowAvx512Bf16, StoreRowAvx512Bf16,
            PlanarRowToF32Avx2, RoundRowF32Avx512>},
      {"avx512bf16::nhwc_depthwise", Isa::kAvx512Bf16, IsDepthwise,
       Make<MakeDepthwiseF32, DepthwiseRowF32Avx512Bf16>},
      {"avx512::nhwc_depthwise_strided", Isa::kAvx512, StridedBf16Depthwise,
       Make<MakeNhwcDepthwiseF32, StridedDepthwiseRowAvx512, StoreRowAvx512, PlanarRowToF32Avx2,
            RoundRowF32Avx512>},
      {"avx512::nhwc_depthwise_slide", Isa::kAvx512, SlideDepthwise,
       Make<MakeNhwcDepthwiseF32, StridedDepthwiseRowAvx512, StoreRowAvx512, PlanarRowToF32Avx2,
            RoundRowF32Avx512>},
      {"avx512::nhwc_depthwise_rows", Isa::kAvx512, RowsF32Depthwise,
       Make<MakeNhwcDepthwiseF32, StridedDepthwiseRowAvx512, StoreRowAvx512, PlanarRowToF32Avx2,
            RoundRowF32Avx512>},
      {"avx512::nhwc_depthwise", Isa::kAvx512, IsDepthwise,
       Make<MakeDepthwiseF32, DepthwiseRowF32Avx512>},
      {"avx2::nhwc_depthwise", Isa::kAvx2, IsDepthwise,
       Make<MakeNhwcDepthwiseWiden, DepthwiseRowF32Avx2, StoreRowAvx2, PlanarRowToF32Avx2,
            RoundRowF32Avx2, true>},
      {"sse41::nhwc_depthwise", Isa::kSse41, IsDepthwise,
       Make<MakeNhwcDepthwiseWiden, DepthwiseRowF32Sse41, StoreRowSse41, PlanarRowToF32Sse41,
            RoundRowF32Sse41, false>},
      {"amx_bf16::nchw_gemm", Isa::kAmxBf16, AmxNchwFits, AmxNchw},
      {"amx_bf16::nhwc_gemm", Isa::kAmxBf16, AmxFits, AmxNhwc},
      {"amx_bf16::nhwc_im2row", Isa::kAmxBf16, AmxIm2RowFits, AmxIm2Row},
      {"avx512bf16::nhwc_im2row", Isa::kAvx512Bf16, Im2RowFits,
       Make<MakeNhwcIm2Row, GemmRowAvx512Bf16, StoreRowAvx512Bf16, true>, Bf16DotGemmChosenHere},
      {"avx512bf16::nhwc_gemm", Isa::kAvx512Bf16, AnyGeometry,
       Make<MakeNhwcGemm, GemmRowAvx512Bf16, StoreRowAvx512Bf16, true>, Bf16DotGemmChosenHere},
      {"avx512::nhwc_gemm", Isa::kAvx512, AnyGeometry,
       Make<MakeNhwcGemmF32, GemmRowF32Avx512, StoreRowAvx512, PlanarRowToF32Avx2,
            RoundRowF32Avx512, false, RowsPerCall::kTwo>},
      {"avx2::nhwc_gemm", Isa::kAvx2, AnyGeometry,
       Make<MakeNhwcGemmF32, GemmRowF32Avx2, StoreRowAvx2, PlanarRowToF32Avx2,
            RoundRowF32Avx2, true, RowsPerCall::kAny>},
      {"sse41::nhwc_gemm", Isa::kSse41, AnyGeometry,
       Make<MakeNhwcGemmF32, GemmRowF32Sse41, StoreRowSse41, PlanarRowToF32Sse41,
            RoundRowF32Sse41, true, RowsPerCall::kAny>},
#elif defined(__aarch64__)
      {"neon::nhwc_depthwise", Isa::kNeon, IsDepthwise,
       Make<MakeNhwcDepthwise, DepthwiseRowNeon, StoreRowNeon>},
      {"neon_bf16::nhwc_gemm", Isa::kNeonBf16, AnyGeometry,
       Make<MakeNhwcGemm, GemmRowNeonBf16, StoreRowNeon, false>},
      {"neon::nhwc_gemm", Isa::kNeon, AnyGeometry, Make<MakeNhwcGemm, GemmRowNeon, StoreRowNeon, false>},
#endif
      RefAlgorithm(),
  };
}

std::vector<AlgorithmSpec>& Registry() {
  static std::vector<AlgorithmSpec>* const specs = new std::vector<AlgorithmSpec>(SelectionList());
  return *specs;
}

}  // namespace

const std::vector<AlgorithmSpec>& Algorithms() { return Registry(); }

bool RegisterTestAlgorithms(const std::vector<AlgorithmSpec>& specs) {
  for (AlgorithmSpec s : specs) {
    s.test_only = true;
    Registry().push_back(s);
  }
  return true;
}

const AlgorithmSpec* FindAlgorithm(absl::string_view name) {
  for (const AlgorithmSpec& s : Algorithms()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

const AlgorithmSpec& SelectAlgorithm(const Geometry& g, const std::function<bool(Isa)>& available) {
  for (const AlgorithmSpec& s : Algorithms()) {
    if (s.test_only || !available(s.isa)) continue;
    if (s.chosen_on_this_cpu != nullptr && !s.chosen_on_this_cpu(g)) continue;
    if (s.supports(g)) return s;
  }
  return *FindAlgorithm("ref::direct");
}

}  // namespace conv16b_internal
}  // namespace synops
