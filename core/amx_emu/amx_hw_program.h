// One tile program, run on the AMX hardware (a CPU with AMX-BF16 only) or
// on the emulator, for amx_emu_test.
#ifndef SYNOPS_CORE_AMX_EMU_AMX_HW_PROGRAM_H_
#define SYNOPS_CORE_AMX_EMU_AMX_HW_PROGRAM_H_

#include "core/amx_emu/amx_emu.h"

namespace synops {
namespace amx_emu {

// With `config`: loads tile 0 from c, 1 from a, 2 from b, 3 from a2 (row
// stride 64 bytes), runs TDPBF16PS 0, 1, 2 then 0, 3, 2, stores tile 0 to
// c and releases the tiles.
void RunOnHardware(const TileConfig& config, float* c, const void* a, const void* b, const void* a2);
// The same program on the emulator.
void RunOnEmulator(const TileConfig& config, float* c, const void* a, const void* b, const void* a2);

}  // namespace amx_emu
}  // namespace synops

#endif  // SYNOPS_CORE_AMX_EMU_AMX_HW_PROGRAM_H_
