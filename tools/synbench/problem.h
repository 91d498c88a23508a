// synbench problem strings (oneDNN benchdnn style): "op:token,token,...".
// A token is either one or more key/value pairs glued together
// ("c512", "ic64ih56iw56") or a bare word flag ("nhwc", "fp32_to_bf16").
#ifndef SYNOPS_TOOLS_SYNBENCH_PROBLEM_H_
#define SYNOPS_TOOLS_SYNBENCH_PROBLEM_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace synops {
namespace synbench {

class Problem {
 public:
  static absl::StatusOr<Problem> Parse(absl::string_view text);

  const std::string& op() const { return op_; }
  const std::string& text() const { return text_; }
  bool Has(const std::string& flag) const { return flags_.count(flag) != 0; }
  bool HasValue(const std::string& key) const { return values_.count(key) != 0; }
  int64_t Get(const std::string& key, int64_t fallback) const;
  // Error naming the key if it is missing or negative.
  absl::StatusOr<size_t> Size(const std::string& key) const;
  // Error if a flag or key is not in the allowed sets (catches typos).
  absl::Status OnlyUses(const std::set<std::string>& keys, const std::set<std::string>& flags) const;

 private:
  std::string op_, text_;
  std::map<std::string, int64_t> values_;
  std::set<std::string> flags_;
};

}  // namespace synbench
}  // namespace synops

#endif  // SYNOPS_TOOLS_SYNBENCH_PROBLEM_H_
