// main() for fuzzers built without libFuzzer: runs LLVMFuzzerTestOneInput on
// every file named on the command line (directories are walked). The replay
// cc_test of each fuzzer runs its seed corpus and saved crash regressions
// this way under the default toolchain.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/harness.h"

namespace {

int RunFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    return 1;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  size_t count = 0;
  int errors = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
        if (!entry.is_regular_file()) continue;
        errors += RunFile(entry.path());
        ++count;
      }
    } else {
      errors += RunFile(arg);
      ++count;
    }
  }
  if (count == 0) {
    std::fprintf(stderr, "replay: no inputs given (an empty corpus tests nothing)\n");
    return 1;
  }
  std::printf("replay: %zu inputs, %d unreadable\n", count, errors);
  return errors == 0 ? 0 : 1;
}
