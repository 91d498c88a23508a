#include "tools/synbench/problem.h"

#include <cctype>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace synops {
namespace synbench {
namespace {

// "ic64ih56" -> {ic: 64, ih: 56}; false if the token is not entirely pairs.
bool ParsePairs(absl::string_view token, std::map<std::string, int64_t>* out) {
  std::map<std::string, int64_t> pairs;
  size_t i = 0;
  while (i < token.size()) {
    size_t key_end = i;
    while (key_end < token.size() && std::isalpha(static_cast<unsigned char>(token[key_end]))) {
      ++key_end;
    }
    size_t num_end = key_end;
    if (num_end < token.size() && token[num_end] == '-') ++num_end;
    while (num_end < token.size() && std::isdigit(static_cast<unsigned char>(token[num_end]))) {
      ++num_end;
    }
    int64_t value;
    if (key_end == i || num_end == key_end ||
        !absl::SimpleAtoi(token.substr(key_end, num_end - key_end), &value)) {
      return false;
    }
    pairs[std::string(token.substr(i, key_end - i))] = value;
    i = num_end;
  }
  out->insert(pairs.begin(), pairs.end());
  return !pairs.empty();
}

}  // namespace

absl::StatusOr<Problem> Problem::Parse(absl::string_view text) {
  Problem p;
  p.text_ = std::string(text);
  const size_t colon = text.find(':');
  if (colon == absl::string_view::npos || colon == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("problem '", text, "': expected op:token,token,... (e.g. channel_sum:c64,s3136,nhwc)"));
  }
  p.op_ = std::string(text.substr(0, colon));
  for (absl::string_view token : absl::StrSplit(text.substr(colon + 1), ',', absl::SkipEmpty())) {
    if (!ParsePairs(token, &p.values_)) p.flags_.insert(std::string(token));
  }
  return p;
}

int64_t Problem::Get(const std::string& key, int64_t fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

absl::StatusOr<size_t> Problem::Size(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("problem '", text_, "': missing ", key, "<N>"));
  }
  if (it->second < 0) {
    return absl::InvalidArgumentError(absl::StrCat("problem '", text_, "': ", key, " is negative"));
  }
  return static_cast<size_t>(it->second);
}

absl::Status Problem::OnlyUses(const std::set<std::string>& keys,
                               const std::set<std::string>& flags) const {
  for (const auto& [key, value] : values_) {
    if (!keys.count(key)) {
      return absl::InvalidArgumentError(absl::StrCat("problem '", text_, "': unknown key '", key, "'"));
    }
  }
  for (const std::string& flag : flags_) {
    if (!flags.count(flag)) {
      return absl::InvalidArgumentError(absl::StrCat("problem '", text_, "': unknown word '", flag, "'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace synbench
}  // namespace synops
