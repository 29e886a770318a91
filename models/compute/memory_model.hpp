#pragma once
// Memory model: what one rank of a data-parallel job keeps in device memory, and whether it fits
// (docs/design.md, "The model", item 3: a model that does not fit in a MIG slice or a vGPU profile is an error).
//
// Per rank (no sharding of weights, gradients or optimizer state: plain data parallelism, as Horovod runs it):
//   weights      4 B per parameter (fp32 master copy), + 2 B per parameter under fp16/bf16 AMP (the 16-bit copy the
//                kernels read)
//   gradients    4 B per trainable parameter (fp32, also under AMP; workload.hpp)
//   optimizer    8 B per trainable parameter for Adam (two fp32 moments), 4 B for SGD with momentum (one)
//   activations  batch x (stored_activation_elements x activation_bytes(precision) + stored_mask_elements x 1 B)
//                (what forward keeps for backward; dropout masks are bool)
//   workspace    a fixed allowance for the CUDA context and library workspaces (uncalibrated; memory_model.cpp)

#include <string>

#include "models/core/precision.hpp"
#include "models/workload/workload.hpp"

namespace vtsim {

/// Device memory one rank needs, by what it holds, bytes.
struct MemoryFootprint {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double workspace_bytes = 0;

  /// The sum of the parts, bytes.
  double total_bytes() const;
};

/// Bytes of model state per parameter, by what holds them (the file comment's figures).
struct StateBytesPerParameter {
  double master = 4;     ///< fp32 weights: the master copy under AMP, the weights themselves otherwise
  double half = 0;       ///< the 16-bit copy AMP's kernels read (0 without AMP)
  double gradient = 4;   ///< fp32 gradients, per trainable parameter
  double optimizer = 4;  ///< per trainable parameter: Adam's two fp32 moments (8) or SGD's momentum (4)
};

/// What each parameter of `workload` costs in `precision`.
StateBytesPerParameter state_bytes_per_parameter(const Workload& workload, Precision precision);

/// Bytes one weight moves when ZeRO gathers it: its 16-bit copy under mixed precision, else the weight itself.
double gathered_bytes_per_parameter(const Workload& workload, Precision precision);

/// The fixed allowance for the CUDA context, cuBLAS/cuDNN workspaces and allocator slack, bytes (uncalibrated).
double workspace_allowance_bytes();

/// What one rank training `workload` with `batch` samples per iteration in `precision` keeps in memory.
/// REQUIRES: batch >= 1.
MemoryFootprint memory_footprint(const Workload& workload, int batch, Precision precision);

/// "" when the footprint fits in `capacity_bytes`; else one line with the numbers in GiB, e.g. "needs 45.3 GiB per GPU
/// (weights 1.9, gradients 1.3, optimizer 2.5, activations 39.1, workspace 1.0) but A100X-20C has 20.0 GiB".
std::string memory_shortfall(const MemoryFootprint& footprint, double capacity_bytes, const std::string& device);

}  // namespace vtsim
