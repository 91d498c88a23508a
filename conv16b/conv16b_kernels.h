// The microkernels (one file per ISA) and the arguments the drivers of
// conv16b_drivers.h pass them.
#ifndef SYNOPS_CONV16B_CONV16B_GEMM_H_
#define SYNOPS_CONV16B_CONV16B_GEMM_H_

#include <cstddef>
#include <cstdint>

namespace synops {
namespace conv16b_internal {

struct Epilogue;

// The epilogue a row applies in registers (GemmRowArgs::fused,
// GemmRowF32Args::fused).
struct FusedStoreArgs {
  const Epilogue* epilogue;
  size_t channels;
  size_t channel_base;  // the group's first output channel (bias, PReLU slopes)
  uint8_t* dst;         // output pixel (n, oy, 0), channel channel_base
  size_t pixel_stride;  // dstC
  bool bf16;
  // Every bias of the layer is zero or at least 2^-100 in magnitude
  // (BiasZeroOrLarge): a sum that is zero or normal plus such a bias is
  // never denormal (where they cancel, both are multiples of 2^-124), so a
  // row whose sums are never denormal (vdpbf16ps flushes them) may round
  // to BF16 without testing for denormals.
  bool bias_zero_or_large = false;
};

// FusedStoreArgs::bias_zero_or_large of these n biases (NaN: false).
inline bool BiasZeroOrLarge(const float* bias, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float a = bias[i] < 0.0f ? -bias[i] : bias[i];
    if (!(a == 0.0f || a >= 0x1p-100f)) return false;
  }
  return true;
}

// One output row of one group: out[x][oc] = sum over (ky, kx, ic) of
// src[x * pixel_stride + ky * ky_stride + kx * kx_stride + ic] * w, for
// x < width and oc < nblocks * 16. `src` is BF16 NHWC with the group's
// channels padded to an even count (2 * pairs); `weight` is pair-interleaved
// (PackPairInterleaved with w = 16) from the K x ocg matrix whose row
// (ky * kernel_x + kx) * 2 * pairs + ic holds the weights of that tap.
// Pixels of a GemmRowArgs list (offsets, pixels).
constexpr size_t kListPixels = 6;
// Pairs per tap of a row with GemmRowArgs::edges at most (the zeros its
// edge pixels read at the padding columns).
constexpr size_t kEdgeZeroPairs = 512;
// Zeros the x86 tiles read in place of padding: the edge pixels of a
// GemmRowArgs::edges row (x86_gemm::EdgeTile, up to kEdgeZeroPairs pairs)
// and the left padding column of GemmRowF32Args::lead_zero (x86_f32::
// LeadColumns, one vector). One copy for every kernel file.
alignas(64) inline constexpr uint16_t kPaddingZeros[2 * kEdgeZeroPairs] = {};

struct GemmRowArgs {
  const uint16_t* src;
  size_t pixel_stride, ky_stride, kx_stride;  // elements
  size_t kernel_y, kernel_x, pairs;
  // Kernel rows [ky_begin, min(ky_end, kernel_y)) are summed: the others
  // read only padding rows (zeros) for this output row (TapRows).
  size_t ky_begin = 0, ky_end = SIZE_MAX;
  // x86 only: each tap's last pair holds one value, its second element
  // is not read (multiplied as zero): a tap that is a whole kernel row of
  // an odd number of values, read in place (the next value may lie past
  // the source, or be an infinity that a zero weight would make NaN).
  bool half_last = false;
  const uint16_t* weight;
  size_t nblocks;  // ceil(ocg / 16)
  size_t width;
  float* out;  // [width][nblocks * 16]
  // x86 AVX512-BF16 only (MakeNhwcGemm's fused_rows): with `fused`, every
  // block's sums get the epilogue in registers (bias, then identity or ReLU,
  // then BF16 rounding as StoreRowAvx512Bf16 does, or FP32) and go to the
  // NHWC dst: pixel x, block channel c at fused->dst + x * pixel_stride + c
  // elements; `out` is not written. Every block must be whole (ocg a
  // multiple of 16; fused->channels is not read).
  const FusedStoreArgs* fused = nullptr;
  // x86 AVX512-BF16 with `fused` only (MakeNhwcGemm's pixel lists): the
  // call's width <= kListPixels pixels are a list, pixel m's window (tap
  // (0, 0)) at src + offsets[m] and its dst pixel pixels[m]; the taps are
  // kernel rows [ky_begin, ky_end) x columns [kx_begin, kx_end) (the
  // others read only padding); nblocks a multiple of 4.
  const size_t* offsets = nullptr;
  const size_t* pixels = nullptr;
  size_t kx_begin = 0, kx_end = SIZE_MAX;
  // x86 AVX512-BF16 only (MakeNhwcGemm's padded rows read in place), a
  // single block (nblocks 1), width >= 3, no offsets: with `edges`, `src`
  // is pixel 1's window at kernel row ky_begin (tap (ky_begin, 0)); every
  // tap of pixels 1 .. width - 2 lies inside the source, pixel 0 reads
  // padding (zeros, never addressed) at kernel columns kx < edge_lead and
  // pixel width - 1 at kx >= edge_tail; pairs <= kEdgeZeroPairs.
  bool edges = false;
  size_t edge_lead = 0, edge_tail = SIZE_MAX;
};
using GemmRowFn = void (*)(const GemmRowArgs& args);

// The FP32 GEMM row (x86 without AVX-512): out[x][oc] = sum over (ky, kx,
// ic) of rows[ky][offset + x * pixel_stride + kx * kx_stride + ic] * w.
// rows[ky] are the padded source rows tap row ky reads, FP32 holding BF16
// values; `channels` per group (no pair padding). `weight` holds BF16
// values as FP32 in blocks of 16 output channels: block nb at nb *
// kernel_y * kernel_x * channels * 16, its tap (ky, kx) input channel c at
// ((ky * kernel_x + kx) * channels + c) * 16 (zero past ocg), 64-byte
// aligned. The depthwise row takes the same arguments (conv16b_drivers.h).
//
// Optionally (`fused` not null, GEMM only) the row applies the epilogue to
// its first fused->channels output channels (a multiple of 16) in
// registers and stores them to the NHWC dst: bias, an activation of
// WithFusedActivation, BF16 rounding, exactly as StoreRow would; `out`
// then receives only the channels past them.
struct GemmRowF32Args {
  const float* const* rows;
  // Depthwise with stride or dilation > 1 from a BF16 NHWC source (any
  // stride in the in-place rows of MakeNhwcDepthwiseInPlace and
  // MakeNhwcDepthwiseWiden), instead of `rows`: BF16 rows with the same
  // element layout (pixel_stride, kx_stride), widened as each tap (or a
  // sliding tile) loads them; rows16[ky] is the first
  // window column of the call's pixel 0 (in the source itself or in a
  // zero-padded copy of a row's end). A row that multiplies them without
  // widening (a BF16 dot product) takes `weight` as BF16 values in the low
  // half of each 32-bit lane instead of FP32.
  const uint16_t* const* rows16 = nullptr;
  size_t offset, pixel_stride, kx_stride;  // elements
  size_t kernel_y, kernel_x, channels;
  // As GemmRowArgs; the depthwise rows skip the kernel rows outside too,
  // except the paired-row 3x3 dot tiles, which read rows16's zero rows.
  size_t ky_begin = 0, ky_end = SIZE_MAX;
  const float* weight;
  // With rows16, for the rows that split each BF16 source vector into its
  // even and odd channels (x86_f32::DepthwiseTileBf16x2): the weights as
  // BF16, [tap][channels] like `weight`.
  const uint16_t* weight16 = nullptr;
  size_t nblocks;  // ceil(ocg / 16)
  size_t width;
  // GEMM only: kernel columns [kx_begin, min(kx_end, kernel_x)) are summed,
  // the others read only padding for every pixel of the call (a column of
  // output pixels, pixel_stride a source row apart: NhwcGemmF32's
  // BandColumns).
  size_t kx_begin = 0, kx_end = SIZE_MAX;
  // row_pixels > 0: the call's pixels are rows of row_pixels pixels,
  // row_stride elements apart in `rows` (pixel x at (x / row_pixels) *
  // row_stride + (x % row_pixels) * pixel_stride), and row_pixels apart in
  // `out` and the fused dst: any number of rows where the row's tiles
  // wrap (x86_f32::HasRowWrap: AVX2, SSE4.1), else two (pair tiles).
  size_t row_pixels = 0, row_stride = 0;
  // 1: rows16[ky] is the first image column of a row read in place, and
  // pixel x's window starts at column x * stride - 1 (pixel 0's first
  // column, the left padding, reads as zeros). Only for the 3x3 stride-2
  // paired dot tiles (x86_f32::DepthwiseStride2PairTile) of rows whose
  // tiles are all that wide, and the AVX2 stride-2 sliding tiles
  // (x86_f32::DepthwiseSlideTile).
  size_t lead_zero = 0;
  // 1: the source image is larger than the L2, and the AVX2 stride-2
  // sliding depthwise tiles prefetch the next tile's columns into L1.
  size_t prefetch = 0;
  float* out;  // [width][nblocks * 16]
  const FusedStoreArgs* fused = nullptr;
};
using GemmRowF32Fn = void (*)(const GemmRowF32Args& args);
using PlanarRowToF32Fn = void (*)(const void* src, bool f32, size_t plane, size_t channels,
                                  size_t width, float* out);
// n FP32 values rounded to BF16 (SPEC §2) and kept as FP32: an NHWC FP32
// source row in one pass.
using RoundRowF32Fn = void (*)(const float* src, size_t n, float* out);

// One output row of a depthwise convolution (group == srcC == dstC):
// out[x][c] = sum over (ky, kx) of src[x * pixel_stride + ky * ky_stride +
// kx * kx_stride + c] * weight[(ky * kernel_x + kx) * cpad + c], c < channels.
// `weight` is FP32 holding BF16 values, zero for c >= channels.
struct DepthwiseRowArgs {
  const uint16_t* src;
  size_t pixel_stride, ky_stride, kx_stride;
  size_t kernel_y, kernel_x;
  size_t channels, cpad;  // cpad = round_up(channels, 16)
  const float* weight;
  size_t width;
  float* out;  // [width][cpad]
};
using DepthwiseRowFn = void (*)(const DepthwiseRowArgs& args);

struct Geometry;
struct Epilogue;
// Stores a row of sums like StoreOutput(g, e, sums, ld, n, oy, 0, dstW, c0, nc, dst).
using StoreRowFn = void (*)(const Geometry& g, const Epilogue& e, const float* sums, size_t ld,
                            size_t n, size_t oy, size_t c0, size_t nc, uint8_t* dst);

// A whole image (one group) for AMX, in blocks of 32 pixels x 32 output
// channels. Pixel m of row r reads tap t at src + r * row_stride + m *
// pixel_stride + taps[t] (BF16, `chunks` * 32 channels); `weight` is the
// pair-interleaved packing of GemmRowArgs (block nb at nb * ntaps * chunks *
// 512 elements). Each finished block goes to `store`: out[i * 32 + j] is
// pixel m0 + i (i < npix) of row r, channel 16 * nb + j (j < nc). With
// `overread` the kernel may read (and compute, then discard) up to 31
// pixels past the end of a row; without it a row must have >= 16 pixels and
// the last block is moved back to end at the row's end.
struct AmxImageArgs {
  const uint16_t* src;
  size_t rows, row_stride, pixels, pixel_stride;
  bool overread;
  const size_t* taps;
  size_t ntaps, chunks;
  const uint16_t* weight;
  size_t nblocks;
  void (*store)(const void* ctx, const float* out, size_t row, size_t m0, size_t npix, size_t nb,
                size_t nc);
  const void* ctx;
};

// Gathers im2row rows for output pixels [p0, p0 + npix) (p = oy * dst_w +
// ox) of a zero-padded NHWC image: row i, at out + i * kp (64-byte aligned,
// kp a multiple of 32), is built 32 elements at a time; piece j puts lanes
// `mask[j]` of chunk `chunk[j]` from origin + offset[j] + lane, where origin
// = src + (oy * stride_y * pw + ox * stride_x) * cp. Lanes no piece covers
// are zero. Pieces are sorted by chunk. The same row as segments, when
// each is at most seg_width (16 or 32; 0: not used) elements: segment j is
// the elements [seg_pos[j], next segment's) of the row, from origin +
// seg_offset[j], and the elements [k, kp) are zero; all rows but a call's
// last are built from whole seg_width-element loads and stores, so they read
// up to seg_width - 1 elements past a window's run (inside the image or
// the 64 bytes after it) and write up to seg_width - 1 past their row (the
// next row, built later).
struct Im2RowArgs {
  const uint16_t* src;
  size_t pw, cp, stride_y, stride_x, dst_w;
  const size_t* chunk;
  const ptrdiff_t* offset;
  const uint32_t* mask;
  size_t npieces, kp;
  const ptrdiff_t* seg_offset;
  const size_t* seg_pos;
  size_t nseg, k, seg_width;
  size_t p0, npix;
  uint16_t* out;
};

// Depthwise convolution of one block of 16 channels [c0, c0 + 16) (fewer
// at the end) from FP32 rows: out[x][j] = sum over (ky, kx), in that order,
// of rows[ky][(x * stride_x + kx * dilation_x) * 16 + j] * weight[(ky *
// kernel_x + kx) * 16 + j]. rows[ky] are zero-padded source rows [pw][16]
// holding BF16 values; weight holds BF16 values, zero past the channels.
struct DepthwiseF32Args {
  const float* const* rows;
  size_t kernel_y, kernel_x, stride_x, dilation_x;
  const float* weight;
  size_t c0;
  float* sums;  // [dstW][16] scratch for the epilogues not fused
};

// The channels [c0, c0 + nc) (nc <= 16) of `count` pixels `stride` elements
// apart, as BF16 values in FP32, to out[x * 16 + j] (zero for j >= nc).
// FP32 sources are rounded to BF16 first.
void WidenPixelsAvx512(const void* src, bool f32, size_t stride, size_t count, size_t nc,
                       float* out);
// The same from a planar (NCHW) row: channel j's pixels at src + j * plane.
void WidenPlanarAvx512(const void* src, bool f32, size_t plane, size_t nc, size_t width,
                       float* out);
// An NCHW row (channel c's `width` pixels at src + c * plane, FP32 or BF16)
// to BF16 NHWC: out[x * out_stride + c], 16 x 16 transposes.
void PlanarToNhwcAvx512(const void* src, bool f32, size_t plane, size_t channels, size_t width,
                        uint16_t* out, size_t out_stride);

// AMX for NCHW (C^T = W X): output channels are tile rows, pixels tile
// columns. `src` holds one group's channel pairs interleaved over the padded
// source grid: pair p's pixel i at src + p * pair_stride + 2 * i (both
// channels). Pixel m of the flat run reads tap t at pixel m + taps[t].
// `weight`: 1 KiB tiles [16 output channels][16 pairs x 2] at ((ob * ntaps
// + t) * chunks + k) * 512. Each finished 32 x 32 block goes to `store`:
// out[j * 32 + i] is output channel 16 * ob + j (j < nc), pixel m0 + i (i <
// npix). The kernel may read up to 31 pixels past `pixels` (caller's slack).
struct AmxNchwArgs {
  const uint16_t* src;
  size_t pair_stride, pixels;
  const size_t* taps;
  size_t ntaps, chunks;
  const uint16_t* weight;
  size_t oblocks;  // ceil(ocg / 16)
  void (*store)(const void* ctx, const float* out, size_t m0, size_t npix, size_t ob, size_t nc);
  const void* ctx;
};

// Stores npix pixels of sums (pixel i at sums + i * ld) that are consecutive
// in a virtual grid `vw` pixels wide from virtual pixel (oy, ox); pixels at
// virtual x >= dstW are skipped. `run` stores one row run like StoreOutput.
using StoreRunFn = void (*)(const Geometry& g, const Epilogue& e, const float* sums, size_t ld,
                            size_t n, size_t oy, size_t x0, size_t nx, size_t c0, size_t nc,
                            uint8_t* dst);
void StorePixels(StoreRunFn run, const Geometry& g, const Epilogue& e, const float* sums,
                 size_t ld, size_t n, size_t oy, size_t ox, size_t vw, size_t npix, size_t c0,
                 size_t nc, uint8_t* dst);

#if defined(__x86_64__)
// conv16b_avx2.cc (AVX2 + FMA) and conv16b_sse41.cc (SSE4.1): the FP32
// GEMM row and depthwise row (MakeNhwcDepthwiseF32); an NCHW source row as
// interleaved FP32 (BF16 values; out[x * channels + c]); a StoreRowFn for the activations that are a few FP32
// operations (bit-identical to StoreOutput), StoreOutputVector otherwise;
// the compute peak of the multiply-add (FLOPs performed).
void GemmRowF32Avx2(const GemmRowF32Args& args);
void PlanarRowToF32Avx2(const void* src, bool f32, size_t plane, size_t channels, size_t width,
                        float* out);
void DepthwiseRowF32Avx2(const GemmRowF32Args& args);
void StoreRowAvx2(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                  size_t oy, size_t c0, size_t nc, uint8_t* dst);
void RoundRowF32Avx2(const float* src, size_t n, float* out);
uint64_t PeakAvx2(uint64_t iterations);
void GemmRowF32Sse41(const GemmRowF32Args& args);
void PlanarRowToF32Sse41(const void* src, bool f32, size_t plane, size_t channels, size_t width,
                         float* out);
void DepthwiseRowF32Sse41(const GemmRowF32Args& args);
void StoreRowSse41(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                   size_t oy, size_t c0, size_t nc, uint8_t* dst);
void RoundRowF32Sse41(const float* src, size_t n, float* out);
uint64_t PeakSse41(uint64_t iterations);

// conv16b_avx512.cc: StoreOutput with AVX-512 for NHWC output (bias, the
// FP32-only activations, FP32 or BF16), bit-identical to StoreOutput; the
// other cases call StoreOutput.
void StoreRunAvx512(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                    size_t oy, size_t x0, size_t nx, size_t c0, size_t nc, uint8_t* dst);
// conv16b_avx512.cc: AVX-512 row store for NHWC output (bias, the FP32-only
// activations, FP32 or BF16), bit-identical to StoreOutput; the other cases
// call StoreOutput.
void StoreRowAvx512(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                    size_t oy, size_t c0, size_t nc, uint8_t* dst);
// conv16b_avx512.cc: DepthwiseRowF32Avx2's tiles on 16 lanes, for
// MakeNhwcDepthwiseF32: a strided BF16 NHWC source (GemmRowF32Args::
// rows16: every channel of a pixel group, each tap's load widened in place;
// nhwc_depthwise_strided) or whole FP32 rows (nhwc_depthwise_slide).
void StridedDepthwiseRowAvx512(const GemmRowF32Args& args);
// conv16b_avx512.cc: RoundRowF32Fn on 16 lanes (the FP32 rows of the
// AVX-512 depthwise algorithms).
void RoundRowF32Avx512(const float* src, size_t n, float* out);
// conv16b_avx512.cc: GemmRowF32Avx2's tiles on 16 lanes (FP32 rows and
// weights, MakeNhwcGemmF32), 12 pixels x 32 channels.
void GemmRowF32Avx512(const GemmRowF32Args& args);
void Im2RowAvx512(const Im2RowArgs& args);
// conv16b_avx512.cc: whether none of the n BF16 values is an infinity or
// a NaN (an exponent of all ones).
bool AllFiniteBf16Avx512(const uint16_t* p, size_t n);
// conv16b_avx512.cc: the block's row of output (n, oy) straight to dst
// (bias, activation, type; NHWC with a vector activation), else via a.sums
// and StoreOutput.
void DepthwiseRowF32Avx512(const DepthwiseF32Args& a, const Geometry& g, const Epilogue& e,
                           size_t n, size_t oy, uint8_t* dst);
using DepthwiseRowF32Fn = void (*)(const DepthwiseF32Args& a, const Geometry& g,
                                   const Epilogue& e, size_t n, size_t oy, uint8_t* dst);
// conv16b_avx512bf16.cc: the same, rounding with vcvtneps2bf16 (a third of
// the integer rounding's uops: +20% on depthwise 3x3).
void DepthwiseRowF32Avx512Bf16(const DepthwiseF32Args& a, const Geometry& g, const Epilogue& e,
                               size_t n, size_t oy, uint8_t* dst);
// conv16b_avx512bf16.cc: the same, rounding with vcvtneps2bf16.
void StridedDepthwiseRowAvx512Bf16(const GemmRowF32Args& args);
// conv16b_avx512bf16.cc: the same, the BF16 source rows multiplied by
// vdpbf16ps (zero-extended pairs) instead of widened for FMA.
void DotDepthwiseRowAvx512Bf16(const GemmRowF32Args& args);
// conv16b_avx512bf16.cc: vdpbf16ps.
void GemmRowAvx512Bf16(const GemmRowArgs& args);
// conv16b_avx512bf16.cc: StoreRowAvx512 with BF16 pairs of vectors rounded
// by one vcvtne2ps2bf16 (denormal lanes by the integer rounding).
void StoreRowAvx512Bf16(const Geometry& g, const Epilogue& e, const float* sums, size_t ld,
                        size_t n, size_t oy, size_t c0, size_t nc, uint8_t* dst);
// conv16b_avx512bf16.cc: StorePixels of an AMX block (sums 64-byte aligned,
// ld 32) with vcvtne2ps2bf16 for NHWC output; bit-identical to StoreOutput.
void StoreBlockAvx512Bf16(const Geometry& g, const Epilogue& e, const float* sums, size_t n,
                          size_t oy, size_t ox, size_t vw, size_t npix, size_t c0, size_t nc,
                          uint8_t* dst);
// conv16b_avx512bf16.cc: an AMX NCHW block (sums[j * 32 + i]: channel c0 +
// j, j < nc, virtual pixel (oy, ox) + i, i < npix, virtual rows vw wide) to
// an NCHW dst; Elu (outside WithFusedActivation) through StoreOutputVector.
void StoreNchwBlockAvx512Bf16(const Geometry& g, const Epilogue& e, const float* sums, size_t n,
                              size_t oy, size_t ox, size_t vw, size_t npix, size_t c0, size_t nc,
                              uint8_t* dst);
// conv16b_avx512.cc: rows [y0, y1) of channels 2p, 2p + 1 (p < pairs) of an
// NCHW image (FP32 rounded to BF16, or BF16) into pair-interleaved padded
// planes: out[p * pair_stride + 2 * ((y + pad_y) * pw + pad_x + x) + e].
void InterleavePairsAvx512(const void* src, bool f32, size_t plane, size_t width, size_t y0,
                           size_t y1, size_t pairs, size_t pw, size_t pad_y, size_t pad_x,
                           size_t pair_stride, uint16_t* out);
// Compute peaks for the benchmark: tight loops of independent FMAs /
// vdpbf16ps; return the FLOPs performed.
uint64_t PeakAvx512(uint64_t iterations);
uint64_t PeakAvx512Bf16(uint64_t iterations);
#endif

#if defined(__x86_64__)
// conv16b_amx.cc, built twice from the same source: with the AMX
// instructions (namespace amx_bf16, //conv16b) and against the tile emulator
// of core/amx_emu (namespace amx_emu, //conv16b:amx_emu, tests only).
namespace amx_bf16 {
// The tile configuration the kernels run under, loaded once around all the
// kernel calls of a Forward (BeginTiles) and released after them (EndTiles).
void BeginTiles();
void EndTiles();
void GemmImage(const AmxImageArgs& args);
void GemmImageNchw(const AmxNchwArgs& args);
// Compute peak: a loop of independent tdpbf16ps; returns the FLOPs.
uint64_t Peak(uint64_t iterations);
// The kernel's 2x2 tile step with its tile loads, one 32 x 32 block per
// iteration (tiles zeroed first, stored last): A = 32 rows x 8 chunks
// (16 KiB, 64-byte aligned), B = two blocks of b_chunks chunks (2 *
// b_chunks KiB, aligned, streaming hint like the kernel): the bound of the
// kernel's block at K = 32 * b_chunks, B in L1 up to ~16 chunks, from L2
// above.
uint64_t PeakLoads(uint64_t iterations, const uint16_t* a, const uint16_t* b, size_t b_chunks);
}  // namespace amx_bf16
namespace amx_emu {
void BeginTiles();
void EndTiles();
void GemmImage(const AmxImageArgs& args);
void GemmImageNchw(const AmxNchwArgs& args);
}  // namespace amx_emu
#endif

#if defined(__aarch64__)
// conv16b_neon.cc: BF16 widened to FP32, FMAs.
void GemmRowNeon(const GemmRowArgs& args);
// conv16b_neon.cc: a StoreRowFn with NEON for NHWC output and the
// activations that are a few FP32 operations (bit-identical to
// StoreOutput); StoreOutputVector otherwise.
void StoreRowNeon(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                  size_t oy, size_t c0, size_t nc, uint8_t* dst);
// conv16b_neon.cc: PlanarToNhwcAvx512's job with 4 x 4 transposes.
void PlanarToNhwcNeon(const void* src, bool f32, size_t plane, size_t channels, size_t width,
                      uint16_t* out, size_t out_stride);
// conv16b_neon.cc: depthwise, BF16 widened to FP32, FMAs (ky, kx order like ref).
void DepthwiseRowNeon(const DepthwiseRowArgs& args);
// conv16b_neon_bf16.cc: BFDOT.
void GemmRowNeonBf16(const GemmRowArgs& args);
#endif

}  // namespace conv16b_internal
}  // namespace synops

#endif  // SYNOPS_CONV16B_CONV16B_GEMM_H_
