// Argument-validation helpers. Every public entry point validates with these
// before touching memory, so an error never leaves a partial write behind.
#ifndef SYNOPS_CORE_STATUS_H_
#define SYNOPS_CORE_STATUS_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/types.h"

namespace synops {

// Returns early from the enclosing function if `expr` is not OK.
#define SYNOPS_RETURN_IF_ERROR(expr)              \
  do {                                            \
    ::absl::Status synops_status_ = (expr);       \
    if (!synops_status_.ok()) return synops_status_; \
  } while (0)

// `SYNOPS_ASSIGN_OR_RETURN(lhs, expr)`: `expr` is an absl::StatusOr; returns
// its status from the enclosing function if it is not OK, else moves its value
// into `lhs` (a declaration such as `const size_t n` or an existing variable).
#define SYNOPS_ASSIGN_OR_RETURN(lhs, expr) \
  SYNOPS_ASSIGN_OR_RETURN_IMPL_(SYNOPS_STATUS_CONCAT_(synops_statusor_, __LINE__), lhs, expr)
#define SYNOPS_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()
#define SYNOPS_STATUS_CONCAT_(a, b) SYNOPS_STATUS_CONCAT_IMPL_(a, b)
#define SYNOPS_STATUS_CONCAT_IMPL_(a, b) a##b

// InvalidArgument "`name`: `message`".
absl::Status InvalidArg(absl::string_view name, absl::string_view message);

// Error if `ptr` is null while `bytes` > 0 (a zero-sized array may be null).
absl::Status CheckPointer(const void* ptr, size_t bytes, absl::string_view name);

// Error unless `format` is kNchw or kNhwc.
absl::Status CheckFormat(TensorFormat format, absl::string_view name = "format");

// Multiplies the factors (the last is usually sizeof(T)) into *bytes; error
// naming `what` if the product overflows size_t or exceeds PTRDIFF_MAX.
absl::Status CheckedBytes(std::initializer_list<size_t> factors, absl::string_view what,
                          size_t* bytes);

// True if [a, a + a_bytes) and [b, b + b_bytes) share a byte.
bool Overlaps(const void* a, size_t a_bytes, const void* b, size_t b_bytes);

// Error if the two ranges overlap at all (ops where outputs may not alias inputs).
absl::Status CheckDisjoint(const void* out, size_t out_bytes, absl::string_view out_name,
                           const void* in, size_t in_bytes, absl::string_view in_name);

// Error if the ranges overlap partially; exactly the same pointer and extent is
// allowed (ops that may run in place).
absl::Status CheckSameOrDisjoint(const void* out, size_t out_bytes, absl::string_view out_name,
                                 const void* in, size_t in_bytes, absl::string_view in_name);

}  // namespace synops

#endif  // SYNOPS_CORE_STATUS_H_
