#include "core/status.h"

#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"

namespace synops {

absl::Status InvalidArg(absl::string_view name, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(name, ": ", message));
}

absl::Status CheckPointer(const void* ptr, size_t bytes, absl::string_view name) {
  if (ptr == nullptr && bytes > 0) return InvalidArg(name, "must not be null");
  return absl::OkStatus();
}

absl::Status CheckFormat(TensorFormat format, absl::string_view name) {
  if (!IsValidFormat(format)) {
    return InvalidArg(name, absl::StrCat("unsupported tensor format ", static_cast<int>(format),
                                         " (expected 0 = NCHW or 1 = NHWC)"));
  }
  return absl::OkStatus();
}

absl::Status CheckedBytes(std::initializer_list<size_t> factors, absl::string_view what,
                          size_t* bytes) {
  size_t product = 1;
  bool zero = false;
  bool overflow = false;
  for (size_t f : factors) {
    if (f == 0) zero = true;
    if (!overflow && __builtin_mul_overflow(product, f, &product)) overflow = true;
  }
  if (zero) {
    *bytes = 0;
    return absl::OkStatus();
  }
  if (overflow || product > static_cast<size_t>(std::numeric_limits<ptrdiff_t>::max())) {
    return InvalidArg(what, "size in bytes overflows");
  }
  *bytes = product;
  return absl::OkStatus();
}

bool Overlaps(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0 || a == nullptr || b == nullptr) return false;
  const uintptr_t pa = reinterpret_cast<uintptr_t>(a);
  const uintptr_t pb = reinterpret_cast<uintptr_t>(b);
  return pa < pb + b_bytes && pb < pa + a_bytes;
}

absl::Status CheckDisjoint(const void* out, size_t out_bytes, absl::string_view out_name,
                           const void* in, size_t in_bytes, absl::string_view in_name) {
  if (Overlaps(out, out_bytes, in, in_bytes)) {
    return InvalidArg(out_name, absl::StrCat("must not overlap ", in_name));
  }
  return absl::OkStatus();
}

absl::Status CheckSameOrDisjoint(const void* out, size_t out_bytes, absl::string_view out_name,
                                 const void* in, size_t in_bytes, absl::string_view in_name) {
  if (out == in && out_bytes == in_bytes) return absl::OkStatus();
  if (Overlaps(out, out_bytes, in, in_bytes)) {
    return InvalidArg(out_name, absl::StrCat("partially overlaps ", in_name,
                                             " (only dst == src exactly is allowed)"));
  }
  return absl::OkStatus();
}

}  // namespace synops
