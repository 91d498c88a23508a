// The interface every op implements for synbench, and the op registry.
#ifndef SYNOPS_TOOLS_SYNBENCH_DRIVER_H_
#define SYNOPS_TOOLS_SYNBENCH_DRIVER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dispatch.h"
#include "core/status.h"
#include "tools/synbench/problem.h"

namespace synops {
namespace synbench {

struct KernelInfo {
  std::string name;
  Isa isa;
  // A kernel for tests only (conv16b's amx_emu::*, the AMX algorithms on the
  // tile emulator): checked, never timed.
  bool test_only = false;
};

struct CheckResult {
  bool ok = true;
  // The worst element's error over its SPEC bound (ULP over allowed ULP where
  // the bound is in ULP): 0 exact, <= 1 within the bound, +Inf for a mismatch
  // of a bit-exact contract or no bound allows.
  double bound_fraction = 0;
  std::string detail;     // first mismatch, if any
};

// One problem of one op. synbench calls Setup once, then Check and/or Run
// for each kernel.
class OpDriver {
 public:
  virtual ~OpDriver() = default;
  // Parses the problem and allocates inputs and outputs.
  virtual absl::Status Setup(const Problem& problem) = 0;
  // Every kernel of the op's table, best first, ref last.
  virtual std::vector<KernelInfo> Kernels() const = 0;
  // Runs `kernel` once (the timed call).
  virtual void Run(const std::string& kernel) = 0;
  // Runs `kernel` and compares its output with the reference at SPEC tolerance.
  virtual CheckResult Check(const std::string& kernel) = 0;
  // Bytes read + written by one call, and FLOPs (0 if not meaningful).
  virtual double Bytes() const = 0;
  virtual double Flops() const { return 0; }
};

using DriverFactory = std::function<std::unique_ptr<OpDriver>()>;

// Registers an op (at static-initialization time) with its default suite.
bool RegisterOp(const std::string& op, DriverFactory factory, std::vector<std::string> suite);

std::unique_ptr<OpDriver> MakeDriver(const std::string& op);
std::vector<std::string> RegisteredOps();
std::vector<std::string> DefaultSuite();

// KernelInfo list of a kernel table.
template <typename Fn>
std::vector<KernelInfo> KernelInfos(const KernelTable<Fn>& table) {
  std::vector<KernelInfo> infos;
  for (const auto& k : table.all()) infos.push_back({k.name, k.isa});
  return infos;
}

}  // namespace synbench
}  // namespace synops

#endif  // SYNOPS_TOOLS_SYNBENCH_DRIVER_H_
