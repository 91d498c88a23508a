// The algorithm families (one driver file each) and the geometry rules that
// send a problem to them; conv16b_algorithms.cc lists them in selection
// order.
#ifndef SYNOPS_CONV16B_CONV16B_DRIVERS_H_
#define SYNOPS_CONV16B_CONV16B_DRIVERS_H_

#include <memory>

#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_kernels.h"

namespace synops {
namespace conv16b_internal {

// ---- geometry rules (conv16b_algorithms.cc)

bool AnyGeometry(const Geometry& g);
// group == srcC == dstC.
bool IsDepthwise(const Geometry& g);
// AMX reads 32 input channels of a tap per tile row: whole chunks only.
bool AmxFits(const Geometry& g);
// NCHW in and out, 1x1, stride 1, whole 32-channel groups.
bool AmxNchwFits(const Geometry& g);
// Groups that are not whole 32-channel chunks, except depthwise.
bool AmxIm2RowFits(const Geometry& g);
// Few input channels per group (icg < 8) and a kernel of more than one
// tap, except depthwise: the stems, where the direct GEMM's K loop is a
// pair or two per tap.
bool Im2RowFits(const Geometry& g);

// ---- conv16b_gemm_driver.cc: nhwc_gemm, any geometry. Direct convolution
// over pair-interleaved packed weights with a GEMM row microkernel, reading
// a zero-padded BF16 NHWC copy of each source image (a BF16 NHWC source
// with even channel groups is read in place where it has no padding, or
// with `fused_rows` where the groups are single blocks whose padding only
// the rows' end pixels reach: GemmRowArgs::edges); each output row
// of sums goes through `store`, or with `fused_rows` (a row that takes
// GemmRowArgs::fused) is stored by the row itself where PackedGemm::FusedRows
// allows.
std::unique_ptr<Algorithm> MakeNhwcGemm(const Geometry& g, GemmRowFn row, StoreRowFn store,
                                        bool fused_rows);

// conv16b_gemm_driver.cc: nhwc_gemm and nhwc_depthwise for x86 without
// AVX-512: the padded source and the weights as FP32 (GemmRowF32Args), the
// same loop; `row` is a GEMM row, or for depthwise a depthwise row (every
// channel of an output row, weights [tap][cpad]).
// `planar` widens an NCHW source row, `round` an NHWC FP32 one. With
// `fused_rows` false the GEMM row stores every block's sums and `store`
// applies the whole epilogue (the AVX-512 row: x86_f32::GemmRow's kFused).
// `rows`: how many output rows one call of `row` may take
// (GemmRowF32Args::row_pixels): any number where its tiles wrap from one
// row to the next (AVX2, SSE4.1: x86_f32::HasRowWrap), else two (the
// AVX-512 pair tiles); narrow output rows then run several per call.
enum class RowsPerCall { kAny, kTwo };
std::unique_ptr<Algorithm> MakeNhwcGemmF32(const Geometry& g, GemmRowF32Fn row, StoreRowFn store,
                                           PlanarRowToF32Fn planar, RoundRowF32Fn round,
                                           bool fused_rows, RowsPerCall rows);
std::unique_ptr<Algorithm> MakeNhwcDepthwiseF32(const Geometry& g, GemmRowF32Fn row,
                                                StoreRowFn store, PlanarRowToF32Fn planar,
                                                RoundRowF32Fn round);
// The same, a BF16 NHWC source read in place at every stride (for a row
// that multiplies BF16 sources without widening them).
std::unique_ptr<Algorithm> MakeNhwcDepthwiseInPlace(const Geometry& g, GemmRowF32Fn row,
                                                    StoreRowFn store, PlanarRowToF32Fn planar,
                                                    RoundRowF32Fn round);
// MakeNhwcDepthwiseF32 that also reads a BF16 NHWC source in place at
// stride 1 for kernels 3, 5 or 7 columns wide (the sliding tiles widen each
// source vector as they load it; AVX2, SSE4.1). With `lead_zero` the row
// takes GemmRowF32Args::lead_zero at 3x3 stride 2 (the AVX2 sliding tiles),
// so such rows with padding 1 are read wholly in place.
std::unique_ptr<Algorithm> MakeNhwcDepthwiseWiden(const Geometry& g, GemmRowF32Fn row,
                                                  StoreRowFn store, PlanarRowToF32Fn planar,
                                                  RoundRowF32Fn round, bool lead_zero);

// ---- conv16b_depthwise.cc: nhwc_depthwise (the padded copy and a row
// microkernel, NEON) and, on x86, the FP32-ring depthwise.
std::unique_ptr<Algorithm> MakeNhwcDepthwise(const Geometry& g, DepthwiseRowFn row,
                                             StoreRowFn store);
#if defined(__x86_64__)
std::unique_ptr<Algorithm> MakeDepthwiseF32(const Geometry& g, DepthwiseRowF32Fn row);

// ---- conv16b_amx_driver.cc and conv16b_im2row.cc: the AMX algorithms. The
// kernels come from conv16b_amx.cc: built with the AMX instructions
// (amx_bf16::) or against the tile emulator (amx_emu::, tests only).
struct AmxKernels {
  void (*begin)();
  void (*end)();
  void (*image)(const AmxImageArgs& args);
  void (*nchw)(const AmxNchwArgs& args);
};
// The tiles configured for the kernel calls of one Forward. Loading the
// configuration in every kernel call (ldtilecfg) was 85% of the time the
// AMX im2row spent outside its tile loops, one call per 32-pixel band and
// group: about 14% of a 16-channel group 3x3 over 28x28.
class AmxTiles {
 public:
  explicit AmxTiles(const AmxKernels& k) : end_(k.end) { k.begin(); }
  ~AmxTiles() { end_(); }
  AmxTiles(const AmxTiles&) = delete;
  AmxTiles& operator=(const AmxTiles&) = delete;

 private:
  void (*end_)();
};
// Where AMX blocks of an NHWC algorithm go (the AmxImageArgs store): pixel
// p0 + m0 of a run of `row` is virtual pixel (row + pix / vw, pix % vw) of
// image n; block nb's channels start at c0 + 16 * (nb0 + nb), of the
// group's channels (a call for the group's blocks from nb0 on).
struct AmxStoreContext {
  const Geometry* g;
  const Epilogue* e;
  size_t n, c0, vw, p0;
  uint8_t* dst;
  size_t nb0 = 0;

  static void Store(const void* c, const float* out, size_t row, size_t m0, size_t npix,
                    size_t nb, size_t nc);
};
std::unique_ptr<Algorithm> MakeAmxGemm(const Geometry& g, const AmxKernels& k);
std::unique_ptr<Algorithm> MakeAmxNchwGemm(const Geometry& g, const AmxKernels& k);
std::unique_ptr<Algorithm> MakeAmxIm2Row(const Geometry& g, const AmxKernels& k);

// ---- conv16b_im2row.cc: nhwc_im2row for AVX512-BF16 (Im2RowFits): the same
// gather, one output row at a time, through the vdpbf16ps GEMM row kernel
// (fused_rows as MakeNhwcGemm's).
std::unique_ptr<Algorithm> MakeNhwcIm2Row(const Geometry& g, GemmRowFn row, StoreRowFn store,
                                          bool fused_rows);
#endif

}  // namespace conv16b_internal
}  // namespace synops

#endif  // SYNOPS_CONV16B_CONV16B_DRIVERS_H_
