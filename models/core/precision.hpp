#pragma once
// Numeric precision of a training job.

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace vtsim {

/// The arithmetic a job trains with. fp16 and bf16 mean mixed-precision training (AMP): tensor-core matrix math in the
/// 16-bit format, fp32 master weights and fp32 gradients.
enum class Precision { fp32, tf32, fp16, bf16 };

/// Every precision, in declaration order.
inline constexpr std::array<Precision, 4> kAllPrecisions = {Precision::fp32, Precision::tf32, Precision::fp16,
                                                            Precision::bf16};

/// The scenario spelling ("fp32", "tf32", "fp16", "bf16").
std::string_view to_string(Precision precision);
/// Parses the scenario spelling; nullopt when unknown.
std::optional<Precision> parse_precision(std::string_view text);
/// Whether `precision` is mixed precision (fp16 or bf16: 16-bit tensor-core math, fp32 master weights).
bool is_mixed_precision(Precision precision);
/// Whether cuDNN runs a convolution in `precision` as an NHWC tensor-core kernel where the GPU has tensor cores (fp16,
/// bf16 and TF32; fp32 runs on the CUDA cores): on NCHW tensors such a convolution is bracketed by layout transposes.
/// The precision alone decides: a 16-bit convolution on a GPU without tensor cores is taken to pay them too.
bool convolves_on_tensor_cores(Precision precision);
/// Bytes of one activation element as stored during training (4 for fp32/tf32, 2 for fp16/bf16 under AMP).
double activation_bytes(Precision precision);

}  // namespace vtsim
