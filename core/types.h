// Enums shared by every op, with the values of the original C API (SPEC.md §1).
#ifndef SYNOPS_CORE_TYPES_H_
#define SYNOPS_CORE_TYPES_H_

namespace synops {

// Memory layout of a 4D tensor. NCHW offset ((n*C + c)*H + h)*W + w;
// NHWC offset ((n*H + h)*W + w)*C + c.
enum class TensorFormat : int {
  kUnknown = -1,
  kNchw = 0,
  kNhwc = 1,
};

// Element type. Only k32f and k16b (BF16 in uint16_t) are accepted by ops;
// the other values exist so that the original enum values stay reserved.
enum class DataType : int {
  k32f = 0,
  k32i = 1,
  k8i = 2,
  k8u = 3,
  k64i = 4,
  k64u = 5,
  kBool = 6,
  k16b = 7,
  k16f = 8,
};

inline bool IsValidFormat(TensorFormat f) {
  return f == TensorFormat::kNchw || f == TensorFormat::kNhwc;
}

inline const char* FormatName(TensorFormat f) {
  switch (f) {
    case TensorFormat::kNchw:
      return "nchw";
    case TensorFormat::kNhwc:
      return "nhwc";
    default:
      return "unknown";
  }
}

}  // namespace synops

#endif  // SYNOPS_CORE_TYPES_H_
