// The AMX algorithms on core/amx_emu's tile emulator, for tests, the fuzzer
// and synbench on CPUs without AMX: the drivers of //conv16b with the
// kernels of conv16b_amx.cc built against the emulator (namespace amx_emu),
// registered as test-only algorithms under the same geometry rules as
// amx_bf16::*. Linked only into test binaries and synbench, never into
// //conv16b (CI checks `bazel query 'deps(//conv16b)'`).
#include <memory>

#include "conv16b/conv16b_drivers.h"
#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_kernels.h"

namespace synops {
namespace conv16b_internal {
namespace {

constexpr AmxKernels kAmxEmu{amx_emu::BeginTiles, amx_emu::EndTiles, amx_emu::GemmImage,
                             amx_emu::GemmImageNchw};

std::unique_ptr<Algorithm> AmxNchw(const Geometry& g) { return MakeAmxNchwGemm(g, kAmxEmu); }
std::unique_ptr<Algorithm> AmxNhwc(const Geometry& g) { return MakeAmxGemm(g, kAmxEmu); }
std::unique_ptr<Algorithm> AmxIm2Row(const Geometry& g) { return MakeAmxIm2Row(g, kAmxEmu); }

// The emulator itself needs AVX-512F; the drivers' epilogue
// (StoreBlockAvx512Bf16) and im2row gather need AVX512-BF16 and AVX-512.
const bool kRegistered = RegisterTestAlgorithms({
    {"amx_emu::nchw_gemm", Isa::kAvx512Bf16, AmxNchwFits, AmxNchw},
    {"amx_emu::nhwc_gemm", Isa::kAvx512Bf16, AmxFits, AmxNhwc},
    {"amx_emu::nhwc_im2row", Isa::kAvx512Bf16, AmxIm2RowFits, AmxIm2Row},
});

}  // namespace
}  // namespace conv16b_internal
}  // namespace synops
