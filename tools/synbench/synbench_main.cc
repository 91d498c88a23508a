// synbench: check and time any synops op on any problem from the command line.
//
//   synbench [--mode=check|perf|both] [--isa=KERNEL] [--min_time=SECONDS] [problem ...]
// KERNEL is a kernel name (avx2, amx_bf16::nhwc_gemm) or the ISA prefix of
// algorithm names (avx2: every avx2::* algorithm).
//   synbench --list
//
// With no problem it runs the built-in suite of every registered op. For each
// problem and kernel it prints one row: max error vs the reference and
// pass/fail at SPEC.md tolerance (check), time per call, GB/s, GFLOP/s and the
// speed-up over the reference kernel (perf). Kernels the CPU cannot run are
// listed as "skip". Exit status 1 if any check failed or a problem was invalid;
// every failure prints the command that reproduces it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "core/cpu.h"
#include "core/dispatch.h"
#include "testing/avx_state.h"
#include "tools/synbench/driver.h"
#include "tools/synbench/problem.h"

namespace synops {
namespace synbench {
namespace {

struct Options {
  bool check = true;
  bool perf = true;
  std::string isa;  // empty: every kernel
  double min_time = 0.05;
  std::vector<std::string> problems;
};

// A kernel compiled for AVX must return with the upper halves of the
// vector registers clean (VZEROUPPER): its caller's legacy-SSE code (x86-64
// baseline code, SSE4.1 kernels) otherwise runs up to 4x slower on AMD Zen
// 5 (testing/avx_state.h). One more call of the kernel, alone, where the
// CPU reports the state; nothing to check elsewhere.
CheckResult CheckAvxStateClean(OpDriver& driver, const std::string& kernel) {
  CheckResult r;
  if (!testing::AvxStateObservable()) return r;
  testing::ClearAvxUpperState();
  driver.Run(kernel);
  if (testing::AvxUpperStateDirty()) {
    r.ok = false;
    r.detail = "returned with the upper halves of the vector registers in use (no VZEROUPPER)";
  }
  return r;
}

void Usage() {
  std::fprintf(stderr,
               "usage: synbench [--mode=check|perf|both] [--isa=KERNEL] [--min_time=SECONDS] "
               "[problem ...]\n       synbench --list\n");
}

// Seconds per call: the best of several batches, each at least ~2 ms long.
double TimeKernel(OpDriver& driver, const std::string& kernel, double min_time) {
  using Clock = std::chrono::steady_clock;
  driver.Run(kernel);  // warm-up
  size_t reps = 1;
  double best = 1e30;
  const auto start = Clock::now();
  for (;;) {
    const auto t0 = Clock::now();
    for (size_t r = 0; r < reps; ++r) driver.Run(kernel);
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::min(best, dt / static_cast<double>(reps));
    if (dt < 2e-3 && reps < (size_t{1} << 30)) {
      reps *= 2;
      continue;
    }
    if (std::chrono::duration<double>(Clock::now() - start).count() >= min_time) break;
  }
  return best;
}

int Run(const Options& opt) {
  std::printf("synbench: cpu features: %s; caches: %s\n", CpuFeaturesString().c_str(),
              CacheSizesString().c_str());
  std::printf("%-12s %-40s %-11s %-5s %-10s %12s %9s %9s %8s\n", "op", "problem", "kernel", "check",
              "err/bound", "time_us", "GB/s", "GFLOP/s", "vs_ref");
  int passed = 0, failed = 0;
  for (const std::string& text : opt.problems) {
    auto problem = Problem::Parse(text);
    std::unique_ptr<OpDriver> driver;
    if (problem.ok()) driver = MakeDriver(problem->op());
    absl::Status setup = !problem.ok() ? problem.status()
                         : driver     ? driver->Setup(*problem)
                                      : absl::InvalidArgumentError("unknown op '" + problem->op() + "'");
    if (!setup.ok()) {
      std::printf("%-12s %-40s INVALID: %s\n", problem.ok() ? problem->op().c_str() : "?",
                  text.c_str(), std::string(setup.message()).c_str());
      ++failed;
      continue;
    }
    const std::vector<KernelInfo> kernels = driver->Kernels();
    double ref_time = 0;
    if (opt.perf) {
      for (const KernelInfo& k : kernels) {
        if (k.isa == Isa::kRef) ref_time = TimeKernel(*driver, k.name, opt.min_time);
      }
    }
    bool any = false;
    for (const KernelInfo& k : kernels) {
      // --isa names a kernel, or an ISA prefix of conv16b's algorithm
      // names (--isa=avx2: every avx2::* algorithm).
      if (!opt.isa.empty() && k.name != opt.isa && !absl::StartsWith(k.name, opt.isa + "::")) continue;
      any = true;
      if (!CpuSupports(k.isa)) {
        std::printf("%-12s %-40s %-11s skip (CPU lacks %s)\n", problem->op().c_str(), text.c_str(),
                    k.name.c_str(), IsaName(k.isa));
        continue;
      }
      if (k.test_only && !opt.check) {
        std::printf("%-12s %-40s %-11s skip (test-only kernel: checked, not timed)\n",
                    problem->op().c_str(), text.c_str(), k.name.c_str());
        continue;
      }
      std::string check = "-";
      char err[32] = "-";
      if (opt.check) {
        CheckResult r = driver->Check(k.name);
        if (r.ok) r = CheckAvxStateClean(*driver, k.name);
        check = r.ok ? "ok" : "FAIL";
        std::snprintf(err, sizeof(err), "%.3g", r.bound_fraction);
        if (r.ok) {
          ++passed;
        } else {
          ++failed;
        }
        if (!r.ok) {
          std::printf("FAIL %s kernel %s: %s\n  reproduce: ./bazelw run //tools:synbench -- "
                      "--mode=check --isa=%s '%s'\n",
                      text.c_str(), k.name.c_str(), r.detail.c_str(), k.name.c_str(), text.c_str());
        }
      }
      char time_us[32] = "-", gbs[32] = "-", gflops[32] = "-", vs_ref[32] = "-";
      if (opt.perf && !k.test_only) {
        const double t = k.isa == Isa::kRef ? ref_time : TimeKernel(*driver, k.name, opt.min_time);
        std::snprintf(time_us, sizeof(time_us), "%.2f", t * 1e6);
        std::snprintf(gbs, sizeof(gbs), "%.2f", driver->Bytes() / t * 1e-9);
        if (driver->Flops() > 0) std::snprintf(gflops, sizeof(gflops), "%.2f", driver->Flops() / t * 1e-9);
        if (ref_time > 0) std::snprintf(vs_ref, sizeof(vs_ref), "%.2fx", ref_time / t);
      }
      std::printf("%-12s %-40s %-11s %-5s %-10s %12s %9s %9s %8s\n", problem->op().c_str(),
                  text.c_str(), k.name.c_str(), check.c_str(), err, time_us, gbs, gflops, vs_ref);
    }
    if (!any) {
      std::printf("%-12s %-40s INVALID: no kernel named '%s'\n", problem->op().c_str(), text.c_str(),
                  opt.isa.c_str());
      ++failed;
    }
    std::fflush(stdout);
  }
  if (opt.check) std::printf("synbench: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace synbench
}  // namespace synops

int main(int argc, char** argv) {
  using namespace synops::synbench;  // NOLINT
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--list") {
      for (const std::string& op : RegisteredOps()) std::printf("%s\n", op.c_str());
      std::printf("\ndefault suite:\n");
      for (const std::string& p : DefaultSuite()) std::printf("  %s\n", p.c_str());
      return 0;
    } else if (absl::StartsWith(arg, "--mode=")) {
      const std::string mode = arg.substr(7);
      opt.check = mode == "check" || mode == "both";
      opt.perf = mode == "perf" || mode == "both";
      if (!opt.check && !opt.perf) {
        Usage();
        return 2;
      }
    } else if (absl::StartsWith(arg, "--isa=")) {
      opt.isa = arg.substr(6);
    } else if (absl::StartsWith(arg, "--min_time=")) {
      if (!absl::SimpleAtod(arg.substr(11), &opt.min_time)) {
        Usage();
        return 2;
      }
    } else if (arg == "--help" || arg == "-h") {
      Usage();
      return 0;
    } else if (absl::StartsWith(arg, "--")) {
      Usage();
      return 2;
    } else {
      opt.problems.push_back(arg);
    }
  }
  if (opt.problems.empty()) opt.problems = DefaultSuite();
  return Run(opt);
}
