// The AMX intrinsics synops uses, on the tile emulator: a kernel source
// written for <immintrin.h>'s AMX intrinsics includes this header instead
// (under a define, e.g. SYNOPS_AMX_EMULATE in conv16b_amx.cc) and is built
// without -mamx-tile / -mamx-bf16. The same source then runs on any CPU
// with AVX-512F, bit for bit as on AMX (see amx_emu.h).
#ifndef SYNOPS_CORE_AMX_EMU_AMX_EMU_INTRIN_H_
#define SYNOPS_CORE_AMX_EMU_AMX_EMU_INTRIN_H_

#include <immintrin.h>

#include "core/amx_emu/amx_emu.h"

// GCC's <immintrin.h> defines some of these as macros (the tile-number
// operands must be immediates) and the others as target("amx-tile")
// functions; function-like macros replace both.
#undef _tile_loadconfig
#undef _tile_storeconfig
#undef _tile_release
#undef _tile_zero
#undef _tile_loadd
#undef _tile_stream_loadd
#undef _tile_stored
#undef _tile_dpbf16ps

#define _tile_loadconfig(config) ::synops::amx_emu::LoadConfig(config)
#define _tile_storeconfig(config) ::synops::amx_emu::StoreConfig(config)
#define _tile_release() ::synops::amx_emu::Release()
#define _tile_zero(tile) ::synops::amx_emu::Zero(tile)
#define _tile_loadd(tile, base, stride) ::synops::amx_emu::Load(tile, base, stride)
#define _tile_stream_loadd(tile, base, stride) ::synops::amx_emu::Load(tile, base, stride)
#define _tile_stored(tile, base, stride) ::synops::amx_emu::Store(tile, base, stride)
#define _tile_dpbf16ps(dst, src1, src2) ::synops::amx_emu::DpBf16ps(dst, src1, src2)

#endif  // SYNOPS_CORE_AMX_EMU_AMX_EMU_INTRIN_H_
