#include "tools/synbench/driver.h"

#include <map>

namespace synops {
namespace synbench {
namespace {

struct Entry {
  DriverFactory factory;
  std::vector<std::string> suite;
};

std::map<std::string, Entry>& Registry() {
  static auto* registry = new std::map<std::string, Entry>();
  return *registry;
}

}  // namespace

bool RegisterOp(const std::string& op, DriverFactory factory, std::vector<std::string> suite) {
  Registry()[op] = Entry{std::move(factory), std::move(suite)};
  return true;
}

std::unique_ptr<OpDriver> MakeDriver(const std::string& op) {
  auto it = Registry().find(op);
  return it == Registry().end() ? nullptr : it->second.factory();
}

std::vector<std::string> RegisteredOps() {
  std::vector<std::string> ops;
  for (const auto& [op, entry] : Registry()) ops.push_back(op);
  return ops;
}

std::vector<std::string> DefaultSuite() {
  std::vector<std::string> suite;
  for (const auto& [op, entry] : Registry()) suite.insert(suite.end(), entry.suite.begin(), entry.suite.end());
  return suite;
}

}  // namespace synbench
}  // namespace synops
