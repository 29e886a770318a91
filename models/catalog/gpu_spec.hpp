#pragma once
// One GPU model's datasheet figures (the type; models/catalog/gpu_catalog.hpp holds the catalogued entries and the
// look-up). The engine and the compute model read a GpuSpec the resolver found; they never look one up.
//
// Memory capacity is binary: a datasheet's "40 GB" of HBM or GDDR is 40 GiB (DRAM capacities are powers of two;
// nvidia-smi reports an A100 80GB as 81920 MiB), while bandwidths are decimal (a datasheet's 1,555 GB/s is 1.555e12
// B/s). Peaks are dense (no structured sparsity).

#include <optional>
#include <string>
#include <string_view>

#include "models/core/precision.hpp"

namespace vtsim {

/// One GPU model as its datasheet describes it.
struct GpuSpec {
  std::string id;                    ///< scenario key, lower case, e.g. "a100-40gb-sxm4"
  std::string name;                  ///< marketing name, e.g. "NVIDIA A100 40GB SXM4"
  std::string architecture;          ///< "Pascal", "Volta", "Turing", "Ampere", "Ada", "Hopper" or "Blackwell"
  int compute_capability = 0;        ///< CUDA compute capability x 10 (A100: 80, A10: 86, H100: 90)
  double fp32_flops = 0;             ///< dense FP32 peak on the CUDA cores, flop/s
  std::optional<double> tf32_flops;  ///< dense TF32 tensor-core peak, flop/s; nullopt where the GPU has no TF32
  std::optional<double> fp16_flops;  ///< dense FP16 peak with FP32 accumulate (tensor cores; P100: half2, no TCs)
  std::optional<double> bf16_flops;  ///< dense BF16 tensor-core peak, flop/s; nullopt where the GPU has no BF16
  std::optional<double> fp8_flops;   ///< dense FP8 tensor-core peak, flop/s (Hopper and later); catalogued, not simulated
  double memory_bytes = 0;           ///< device memory capacity, bytes (datasheet GB read as GiB)
  double memory_bandwidth_Bps = 0;   ///< device memory bandwidth, bytes/s (datasheet GB/s, decimal)
  double l2_bytes = 0;               ///< L2 cache, bytes (whitepaper or what the device reports; binary MB)
  int sm_count = 0;                  ///< streaming multiprocessors enabled on this product
  int mig_sm_count = 0;              ///< SMs usable with MIG on (the 7g profile's); 0 when the GPU has no MIG
  std::string nvlink_id;             ///< id in nvlink_catalog(); empty when the GPU has no NVLink
  int nvlink_links = 0;              ///< NVLink links per GPU; 0 when none
  int pcie_gen = 3;                  ///< PCIe generation of the GPU's x16 host interface: 3, 4 or 5
  double max_power_w = 0;            ///< board power limit (TDP) from the datasheet, W; catalogued, not simulated
  std::string source;                ///< short citation shown by `vtsim catalog gpus`
  /// What the product has that vtsim does not model (an NVLink bridge, MIG without catalogued profiles); empty when
  /// nothing. Named in the errors that refuse it.
  std::string not_modelled;

  /// Dense peak for `precision`, flop/s; nullopt when the GPU has no hardware path for it.
  std::optional<double> peak_flops(Precision precision) const;
};

/// Whether GPUs of `architecture` have tensor cores (Volta and later; Pascal's fp16 is half2 on the CUDA cores).
bool has_tensor_cores(std::string_view architecture);
/// Whether GPUs of `architecture` multiply fp32 operands as TF32 on their tensor cores (Ampere onwards).
bool has_tf32_tensor_cores(std::string_view architecture);

}  // namespace vtsim
