#include "models/core/precision.hpp"

namespace vtsim {

std::string_view to_string(Precision precision) {
  switch (precision) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view text) {
  for (Precision p : kAllPrecisions) {
    if (to_string(p) == text) return p;
  }
  return std::nullopt;
}

bool is_mixed_precision(Precision precision) { return precision == Precision::fp16 || precision == Precision::bf16; }

bool convolves_on_tensor_cores(Precision precision) {
  return is_mixed_precision(precision) || precision == Precision::tf32;
}

double activation_bytes(Precision precision) {
  // TF32 is a tensor-core math mode: operands stay fp32 in memory (NVIDIA A100 whitepaper, "TF32").
  return is_mixed_precision(precision) ? 2.0 : 4.0;
}

}  // namespace vtsim
