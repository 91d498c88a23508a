// The x86 depthwise row (DepthwiseRowF32Avx512 and its AVX512-BF16
// twin): FP32 FMAs over the ring of widened source rows, epilogue fused
// into the row. `Out::Store(d, mask, v)` rounds 16 FP32 values to BF16 and
// stores them (integer RNE on AVX-512, vcvtneps2bf16 on AVX512-BF16).
// Included by kernel files compiled with at least AVX-512 F/BW/VL/DQ.
#ifndef SYNOPS_CONV16B_CONV16B_X86_DEPTHWISE_INL_H_
#define SYNOPS_CONV16B_CONV16B_X86_DEPTHWISE_INL_H_

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "conv16b/conv16b_kernels.h"
#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_x86_epilogue-inl.h"

namespace synops {
namespace conv16b_internal {
namespace x86_depthwise {
namespace {

// PX output pixels from x of the block (store mask m).
template <class Out, Activation A, bool kBf16, bool kFused, int PX>
void Block(const DepthwiseF32Args& a, const Epilogue& e, size_t x, __mmask16 m,
                       size_t out_stride, uint8_t* dst) {
  // Every loop over PX is unrolled so acc stays in registers (GCC keeps the
  // array in memory otherwise).
  __m512 acc[PX];
#pragma GCC unroll 8
  for (int i = 0; i < PX; ++i) acc[i] = _mm512_setzero_ps();
  const size_t step = a.stride_x * 16;
  for (size_t ky = 0; ky < a.kernel_y; ++ky) {
    const float* r = a.rows[ky] + x * step;
    const float* w = a.weight + ky * a.kernel_x * 16;
    for (size_t kx = 0; kx < a.kernel_x; ++kx, r += a.dilation_x * 16, w += 16) {
      const __m512 wv = _mm512_load_ps(w);
#pragma GCC unroll 8
      for (int i = 0; i < PX; ++i) {
        acc[i] = _mm512_fmadd_ps(_mm512_load_ps(r + i * step), wv, acc[i]);
      }
    }
  }
  if (!kFused) {
#pragma GCC unroll 8
    for (int i = 0; i < PX; ++i) _mm512_store_ps(a.sums + (x + i) * 16, acc[i]);
    return;
  }
  const __m512 bias = _mm512_maskz_loadu_ps(m, e.bias + a.c0);
#pragma GCC unroll 8
  for (int i = 0; i < PX; ++i) {
    const __m512 v = ActivateV<A>(_mm512_add_ps(acc[i], bias), e.params, a.c0, m);
    const size_t at = (x + i) * out_stride;
    if (kBf16) {
      Out::Store(reinterpret_cast<uint16_t*>(dst) + at, m, v);
    } else {
      _mm512_mask_storeu_ps(reinterpret_cast<float*>(dst) + at, m, v);
    }
  }
}

template <class Out, Activation A, bool kBf16, bool kFused>
void RowT(const DepthwiseF32Args& a, const Geometry& g, const Epilogue& e, size_t n,
                     size_t oy, uint8_t* dst) {
  const ConvParams& p = g.p;
  const size_t nc = std::min<size_t>(16, p.dstC - a.c0);
  const __mmask16 m = __mmask16((1u << nc) - 1u);
  // dst of the block's row: element (x * dstC + j) from here.
  const size_t first = (n * p.dstH + oy) * p.dstW * p.dstC + a.c0;
  uint8_t* d = dst + first * (kBf16 ? 2 : 4);
  size_t x = 0;
  for (; x + 8 <= p.dstW; x += 8) Block<Out, A, kBf16, kFused, 8>(a, e, x, m, p.dstC, d);
  // Tails in 4, 2, 1 pixels: one pixel alone is a chain of kernelY *
  // kernelX dependent FMAs (7x7 at 14 wide: 0.82x oneDNN one at a time).
  if (x + 4 <= p.dstW) {
    Block<Out, A, kBf16, kFused, 4>(a, e, x, m, p.dstC, d);
    x += 4;
  }
  if (x + 2 <= p.dstW) {
    Block<Out, A, kBf16, kFused, 2>(a, e, x, m, p.dstC, d);
    x += 2;
  }
  if (x < p.dstW) Block<Out, A, kBf16, kFused, 1>(a, e, x, m, p.dstC, d);
  if (!kFused) StoreRunAvx512(g, e, a.sums, 16, n, oy, 0, p.dstW, a.c0, nc, dst);
}

template <class Out, Activation A>
void RowA(const DepthwiseF32Args& a, const Geometry& g, const Epilogue& e, size_t n,
                      size_t oy, uint8_t* dst) {
  if (g.p.dstT == DataType::k16b) {
    RowT<Out, A, true, true>(a, g, e, n, oy, dst);
  } else {
    RowT<Out, A, false, true>(a, g, e, n, oy, dst);
  }
}

// The block's row of output (n, oy): fused when NHWC with a vector
// activation, else through a.sums and StoreRunAvx512.
template <class Out>
void Row(const DepthwiseF32Args& a, const Geometry& g, const Epilogue& e, size_t n, size_t oy,
         uint8_t* dst) {
  if (g.p.dstF == TensorFormat::kNhwc &&
      WithFusedActivation(e.activation, [&](auto act) {
        RowA<Out, decltype(act)::value>(a, g, e, n, oy, dst);
      })) {
    return;
  }
  RowT<Out, Activation::kIdentity, false, false>(a, g, e, n, oy, dst);
}

}  // namespace
}  // namespace x86_depthwise
}  // namespace conv16b_internal
}  // namespace synops

#endif  // SYNOPS_CONV16B_CONV16B_X86_DEPTHWISE_INL_H_
